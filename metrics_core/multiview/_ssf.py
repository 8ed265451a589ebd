"""Multi-view clustering by spectral structure fusion (SSF), reconstructed from the seed paper.

Conventions (the paper writes points as *columns*, ``X_v`` of shape ``d_v x N``; the public API
here takes points as *rows*, ``views[v]`` of shape ``N x d_v``, and transposes internally):

- ``Z_v`` (``N x N``): column ``i`` holds the coefficients that represent point ``i`` by the
  others, ``x_i ≈ X_v z_i``; ``diag(Z_v) = 0``, ``Z_v >= 0``. ``Z̄_v = (Z_v + Z_vᵀ) / 2`` and
  ``L_Z = diag(Z̄_v 1) - Z̄_v``, so ``Tr(Fᵀ L_Z F) = ½ Σ_ij z_ij ||f_i - f_j||²``.
- ``F_v`` (``N x K``, orthonormal columns): per-view spectral embedding.
- ``S`` (``N x N``): the fused structure; every column lies on the simplex (``s_jj = 0``) before
  the symmetrisation ``S <- (S + Sᵀ)/2``; ``L_S = diag(S 1) - S``.

Objective recorded at every outer iteration (``SSFResult.objective``)::

    J = Σ_v ( ||X_v - X_v Z_v||² + α ||Z_v||² + β Tr(F_vᵀ L_{Z_v} F_v) )
        + Σ_v ||S - γ F_v F_vᵀ||_F                                  (fusion term)

The fusion term is the un-squared norm: the seed's Theorem 1 weights
``w_v = 1 / (2 ||S - γ F_v F_vᵀ||_F)`` are exactly the iteratively re-weighted least-squares
weights of this term (minimising ``Σ_v w_v ||S - γ F_v F_vᵀ||²`` with the weights of the previous
iterate does not increase ``Σ_v ||S - γ F_v F_vᵀ||``). The rank penalty ``2ξ Tr(Fᵀ L_S F)`` is
zero whenever ``S`` has exactly ``K`` connected components, so it is reported separately
(``SSFResult.rank_penalty``) and not added to ``J``.

Choices where the paper is silent (see ``ssf_fit`` for the knobs):

- initialisation: ``Z_v`` = the ridge solution without the spectral term (zero diagonal,
  clipped at 0), ``F_v`` = top-``K`` eigenvectors of ``Z̄_v``, ``w_v = 1/V``, ``S`` = the fusion of
  those ``F_v`` with ``ξ = 0``; nothing is random, so SSF is deterministic (the ``seed`` only
  matters for tie-breaking in the eigensolver and is recorded for the protocol).
- ``S`` keeps no self-loops (``s_jj = 0``): a self-loop carries no graph information and would
  let the projection isolate a point.
- ξ: starts at ``xi_init * 2 Σ_v w_v`` (so that the penalty and the fusion target are on the
  same scale); more than ``K`` components → ``ξ`` too strong → halve; fewer → double; once both
  sides are bracketed, bisect geometrically. ``ξ`` is carried over between outer iterations.
- The simplex projection keeps the full column (no k-NN sparsification): the threshold of the
  projection already zeroes everything outside the few strongest entries.
- If the ξ search ends (``max_xi_steps``) without exactly ``K`` components, the labels are still
  the components of the last ``S`` (``n_components`` says how many); no k-means fallback.
- Stopping: relative change of ``J`` below ``tol`` (default ``1e-6``: ``J`` is dominated by the
  ridge data term, which the fusion barely moves) or ``max_iter`` outer iterations.

ξ direction. The seed says "more than ``K`` components → increase ξ". In the column problem
``min_s W||s - ā_j||² + ξ Σ_i s_i ||f_i - f_j||²`` a larger ξ charges every edge more for its
embedding distance, so cross-cluster edges are cut first and the number of components grows
with ξ (checked on data: ``tests/test_multiview.py::test_xi_direction...``). Hence more than
``K`` components → ξ too strong → decrease; fewer → increase (as in Nie et al.'s CLR code). We
follow the objective, not the seed's sentence.

Monotonicity. Each step minimises ``J`` only approximately: the ``Z_v`` step solves the
unconstrained ridge problem and then zeroes the diagonal and clips at 0 (a projection, not the
constrained minimiser); the seed's ``F_v`` step drops the degree part of ``L_{Z_v}``
(``embedding="laplacian"`` keeps it); the ``S`` step symmetrises and changes ξ. So ``J`` is not
guaranteed to decrease; on the synthetic sets and on HW it does (tested on synthetic data).

Scale of the terms. With the paper's ranges (β ≤ 1e-2, γ ≥ 4) ``2γ w_v S`` dominates
``β Z̄_v`` by about two orders of magnitude, so after the first ``S`` every ``F_v`` is close
to the leading eigenvectors of ``S`` and the learned weights come out nearly equal; the views
enter mainly through the initial ``S``.
"""

