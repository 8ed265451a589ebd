"""Two predictions of the same points side by side (UI-free).

- the **A × B contingency** in matched order (A's clusters as rows, B's as columns);
- the **metric deltas** B − A of every headline metric;
- the **points that changed cluster** (a point changes when its B cluster is not the one matched
  to its A cluster) and, for each, whether it moved **toward** its class (wrong in A, right in B —
  right meaning: in the cluster matched to its class by ACC's optimal matching), **away** from it
  (right in A, wrong in B) or **sideways** (wrong in both).

Examples
--------
>>> c = compare([0, 0, 1, 1], [0, 1, 1, 1], [0, 0, 1, 1], Conventions())
>>> c.moved["direction"].tolist(), c.summary["toward"], c.summary["away"]
(['toward'], 1, 0)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

import metrics_core as mc
from dashboard.analysis import partition as ordering
from dashboard.analysis.conventions import Conventions

HEADLINE = ("acc", "nmi", "ari", "ami", "purity", "f_measure", "pair_f1")
#: Rows of the moved-points table sent to the page (the counts cover every point).
MAX_ROWS = 2000


@dataclass(frozen=True, eq=False)
class Comparison:
    """A × B table (matched order), metric rows, moved points and their summary."""

    table: np.ndarray
    rows: list[str]
    cols: list[str]
    n_matched: int
    metrics: list[dict[str, Any]]
    moved: pd.DataFrame
    summary: dict[str, int]


def _right(labels_true: np.ndarray, pred: np.ndarray) -> np.ndarray:
    """Per point: is it in the cluster the optimal matching gives its class?"""
    c = mc.contingency_table(labels_true, pred)
    m = mc.best_matching(contingency=c)
    class_of = np.full(c.n_clusters, -1, dtype=np.int64)
    class_of[np.asarray(m.cluster_index, dtype=np.int64)] = np.asarray(m.class_index)
    t_codes = np.searchsorted(c.classes, labels_true)
    p_codes = np.searchsorted(c.clusters, pred)
    return class_of[p_codes] == t_codes


def compare(labels_true: Any, pred_a: Any, pred_b: Any, conv: Conventions) -> Comparison:
    """Everything the Compare page shows, from the three label vectors."""
    t = np.asarray(labels_true)
    a, b = np.asarray(pred_a), np.asarray(pred_b)
    ab = mc.contingency_table(a, b)
    match = mc.best_matching(contingency=ab)
    ci = np.asarray(match.class_index, dtype=np.int64)
    cj = np.asarray(match.cluster_index, dtype=np.int64)
    out = ordering.order_contingency(
        ab.dense(), [str(x) for x in ab.classes], [str(x) for x in ab.clusters], ci, cj
    )
    ma = mc.evaluate(t, a, average_method=conv.average_method, noise_policy=conv.noise_policy)
    mb = mc.evaluate(t, b, average_method=conv.average_method, noise_policy=conv.noise_policy)
    metrics = [
        {"metric": k, "A": float(ma[k]), "B": float(mb[k]), "B − A": float(mb[k] - ma[k])}
        for k in HEADLINE
    ]
    # A point changes cluster when its B cluster is not the one matched to its A cluster.
    b_of = np.full(ab.n_classes, -1, dtype=np.int64)
    b_of[ci] = cj
    changed = b_of[np.searchsorted(ab.classes, a)] != np.searchsorted(ab.clusters, b)
    right_a, right_b = _right(t, a), _right(t, b)
    direction = np.where(
        right_b & ~right_a, "toward", np.where(right_a & ~right_b, "away", "sideways")
    )
    idx = np.flatnonzero(changed)
    moved = pd.DataFrame(
        {
            "point": idx,
            "class": [str(x) for x in t[idx]],
            "A": [str(x) for x in a[idx]],
            "B": [str(x) for x in b[idx]],
            "direction": direction[idx],
        }
    )
    summary = {
        "points": int(t.size),
        "changed": int(changed.sum()),
        "toward": int(((direction == "toward") & changed).sum()),
        "away": int(((direction == "away") & changed).sum()),
        "sideways": int(((direction == "sideways") & changed).sum()),
    }
    order = {"away": 0, "toward": 1, "sideways": 2}
    moved = moved.sort_values("direction", key=lambda s: s.map(order), kind="stable")
    return Comparison(
        out["table"], out["rows"], out["cols"], out["n_matched"], metrics,
        moved.head(MAX_ROWS).reset_index(drop=True), summary,
    )  # fmt: skip
