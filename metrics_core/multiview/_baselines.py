"""Baselines of the seed paper's comparison, each in the same protocol as SSF.

- spectral clustering on one view's k-NN graph (``SC_<view>``), on the average of the views'
  graphs (``SC_avg``) and on the concatenated features (``SC_concat``);
- AMGL: Nie, Li & Li, "Parameter-free auto-weighted multiple graph learning: a framework for
  multiview clustering and semi-supervised classification", IJCAI 2016;
- SwMC: Nie, Li & Li, "Self-weighted multiview clustering with multiple graphs", IJCAI 2017;
- co-regularised spectral clustering, pairwise and centroid: Kumar, Rai & Daumé, "Co-regularized
  multi-view spectral clustering", NIPS 2011.

Our own implementations from the papers' update rules (no published code is copied).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
from scipy.sparse import csr_matrix, issparse
from scipy.sparse.csgraph import laplacian as _csgraph_laplacian

from metrics_core.models._kmeans import kmeans, kmeans_seeds
from metrics_core.models._spectral import spectral_clustering as _spectral
from metrics_core.models._spectral import spectral_embedding as _embed

KNN_GRID: tuple[int, ...] = tuple(range(5, 61, 5))  # the paper's 5, 10, ..., 60


def knn_graph(X: np.ndarray, n_neighbors: int) -> csr_matrix:
    """Symmetric binary k-NN graph: ``w_ij = 1`` if either point is among the other's
    ``n_neighbors`` nearest (Euclidean) neighbours, else 0; no self-loops.

    Parameters
    ----------
    X : numpy.ndarray of shape (n_samples, n_features)
        Points as rows.
    n_neighbors : int

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)

    Examples
    --------
    >>> W = knn_graph(np.array([[0.0], [1.0], [5.0], [6.0]]), 1)
    >>> W.toarray().astype(int).tolist()
    [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]
    """
    # imported here: scikit-learn takes seconds to import on a busy machine, and the pages that
    # only show the precomputed comparison (or fit SSF) never build a k-NN graph
    from sklearn.neighbors import kneighbors_graph

    A = kneighbors_graph(X, n_neighbors, mode="connectivity", include_self=False)
    return csr_matrix(A.maximum(A.T))


def spectral_embedding(W, n_clusters: int, *, seed: int = 0) -> np.ndarray:
    """Ng-Jordan-Weiss embedding of an affinity W, rows normalised (the models' one embedding).

    :func:`metrics_core.models.spectral_embedding` with ``affinity="precomputed"``; graphs of at
    most 500 points are solved densely (``dense_below=501``), as this baseline always did.

    Parameters
    ----------
    W : array or sparse matrix of shape (n, n)
        Symmetric non-negative affinity.
    n_clusters : int
    seed : int
        Seeds the ARPACK start vector (the embedding is otherwise deterministic).

    Returns
    -------
    numpy.ndarray of shape (n, n_clusters)
    """
    return _embed(W, n_clusters, seed=seed, dense_below=501, affinity="precomputed")[0]


def kmeans_labels(E: np.ndarray, n_clusters: int, *, seed: int, n_init: int = 10) -> np.ndarray:
    """k-means (k-means++ init, ``n_init`` restarts, best inertia) on the embedding rows:
    :func:`metrics_core.models.kmeans`, scikit-learn's ``KMeans(random_state=seed)`` labels."""
    return kmeans(E, n_clusters, seed=seed, n_init=n_init).labels


def kmeans_labels_seeds(
    E: np.ndarray, n_clusters: int, *, seeds, n_init: int = 10
) -> list[np.ndarray]:
    """:func:`kmeans_labels` for each seed of ``seeds`` (the same labels), every seed's restarts
    side by side in one call (:func:`metrics_core.models.kmeans_seeds`)."""
    return [r.labels for r in kmeans_seeds(E, n_clusters, seeds=seeds, n_init=n_init)]


def spectral_clustering(W, n_clusters: int, *, seed: int = 0, n_init: int = 10) -> np.ndarray:
    """Spectral clustering of a graph: :func:`metrics_core.models.spectral_clustering` on the
    affinity as given (``affinity="precomputed"``, ``dense_below=501``); returns the labels.

    Examples
    --------
    >>> W = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    >>> spectral_clustering(W, 2, seed=0).tolist() in ([0, 0, 0, 1, 1, 1], [1, 1, 1, 0, 0, 0])
    True
    """
    return _spectral(
        W, n_clusters, seed=seed, n_init=n_init, dense_below=501, affinity="precomputed"
    ).labels


def average_graph(graphs: list) -> csr_matrix:
    """SC_avg's input: the plain mean of the views' graphs (every view weighted equally)."""
    total = csr_matrix(graphs[0], dtype=float)
    for g in graphs[1:]:
        total = total + csr_matrix(g, dtype=float)
    return total / len(graphs)


def concatenated(views: list[np.ndarray]) -> np.ndarray:
    """The views' features side by side (each already scaled): ``SC_concat``'s input."""
    return np.hstack([np.asarray(v, dtype=float) for v in views])


def _normalized_laplacian(W) -> np.ndarray:
    W = W.toarray() if issparse(W) else np.asarray(W, dtype=float)
    return _csgraph_laplacian(W, normed=True)


def _smallest(M: np.ndarray, k: int) -> np.ndarray:
    """The ``k`` eigenvectors of the smallest eigenvalues of a PSD ``M`` (a Laplacian sum)."""
    n = M.shape[0]
    if n <= 500:
        return sla.eigh(M, subset_by_index=[0, k - 1], check_finite=False)[1]
    c = 2.0 * float(np.abs(M).sum(axis=1).max())  # > λ_max(M) (Gershgorin)
    return _largest(c * np.eye(n) - M, k)


def _largest(M: np.ndarray, k: int) -> np.ndarray:
    n = M.shape[0]
    if n <= 500:
        return sla.eigh(M, subset_by_index=[n - k, n - 1], check_finite=False)[1]
    from scipy.sparse.linalg import eigsh

    # Only K << N vectors of a dense symmetric matrix: Lanczos, a fixed start for determinism.
    return eigsh(M, k=k, which="LA", v0=np.ones(n) / np.sqrt(n))[1]


def _row_normalize(U: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(U, axis=1, keepdims=True)
    return U / np.where(norms > 0, norms, 1.0)


def amgl_embedding(
    graphs: list, n_clusters: int, *, max_iter: int = 30, tol: float = 1e-8
) -> tuple[np.ndarray, np.ndarray]:
    r"""AMGL (Nie, Li & Li, IJCAI 2016): ``min_F Σ_v sqrt(Tr(Fᵀ L_v F))``, ``FᵀF = I``.

    Solved by its re-weighting: ``α_v = 1 / (2 sqrt(Tr(Fᵀ L_v F)))`` and ``F`` = the ``K``
    eigenvectors of ``Σ_v α_v L_v`` with the smallest eigenvalues, until the weights settle.
    ``L_v`` is the normalised Laplacian of view v's graph. Labels: k-means on the rows of ``F``
    (:func:`kmeans_labels`). Returns ``(F, α)``.

    Examples
    --------
    >>> W = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    >>> F, a = amgl_embedding([W, W], 2)
    >>> F.shape, bool(np.allclose(a[0], a[1]))
    ((6, 2), True)
    """
    Ls = [_normalized_laplacian(W) for W in graphs]
    alpha = np.full(len(Ls), 1.0 / len(Ls))
    F = _smallest(sum(a * L for a, L in zip(alpha, Ls, strict=True)), n_clusters)
    for _ in range(max_iter):
        tr = np.array([max(float(np.sum(F * (L @ F))), 1e-12) for L in Ls])
        new = 1.0 / (2.0 * np.sqrt(tr))
        F = _smallest(sum(a * L for a, L in zip(new, Ls, strict=True)), n_clusters)
        if np.max(np.abs(new - alpha)) <= tol * np.max(new):
            alpha = new
            break
        alpha = new
    return F, alpha


def gaussian_kernel(X: np.ndarray, sigma: float | None = None) -> np.ndarray:
    """``exp(-||x_i - x_j||² / (2σ²))`` with zero diagonal; ``σ`` = the median pairwise
    distance by default (the co-regularisation paper's kernels are Gaussian)."""
    X = np.asarray(X, dtype=float)
    r = np.einsum("ij,ij->i", X, X)
    D = np.maximum(r[:, None] + r[None, :] - 2.0 * (X @ X.T), 0.0)
    if sigma is None:
        iu = np.triu_indices(X.shape[0], 1)
        sigma = float(np.sqrt(np.median(D[iu]))) or 1.0
    K = np.exp(-D / (2.0 * sigma**2))
    np.fill_diagonal(K, 0.0)
    return K


@dataclass
class CoregStart:
    """What co-regularised SC starts from, the same for every ``λ`` and both schemes: each
    view's normalised affinity ``K_v`` and its single-view solution ``U_v`` (top-``K``
    eigenvectors of ``K_v``, the paper's initialisation). Made by :func:`coreg_start`; the
    protocol makes it once for its six co-regularised settings instead of once per setting."""

    affinities: tuple[np.ndarray, ...]
    single_view: tuple[np.ndarray, ...]
    n_clusters: int
    _star: np.ndarray | None = field(default=None, repr=False)

    def star(self) -> np.ndarray:
        """The centroid scheme's first ``U*``: top-``K`` of ``Σ_v U_v U_vᵀ`` (no ``λ`` in it)."""
        if self._star is None:
            self._star = _largest(sum(U @ U.T for U in self.single_view), self.n_clusters)
        return self._star


def coreg_start(kernels: list[np.ndarray], n_clusters: int) -> CoregStart:
    """The views' normalised affinities and single-view solutions (:class:`CoregStart`)."""
    Ks = tuple(_normalized_affinity(np.asarray(K, dtype=float)) for K in kernels)
    return CoregStart(Ks, tuple(_largest(K, n_clusters) for K in Ks), n_clusters)


def coreg_embedding(
    kernels: list[np.ndarray],
    n_clusters: int,
    *,
    lam: float = 0.01,
    scheme: str = "pairwise",
    n_iter: int = 10,
    start: CoregStart | None = None,
) -> np.ndarray:
    r"""Co-regularised spectral clustering (Kumar, Rai & Daumé, NIPS 2011).

    Each view's ``U_v`` maximises ``Tr(U_vᵀ K_v U_v)`` on its normalised affinity
    ``K_v = D^{-1/2} W_v D^{-1/2}`` plus the co-regularisation:

    - ``"pairwise"``: ``λ Σ_{w ≠ v} Tr(U_v U_vᵀ U_w U_wᵀ)``, i.e. ``U_v`` = top-``K``
      eigenvectors of ``K_v + λ Σ_{w≠v} U_w U_wᵀ``, views updated in turn; the embedding
      clustered is the row-normalised concatenation of every ``U_v``;
    - ``"centroid"``: ``λ Tr(U_v U_vᵀ U* U*ᵀ)``, ``U_v`` = top-``K`` of ``K_v + λ U* U*ᵀ``
      and ``U*`` = top-``K`` of ``Σ_v λ U_v U_vᵀ``; the embedding is ``U*`` row-normalised.

    ``n_iter`` rounds from the single-view solutions (the paper's initialisation). ``start``:
    :func:`coreg_start` of the same ``kernels`` and ``n_clusters``, to share that start across
    several ``λ`` and schemes (the result is the same, bit for bit).

    Examples
    --------
    >>> W = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    >>> start = coreg_start([W, W], 2)
    >>> E = coreg_embedding([W, W], 2, lam=0.05, start=start)
    >>> E.shape, bool(np.array_equal(E, coreg_embedding([W, W], 2, lam=0.05)))
    ((6, 4), True)
    """
    if scheme not in ("pairwise", "centroid"):
        raise ValueError("scheme must be 'pairwise' or 'centroid'")
    if start is None:
        start = coreg_start(kernels, n_clusters)
    elif start.n_clusters != n_clusters or len(start.affinities) != len(kernels):
        raise ValueError(
            f"start was made for {len(start.affinities)} views and K = {start.n_clusters}, "
            f"not {len(kernels)} views and K = {n_clusters}"
        )
    Ks = start.affinities
    Us = list(start.single_view)
    if scheme == "pairwise":
        for _ in range(n_iter):
            for v, K in enumerate(Ks):
                others = sum(U @ U.T for w, U in enumerate(Us) if w != v)
                Us[v] = _largest(K + lam * others, n_clusters)
        return _row_normalize(np.hstack(Us))
    star = start.star()
    for _ in range(n_iter):
        Us = [_largest(K + lam * (star @ star.T), n_clusters) for K in Ks]
        star = _largest(sum(lam * (U @ U.T) for U in Us), n_clusters)
    return _row_normalize(star)


def _normalized_affinity(W: np.ndarray) -> np.ndarray:
    d = W.sum(axis=1)
    inv = np.where(d > 0, 1.0 / np.sqrt(np.where(d > 0, d, 1.0)), 0.0)
    return inv[:, None] * W * inv[None, :]


def swmc_labels(
    graphs: list[np.ndarray], n_clusters: int, *, max_iter: int = 30, max_xi_steps: int = 40
) -> tuple[np.ndarray, np.ndarray, int]:
    r"""SwMC (Nie, Li & Li, IJCAI 2017): one graph ``S`` with exactly ``K`` components,
    self-weighted over the views' graphs ``A_v``.

    ``min_S Σ_v ||S - A_v||_F`` on column-stochastic ``S`` with ``rank(L_S) = N - K``, by
    re-weighting (``w_v = 1 / (2 ||S - A_v||_F)``) and the constrained-Laplacian-rank step
    (each column of ``S`` a simplex projection of ``Σ_v w_v a_vj / Σ_v w_v - ξ d_j / (2 Σ w)``
    with ``ξ`` adapted until ``S`` has ``K`` components). ``A_v``: adaptive-neighbour graphs
    with ``k = 10`` (:func:`metrics_core.multiview._ssf.pkn_graph`; the authors' choice),
    symmetrised. Labels: the components of ``S``. Returns ``(labels, weights, n_components)``.
    """
    from metrics_core.multiview._simplex import project_simplex
    from metrics_core.multiview._ssf import _components, _relabel, _smallest_lap_eigvecs

    As = [np.asarray((A + A.T) / 2.0, dtype=float) for A in graphs]
    k = n_clusters
    w = np.full(len(As), 1.0 / len(As))
    S = sum(As) / len(As)
    n_comp, comp = _components(S)
    _, F = _smallest_lap_eigvecs(S, k, n_comp, comp, None)
    xi = 1.0
    for _ in range(max_iter):
        target = sum(wv * A for wv, A in zip(w, As, strict=True)) / w.sum()
        lo = hi = None
        for _step in range(max_xi_steps):
            r = np.einsum("ij,ij->i", F, F)
            D = np.maximum(r[:, None] + r[None, :] - 2.0 * (F @ F.T), 0.0)
            S_new = project_simplex(target - (xi / (2.0 * w.sum())) * D, exclude_diagonal=True)
            S_new = (S_new + S_new.T) / 2
            n_comp, comp = _components(S_new)
            if n_comp > k:
                hi = xi
                xi = float(np.sqrt(lo * hi)) if lo is not None else xi / 2.0
                continue
            _, F_new = _smallest_lap_eigvecs(S_new, k, n_comp, comp, None)
            S, F = S_new, F_new
            if n_comp == k:
                break
            lo = xi
            xi = float(np.sqrt(lo * hi)) if hi is not None else xi * 2.0
        new_w = np.array([1.0 / (2.0 * max(float(np.linalg.norm(S - A)), 1e-12)) for A in As])
        if np.max(np.abs(new_w - w)) <= 1e-6 * np.max(new_w) and n_comp == k:
            w = new_w
            break
        w = new_w
    n_comp, comp = _components(S)
    return _relabel(comp), w, int(n_comp)
