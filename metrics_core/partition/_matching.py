"""Set-matching metrics: accuracy under the optimal one-to-one matching, purity, F-measure,
normalized clustering accuracy (NCA) and the pair sets index (PSI)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from metrics_core.partition._contingency import Contingency, as_contingency
from metrics_core.partition._registry import SET, MetricInfo, TableStats, metric, score

# Dense Hungarian above this many cells would need too much memory; larger (sparse) tables use
# the sparse bipartite matcher, which is exact too.
DENSE_MATCHING_CELL_LIMIT = 16_000_000
# Dense tables up to this many cells go to the sparse matcher as well (a few ms at 256 x 256):
# the Hungarian lives in scipy.optimize, whose import (~0.2 s) would double the start-up of a
# small `clustlens evaluate`. Larger dense tables are faster with the Hungarian (1000 x 1000
# full: 18 ms against 62 ms), where the import no longer dominates.
SMALL_DENSE_CELLS = 65_536


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
            _scalar(clusters[j]): _scalar(classes[i])
            for i, j in zip(self.class_index, self.cluster_index, strict=True)
        }


def _scalar(value: Any) -> Any:
    return value.item() if isinstance(value, np.generic) else value


def _peel_pendants(
    rows: np.ndarray, cols: np.ndarray, w: np.ndarray, k: int, n: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Match every pendant edge that an optimal assignment can be assumed to contain.

    A row with one edge (i, j) whose weight is the largest at column j belongs to some optimal
    matching: if j is matched to i' instead, swapping (i', j) for (i, j) loses nothing (i had
    no other edge). The same holds for a column with one edge that is its row's heaviest. Such
    edges are matched in vectorised rounds (each one stays valid after the others are removed:
    removing edges only lowers the maxima) until none is left. Sparse tables of many small
    clusters collapse to a tiny core this way. Returns (matched rows, matched columns, mask of
    the edges left for the exact solver).
    """
    alive = np.ones(rows.size, dtype=bool)
    row_used = np.zeros(k, dtype=bool)
    col_used = np.zeros(n, dtype=bool)
    out_r, out_c = [], []
    while True:
        idx = np.flatnonzero(alive)
        if idx.size == 0:
            break
        r, c, ww = rows[idx], cols[idx], w[idx]
        rdeg = np.bincount(r, minlength=k)
        cdeg = np.bincount(c, minlength=n)
        rmax = np.zeros(k)
        cmax = np.zeros(n)
        np.maximum.at(rmax, r, ww)
        np.maximum.at(cmax, c, ww)
        cand = np.flatnonzero(
            ((rdeg[r] == 1) & (ww >= cmax[c])) | ((cdeg[c] == 1) & (ww >= rmax[r]))
        )
        if cand.size == 0:
            break
        # at most one edge per column, then per row (ties: any one of them is optimal)
        cand = cand[np.unique(c[cand], return_index=True)[1]]
        cand = cand[np.unique(r[cand], return_index=True)[1]]
        out_r.append(r[cand])
        out_c.append(c[cand])
        row_used[r[cand]] = True
        col_used[c[cand]] = True
        alive[idx] = ~(row_used[r] | col_used[c])
    empty = np.zeros(0, dtype=np.intp)
    mr = np.concatenate(out_r).astype(np.intp) if out_r else empty
    mc = np.concatenate(out_c).astype(np.intp) if out_c else empty
    return mr, mc, alive


