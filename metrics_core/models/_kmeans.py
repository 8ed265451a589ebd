"""k-means as scikit-learn's ``KMeans`` runs it, with its restarts run side by side.

Spectral clustering and every multi-view baseline end in k-means on a small embedding (HW's
demo: 200 points, 10 clusters, 10 restarts, 99 fits in one comparison). scikit-learn's
``KMeans`` spends most of such a fit in per-call Python (input checks, its k-means++ drawing one
center at a time through ``euclidean_distances``): 8-12 ms a fit. Here the restarts run in
lock-step as array operations, drawing the same random numbers in the same order, so the labels
are scikit-learn's (checked by ``tests/test_kmeans.py`` on hundreds of problems, ties included):

- the data are centred on their mean and the tolerance is ``tol`` x the mean per-feature
  variance of the uncentred data;
- k-means++ (greedy, ``2 + int(ln K)`` candidates a center) consumes ``RandomState(seed)``
  exactly as scikit-learn does: one uniform for the first center, then ``2 + int(ln K)`` per
  center, restart after restart;
- Lloyd iterations assign each point to the first nearest center (``|c|^2 - 2 x.c``), relocate
  empty clusters to the farthest points, stop when the labels repeat or the centers' total
  squared shift is at most the tolerance (then one last assignment);
- the restart kept is the first of least inertia, unless a later one only relabels it.

Every floating-point step is scikit-learn's, in its order and shapes (a taller matrix product
rounds differently, and on integer-valued data two candidates of equal potential then swap):
its products one restart at a time and in its chunks of 256 points, its sums point by point,
its unrolled squared distances. Beyond 256 points scikit-learn splits the points over its
OpenMP threads, so its sums depend on the machine's cores: on one thread (as ``clustlens
dashboard`` runs it, ``OMP_NUM_THREADS=1``) the results are identical at every size; on more,
equal to rounding. Beyond :data:`SIDE_BY_SIDE_MAX` points there is little per-call overhead
left to save and scikit-learn's compiled loop beats array operations: :func:`kmeans` calls it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse import csc_array

# Elements in one restart group's k-means++ block (restarts x candidates x n, and restarts x
# K centers): bounds the memory of the side-by-side restarts (32 MB of float64) at any N.
_BLOCK = 4_000_000
_CHUNK = 256  # scikit-learn's CHUNK_SIZE
#: Most points :func:`kmeans` clusters with its restarts side by side. Measured on one BLAS and
#: one OpenMP thread, 10 restarts, K = d = 10 and 30, against scikit-learn: 2.6x its speed at
#: 300 points, 1.8x at 600, 1.4-1.6x at 1,000, 1.2-1.3x at 1,500, parity at 2,000, 0.84x at
#: 3,000 (its compiled loop wins once per-call overhead is small).
SIDE_BY_SIDE_MAX = 1500


@dataclass(frozen=True)
class KMeansResult:
    """The kept restart: ``labels`` (int64), ``centers`` (in the data's coordinates),
    ``inertia`` (sum of squared distances to the assigned centers), ``n_iter``."""

    labels: np.ndarray
    centers: np.ndarray
    inertia: float
    n_iter: int


def kmeans(
    X,
    n_clusters: int,
    *,
    seed: int,
    n_init: int = 10,
    max_iter: int = 300,
    tol: float = 1e-4,
    side_by_side: bool | None = None,
) -> KMeansResult:
    """k-means with k-means++ starts, ``n_init`` restarts, the lowest inertia kept.

    The labels are those of ``sklearn.cluster.KMeans(n_clusters, n_init=n_init,
    random_state=seed, max_iter=max_iter, tol=tol)`` (Lloyd), fit on the same float64 data.
    Up to :data:`SIDE_BY_SIDE_MAX` points the restarts run side by side here (3x faster at 200
    points, where scikit-learn's per-call Python dominates); beyond, scikit-learn's compiled
    loop is faster than array operations, and it is called.

    Parameters
    ----------
    X : array-like of shape (n, d)
        Points as rows (finite).
    n_clusters : int
        ``1 <= n_clusters <= n``.
    seed : int
        Seeds ``numpy.random.RandomState``, as ``random_state=seed`` does in scikit-learn.
    n_init, max_iter, tol
        As in scikit-learn.
    side_by_side : bool, optional
        Force (``True``) or refuse (``False``) the side-by-side restarts; by default up to
        :data:`SIDE_BY_SIDE_MAX` points.

    Returns
    -------
    KMeansResult

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0]])
    >>> r = kmeans(X, 2, seed=0)
    >>> bool(r.labels[0] == r.labels[1] != r.labels[2] == r.labels[3]), round(r.inertia, 6)
    (True, 0.01)
    """
    return kmeans_seeds(
        X, n_clusters, seeds=(seed,), n_init=n_init, max_iter=max_iter, tol=tol,
        side_by_side=side_by_side,
    )[0]  # fmt: skip


def kmeans_seeds(
    X,
    n_clusters: int,
    *,
    seeds,
    n_init: int = 10,
    max_iter: int = 300,
    tol: float = 1e-4,
    side_by_side: bool | None = None,
) -> list[KMeansResult]:
    """:func:`kmeans` once per seed of ``seeds``, the same results, the restarts of every seed
    side by side at once (one Lloyd loop for all of them: on small data most of a fit is the
    loop's per-iteration Python, shared this way — a multi-view comparison clusters each
    embedding once per run).

    Examples
    --------
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [5.0, 5.0], [5.1, 5.0], [2.0, 2.5]])
    >>> [r.labels.tolist() for r in kmeans_seeds(X, 2, seeds=[0, 1])] == [
    ...     kmeans(X, 2, seed=s).labels.tolist() for s in (0, 1)]
    True
    """
    X = np.array(X, dtype=np.float64, order="C", copy=True)
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D (points as rows), got {X.ndim} dimension(s)")
    n = X.shape[0]
    k = int(n_clusters)
    if not 1 <= k <= n:
        raise ValueError(f"n_clusters={k} must be between 1 and the number of points ({n})")
    if not np.isfinite(X).all():
        raise ValueError("X has NaN or infinite values")
    if int(n_init) < 1 or int(max_iter) < 1:
        raise ValueError(f"n_init and max_iter must be at least 1, got {n_init} and {max_iter}")
    seeds = [int(s) for s in seeds]
    if not (n <= SIDE_BY_SIDE_MAX if side_by_side is None else side_by_side):
        return [_scikit_learn(X, k, s, n_init, max_iter, tol) for s in seeds]
    tol_abs = float(np.mean(np.var(X, axis=0)) * tol) if tol else 0.0
    mean = X.mean(axis=0)
    X -= mean
    x_sq = _sq_norms(X)
    trials = 2 + int(np.log(k))
    per_start = 1 + (k - 1) * trials
    # each seed's restarts draw from its own RandomState, as one fit would
    draws = np.concatenate(
        [np.random.RandomState(s).random_sample(n_init * per_start) for s in seeds]
    ).reshape(len(seeds) * n_init, per_start)
    total = draws.shape[0]
    group = max(1, min(total, _BLOCK // max(1, n * max(k, trials))))
    fits: list[tuple[np.ndarray, np.ndarray, int]] = []
    for start in range(0, total, group):
        centers = _plusplus(X, x_sq, k, trials, draws[start : start + group])
        labels, centers, n_iter = _lloyd(X, centers, tol_abs, max_iter)
        fits += [(labels[b], centers[b], int(n_iter[b])) for b in range(labels.shape[0])]
    out = []
    for i in range(len(seeds)):
        best: tuple[float, np.ndarray, np.ndarray, int] | None = None
        for labels, centers, n_iter in fits[i * n_init : (i + 1) * n_init]:
            inertia = float(np.cumsum(_sq_dist(X, centers[labels]))[-1])
            if best is None or (inertia < best[0] and not _relabels(labels, best[1], k)):
                best = (inertia, labels, centers, n_iter)
        assert best is not None
        inertia, labels, centers, n_iter = best
        out.append(KMeansResult(labels.astype(np.int64), centers + mean, inertia, n_iter))
    return out


def _scikit_learn(
    X: np.ndarray, k: int, seed: int, n_init: int, max_iter: int, tol: float
) -> KMeansResult:
    import warnings

    from sklearn.cluster import KMeans
    from sklearn.exceptions import ConvergenceWarning

    with warnings.catch_warnings():
        # "Number of distinct clusters found smaller than n_clusters": the side-by-side
        # restarts say nothing either; the labels show it.
        warnings.simplefilter("ignore", category=ConvergenceWarning)
        km = KMeans(k, n_init=n_init, max_iter=max_iter, tol=tol, random_state=seed).fit(X)
    return KMeansResult(
        km.labels_.astype(np.int64), km.cluster_centers_, float(km.inertia_), int(km.n_iter_)
    )


def _sq_norms(A: np.ndarray) -> np.ndarray:
    return np.einsum("...ij,...ij->...i", A, A)


def _sq_dist(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Squared distances along the last axis, summed as scikit-learn's unrolled C loop sums
    them (four terms at a time, then the rest) — its centre shifts and inertias."""
    sq = (a - b) ** 2
    d = sq.shape[-1]
    q = d // 4
    groups = sq[..., : 4 * q].reshape(*sq.shape[:-1], q, 4)
    parts = [((groups[..., 0] + groups[..., 1]) + groups[..., 2]) + groups[..., 3]]
    terms = np.concatenate([*parts, sq[..., 4 * q :]], axis=-1)
    return np.cumsum(terms, axis=-1)[..., -1] if terms.shape[-1] else np.zeros(sq.shape[:-1])