from __future__ import annotations

import time
import warnings
from dataclasses import dataclass, field

import numpy as np
import scipy.linalg as sla
from scipy.sparse import csr_matrix, diags, identity, issparse
from scipy.sparse.csgraph import connected_components
from scipy.sparse.linalg import eigsh, lobpcg

from metrics_core.multiview._simplex import project_simplex

#: The protocol's SSF settings (the page, the command line and the comparison start here).
# tol 1e-5: on HW J moves by < 3e-6 (relative) after the first iteration and S's components
# (the labels) no longer change; 1e-6 ran four more iterations for the same labels.
DEFAULT_SSF = {
    "alpha": 10.0,
    "beta": 1e-3,
    "gamma": 6.0,
    "max_iter": 30,
    "tol": 1e-5,
    "init": "pkn",
    "init_neighbors": 10,
}

_DENSE_MAX = 500  # up to this N, dense LAPACK eigensolvers beat ARPACK


@dataclass
class SSFResult:
    """What one SSF run returns.

    Attributes
    ----------
    labels : numpy.ndarray
        Connected-component index of every point in ``S`` (0-based, ordered by first point).
    S : numpy.ndarray
        The fused symmetric structure (``N x N``).
    Z : list of numpy.ndarray
        Per-view self-representation matrices (column ``i`` represents point ``i``).
    weights : numpy.ndarray
        Final view weights ``w_v = 1 / (2 ||S - γ F_v F_vᵀ||_F)``.
    objective : list of float
        ``J`` after every outer iteration (see the module docstring), ``objective[0]`` is the
        value at the initialisation.
    n_components : int
        Number of connected components of ``S``.
    xi_history : list of float
        ``ξ`` at the end of every ``S`` update.
    seconds : float
        Wall time of the fit.
    rank_penalty : list of float
        ``Tr(Fᵀ L_S F)`` (sum of the ``K`` smallest eigenvalues of ``L_S``) per outer iteration.
    weight_history : list of numpy.ndarray
        View weights after every outer iteration.
    n_iter : int
        Outer iterations run.
    converged : bool
        Whether the relative change of ``J`` went below ``tol``.
    F_views : list of numpy.ndarray
        Final per-view embeddings ``F_v``.
    init : str
        The initial graph used (``"pkn"`` or ``"ridge"``).
    xi_log : list of dict
        The ξ search of every outer iteration: ``iteration``, ``xi`` (kept), ``steps`` (ξ values
        tried), ``n_components`` and ``smallest`` (component size) of the kept ``S``, ``guard``
        (a tried ``S`` was shattered: a component below ``min_component``) and ``exact``
        (the kept ``S`` has exactly ``K`` components, none below ``min_component``).
    guard_fired : bool
        Whether the shatter guard rejected an ``S`` in any iteration.
    min_component : int
        The guard's smallest acceptable component.
    """

    labels: np.ndarray
    S: np.ndarray
    Z: list[np.ndarray]
    weights: np.ndarray
    objective: list[float]
    n_components: int
    xi_history: list[float]
    seconds: float
    rank_penalty: list[float] = field(default_factory=list)
    weight_history: list[np.ndarray] = field(default_factory=list)
    n_iter: int = 0
    converged: bool = False
    F_views: list[np.ndarray] = field(default_factory=list)
    init: str = "pkn"
    xi_log: list[dict] = field(default_factory=list)
    guard_fired: bool = False
    min_component: int = 2


