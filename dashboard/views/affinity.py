"""Affinity: block-structured |C| + |C|ᵀ, per-class CONN and SRE, per-point SRE, leakage."""

from __future__ import annotations

from dataclasses import dataclass

import streamlit as st

from dashboard.analysis.conventions import Conventions
from dashboard.analysis.focus import Focus, affinity_reading, involves
from dashboard.analysis.objects import SORT_MODES, AffinityAnalysis
from dashboard.compute import evaluation as compute
from dashboard.figures.affinity import sre_points
from dashboard.figures.panels import affinity_panel, conn_panel, leakage_panel, sre_class_panel
from dashboard.session import state
from dashboard.session.state import Input
from dashboard.ui import diagnosis as diag
from dashboard.ui import widgets as ui


def render() -> None:
    s = state.get()
    conv = state.conventions()
    pred = state.active_pred(s)
    ui.page_header("Affinity", s, pred, conv)
    if not ui.require(s, pred, need_coef=True, need_pred=False):
        return
    if pred is None:
        ui.note("no prediction loaded: SRE, CONN, leakage and the affinity plot need only the "
                "ground truth and C")  # fmt: skip
    _plot_part()
    _detail_part()


#: The open tab of the part below the plot (only it is built): the one last opened, kept for
#: the session (:func:`ui.tab_strip`), so the next visit opens on it.
K_TAB = "aff_tab"


@dataclass(frozen=True)
class _Inputs:
    """What a tab draws from, besides the analysis: the inputs, conventions and focus."""

    truth: Input
    coef: Input
    conv: Conventions
    focus: Focus


def _per_class(aff: AffinityAnalysis, ctx: _Inputs) -> None:
    """CONN and SRE of each class, side by side, with what they measure."""
    summ = aff.summary
    a, b = st.columns(2)
    with a:
        ui.chart(conn_panel(aff, focus=ctx.focus), key="conn_bars")
        skipped = aff.conn_skipped
        ui.note(
            f"CONN min {compute.fmt(summ['conn_min'], 3)}, mean "
            f"{compute.fmt(summ['conn_mean'], 3)}"
            + (f"; one-point classes skipped: {len(skipped)}" if skipped else "")
            + ". λ₂ is the second-smallest eigenvalue of the normalised Laplacian of the "
            "class's own affinity graph (|C| + |C|ᵀ restricted to the class): 0 when the "
            "class's points fall into disconnected pieces."
        )
    with b:
        ui.chart(sre_class_panel(aff, focus=ctx.focus), key="sre_class")
        ui.note(
            f"SRE {compute.fmt(summ['sre'], 3)} over all points; "
            f"{summ['sre_zero_rows']:,} all-zero representations"
        )


def _per_point(aff: AffinityAnalysis, ctx: _Inputs) -> None:
    """The SRE of every point, in the ground truth's order."""
    pts = compute.sre_points_display(ctx.truth, ctx.coef, ctx.conv)
    ui.chart(
        sre_points(
            pts["values"], pts["groups"], pts["bounds"], pts["names"], point_index=pts["order"]
        ),
        key="sre_points",
    )
    ui.note(
        "a point's SRE is the share of its coefficients' ℓ1 mass on points of other classes "
        "(0: subspace-preserving); the mean over all points is "
        + compute.fmt(aff.summary["sre"], 3)
    )


def _leakage(aff: AffinityAnalysis, ctx: _Inputs) -> None:
    """The coefficient mass of each class on each other class, with its colour scale."""
    scale = st.radio(
        "Leakage colour scale",
        ["absolute (shares 0–1)", "stretched to the largest leak"],
        horizontal=True,
        key="aff_leak_scale",
        persist_state="session",
        help="absolute: one colour is one share in every figure; stretched: small leaks "
        "stand out, but colours of two figures cannot be compared",
    )
    ui.chart(
        leakage_panel(aff, absolute=scale.startswith("absolute"), focus=ctx.focus),
        key="leakage_matrix",
    )


#: Tab label -> what draws it.
TABS = {
    "Per class: CONN and SRE": _per_class,
    "Per point: SRE": _per_point,
    "Between classes: leakage": _leakage,
}


@st.fragment
def _detail_part() -> None:
    """Per class, per point and between classes, one tab each; only the open tab is built.

    A visit drew five charts one after another, three of them below the first screen: the
    browser took 0.30–0.43 s after the script to draw them, most of the page's first visit
    (issue 14; tests/benchmarks/HISTORY.md). A tab, or the leakage colour scale, reruns this
    part alone: the plot above and the sidebar are unchanged by it.
    """
    s = state.get()
    conv = state.conventions()
    pred = state.active_pred(s)
    ctx = _Inputs(s.truth, s.coef_for(pred), conv, diag.focus_from_query())
    with ui.guarded("computing SRE and CONN"):
        aff = compute.affinity(s.truth, ctx.coef, conv)
        opened, body = ui.tab_strip(list(TABS), K_TAB, "Affinity: details")
        with body:
            TABS[opened](aff, ctx)


@st.fragment
def _plot_part() -> None:
    """The sort and colour choices, and the plot they change (with the reading of the class the
    page was opened on, which stands between them). A choice reruns this part alone: a rerun of
    the whole page rebuilt the sidebar and sent every other chart again (issue 14: switching the
    colour took 0.27 s in median against 0.23 s so, tests/benchmarks/bench_browser.py)."""
    s = state.get()
    conv = state.conventions()
    pred = state.active_pred(s)
    c1, c2 = st.columns([3, 2])
    modes = list(SORT_MODES) if pred is not None else [m for m in SORT_MODES if "pred" not in m]
    sort_mode = c1.radio(
        "Sort points by",
        modes,
        horizontal=True,
        key="aff_sort" if pred is not None else "aff_sort_truth_only",
        persist_state="session",
    )
    colour = c2.radio(
        "Colour",
        ["log", "linear"],
        horizontal=True,
        key="aff_colour",
        persist_state="session",
    )
    ui.note(
        f"C read by {conv.effective_orientation}"
        + (f" (preset {conv.preset})" if conv.preset else "")
        + "; W = |C| + |C|ᵀ is symmetric, so the plot does not depend on it"
    )
    focus = diag.focus_from_query()
    if focus:
        with ui.guarded("reading the class this page was opened on"):
            aff = compute.affinity(s.truth, s.coef_for(pred), conv)
            lines = affinity_reading(aff, focus, weak_conn=conv.weak_conn)
            diag.show_focus(focus, lines, outlined="its blocks, bars and leaks outlined in "
                            "magenta; the leaks under “Between classes: leakage”")  # fmt: skip
            if pred is not None:
                found = compute.diagnosis(s.truth, pred, s.coef, conv)
                diag.show_findings([f for f in found if involves(f, focus)], here="affinity")
    with ui.guarded("drawing the affinity"):
        disp = compute.affinity_display(s.truth, pred, s.coef_for(pred), sort_mode)
        ui.chart(affinity_panel(disp, log=colour == "log", focus=focus), key="affinity_plot")


if __name__ == "__main__":
    render()
