"""Compare two predictions of the same points: A × B table, metric deltas, who moved where."""

from __future__ import annotations

import streamlit as st

from dashboard.compute import evaluation as compute
from dashboard.figures.contingency import contingency_heatmap, sankey
from dashboard.session import state
from dashboard.ui import widgets as ui
from metrics_core.evaluation import column_label

DIRECTION_WORDS = {
    "toward": "moved toward its class (wrong in A, right in B)",
    "away": "moved away from its class (right in A, wrong in B)",
    "sideways": "moved, wrong in both",
}


def render() -> None:
    s = state.get()
    conv = state.conventions()
    pred = state.active_pred(s)
    ui.page_header("Compare predictions", s, pred, conv)
    if not ui.require(s, pred):
        return
    names = [p.name for p in s.compatible_preds()]
    if len(names) < 2:
        st.info("Upload a second prediction of the same points in the sidebar to compare two.")
        return
    c1, c2 = st.columns(2)
    a_name = c1.selectbox("A", names, index=names.index(pred.name), key="cmp_a")
    rest = [n for n in names if n != a_name]
    b_name = c2.selectbox("B", rest, key="cmp_b")
    a, b = s.pred(a_name), s.pred(b_name)
    with ui.guarded("comparing the predictions"):
        cmp = compute.comparison_of(s.truth, a, b, conv)
        sm = cmp.summary
        ui.metric_cards(
            [
                ("points that changed cluster", f"{sm['changed']:,} / {sm['points']:,}"),
                ("toward their class", f"{sm['toward']:,}"),
                ("away from their class", f"{sm['away']:,}"),
                ("wrong in both", f"{sm['sideways']:,}"),
            ],
            per_row=4,
            border=True,
        )
        ui.note(
            "A point changed cluster when its B cluster is not the one matched to its A cluster "
            "(optimal matching of the A × B table); 'right' means in the cluster that ACC's "
            "matching gives its class."
        )
        st.subheader("Metrics, B − A")
        rows = [
            {"metric": column_label(r["metric"]), "A": f"{r['A']:.4f}",
             "B": f"{r['B']:.4f}", "B − A": f"{r['B − A']:+.4f}"}
            for r in cmp.metrics
        ]  # fmt: skip
        ma = compute.metrics(s.truth, a, s.coef, conv)
        mb = compute.metrics(s.truth, b, s.coef, conv)
        for k in ("sre", "conn_min", "conn_mean"):
            if k in ma and k in mb:
                rows.append({"metric": column_label(k), "A": f"{ma[k]:.4f}",
                             "B": f"{mb[k]:.4f}", "B − A": f"{mb[k] - ma[k]:+.4f}"})  # fmt: skip
        # one static element (st.table renders each of its ~60 cells as a Markdown element)
        ui.static_table(rows, list(rows[0]))
        ca, cb = s.coef_for(a), s.coef_for(b)
        if ca is not None and cb is not None:
            same = ca.key == cb.key
            ui.note(
                "SRE (lower is better) and CONN come from each prediction's C: "
                + ("both use the same C, so they cannot differ" if same
                   else f"A's is {ca.name}, B's is {cb.name}")
            )  # fmt: skip
        ui.note(
            "Is a difference real? Summary → 'Is it a real difference?' computes a paired "
            "bootstrap of B − A on the same points."
        )
        left, right = st.columns(2)
        with left:
            ui.chart(
                contingency_heatmap(
                    cmp.table, cmp.rows, cmp.cols, n_matched=cmp.n_matched,
                    title="A × B: the same points in both", row_title="A cluster",
                    col_title="B cluster, matched to A's on the diagonal first",
                ),
                key="cmp_heatmap",
            )  # fmt: skip
        with right:
            import numpy as np

            t = np.asarray(cmp.table)
            src, dst = np.nonzero(t)
            ui.chart(
                sankey(
                    t, cmp.rows, cmp.cols, sources=src, targets=dst, values=t[src, dst],
                    n_matched=cmp.n_matched, title="Where A's clusters go in B",
                    row_word="A", col_word="B",
                    subtitle="the table's matched order; a matched B cluster takes A's colour",
                ),
                key="cmp_flow",
            )  # fmt: skip
        st.subheader("The points that changed cluster")
        if cmp.moved.empty:
            st.success("No point changed cluster: A and B are the same partition.")
            return
        shown = cmp.moved.assign(direction=cmp.moved["direction"].map(DIRECTION_WORDS))
        if len(shown) <= ui.STATIC_MAX_ROWS:
            # every moved point shows at once (away first), and no data grid is mounted on each
            # visit (the demo's 23 points: issue 14)
            rows = shown.astype(str).to_dict("records")
            ui.static_table(rows, [str(c) for c in shown.columns])
        else:  # many: a grid that scrolls and sorts
            st.dataframe(shown, hide_index=True, key="cmp_moved")
        if sm["changed"] > len(cmp.moved):
            ui.note(f"first {len(cmp.moved):,} of {sm['changed']:,} shown (away first)")


if __name__ == "__main__":
    render()