def scale_features(X: np.ndarray) -> np.ndarray:
    """Scale every feature (column) linearly to ``[-1, 1]``; constant features become 0.

    Parameters
    ----------
    X : numpy.ndarray of shape (n_samples, n_features)

    Returns
    -------
    numpy.ndarray of the same shape.

    Examples
    --------
    >>> scale_features(np.array([[0.0, 5.0], [2.0, 5.0], [4.0, 5.0]])).tolist()
    [[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0]]
    """
    X = np.asarray(X, dtype=float)
    lo, hi = X.min(axis=0), X.max(axis=0)
    span = hi - lo
    out = np.zeros_like(X)
    ok = span > 0
    out[:, ok] = 2.0 * (X[:, ok] - lo[ok]) / span[ok] - 1.0
    return out


class _RidgeView:
    """Per-view ridge operator ``P = (X_vᵀ X_v + α I)⁻¹`` (paper notation), factorised once.

    With ``V = X_vᵀ`` (``N x d``) and ``d < N`` we never form the ``N x N`` inverse: by Woodbury
    ``P = (I - V (VᵀV + αI)⁻¹ Vᵀ) / α`` and ``P X_vᵀ X_v = I - αP = V (VᵀV + αI)⁻¹ Vᵀ =: G``.
    """

    def __init__(self, V: np.ndarray, alpha: float):
        self.V = V
        self.alpha = alpha
        n, d = V.shape
        self.dual = d < n
        if self.dual:
            self.chol = sla.cho_factor(V.T @ V + alpha * np.eye(d))
            self.G = V @ sla.cho_solve(self.chol, V.T)
        else:
            self.chol = sla.cho_factor(V @ V.T + alpha * np.eye(n))
            self.G = np.eye(n) - alpha * sla.cho_solve(self.chol, np.eye(n))
        self.G = (self.G + self.G.T) / 2

    def apply_p(self, M: np.ndarray) -> np.ndarray:
        if self.dual:
            return (M - self.V @ sla.cho_solve(self.chol, self.V.T @ M)) / self.alpha
        return sla.cho_solve(self.chol, M)

    def z_update(self, F: np.ndarray | None, beta: float) -> np.ndarray:
        """All columns at once: ``z_i = P (X_vᵀ x_i - (β/4) k_i)``, then diag 0 and clip at 0.

        ``K_F = r 1ᵀ + 1 rᵀ - 2 F Fᵀ`` (``r`` = squared row norms) is rank ``K + 2``, so
        ``P K_F`` costs ``O(N² K)`` instead of ``O(N³)``.
        """
        Z = self.G.copy()
        if F is not None and beta != 0:
            r = np.einsum("ij,ij->i", F, F)
            n = F.shape[0]
            U = self.apply_p(np.column_stack([r, np.ones(n), F]))
            PK = U[:, [0]] + np.outer(U[:, 1], r) - 2.0 * U[:, 2:] @ F.T
            Z -= (beta / 4.0) * PK
        np.fill_diagonal(Z, 0.0)
        np.maximum(Z, 0.0, out=Z)
        return Z

    def data_terms(self, Z: np.ndarray) -> float:
        resid = self.V - Z.T @ self.V  # rows: x_i - X z_i
        return float(np.sum(resid * resid) + self.alpha * np.sum(Z * Z))


INITS = ("pkn", "ridge")