def _assign_sparse(w: sp.csr_array) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-weight assignment over the stored entries of a large sparse matrix (exact)."""
    k, n = w.shape
    coo = sp.coo_array(w)
    keep = coo.data > 0
    rows = coo.row[keep].astype(np.intp)
    cols = coo.col[keep].astype(np.intp)
    vals = coo.data[keep].astype(np.float64)
    mr, mc, alive = _peel_pendants(rows, cols, vals, k, n)
    if not alive.any():
        return mr, mc
    r, c, v = rows[alive], cols[alive], vals[alive]
    core_rows, ri = np.unique(r, return_inverse=True)
    core_cols, ci = np.unique(c, return_inverse=True)
    core = sp.csr_array((v, (ri, ci)), shape=(core_rows.size, core_cols.size))
    if core_rows.size * core_cols.size <= DENSE_MATCHING_CELL_LIMIT:
        from scipy.optimize import linear_sum_assignment

        sr, sc = linear_sum_assignment(core.toarray(), maximize=True)
    else:
        sr, sc = _assign_lapjv(core)
    return (
        np.concatenate([mr, core_rows[sr]]).astype(np.intp),
        np.concatenate([mc, core_cols[sc]]).astype(np.intp),
    )


def _assign_lapjv(w: sp.csr_array) -> tuple[np.ndarray, np.ndarray]:
    """Maximum-weight matching over the stored (positive) entries of ``w`` by scipy's LAPJVsp.

    The sparse matcher only solves *full* matchings of the rows, so every row gets a private
    dummy column, and every weight, real or dummy, is raised by the same ``M = max w``: each
    full matching then weighs ``k M +`` (the weight of its real edges), so the best one is the
    maximum-weight partial matching, exactly (integer counts stay exact; a small ε on the
    dummies instead could outweigh a real difference between two float-weighted matchings).
    """
    k, n = w.shape
    if w.nnz == 0:
        empty = np.zeros(0, dtype=np.intp)
        return empty, empty
    # imported here: scipy.sparse.csgraph brings scipy.sparse.linalg and scipy.linalg (~45 ms),
    # which a small `clustlens evaluate` whose classes each have their own best cluster (the
    # usual case, :func:`_argmax_assignment`) never needs
    from scipy.sparse.csgraph import min_weight_full_bipartite_matching

    shift = float(w.data.max())
    raised = sp.csr_array((w.data + shift, w.indices, w.indptr), shape=(k, n))
    aug = sp.hstack([raised, sp.identity(k, format="csr") * shift], format="csr")
    sc = np.asarray(min_weight_full_bipartite_matching(aug, maximize=True)[1])
    sr = np.arange(k)
    real = sc < n
    return sr[real].astype(np.intp), sc[real].astype(np.intp)


def _assign(weights: Any) -> tuple[np.ndarray, np.ndarray]:
    """Rows and columns of a maximum-weight one-to-one assignment of a non-negative matrix.

    A dense matrix: each row's best column when those are all different (or each column's
    best row, with more rows than columns), else scipy's sparse matcher
    (:func:`_assign_lapjv`) up to :data:`SMALL_DENSE_CELLS` cells, else the Hungarian algorithm
    (:func:`scipy.optimize.linear_sum_assignment`). A
    sparse one (a contingency table stored as CSR because it is large): its stored entries only,
    pendant edges peeled exactly (:func:`_peel_pendants`), the core left by them solved by the
    dense Hungarian up to :data:`DENSE_MATCHING_CELL_LIMIT` cells, else by scipy's sparse
    matcher. Rows or columns may be left unassigned when the
    matrix is not square; zero-weight pairs may appear and are the caller's to drop.
    """
    if not sp.issparse(weights):
        dense = np.asarray(weights)
        best = _argmax_assignment(dense)
        if best is not None:
            return best
        if dense.size <= SMALL_DENSE_CELLS:
            return _assign_lapjv(sp.csr_array(dense))
        # imported here: scipy.optimize costs ~0.2 s to import (see SMALL_DENSE_CELLS)
        from scipy.optimize import linear_sum_assignment

        return linear_sum_assignment(dense, maximize=True)
    return _assign_sparse(sp.csr_array(weights))


def _argmax_assignment(w: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
    """The assignment of every row to its best column, if no two rows share one; else None.

    With K <= C rows, no one-to-one assignment can beat Σ_i max_j w_ij (weights are
    non-negative), and this one reaches it: it is optimal, found in one O(K C) pass instead of
    the Hungarian algorithm's O(K² C). A clustering close to its classes — the usual case — has
    it. With more rows than columns, the same holds column by column.
    """
    k, c = w.shape
    if k == 0 or c == 0:
        return None
    if k <= c:
        cols = w.argmax(axis=1)
        if np.bincount(cols, minlength=c).max() > 1:
            return None
        return np.arange(k, dtype=np.intp), cols.astype(np.intp)
    rows = w.argmax(axis=0)
    if np.bincount(rows, minlength=k).max() > 1:
        return None
    order = np.argsort(rows)
    return rows[order].astype(np.intp), order.astype(np.intp)


def _row_best(c: Contingency, vals: np.ndarray) -> np.ndarray | None:
    """The cell of each class's best cluster by ``vals`` (one weight > 0 per stored cell of
    ``c``, in its row-major order; the first of equal weights, as ``argmax`` takes it), when the
    table is dense, has no more classes than clusters and no two classes share their best
    cluster: :func:`_argmax_assignment`'s optimal assignment, found from the stored cells
    without a K × C table of weights (at K = C = 1,000 with 1e6 points: ~260,000 cells against
    two 8 MB tables a call). Else None (and the caller builds the table).

    Dense tables only: the large ones, stored sparse, go to :func:`_assign_sparse`, whose
    optimal assignment may be another one of the same weight.
    """
    k, n = c.n_classes, c.n_clusters
    if c.is_sparse or k == 0 or k > n or vals.size == 0:
        return None
    rows = c.nz_rows
    starts = _row_starts(c)
    if starts is None:
        return None
    best = np.maximum.reduceat(vals, starts)
    at = np.flatnonzero(vals == best[rows])
    first = at[np.flatnonzero(np.diff(rows[at], prepend=-1))]
    if np.bincount(c.nz_cols[first], minlength=n).max() > 1:
        return None
    return first


def _row_starts(c: Contingency) -> np.ndarray | None:
    """Where each class's run of stored cells starts (they are row-major), or None when a
    class has none (a table built by hand; :func:`contingency_table` never makes one)."""
    starts = np.searchsorted(c.nz_rows, np.arange(c.n_classes))
    if starts.size and (starts[-1] >= c.nz_rows.size or (np.diff(starts) == 0).any()):
        return None
    return starts


def _match(c: Contingency) -> Matching:
    t = c.table
    if c.n_samples == 0:
        empty = np.zeros(0, dtype=np.intp)
        return Matching(empty, empty, np.zeros(0, dtype=np.int64), 0)
    first = _row_best(c, c.counts)
    if first is not None:
        return Matching(
            c.nz_rows[first], c.nz_cols[first], c.counts[first].astype(np.int64), c.n_samples
        )
    rows, cols = _assign(t)
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


@metric(
    MetricInfo(
        "acc",
        "accuracy (ACC)",
        SET,
        "max_π (1/N) Σ_i n_{i,π(i)}",
        (0, 1),
        "higher",
        "optimal one-to-one matching (solved exactly); unmatched clusters count as errors",
        "Kuhn 1955",
        symmetric=True,
        short="ACC",
    )
)
def _acc(t: TableStats) -> float:
    return t.cached(_match).accuracy


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
    return score("acc", labels_true, labels_pred, contingency)


@metric(
    MetricInfo(
        "clustering_error",
        "clustering error",
        SET,
        "1 − ACC",
        (0, 1),
        "lower",
        "subspace clustering error",
        "Elhamifar & Vidal 2013",
        symmetric=True,
        short="error",
    )
)
def _clustering_error(t: TableStats) -> float:
    return 1.0 - _acc(t)


def clustering_error(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Clustering error = 1 − ACC (the "subspace clustering error"); lower is better.

    Examples
    --------
    >>> round(clustering_error(contingency=[[3, 44, 3], [2, 4, 44]]), 12)
    0.12
    """
    return score("clustering_error", labels_true, labels_pred, contingency)