def _distances(rows: np.ndarray, X: np.ndarray, x_sq: np.ndarray) -> np.ndarray:
    """Squared distances of each restart's ``rows`` (restarts x m x d) to every point, as
    scikit-learn's ``euclidean_distances`` rounds them: -2 r.x, + |r|^2, + |x|^2, clipped at 0.
    One product per restart (a batched ``matmul``), shaped as scikit-learn's: a taller product
    rounds differently, and two candidates of equal potential would then swap."""
    out = -2 * np.matmul(rows, X.T)
    out += _sq_norms(rows)[..., None]
    out += x_sq
    return np.maximum(out, 0, out=out)


def _plusplus(
    X: np.ndarray, x_sq: np.ndarray, k: int, trials: int, draws: np.ndarray
) -> np.ndarray:
    """Greedy k-means++ for each row of ``draws`` (one restart each), all at once."""
    n = X.shape[0]
    starts = draws.shape[0]
    rows = np.arange(starts)
    cdf = np.full(n, 1.0 / n).cumsum()
    cdf /= cdf[-1]
    chosen = np.empty((starts, k), dtype=np.intp)
    chosen[:, 0] = cdf.searchsorted(draws[:, 0], side="right")
    closest = _distances(X[chosen[:, :1]], X, x_sq)[:, 0]
    ones = np.ones(n)
    # Potentials as scikit-learn sums them (a dot, then matrix-vector products per restart).
    pot = np.matmul(closest[:, None, :], ones)[:, 0]
    for c in range(1, k):
        targets = draws[:, 1 + (c - 1) * trials : 1 + c * trials] * pot[:, None]
        cum = np.cumsum(closest, axis=1)
        # searchsorted(cum, targets) per restart: how many partial sums lie below each target.
        cand = (cum[:, None, :] < targets[:, :, None]).sum(axis=2)
        np.clip(cand, None, n - 1, out=cand)
        dist = _distances(X[cand], X, x_sq)
        np.minimum(closest[:, None, :], dist, out=dist)
        cand_pot = np.matmul(dist, ones[:, None])[:, :, 0]
        pick = np.argmin(cand_pot, axis=1)
        pot = cand_pot[rows, pick]
        closest = dist[rows, pick]
        chosen[:, c] = cand[rows, pick]
    return X[chosen]