def pkn_graph(X: np.ndarray, n_neighbors: int) -> np.ndarray:
    r"""Adaptive probabilistic neighbours (Nie, Wang & Huang, KDD 2014, "Clustering and projected
    clustering with adaptive neighbors"), as an ``N x N`` graph, column ``i`` for point ``i``.

    Point i's neighbour weights solve ``min_s Σ_j d_ij s_j + r ||s||²`` on the simplex with
    ``r`` chosen so that exactly ``k`` weights are positive; closed form on the sorted squared
    distances ``d_i1 <= ... <= d_i,k+1`` (self excluded):

    .. math::

        s_{ij} = rac{d_{i,k+1} - d_{ij}}{k\, d_{i,k+1} - \sum_{h \le k} d_{ih}}
        \quad (j 	ext{ among the } k 	ext{ nearest}), \qquad 0 	ext{ otherwise}.

    Every column sums to 1. Ties at the ``k+1``-th distance give a zero denominator; those
    points get uniform weights ``1/k`` on their ``k`` nearest.

    Examples
    --------
    Points 0, 1, 3 on a line, k = 1: each point's single neighbour gets weight 1.

    >>> pkn_graph(np.array([[0.0], [1.0], [3.0]]), 1).T.tolist()
    [[0.0, 1.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]

    k = 2 for point 0 of 0, 1, 3, 4: squared distances 1, 9, 16 -> (16-1, 16-9) / (2*16-10).

    >>> w = pkn_graph(np.array([[0.0], [1.0], [3.0], [4.0]]), 2)[:, 0]
    >>> w.round(6).tolist()
    [0.0, 0.681818, 0.318182, 0.0]
    """
    X = np.asarray(X, dtype=float)
    n = X.shape[0]
    k = int(n_neighbors)
    if not 1 <= k < n - 1:
        raise ValueError(f"n_neighbors must be in [1, {n - 2}], got {k}")
    r = np.einsum("ij,ij->i", X, X)
    D = r[:, None] + r[None, :] - 2.0 * (X @ X.T)
    np.maximum(D, 0.0, out=D)
    np.fill_diagonal(D, np.inf)
    idx = np.argpartition(D, k, axis=1)[:, : k + 1]
    d = np.take_along_axis(D, idx, axis=1)
    order = np.argsort(d, axis=1, kind="stable")
    idx = np.take_along_axis(idx, order, axis=1)
    d = np.take_along_axis(d, order, axis=1)
    num = d[:, [k]] - d[:, :k]
    den = k * d[:, k] - d[:, :k].sum(axis=1)
    tie = den <= 1e-12 * np.maximum(d[:, k], 1e-300)
    weights = np.where(tie[:, None], 1.0 / k, num / np.where(tie, 1.0, den)[:, None])
    W = np.zeros((n, n))
    W[np.repeat(np.arange(n), k), idx[:, :k].ravel()] = weights.ravel()
    return W.T


def seed_matters(n: int, k: int) -> bool:
    """Whether :func:`ssf_fit` on ``n`` points into ``k`` clusters can depend on its ``seed``.

    The seed only draws ARPACK's start vector. Up to ``_DENSE_MAX`` points (or ``k >= n - 1``)
    every eigenproblem of the fit is solved by dense LAPACK, which takes none: the fit is then
    the same, bit for bit, whatever the seed (``tests/test_multiview.py`` checks it).

    >>> seed_matters(200, 10), seed_matters(2000, 10)
    (False, True)
    """
    return not (n <= _DENSE_MAX or k >= n - 1)


def _normalized_affinity(A: np.ndarray) -> np.ndarray:
    """``D^{-1/2} A D^{-1/2}`` (isolated vertices keep a zero row)."""
    d = A.sum(axis=1)
    inv = np.where(d > 0, 1.0 / np.sqrt(np.where(d > 0, d, 1.0)), 0.0)
    return inv[:, None] * A * inv[None, :]


def _laplacian(W: np.ndarray) -> np.ndarray:
    L = -W.copy()
    L[np.diag_indices_from(L)] += W.sum(axis=1)
    return L


def _trace_lap(W: np.ndarray, F: np.ndarray) -> float:
    deg = W.sum(axis=1)
    return float(np.sum(deg * np.einsum("ij,ij->i", F, F)) - np.sum(F * (W @ F)))