@metric(
    MetricInfo(
        "purity",
        "purity",
        SET,
        "(1/N) Σ_j max_i n_ij",
        (0, 1),
        "higher",
        "1 for any refinement of the classes (e.g. all singletons)",
        "Zhao & Karypis 2001",
        short="purity",
    )
)
def _purity(t: TableStats) -> float:
    c = t.c
    if c.n_samples == 0:
        return 1.0
    col_max = np.asarray(c.table.max(axis=0).toarray() if c.is_sparse else c.table.max(axis=0))
    return float(col_max.sum() / c.n_samples)


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
    return score("purity", labels_true, labels_pred, contingency)


def _f_matrix_max(c: Contingency) -> np.ndarray:
    """max_j F_ij per class, where F_ij = 2 n_ij / (|Y_i| + |C_j|) (0 where n_ij = 0)."""
    f = 2.0 * c.counts / (c.row_sums[c.nz_rows] + c.col_sums[c.nz_cols])
    starts = _row_starts(c) if f.size else None
    if starts is not None:  # one max per class's run of cells
        return np.maximum.reduceat(f, starts)
    best = np.zeros(c.n_classes)
    np.maximum.at(best, c.nz_rows, f)
    return best


@metric(
    MetricInfo(
        "f_measure",
        "F-measure (class-weighted best match)",
        SET,
        "(1/N) Σ_i a_i max_j 2 n_ij / (a_i + b_j)",
        (0, 1),
        "higher",
        "not the pair F1; F_ij = harmonic mean of n_ij/b_j and n_ij/a_i",
        "Larsen & Aone 1999",
        short="F-measure",
    )
)
def _f_measure(t: TableStats) -> float:
    c = t.c
    if c.n_samples == 0:
        return 1.0
    return float((c.row_sums * _f_matrix_max(c)).sum() / c.n_samples)


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
    return score("f_measure", labels_true, labels_pred, contingency)


