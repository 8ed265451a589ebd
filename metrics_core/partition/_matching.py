"""Set-matching metrics: accuracy under the optimal one-to-one matching, purity, F-measure."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import min_weight_full_bipartite_matching

from metrics_core.partition._contingency import Contingency, as_contingency

# Dense Hungarian above this many cells would need too much memory; larger (sparse) tables use
# the sparse bipartite matcher, which is exact too.
DENSE_MATCHING_CELL_LIMIT = 16_000_000


@dataclass(frozen=True)
class Matching:
    """The optimal one-to-one matching of classes to clusters.

    Attributes
    ----------
    class_index, cluster_index : numpy.ndarray
        Row and column indices (into ``Contingency.classes`` / ``.clusters``) of the matched
        pairs, sorted by class index. Pairs with zero overlap are left out. With more clusters
        than classes some clusters stay unmatched (and vice versa).
    matched_counts : numpy.ndarray
        ``table[class_index, cluster_index]``.
    n_samples : int
    """

    class_index: np.ndarray
    cluster_index: np.ndarray
    matched_counts: np.ndarray
    n_samples: int

    @property
    def accuracy(self) -> float:
        """Share of points on matched pairs (ACC)."""
        if self.n_samples == 0:
            return 1.0
        return float(self.matched_counts.sum() / self.n_samples)

    def mapping(self, classes: np.ndarray, clusters: np.ndarray) -> dict[Any, Any]:
        """Cluster label → class label for every matched cluster."""
        return {
            clusters[j].item(): classes[i].item()
            for i, j in zip(self.class_index, self.cluster_index, strict=True)
        }


def _match(c: Contingency) -> Matching:
    t = c.table
    if c.n_samples == 0:
        empty = np.zeros(0, dtype=np.intp)
        return Matching(empty, empty, np.zeros(0, dtype=np.int64), 0)
    if not sp.issparse(t) or t.shape[0] * t.shape[1] <= DENSE_MATCHING_CELL_LIMIT:
        # imported here: scipy.optimize costs ~1 s to import, the dashboard's cold start feels it
        from scipy.optimize import linear_sum_assignment

        dense = c.dense()
        rows, cols = linear_sum_assignment(dense, maximize=True)
    else:
        # The sparse matcher needs a full matching of the rows to exist: give every class a
        # private dummy cluster whose tiny weight (< 1/n_classes in total) can never beat a real
        # count of 1, so the optimum over real pairs is unchanged.
        k, n = t.shape
        eps = 0.5 / (k + 1)
        aug = sp.hstack([t.astype(np.float64), sp.identity(k, format="csr") * eps], format="csr")
        rows = np.arange(k)
        cols = min_weight_full_bipartite_matching(aug, maximize=True)[1]
        real = cols < n
        rows, cols = rows[real], cols[real]
    counts = np.asarray(t[rows, cols]).ravel().astype(np.int64)
    keep = counts > 0
    order = np.argsort(rows[keep], kind="stable")
    return Matching(
        rows[keep][order].astype(np.intp),
        cols[keep][order].astype(np.intp),
        counts[keep][order],
        c.n_samples,
    )


def best_matching(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> Matching:
    """Find the one-to-one class ↔ cluster matching that covers the most points.

    Solved exactly with the Hungarian algorithm (:func:`scipy.optimize.linear_sum_assignment`)
    on the contingency table; it works when the number of clusters differs from the number of
    classes (the extra ones stay unmatched).

    Examples
    --------
    >>> m = best_matching(contingency=[[3, 44, 3], [2, 4, 44]])
    >>> m.class_index.tolist(), m.cluster_index.tolist(), m.accuracy
    ([0, 1], [1, 2], 0.88)
    """
    return _match(as_contingency(labels_true, labels_pred, contingency=contingency))


def accuracy_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Clustering accuracy ACC = max over one-to-one maps π of (1/N) Σ_j [y_j = π(c_j)].

    Range [0, 1], higher is better. N = 0 gives 1.0 (nothing to get wrong).

    Examples
    --------
    >>> accuracy_score(contingency=[[3, 44, 3], [2, 4, 44]])
    0.88
    >>> accuracy_score([0, 0, 1, 1], ["b", "b", "a", "a"])
    1.0
    """
    return best_matching(labels_true, labels_pred, contingency=contingency).accuracy


def clustering_error(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Clustering error = 1 − ACC (the "subspace clustering error"); lower is better.

    Examples
    --------
    >>> round(clustering_error(contingency=[[3, 44, 3], [2, 4, 44]]), 12)
    0.12
    """
    return 1.0 - accuracy_score(labels_true, labels_pred, contingency=contingency)


def purity_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Purity = (1/N) Σ_j max_i n_ij: each cluster counted by its majority class.

    Range (0, 1]; 1 for any refinement of the classes (all singletons included), so read it
    together with the number of clusters. N = 0 gives 1.0.

    Examples
    --------
    >>> purity_score(contingency=[[3, 44, 3], [2, 4, 44]])
    0.91
    """
    c = as_contingency(labels_true, labels_pred, contingency=contingency)
    if c.n_samples == 0:
        return 1.0
    col_max = np.asarray(c.table.max(axis=0).toarray() if c.is_sparse else c.table.max(axis=0))
    return float(col_max.sum() / c.n_samples)


def _f_matrix_max(c: Contingency) -> np.ndarray:
    """max_j F_ij per class, where F_ij = 2 n_ij / (|Y_i| + |C_j|) (0 where n_ij = 0)."""
    t = sp.coo_array(c.table) if c.is_sparse else sp.coo_array(np.asarray(c.table))
    f = 2.0 * t.data / (c.row_sums[t.row] + c.col_sums[t.col])
    best = np.zeros(c.n_classes)
    np.maximum.at(best, t.row, f)
    return best


def f_measure_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Class-weighted best-match F-measure, F = (1/N) Σ_i |Y_i| max_j F_ij.

    F_ij is the harmonic mean of precision |Y_i ∩ C_j| / |C_j| and recall |Y_i ∩ C_j| / |Y_i|,
    which simplifies to 2 n_ij / (|Y_i| + |C_j|). This is the "overall F" of document
    clustering (Larsen & Aone 1999), not the pair-counting F1 (:func:`pair_f1_score`).
    Range [0, 1], higher is better; N = 0 gives 1.0.

    Examples
    --------
    >>> round(f_measure_score(contingency=[[2, 0], [0, 2]]), 12)
    1.0
    >>> round(f_measure_score(contingency=[[1, 1]]), 12)
    0.666666666667
    """
    c = as_contingency(labels_true, labels_pred, contingency=contingency)
    if c.n_samples == 0:
        return 1.0
    return float((c.row_sums * _f_matrix_max(c)).sum() / c.n_samples)


def cluster_ratio(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Cluster ratio = #clusters / #classes: above 1 over-segments, below 1 under-segments.

    Examples
    --------
    >>> cluster_ratio(contingency=[[3, 44, 3], [2, 4, 44]])
    1.5
    """
    c = as_contingency(labels_true, labels_pred, contingency=contingency)
    if c.n_classes == 0:
        return 1.0
    return c.n_clusters / c.n_classes