def _top_eigvecs(
    M, k: int, v0: np.ndarray | None = None, warm: np.ndarray | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """``k`` largest eigenpairs of the symmetric ``M`` (dense or sparse), ascending order.

    Dense LAPACK for small ``N``; beyond, LOBPCG warm-started from the previous iterate ``warm``
    (a few block products ``M @ F`` once the alternation settles), else ARPACK Lanczos — only
    ``k << N`` vectors are needed (about 5x faster than LAPACK at ``N = 2000``).
    """
    n = M.shape[0]
    if n <= _DENSE_MAX or k >= n - 1:
        dense = M.toarray() if issparse(M) else M
        return sla.eigh(dense, subset_by_index=[n - k, n - 1], check_finite=False)
    if warm is not None and 5 * k < n:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # non-convergence is checked below
            vals, vecs = lobpcg(M, warm, largest=True, tol=1e-7, maxiter=60)
        resid = np.linalg.norm(M @ vecs - vecs * vals, axis=0)
        if np.all(resid <= 1e-5 * max(1.0, float(np.abs(vals).max()))):
            order = np.argsort(vals)
            return vals[order], vecs[:, order]
    vals, vecs = eigsh(M, k=k, which="LA", v0=v0)
    order = np.argsort(vals)
    return vals[order], vecs[:, order]


def _smallest_lap_eigvecs(
    S: np.ndarray, k: int, n_comp: int, comp: np.ndarray, v0: np.ndarray | None
) -> tuple[np.ndarray, np.ndarray]:
    """``k`` smallest eigenpairs of ``L_S``.

    With exactly ``k`` components the null space is spanned by the normalised component
    indicators, which we return directly (exact, and immune to the Lanczos trouble with a
    ``k``-fold zero eigenvalue). Otherwise: the largest of ``c I - L_S`` (``c`` = twice the
    largest degree, so ``c I - L_S`` is positive semi-definite) on the sparse ``S``.
    """
    n = S.shape[0]
    if n_comp == k:
        F = np.zeros((n, k))
        F[np.arange(n), comp] = 1.0
        F /= np.sqrt(F.sum(axis=0, keepdims=True))
        return np.zeros(k), F
    Ssp = csr_matrix(S)
    deg = np.asarray(Ssp.sum(axis=1)).ravel()
    L = diags(deg) - Ssp
    if n <= _DENSE_MAX or k >= n - 1:
        return sla.eigh(L.toarray(), subset_by_index=[0, k - 1], check_finite=False)
    c = 2.0 * float(deg.max()) + 1e-12
    vals, vecs = eigsh(c * identity(n, format="csr") - L, k=k, which="LA", v0=v0)
    order = np.argsort(-vals)
    return c - vals[order], vecs[:, order]


def _components(S: np.ndarray) -> tuple[int, np.ndarray]:
    n_comp, labels = connected_components(csr_matrix(S > 0), directed=False)
    return int(n_comp), labels


def _sq_dists(F: np.ndarray) -> np.ndarray:
    r = np.einsum("ij,ij->i", F, F)
    D = r[:, None] + r[None, :] - 2.0 * (F @ F.T)
    np.maximum(D, 0.0, out=D)
    return D


def _fuse_target(Fs: list[np.ndarray], w: np.ndarray, gamma: float) -> np.ndarray:
    """``Ā = γ Σ_v w_v F_v F_vᵀ / Σ_v w_v`` as one ``N x (V K)`` product."""
    H = np.hstack([np.sqrt(wv) * Fv for wv, Fv in zip(w, Fs, strict=True)])
    return (gamma / float(w.sum())) * (H @ H.T)


def ssf_fit(
    views: list[np.ndarray],
    n_clusters: int,
    *,
    alpha: float = 10.0,
    beta: float = 1e-3,
    gamma: float = 6.0,
    max_iter: int = 30,
    tol: float = 1e-4,
    seed: int = 0,
    scale: bool = True,
    xi_init: float = 1.0,
    max_xi_steps: int = 40,
    embedding: str = "affinity",
    record_objective: bool = True,
    init: str = "pkn",
    init_neighbors: int = 10,
    min_component: int | None = None,
) -> SSFResult:
    """Fit the spectral-structure-fusion multi-view clustering model.

    Alternates (the seed's Algorithm 2): for every view the ``Z_v`` column updates (closed form,
    vectorised), the embedding ``F_v``, the weight ``w_v``; then the shared ``S`` by
    column-wise simplex projections with the rank constraint enforced by adapting ``ξ``
    (Algorithm 1, constrained-Laplacian-rank style). Labels are the connected components of
    ``S`` — no k-means.

    Parameters
    ----------
    views : list of numpy.ndarray
        One ``(n_samples, d_v)`` array per view, points as **rows**.
    n_clusters : int
        ``K``, the number of clusters = required number of connected components of ``S``.
    alpha, beta, gamma : float
        Ridge weight, spectral-term weight and the fusion scale ``γ`` of the seed.
    max_iter : int
        Maximum outer iterations.
    tol : float
        Stop when ``|J_t - J_{t-1}| / |J_{t-1}| < tol``.
    seed : int
        Recorded for the protocol; SSF itself has no random step (see module docstring).
    scale : bool
        Scale every feature to ``[-1, 1]`` first (the paper's preprocessing).
    xi_init : float
        Initial ``ξ`` in units of ``2 Σ_v w_v`` (then adapted, see module docstring).
    max_xi_steps : int
        Maximum ``ξ`` adjustments per ``S`` update.
    embedding : {"affinity", "laplacian"}
        ``"affinity"`` (the seed): ``F_v`` = top-``K`` eigenvectors of ``β Z̄_v + 2γ w_v S``;
        ``"laplacian"``: of ``-β L_{Z_v} + 2γ w_v S``, the exact minimiser of ``J`` in ``F_v``.
    record_objective : bool
        Compute ``J`` every iteration (one ``N² d_v`` product per view); if False the stopping
        rule uses the relative change of ``S`` instead.
    init : {"pkn", "ridge"}
        The initial graph of every view. ``"pkn"`` (default): adaptive probabilistic
        neighbours (:func:`pkn_graph`, Nie, Wang & Huang, KDD 2014) with ``init_neighbors``
        neighbours, and ``F_v`` the top-``K`` eigenvectors of its normalised affinity
        ``D^{-1/2} Z̄_v D^{-1/2}``. ``"ridge"``: the ridge self-representation without the
        spectral term and ``F_v`` the top-``K`` eigenvectors of ``Z̄_v`` (clustlens before
        0.2). The paper does not say; on HW ``"pkn"`` is better (README, "Multi-view").
    init_neighbors : int
        ``k`` of the PKN initial graphs.
    min_component : int, optional
        The ξ guard: an ``S`` with a connected component smaller than this counts as shattered
        (ξ too strong), like one with too many components. Default ``max(2, N // (10 K))``.

    Returns
    -------
    SSFResult

    Examples
    --------
    >>> from metrics_core.datasets import make_multiview
    >>> views, y = make_multiview(n_per_cluster=15, n_clusters=3, seed=0)
    >>> res = ssf_fit(views, 3, max_iter=5)
    >>> res.n_components, res.labels.shape
    (3, (45,))
    """
    t0 = time.perf_counter()
    if n_clusters < 1:
        raise ValueError("n_clusters must be at least 1")
    if embedding not in ("affinity", "laplacian"):
        raise ValueError("embedding must be 'affinity' or 'laplacian'")
    Xs = [np.asarray(v, dtype=float) for v in views]
    n = Xs[0].shape[0]
    if any(x.ndim != 2 or x.shape[0] != n for x in Xs):
        raise ValueError("every view must be 2-D with the same number of rows (points)")
    if n_clusters > n:
        raise ValueError("n_clusters cannot exceed the number of points")
    if scale:
        Xs = [scale_features(x) for x in Xs]
    k = n_clusters
    n_views = len(Xs)
    ridges = [_RidgeView(x, alpha) for x in Xs]

    if init not in INITS:
        raise ValueError(f"init must be one of {INITS}, got {init!r}")
    guard = int(min_component) if min_component is not None else max(2, n // (10 * k))

    # --- initialisation (deterministic) ---
    v0 = np.random.default_rng(seed).standard_normal(n)  # ARPACK start vector, fixed by seed
    if init == "pkn":
        Zs = [pkn_graph(x, min(init_neighbors, n - 2)) for x in Xs]
        # The PKN graphs have init_neighbors entries per column: Lanczos on the sparse matrix.
        Fs = [_top_eigvecs(csr_matrix(_normalized_affinity((Z + Z.T) / 2)), k, v0)[1] for Z in Zs]
    else:
        Zs = [r.z_update(None, 0.0) for r in ridges]
        Fs = [_top_eigvecs((Z + Z.T) / 2, k, v0)[1] for Z in Zs]
    w = np.full(n_views, 1.0 / n_views)
    S, F, _, n_comp, evals, _ = _update_s(Fs, w, gamma, k, None, 0.0, max_xi_steps, v0, guard)
    w = _weights(S, Fs, gamma)
    xi = float(xi_init) * 2.0 * float(w.sum())

    objective: list[float] = []
    xi_log: list[dict] = []
    rank_pen: list[float] = [float(np.sum(evals[:k]))]
    xi_hist: list[float] = [0.0]
    w_hist: list[np.ndarray] = [w.copy()]
    if record_objective:
        objective.append(_objective(ridges, Zs, Fs, S, beta, gamma))
    converged = False
    n_iter = 0
    for it in range(1, max_iter + 1):
        n_iter = it
        S_prev = S
        for v in range(n_views):
            Zs[v] = ridges[v].z_update(Fs[v], beta)
            Zbar = (Zs[v] + Zs[v].T) / 2
            spectral = Zbar if embedding == "affinity" else -_laplacian(Zbar)
            Fs[v] = _top_eigvecs(2.0 * gamma * w[v] * S + beta * spectral, k, v0, Fs[v])[1]
            w[v] = _weight(S, Fs[v], gamma)
        S, F, xi, n_comp, evals, log = _update_s(Fs, w, gamma, k, F, xi, max_xi_steps, v0, guard)
        xi_log.append({"iteration": it, **log})
        w = _weights(S, Fs, gamma)
        xi_hist.append(xi)
        rank_pen.append(float(np.sum(evals[:k])))
        w_hist.append(w.copy())
        if record_objective:
            objective.append(_objective(ridges, Zs, Fs, S, beta, gamma))
            change = abs(objective[-1] - objective[-2]) / max(abs(objective[-2]), 1e-300)
        else:
            change = float(np.linalg.norm(S - S_prev) / max(np.linalg.norm(S_prev), 1e-300))
        if change < tol:
            converged = True
            break

    n_comp, labels = _components(S)
    return SSFResult(
        labels=_relabel(labels),
        S=S,
        Z=Zs,
        weights=w,
        objective=objective,
        n_components=n_comp,
        xi_history=xi_hist,
        seconds=time.perf_counter() - t0,
        rank_penalty=rank_pen,
        weight_history=w_hist,
        n_iter=n_iter,
        converged=converged,
        F_views=Fs,
        init=init,
        xi_log=xi_log,
        guard_fired=any(e["guard"] for e in xi_log),
        min_component=guard,
    )


def _relabel(labels: np.ndarray) -> np.ndarray:
    _, first = np.unique(labels, return_index=True)
    order = np.argsort(np.argsort(first))
    return order[labels]


def _weight(S: np.ndarray, Fv: np.ndarray, gamma: float) -> float:
    # ||S - γFFᵀ||² = ||S||² - 2γ Tr(Fᵀ S F) + γ² ||FᵀF||² without forming γFFᵀ.
    sq = np.sum(S * S) - 2.0 * gamma * np.sum(Fv * (S @ Fv)) + gamma**2 * np.sum((Fv.T @ Fv) ** 2)
    return 1.0 / (2.0 * np.sqrt(max(float(sq), 1e-300)))


def _weights(S: np.ndarray, Fs: list[np.ndarray], gamma: float) -> np.ndarray:
    return np.array([_weight(S, Fv, gamma) for Fv in Fs])


def _objective(
    ridges: list[_RidgeView],
    Zs: list[np.ndarray],
    Fs: list[np.ndarray],
    S: np.ndarray,
    beta: float,
    gamma: float,
) -> float:
    total = 0.0
    for r, Z, Fv in zip(ridges, Zs, Fs, strict=True):
        total += r.data_terms(Z) + beta * _trace_lap((Z + Z.T) / 2, Fv)
        total += 1.0 / (2.0 * _weight(S, Fv, gamma))
    return float(total)


def _update_s(
    Fs: list[np.ndarray],
    w: np.ndarray,
    gamma: float,
    k: int,
    F: np.ndarray | None,
    xi: float,
    max_steps: int,
    v0: np.ndarray | None = None,
    min_component: int = 1,
) -> tuple[np.ndarray, np.ndarray, float, int, np.ndarray, dict]:
    """Algorithm 1: ``min_S Σ_v w_v ||S - γF_vF_vᵀ||² + 2ξ Tr(Fᵀ L_S F)`` with ``K`` components.

    Column ``j``: ``Σ_v w_v ||s - a_vj||² + ξ Σ_i s_i ||f_i - f_j||²`` is, up to a constant,
    ``W ||s - (ā_j - ξ d_j / (2W))||²`` with ``W = Σ_v w_v`` — a simplex projection.
    ``F is None`` or ``ξ = 0`` gives the plain fusion (used for the initial ``S``).

    ξ direction: the penalty ``ξ Σ_i s_i d_ij`` charges every edge by its embedding distance;
    a larger ``ξ`` removes more cross edges, so the number of components grows with ``ξ``.
    More than ``K`` components → decrease ``ξ``; fewer → increase it (as in CLR's code).

    The shatter guard: an ``S`` with ``K`` (or more) components of which one is smaller than
    ``min_component`` points is the rank constraint cutting off a few points, not a clustering;
    it counts as "ξ too strong" too. Such an ``S`` is never kept while an unshattered one was
    seen; if the search ends without ``K`` proper components, the last ``S`` with fewer
    components (or, failing that, the last tried) is kept and the log says so.
    Returns ``(S, F, ξ, n_components, eigenvalues, log)``.
    """
    W = float(w.sum())
    A = _fuse_target(Fs, w, gamma)
    lo = hi = None  # ξ known to give too few (lo) / too many or too small (hi) components
    best = fallback = None
    tried: list[float] = []
    guard = False
    for _ in range(max(1, max_steps)):
        target = A if (F is None or xi == 0.0) else A - (xi / (2.0 * W)) * _sq_dists(F)
        S = project_simplex(target, axis=0, exclude_diagonal=True)
        S = (S + S.T) / 2
        n_comp, comp = _components(S)
        smallest = int(np.bincount(comp).min())
        tried.append(float(xi))
        searching = F is not None and xi != 0.0
        shattered = n_comp >= k and smallest < min_component
        guard |= bool(shattered and searching)
        if searching and (n_comp > k or shattered):
            # Too many (or shattered) components: weaken the penalty, keep the old F (as CLR).
            if best is None:
                fallback = (S, F, xi, n_comp, np.zeros(k), smallest)
            hi = xi
            xi = float(np.sqrt(lo * hi)) if lo is not None else xi / 2.0
            continue
        evals, F_new = _smallest_lap_eigvecs(S, k, n_comp, comp, v0)
        best = (S, F_new, xi, n_comp, evals, smallest)
        if not searching or n_comp == k:
            break
        lo = xi  # too few components: strengthen the penalty, move F to the new S
        xi = float(np.sqrt(lo * hi)) if hi is not None else xi * 2.0
        F = F_new
    kept = best if best is not None else fallback
    S, F_out, xi_out, n_comp, evals, smallest = kept
    log = {
        "xi": float(xi_out),
        "steps": tried,
        "n_components": int(n_comp),
        "smallest": int(smallest),
        "guard": bool(guard),
        "exact": bool(n_comp == k and smallest >= min_component),
    }
    return S, F_out, xi_out, n_comp, evals, log