def _pivot_sum(weights: Any) -> float:
    """Σ of the weights on a maximum-weight one-to-one assignment, smallest first (stable)."""
    rows, cols = _assign(weights)
    w = weights[rows, cols]
    pivots = np.asarray(w.toarray() if sp.issparse(w) else w, dtype=np.float64).ravel()
    return float(np.sort(pivots).sum())


def _scaled_pivot_sum(
    c: Contingency, scale_rows: np.ndarray, scale_cols: np.ndarray | None
) -> float:
    """:func:`_pivot_sum` of :func:`_scaled_table`, from the stored cells when each class's
    best cluster is its own (:func:`_row_best`): the same pivots, so the same sum."""
    vals = _scaled_cells(c, scale_rows, scale_cols)
    first = _row_best(c, vals)
    if first is not None:
        return float(np.sort(vals[first]).sum())
    return _pivot_sum(_scaled_table(c, scale_rows, scale_cols, vals))


def _scaled_cells(c: Contingency, scale_rows: np.ndarray, scale_cols: np.ndarray | None) -> Any:
    """n_ij / s_ij at the stored cells, with s_ij = rows[i] or max(rows[i], cols[j])."""
    den = scale_rows[c.nz_rows].astype(np.float64)
    if scale_cols is not None:
        den = np.maximum(den, scale_cols[c.nz_cols])
    return c.counts / den


def _scaled_table(
    c: Contingency,
    scale_rows: np.ndarray,
    scale_cols: np.ndarray | None,
    vals: np.ndarray | None = None,
) -> Any:
    """n_ij / s_ij on the stored entries, with s_ij = rows[i] or max(rows[i], cols[j])
    (``vals``: those values at the stored cells, when already computed)."""
    rows, cols = c.nz_rows, c.nz_cols
    if vals is None:
        vals = _scaled_cells(c, scale_rows, scale_cols)
    if c.is_sparse:
        return sp.csr_array((vals, (rows, cols)), shape=c.table.shape)
    # scattered through flat indices: 3x faster than a 2-D fancy assignment
    out = np.zeros(c.table.size)
    out[rows * c.n_clusters + cols] = vals
    return out.reshape(c.table.shape)


@metric(
    MetricInfo(
        "nca",
        "normalized clustering accuracy (NCA)",
        SET,
        "(max_σ Σ_i n_{i,σ(i)} / a_i − 1) / (K − 1)",
        (-1, 1),
        "higher",
        "asymmetric: mean recall of the true classes under the best one-to-one matching, "
        "rescaled so that 1 is perfect and 0 is what one class-blind cluster per class gives; "
        "K ≠ C allowed (a class left without a cluster scores 0; genieclust refuses); "
        "K = 1: the share of the largest cluster",
        "Gagolewski 2025, J. Classification 42:2-30",
        short="NCA",
    )
)
def _nca(t: TableStats) -> float:
    c = t.c
    if c.n_samples == 0:
        return 1.0
    pivots = _scaled_pivot_sum(c, c.row_sums, None)
    if c.n_classes == 1:  # K - 1 = 0: the definition has no normaliser; report the pivot
        return pivots
    return (pivots - 1.0) / (c.n_classes - 1.0)


