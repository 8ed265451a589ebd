"""Contingency: matched heatmap, the splits/merges reading (shared with every page), class →
cluster flow."""

from __future__ import annotations

import streamlit as st

from dashboard.analysis.focus import where_it_goes
from dashboard.compute import evaluation as compute
from dashboard.figures.panels import contingency_panel, sankey_panel
from dashboard.session import state
from dashboard.ui import diagnosis as diag
from dashboard.ui import widgets as ui

MODES = {"counts": "counts", "row": "row-normalised", "column": "column-normalised"}


def render() -> None:
    s = state.get()
    conv = state.conventions()
    pred = state.active_pred(s)
    ui.page_header("Contingency", s, pred, conv)
    if not ui.require(s, pred):
        return
    mode = st.radio(
        "Colour shows",
        list(MODES),
        format_func=MODES.__getitem__,
        horizontal=True,
        key="ct_mode",
        persist_state="session",
    )
    with ui.guarded("building the contingency table"):
        pa = compute.partition(s.truth, pred, conv)
        ui.note(
            f"{pa.n_classes} classes x {pa.n_clusters} clusters, {pa.n_samples:,} "
            f"points; ACC {pa.accuracy:.3f}; noise policy: {conv.noise_policy} "
            f"({pa.n_noise:,} noise points); matched pairs outlined on the diagonal"
        )
        focus = diag.focus_from_query()
        t = pa.table
        diag.show_focus(focus, where_it_goes(t.table, t.rows, t.cols, focus),
                        outlined="outlined in magenta")  # fmt: skip
        ui.chart(contingency_panel(pa, mode=mode, focus=focus), key="contingency_heatmap")

        st.subheader("Splits, merges and misassigned points")
        diag.thresholds_controls()
        found = compute.diagnosis(s.truth, pred, s.coef, conv)
        diag.show_verdict(found)
        diag.show_findings(found, limit=20, here="contingency")

        ui.chart(sankey_panel(pa), key="contingency_sankey")


if __name__ == "__main__":
    render()