def _assign(X: np.ndarray, C: np.ndarray) -> np.ndarray:
    """Labels (restarts x n) of the nearest of each restart's centers (first on ties).

    scikit-learn's products: one per restart and chunk of 256 points, ``(m x d)`` by
    ``(d x K)`` as its gemm (one batched ``matmul`` makes them all); ``|c|^2 - 2 x.c`` rounds
    as its gemm does (alpha = -2, beta = 1 on ``|c|^2``: the doubling is exact)."""
    a, k, d = C.shape
    n = X.shape[0]
    Ct = C.transpose(0, 2, 1)[:, None]  # (restarts, 1, d, K)
    full = n - n % _CHUNK
    prod = np.empty((a, n, k))
    if full:
        chunks = X[:full].reshape(-1, _CHUNK, d)
        prod[:, :full] = np.matmul(chunks[None], Ct).reshape(a, full, k)
    if full < n:
        prod[:, full:] = np.matmul(X[None, full:], Ct[:, 0])
    prod *= -2.0
    prod += _sq_norms(C)[:, None, :]
    return np.argmin(prod, axis=2)


def _sums(X: np.ndarray, labels: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Each restart's per-cluster sums of points and counts. The sums are a sparse (cluster x
    point) indicator times X, which scipy adds point after point in order — scikit-learn's
    loop order on one thread."""
    a, n = labels.shape
    cell = labels + (np.arange(a) * k)[:, None]
    counts = np.bincount(cell.ravel(), minlength=a * k).reshape(a, k).astype(np.float64)
    indicator = csc_array(
        (np.ones(a * n), cell.T.ravel(), np.arange(0, a * n + 1, a)), shape=(a * k, n)
    )
    return (indicator @ X).reshape(a, k, X.shape[1]), counts


def _relocate(
    X: np.ndarray, old: np.ndarray, sums: np.ndarray, counts: np.ndarray, labels: np.ndarray
) -> None:
    """scikit-learn's empty-cluster rule: each empty cluster takes one of the points farthest
    from their centers (taken out of the cluster it was in)."""
    empty = np.flatnonzero(counts == 0)
    far_d = ((X - old[labels]) ** 2).sum(axis=1)
    if far_d.max() == 0:
        return  # fewer distinct points than clusters: nothing to move
    far = np.argpartition(far_d, -empty.size)[: -empty.size - 1 : -1]
    for new, i in zip(empty, far, strict=True):
        was = labels[i]
        sums[was] -= X[i]
        sums[new] = X[i]
        counts[new] = 1.0
        counts[was] -= 1.0


def _lloyd(
    X: np.ndarray, centers: np.ndarray, tol_abs: float, max_iter: int
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    starts, k, _ = centers.shape
    n = X.shape[0]
    labels = np.full((starts, n), -1, dtype=np.intp)
    strict = np.zeros(starts, dtype=bool)
    n_iter = np.zeros(starts, dtype=np.int64)
    active = np.arange(starts)
    for it in range(max_iter):
        if active.size == 0:
            break
        old = centers[active]
        new_labels = _assign(X, old)
        sums, counts = _sums(X, new_labels, k)
        for r in np.flatnonzero((counts == 0).any(axis=1)):
            _relocate(X, old[r], sums[r], counts[r], new_labels[r])
        new = sums * (1.0 / np.where(counts > 0, counts, 1.0))[:, :, None]
        empty = counts == 0
        if empty.any():  # left empty (duplicate points): parked on the heaviest cluster —
            # scikit-learn copies it while averaging in cluster order, so a heavier cluster
            # after the empty one is copied before it is divided by its weight.
            r, j = np.nonzero(empty)
            heavy = np.argmax(counts, axis=1)[r]
            new[r, j] = np.where((heavy > j)[:, None], sums[r, heavy], new[r, heavy])
        # scikit-learn keeps each center's shift (a square root) and compares the sum of their
        # squares with the tolerance: the round trip rounds, so it is kept.
        shift_sq = np.sqrt(_sq_dist(new, old)) ** 2
        repeated = (new_labels == labels[active]).all(axis=1)
        centers[active] = new
        labels[active] = new_labels
        n_iter[active] = it + 1
        strict[active[repeated]] = True
        settled = repeated | (shift_sq.sum(axis=1) <= tol_abs)
        active = active[~settled]
    loose = np.flatnonzero(~strict)
    if loose.size:  # stopped on the tolerance or max_iter: labels for the last centers
        labels[loose] = _assign(X, centers[loose])
    return labels, centers, n_iter


def _relabels(a: np.ndarray, b: np.ndarray, k: int) -> bool:
    """Whether every cluster of ``a`` lies inside one cluster of ``b`` (scikit-learn's
    "same clustering up to a permutation" test, which reads it one way only)."""
    to = np.full(k, -1, dtype=np.intp)
    to[a] = b
    return bool(np.array_equal(to[a], b))