def normalized_clustering_accuracy_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Normalized clustering accuracy (Gagolewski 2025): chance-aware, class-size-fair ACC.

    With a_i the size of class i, NCA = (max_σ Σ_i n_{i,σ(i)} / a_i − 1) / (K − 1): the
    per-class recalls under the best one-to-one class → cluster matching σ, averaged so every
    class weighs the same whatever its size, then rescaled so that a perfect clustering scores 1
    and lumping every class together scores 0. Asymmetric (the rows are the truth). Defined
    for any number of clusters C: with C < K some classes stay unmatched and score 0; with
    C > K the extra clusters count as errors (genieclust's implementation refuses K ≠ C).

    Reference: M. Gagolewski, "Normalised clustering accuracy: an asymmetric external cluster
    validity measure", Journal of Classification 42 (2025) 2-30; cross-checked against
    github.com/gagolews/genieclust ``src/c_compare_partitions.h``
    (``Ccompare_partitions_nca``) at commit 87ae15ad2dc68c4e36a97870ef705991af3193eb.

    Examples
    --------
    Class sizes 50 and 50; recalls 44/50 and 44/50 under the best matching:

    >>> round(normalized_clustering_accuracy_score(contingency=[[3, 44, 3], [2, 4, 44]]), 12)
    0.76
    """
    return score("nca", labels_true, labels_pred, contingency)


@metric(
    MetricInfo(
        "psi",
        "pair sets index (PSI)",
        SET,
        "max(0, (S − E) / (max(K, C) − E)), S = max_σ Σ n_{i,σ(i)} / max(a_i, b_σ(i))",
        (0, 1),
        "higher",
        "E = Σ_r min(a_(r), b_(r)) / N over sizes sorted alike (zero-padded to max(K, C)); "
        "1 for identical partitions, 0 at or below chance; K = C = 1 gives 1",
        "Rezaei & Fränti 2016, IEEE TKDE 28(8)",
        symmetric=True,
        adjusted=True,
        short="PSI",
    )
)
def _psi(t: TableStats) -> float:
    c = t.c
    size = max(c.n_classes, c.n_clusters)
    if c.n_samples == 0 or size <= 1:
        return 1.0
    s_val = _scaled_pivot_sum(c, c.row_sums, c.col_sums)
    a = np.zeros(size)
    b = np.zeros(size)
    a[: c.n_classes] = np.sort(c.row_sums)
    b[: c.n_clusters] = np.sort(c.col_sums)
    a.sort()
    b.sort()
    expected = float(np.minimum(a, b).sum()) / c.n_samples
    if s_val <= expected:
        return 0.0
    return float((s_val - expected) / (size - expected))


def pair_sets_index_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Pair sets index (Rezaei & Fränti 2016): set matching corrected for chance.

    With class sizes a_i, cluster sizes b_j and S_ij = n_ij / max(a_i, b_j), S is the total
    similarity of the best one-to-one matching (the table zero-padded to max(K, C) square), E
    its value expected by chance, Σ_r min(a_(r), b_(r)) / N over the sizes sorted alike, and
    PSI = (S − E) / (max(K, C) − E) when S > E, else 0. Symmetric, in [0, 1].

    Reference: M. Rezaei and P. Fränti, "Set matching measures for external cluster validity",
    IEEE Transactions on Knowledge and Data Engineering 28(8) (2016) 2173-2186; cross-checked
    against github.com/gagolews/genieclust ``src/c_compare_partitions.h``
    (``Ccompare_partitions_psi``) at commit 87ae15ad2dc68c4e36a97870ef705991af3193eb.

    Examples
    --------
    >>> pair_sets_index_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> pair_sets_index_score([0, 0, 0, 0], [0, 1, 2, 3])
    0.0
    """
    return score("psi", labels_true, labels_pred, contingency)
