"""Block-aware pooling of |C| + |C|ᵀ for display: small at any N, never straddling a group boundary.

Pure numpy/scipy (no Plotly, no Streamlit): the compute layer calls it, the figure builder draws
its output. Points are first put in display order (sorted by class, by cluster, ...); the
"groups" are the contiguous runs of that order (classes), and every bin lies inside one group,
so a pooled pixel never mixes two classes and the block structure stays exact.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

#: Largest side (in points) drawn cell by cell with per-cell hover; above it the matrix is pooled.
CELL_LIMIT = 600
#: Target number of bins per side of the pooled image.
MAX_BINS = 500


def group_bounds(sorted_codes: np.ndarray) -> np.ndarray:
    """Start positions of the runs of equal values in ``sorted_codes``, plus its length.

    Examples
    --------
    >>> group_bounds(np.array([0, 0, 1, 1, 1, 3])).tolist()
    [0, 2, 5, 6]
    """
    n = len(sorted_codes)
    if n == 0:
        return np.array([0], dtype=np.int64)
    change = np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1
    return np.concatenate([[0], change, [n]]).astype(np.int64)


def bin_edges(bounds: np.ndarray, max_bins: int = MAX_BINS) -> np.ndarray:
    """Bin edges (positions) with at most ``max_bins`` bins (or one per group if there are more
    groups), every group boundary being an edge and bins within a group of near-equal size.

    Bins are allotted to groups in proportion to their size, at least one each.

    Examples
    --------
    >>> bin_edges(np.array([0, 3, 10]), max_bins=4).tolist()
    [0, 3, 5, 8, 10]
    >>> bin_edges(np.array([0, 3, 10]), max_bins=100).tolist()  # no pooling needed
    [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]
    """
    bounds = np.asarray(bounds, dtype=np.int64)
    n = int(bounds[-1])
    if n <= max_bins:
        return np.arange(n + 1, dtype=np.int64)
    sizes = np.diff(bounds)
    n_groups = len(sizes)
    budget = max(max_bins, n_groups)
    target = float(budget)
    while True:
        quota = sizes * target / n
        per_group = np.minimum(np.maximum(1, np.floor(quota).astype(np.int64)), sizes)
        if per_group.sum() <= budget or target <= n_groups:
            break
        target -= max(1, int(per_group.sum() - budget))
    # Hand the bins still free to the groups with the largest remainders (Hamilton's method).
    free = int(budget - per_group.sum())
    if free > 0:
        room = per_group < sizes
        remainder = np.where(room, quota - per_group, -np.inf)
        for g in np.argsort(-remainder, kind="stable")[:free]:
            if room[g]:
                per_group[g] += 1
    edges = [np.array([0], dtype=np.int64)]
    for start, size, b in zip(bounds[:-1], sizes, per_group, strict=True):
        inner = start + np.round(np.linspace(0, size, b + 1)).astype(np.int64)
        edges.append(inner[1:])
    return np.concatenate(edges)


def _bin_of_point(order: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Bin index of each point (in the original indexing)."""
    n = len(order)
    bin_of_pos = np.repeat(np.arange(len(edges) - 1), np.diff(edges))
    out = np.empty(n, dtype=np.int64)
    out[order] = bin_of_pos
    return out


def pooled_affinity(coef, order: np.ndarray, edges: np.ndarray) -> np.ndarray:
    """Mean of W = |C| + |C|ᵀ over each (row bin, column bin) block, in display order.

    ``coef`` is a dense array or any scipy.sparse matrix (never densified: O(nnz) for sparse,
    O(N²) in row chunks for dense). ``order[p]`` is the point shown at position ``p``.

    Examples
    --------
    >>> C = np.array([[0, 1, 0], [1, 0, 0], [0, 2, 0]])
    >>> pooled_affinity(C, np.arange(3), np.array([0, 2, 3])).tolist()
    [[1.0, 1.0], [1.0, 0.0]]
    """
    n_bins = len(edges) - 1
    bins = _bin_of_point(np.asarray(order), np.asarray(edges))
    if sp.issparse(coef):
        coo = sp.coo_array(coef)
        r = bins[coo.row]
        c = bins[coo.col]
        w = np.abs(coo.data).astype(np.float64)
        flat = np.bincount(r * n_bins + c, weights=w, minlength=n_bins * n_bins)
        s = flat.reshape(n_bins, n_bins)
    else:
        dense = np.asarray(coef)
        n = dense.shape[0]
        indicator = sp.csr_array(
            (np.ones(n), (np.arange(n), bins)), shape=(n, n_bins)
        )  # point -> bin
        s = np.zeros((n_bins, n_bins))
        step = max(1, 4_000_000 // max(n, 1))  # ~32 MB of |C| at a time
        for lo in range(0, n, step):
            block = np.abs(dense[lo : lo + step]).astype(np.float64, copy=False)
            part = (indicator[lo : lo + step].T @ block) @ indicator
            s += np.asarray(part)
    s = s + s.T
    counts = np.diff(edges).astype(np.float64)
    return s / np.outer(counts, counts)


def cell_affinity(coef, order: np.ndarray) -> np.ndarray:
    """W = |C| + |C|ᵀ in display order, cell by cell (only for small N)."""
    order = np.asarray(order)
    if sp.issparse(coef):
        w = sp.csr_array(coef)[order][:, order].toarray()
    else:
        w = np.asarray(coef)[np.ix_(order, order)]
    w = np.abs(w).astype(np.float64)
    return w + w.T
