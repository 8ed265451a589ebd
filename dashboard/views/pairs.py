"""Pair confusion: the 2 x 2 matrix over unordered pairs, its reading and the pair scores."""

from __future__ import annotations

import streamlit as st

from dashboard.compute import evaluation as compute
from dashboard.figures.pairs import PAIR_SCORES
from dashboard.figures.panels import pair_matrix_panel, pair_scores_panel
from dashboard.session import state
from dashboard.ui import widgets as ui


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
            for line in pa.pair_reading():
                st.write(line)
            total = m["pair_tp"] + m["pair_fp"] + m["pair_fn"] + m["pair_tn"]
            st.caption(f"{total:,} unordered pairs of {m['n_samples']:,} points.")
        ui.chart(pair_scores_panel(pa), key="pair_scores")
        st.dataframe(
            [
                {"score": name, "value": compute.fmt(m[k])}
                for k, name in PAIR_SCORES.items()
                if k in m
            ],
            hide_index=True,
            key="pair_table",
        )


if __name__ == "__main__":
    render()
