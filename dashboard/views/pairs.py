"""Pair confusion: the 2 x 2 matrix over unordered pairs, its reading and the pair scores."""

from __future__ import annotations

import streamlit as st

from dashboard.compute import evaluation as compute
from dashboard.figures.pairs import PAIR_SCORES
from dashboard.figures.panels import pair_matrix_panel, pair_scores_panel
from dashboard.session import state
from dashboard.ui import diagnosis as diag
from dashboard.ui import widgets as ui
from metrics_core.diagnosis import pair_view


def render() -> None:
    s = state.get()
    conv = state.conventions()
    pred = state.active_pred(s)
    ui.page_header("Pair confusion", s, pred, conv)
    if not ui.require(s, pred):
        return
    with ui.guarded("counting pairs"):
        pa = compute.partition(s.truth, pred, conv)
        m = pa.metrics
        left, right = st.columns([3, 2])
        with left:
            ui.chart(pair_matrix_panel(pa), key="pair_matrix")
        with right:
            st.subheader("Reading")
            found = compute.diagnosis(s.truth, pred, s.coef, conv)
            diag.show_verdict(found)
            for line in pair_view(found, m["pair_fp"], m["pair_fn"]):
                st.write(line)
            for line in pa.pair_counts_reading():
                st.write(line)
            ui.note(
                "the first line is the verdict shared with Summary and Contingency (in points, "
                "with the same thresholds); the others say what the pair scores make of it"
            )
            total = m["pair_tp"] + m["pair_fp"] + m["pair_fn"] + m["pair_tn"]
            st.caption(f"{total:,} unordered pairs of {m['n_samples']:,} points.")
        ui.chart(pair_scores_panel(pa), key="pair_scores")
        # one static element (a data grid mounted on each visit cost the browser more than
        # these few rows need: issue 14)
        ui.static_table(
            [
                {"score": name, "value": compute.fmt(m[k])}
                for k, name in PAIR_SCORES.items()
                if k in m
            ],
            ["score", "value"],
            fit=True,
        )


if __name__ == "__main__":
    render()
