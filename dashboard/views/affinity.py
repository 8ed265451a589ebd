"""Affinity: block-structured |C| + |C|ᵀ, per-class CONN and SRE, per-point SRE, leakage."""

from __future__ import annotations

import streamlit as st

from dashboard.analysis.focus import affinity_reading, involves
from dashboard.analysis.objects import SORT_MODES
from dashboard.compute import evaluation as compute
from dashboard.figures.affinity import sre_points
from dashboard.figures.panels import affinity_panel, conn_panel, leakage_panel, sre_class_panel
from dashboard.session import state
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
    focus = diag.focus_from_query()
    with ui.guarded("computing SRE and CONN"):
        aff = compute.affinity(s.truth, s.coef_for(pred), conv)
        summ = aff.summary
        a, b = st.columns(2)
        with a:
            ui.chart(conn_panel(aff, focus=focus), key="conn_bars")
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
            ui.chart(sre_class_panel(aff, focus=focus), key="sre_class")
            ui.note(
                f"SRE {compute.fmt(summ['sre'], 3)} over all points; "
                f"{summ['sre_zero_rows']:,} all-zero representations"
            )
        pts = compute.sre_points_display(s.truth, s.coef_for(pred), conv)
        ui.chart(
            sre_points(
                pts["values"], pts["groups"], pts["bounds"], pts["names"], point_index=pts["order"]
            ),
            key="sre_points",
        )
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
            leakage_panel(aff, absolute=scale.startswith("absolute"), focus=focus),
            key="leakage_matrix",
        )


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
            diag.show_focus(focus, lines, outlined="its blocks, bars and leakage outlined in "
                            "magenta")  # fmt: skip
            if pred is not None:
                found = compute.diagnosis(s.truth, pred, s.coef, conv)
                diag.show_findings([f for f in found if involves(f, focus)], here="affinity")
    with ui.guarded("drawing the affinity"):
        disp = compute.affinity_display(s.truth, pred, s.coef_for(pred), sort_mode)
        ui.chart(affinity_panel(disp, log=colour == "log", focus=focus), key="affinity_plot")


if __name__ == "__main__":
    render()
