"""Contingency: matched heatmap, split/merge diagnosis, class → cluster flow."""

from __future__ import annotations

import streamlit as st

from dashboard.compute import evaluation as compute
from dashboard.figures.panels import contingency_panel, sankey_panel
from dashboard.session import state
from dashboard.ui import widgets as ui

MODES = {"counts": "counts", "row": "row-normalised", "column": "column-normalised"}


def render() -> None:
    s = state.get()
    conv = state.conventions()
    pred = state.active_pred(s)
    ui.page_header("Contingency", s, pred, conv)
    if not ui.require(s, pred):
        return
    c1, c2 = st.columns([2, 3])
    mode = c1.radio(
        "Colour shows",
        list(MODES),
        format_func=MODES.__getitem__,
        horizontal=True,
        key="ct_mode",
        persist_state="session",
    )
    min_share = c2.slider(
        "Share that counts as a real part (for the diagnosis)",
        0.02,
        0.5,
        0.10,
        0.01,
        key="ct_min_share",
        persist_state="session",
        help="A class is split when two or more clusters each hold at least this share of it; "
        "a cluster merges when two or more classes each make up at least this share of it.",
    )
    with ui.guarded("building the contingency table"):
        pa = compute.partition(s.truth, pred, conv)
        ui.note(
            f"{pa.n_classes} classes x {pa.n_clusters} clusters, {pa.n_samples:,} "
            f"points; ACC {pa.accuracy:.3f}; noise policy: {conv.noise_policy} "
            f"({pa.n_noise:,} noise points); matched pairs outlined on the diagonal"
        )
        ui.chart(contingency_panel(pa, mode=mode), key="contingency_heatmap")

        d = pa.diagnosis(min_share)
        st.subheader("Split / merge diagnosis")
        n_split, n_merge = len(d["splits"]), len(d["merges"])
        if n_split == n_merge == 0:
            st.success("No class is split and no cluster merges classes at this share.")
        else:
            verdict = {
                (True, True): "both over-segments (splits) and under-segments (merges)",
                (True, False): "over-segments: it splits classes",
                (False, True): "under-segments: it merges classes",
            }[(n_split > 0, n_merge > 0)]
            st.write(
                f"{n_split} class(es) spread over several clusters and {n_merge} cluster(s) "
                f"mixing several classes: the clustering {verdict}."
            )
        a, b = st.columns(2)
        with a:
            st.markdown("**Classes split over clusters**")
            if d["splits"]:
                st.dataframe(d["splits"], hide_index=True, key="ct_splits")
            else:
                st.caption("none")
        with b:
            st.markdown("**Clusters merging classes**")
            if d["merges"]:
                st.dataframe(d["merges"], hide_index=True, key="ct_merges")
            else:
                st.caption("none")

        ui.chart(sankey_panel(pa), key="contingency_sankey")


if __name__ == "__main__":
    render()
