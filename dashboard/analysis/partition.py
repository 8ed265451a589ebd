"""Pure derivations for display (no Streamlit, no Plotly): orderings, diagnoses, mean ± std.

:mod:`dashboard.analysis.objects` builds the analysis objects with these; tests call them
directly.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Unmatched clusters beyond this many are summed into one "other clusters" column for display.
MAX_DISPLAY_COLS = 150
SORT_MODES = ("ground truth", "prediction", "ground truth, then prediction")


# ---------------------------------------------------------------- contingency ordering
def order_contingency(
    table: np.ndarray,
    class_names: Sequence[str],
    cluster_names: Sequence[str],
    class_index: np.ndarray,
    cluster_index: np.ndarray,
    *,
    max_cols: int = MAX_DISPLAY_COLS,
) -> dict[str, Any]:
    """Reorder a classes x clusters table so matched pairs sit on the diagonal.

    Rows: matched classes (in class order), then unmatched classes. Columns: the cluster matched
    to each of those rows, then unmatched clusters, each placed by the class it mostly holds and
    then by size. Past ``max_cols`` columns the smallest unmatched clusters are summed into one
    column named "(n other clusters)".

    Returns a dict with ``table`` (int64), ``rows``, ``cols`` (names, as str), ``n_matched``,
    ``row_order``, ``col_order`` (indices into the input) and ``n_other`` (clusters summed).

    Examples
    --------
    >>> t = np.array([[0, 5, 1], [4, 0, 0]])
    >>> out = order_contingency(t, ["a", "b"], ["x", "y", "z"], np.array([0, 1]), np.array([1, 0]))
    >>> out["table"].tolist(), out["cols"], out["n_matched"]
    ([[5, 0, 1], [0, 4, 0]], ['y', 'x', 'z'], 2)
    """
    table = np.asarray(table)
    k, c = table.shape
    ci = np.asarray(class_index, dtype=np.int64)
    cj = np.asarray(cluster_index, dtype=np.int64)
    keep = np.argsort(ci, kind="stable")
    ci, cj = ci[keep], cj[keep]
    unmatched_rows = np.setdiff1d(np.arange(k), ci)
    row_order = np.concatenate([ci, unmatched_rows]).astype(np.int64)
    row_pos = np.empty(k, dtype=np.int64)
    row_pos[row_order] = np.arange(k)
    unmatched_cols = np.setdiff1d(np.arange(c), cj)
    if unmatched_cols.size:
        sub = table[:, unmatched_cols]
        home = row_pos[np.argmax(sub, axis=0)]
        size = sub.sum(axis=0)
        unmatched_cols = unmatched_cols[np.lexsort((-size, home))]
    n_other = 0
    other = None
    room = max(max_cols - len(cj), 0)
    if unmatched_cols.size > room:
        sizes = table[:, unmatched_cols].sum(axis=0)
        keep_mask = np.zeros(unmatched_cols.size, dtype=bool)
        keep_mask[np.argsort(-sizes, kind="stable")[:room]] = True
        other = table[:, unmatched_cols[~keep_mask]].sum(axis=1)
        n_other = int((~keep_mask).sum())
        unmatched_cols = unmatched_cols[keep_mask]
    col_order = np.concatenate([cj, unmatched_cols]).astype(np.int64)
    out_table = table[np.ix_(row_order, col_order)].astype(np.int64)
    cols = [str(cluster_names[j]) for j in col_order]
    if other is not None:
        out_table = np.column_stack([out_table, other[row_order]])
        cols.append(f"({n_other} other clusters)")
    return {
        "table": out_table,
        "rows": [str(class_names[i]) for i in row_order],
        "cols": cols,
        "n_matched": len(ci),
        "row_order": row_order,
        "col_order": col_order,
        "n_other": n_other,
    }


def matched_order(
    table: np.ndarray, class_names: Sequence[str], cluster_names: Sequence[str]
) -> dict[str, Any]:
    """:func:`order_contingency` by the optimal one-to-one matching of ``table`` itself.

    For small tables that have no labels behind them (the Learn page).

    Examples
    --------
    >>> out = matched_order(np.array([[3, 44, 3], [2, 4, 44]]), ["A", "B"], ["1", "2", "3"])
    >>> out["cols"], out["table"].tolist(), out["n_matched"]
    (['2', '3', '1'], [[44, 3, 3], [4, 44, 2]], 2)
    """
    import metrics_core as mc

    t = np.asarray(table, dtype=np.int64)
    m = mc.best_matching(contingency=t)
    return order_contingency(
        t, class_names, cluster_names, np.asarray(m.class_index), np.asarray(m.cluster_index)
    )


def normalise_table(table: np.ndarray, mode: str) -> np.ndarray:
    """``"counts"``, ``"row"`` (share of each class) or ``"column"`` (share of each cluster).

    Examples
    --------
    >>> normalise_table(np.array([[1, 3], [0, 4]]), "row").tolist()
    [[0.25, 0.75], [0.0, 1.0]]
    """
    t = np.asarray(table, dtype=np.float64)
    if mode == "row":
        s = t.sum(axis=1, keepdims=True)
    elif mode == "column":
        s = t.sum(axis=0, keepdims=True)
    else:
        return t
    return np.divide(t, s, out=np.zeros_like(t), where=s > 0)


def sankey_links(
    table: np.ndarray, *, max_links: int = 300, min_share: float = 0.01
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(source row, target column, count) of the class → cluster flows worth drawing.

    Keeps flows holding at least ``min_share`` of their class, at most ``max_links`` (largest).
    """
    t = np.asarray(table)
    share = normalise_table(t, "row")
    r, c = np.nonzero((t > 0) & (share >= min_share))
    v = t[r, c]
    if v.size > max_links:
        top = np.argsort(-v, kind="stable")[:max_links]
        r, c, v = r[top], c[top], v[top]
    return r, c, v


# ---------------------------------------------------------------- affinity ordering
def display_order(
    true_codes: np.ndarray, pred_codes: np.ndarray | None, mode: str
) -> tuple[np.ndarray, np.ndarray]:
    """Point order for the affinity plot and the group code of each position.

    ``mode``: ``"ground truth"`` (groups = classes), ``"prediction"`` (groups = clusters) or
    ``"ground truth, then prediction"`` (groups = classes, each sorted by cluster inside).
    Sorting is stable, so points keep their file order inside a group.

    Examples
    --------
    >>> order, groups = display_order(np.array([1, 0, 1, 0]), np.array([0, 1, 1, 0]), "prediction")
    >>> order.tolist(), groups.tolist()
    ([0, 3, 1, 2], [0, 0, 1, 1])
    """
    t = np.asarray(true_codes)
    if mode == "prediction" and pred_codes is not None:
        order = np.argsort(pred_codes, kind="stable")
        return order, np.asarray(pred_codes)[order]
    if mode == "ground truth, then prediction" and pred_codes is not None:
        order = np.lexsort((pred_codes, t))
        return order, t[order]
    order = np.argsort(t, kind="stable")
    return order, t[order]
