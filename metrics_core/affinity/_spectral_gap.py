r"""λ2 of a graph Laplacian: the algebraic connectivity behind CONN, picked per block for speed.

For a symmetric non-negative weight matrix ``W`` (n x n, n >= 2) with degrees ``d = W 1``:

- normalised Laplacian ``L = I - D^{-1/2} W D^{-1/2}`` (spectrum in [0, 2]);
- unnormalised Laplacian ``L = D - W`` (spectrum in [0, 2 max d]).

``lambda2(W)`` (one block) and ``lambda2_block_diagonal(W, starts)`` (every diagonal block of a
block-diagonal sparse W, as CONN needs) return the second smallest eigenvalue of ``L`` and the
name of the path that computed it:

``"isolated"``
    some vertex has degree <= ``zero_tol``: the graph is disconnected, λ2 = 0 exactly.
``"components"``
    ``scipy.sparse.csgraph.connected_components`` (or a breadth-first search on dense input)
    found more than one component: λ2 = 0 exactly, no eigen-solve.
``"dense"``
    ``scipy.linalg.eigvalsh`` on the dense Laplacian (two smallest eigenvalues). Cheapest for
    small blocks, ~n³ beyond.
``"lanczos"``
    The largest eigenvalue of the shifted and deflated operator ``B = S - θ1 v1 v1ᵀ``, with
    ``S = I + D^{-1/2} W D^{-1/2}`` (normalised) or ``S = c I - L``, ``c = 2 max d``
    (unnormalised). ``S`` is positive semi-definite and its top eigenpair is known exactly
    (``v1 ∝ D^{1/2} 1`` with θ1 = 2, resp. ``v1 ∝ 1`` with θ1 = c), so the largest eigenvalue
    of ``B`` is θ1 - λ2. Asking for the *largest* eigenvalue of a deflated operator converges
    in far fewer products than ``which='SA'`` on ``L``. Sparse blocks all go through one
    :func:`batched_lanczos` run (one product with the block-diagonal W per step, for every
    class at once; budget ``LANCZOS_MAX_STEPS`` steps); dense blocks use ARPACK ``eigsh``
    (``which='LA'``, budget ``LANCZOS_MAXITER`` restarts). The cost grows when λ2 is tiny
    relative to the spread of the spectrum (ring- or path-like blocks), hence the budgets.
``"shift-invert"``
    ARPACK on ``P (L - σ I)^{-1} P`` with ``P = I - v1 v1ᵀ`` and σ = ``-SHIFT`` x scale
    (slightly negative, so ``L - σ I`` is positive definite), factorised once by sparse LU
    (``splu``, or Cholesky on dense blocks). Its largest eigenvalue is ``1 / (λ2 - σ)``. Fast
    for the small-gap blocks, but the factor fills in on expander-like blocks, so it is only
    chosen directly for very sparse blocks (mean degree <= ``SHIFT_INVERT_MAX_DEGREE``
    non-zeros per row) and otherwise as the fallback when the Lanczos budget runs out.

The thresholds are module constants so tests (and benchmarks) can force each path.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spla
from scipy.sparse.csgraph import connected_components

Laplacian = Literal["normalized", "unnormalized"]
Method = Literal["auto", "dense", "lanczos", "shift-invert"]
METHODS: tuple[str, ...] = ("auto", "dense", "lanczos", "shift-invert")

# Blocks with at most this many vertices use dense eigvalsh. Dense costs ~n³ (45 ms at n = 1000,
# ~5 ms at n = 250 on one idle core) while the batched Lanczos shares each sparse product among
# all blocks: 100 classes of 200 points with ~36 stored entries per row took 0.2 s batched vs
# 1.0 s dense, 100 classes of 500 took 0.5 s vs 2.0 s (loaded 2-core machine).
DENSE_MAX = 128
# ARPACK restarts allowed to the deflated Lanczos before falling back to shift-invert.
LANCZOS_MAXITER = 60
LANCZOS_NCV = 24
LANCZOS_TOL = 1e-12
# Steps of the batched (unrestarted) Lanczos over all sparse blocks at once.
LANCZOS_MAX_STEPS = 300
# Batched Lanczos convergence: residual <= BATCH_TOL² θ1, or residual <= BATCH_TOL θ1 and the
# quadratic error bound residual² / gap <= QUAD_TOL.
BATCH_TOL = 1e-7
QUAD_TOL = 1e-14
# Sparse blocks whose mean number of stored entries per row is at most this go straight to
# shift-invert: such blocks (rings, paths, grids, chains of small clusters) are where λ2 is tiny,
# and their LU factors stay sparse.
SHIFT_INVERT_MAX_DEGREE = 4.0
# σ = -SHIFT * scale (scale 1 for the normalised Laplacian, the mean degree otherwise). Far
# below any λ2 we care about, so (λ2 - σ) / (λ3 - σ) stays close to λ2 / λ3.
SHIFT = 1e-10
SHIFT_INVERT_TOL = 1e-12


def degrees(w: np.ndarray | sp.csr_array) -> np.ndarray:
    """Row sums of ``w`` as a flat float64 array."""
    return np.asarray(w.sum(axis=1), dtype=np.float64).ravel()


def _dense_is_connected(w: np.ndarray) -> bool:
    """Breadth-first search on a dense adjacency (never builds an n² sparse copy)."""
    n = w.shape[0]
    seen = np.zeros(n, dtype=bool)
    seen[0] = True
    frontier = np.array([0])
    while frontier.size:
        reach = (w[frontier] != 0).any(axis=0) & ~seen
        frontier = np.flatnonzero(reach)
        seen[frontier] = True
    return bool(seen.all())


def is_connected(w: np.ndarray | sp.csr_array) -> bool:
    """Whether the graph with (symmetric) adjacency ``w`` is connected.

    Examples
    --------
    >>> import numpy as np
    >>> is_connected(np.array([[0, 1, 0], [1, 0, 0], [0, 0, 0]]))
    False
    """
    if w.shape[0] <= 1:
        return True
    if sp.issparse(w):
        n_comp = connected_components(w, directed=False, return_labels=False)
        return n_comp == 1
    return _dense_is_connected(w)


def _laplacian(w: np.ndarray | sp.csr_array, d: np.ndarray, laplacian: str):
    """The Laplacian as a dense array or a CSC sparse array (``d`` > 0 assumed)."""
    n = w.shape[0]
    if laplacian == "normalized":
        s = 1.0 / np.sqrt(d)
        if sp.issparse(w):
            m = sp.diags_array(s) @ w @ sp.diags_array(s)
            return (sp.eye_array(n, format="csc") - m).tocsc()
        out = -(s[:, None] * w * s[None, :])
        out[np.diag_indices(n)] += 1.0
        return out
    if sp.issparse(w):
        return (sp.diags_array(d) - w).tocsc()
    out = -np.array(w, dtype=np.float64)
    out[np.diag_indices(n)] += d
    return out


def _top_pair(d: np.ndarray, laplacian: str) -> tuple[np.ndarray, float]:
    """Known top eigenvector v1 of the shifted operator S, and its eigenvalue θ1."""
    if laplacian == "normalized":
        v = np.sqrt(d)
        return v / np.linalg.norm(v), 2.0
    n = d.size
    return np.full(n, 1.0 / np.sqrt(n)), 2.0 * float(d.max())


def _dense(w, d, laplacian: str) -> float:
    lap = _laplacian(w.toarray() if sp.issparse(w) else w, d, laplacian)
    vals = sla.eigvalsh(lap, subset_by_index=[0, 1], overwrite_a=True, check_finite=False)
    return float(vals[1])


def _lanczos(w, d, laplacian: str, maxiter: int | None) -> float:
    n = w.shape[0]
    v1, theta1 = _top_pair(d, laplacian)
    if laplacian == "normalized":
        s = 1.0 / np.sqrt(d)

        def apply_s(x: np.ndarray) -> np.ndarray:
            return x + s * (w @ (s * x))

    else:
        c = theta1

        def apply_s(x: np.ndarray) -> np.ndarray:
            return (c - d) * x + w @ x

    def matvec(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64).ravel()
        y = apply_s(x)
        return y - theta1 * v1 * (v1 @ x)

    op = spla.LinearOperator((n, n), matvec=matvec, dtype=np.float64)
    # A fixed start vector keeps results reproducible; orthogonal to v1, not to anything else.
    v0 = np.random.default_rng(0).standard_normal(n)
    v0 -= v1 * (v1 @ v0)
    ncv = min(n, LANCZOS_NCV)
    theta = spla.eigsh(
        op,
        k=1,
        which="LA",
        v0=v0,
        ncv=ncv,
        maxiter=maxiter,
        tol=LANCZOS_TOL,
        return_eigenvectors=False,
    )[0]
    return float(theta1 - theta)


def _shift_invert(w, d, laplacian: str) -> float:
    n = w.shape[0]
    v1, _ = _top_pair(d, laplacian)
    scale = 1.0 if laplacian == "normalized" else float(d.mean())
    sigma = -SHIFT * scale
    lap = _laplacian(w, d, laplacian)
    if sp.issparse(lap):
        shifted = (lap - sigma * sp.eye_array(n, format="csc")).tocsc()
        # The shifted Laplacian is symmetric positive definite: a symmetric ordering and no
        # pivoting keep the factor as sparse as the graph allows.
        lu = spla.splu(
            shifted,
            permc_spec="MMD_AT_PLUS_A",
            diag_pivot_thresh=0.0,
            options={"SymmetricMode": True},
        )
        solve = lu.solve
    else:
        lap[np.diag_indices(n)] -= sigma
        factor = sla.cho_factor(lap, overwrite_a=True, check_finite=False)

        def solve(b: np.ndarray) -> np.ndarray:
            return sla.cho_solve(factor, b, check_finite=False)

    def matvec(x: np.ndarray) -> np.ndarray:
        x = np.asarray(x, dtype=np.float64).ravel()
        x = x - v1 * (v1 @ x)
        y = solve(x)
        return y - v1 * (v1 @ y)

    op = spla.LinearOperator((n, n), matvec=matvec, dtype=np.float64)
    v0 = np.random.default_rng(0).standard_normal(n)
    v0 -= v1 * (v1 @ v0)
    theta = spla.eigsh(
        op,
        k=1,
        which="LA",
        v0=v0,
        ncv=min(n, 20),
        tol=SHIFT_INVERT_TOL,
        return_eigenvectors=False,
    )[0]
    return float(sigma + 1.0 / theta)


def _segment_sum(x: np.ndarray, starts: np.ndarray) -> np.ndarray:
    return np.add.reduceat(x, starts[:-1]) if x.size else np.zeros(starts.size - 1)


def batched_lanczos(
    w: sp.csr_array,
    starts: np.ndarray,
    d: np.ndarray,
    laplacian: str,
    max_steps: int,
    tol: float,
) -> tuple[np.ndarray, np.ndarray]:
    r"""λ2 of every diagonal block of a block-diagonal ``w`` by one simultaneous Lanczos run.

    Runs plain (unrestarted) Lanczos on the deflated, shifted operator of every block at once:
    one sparse product with the whole block-diagonal matrix per step, per-block inner products
    by segment sums. Only the largest Ritz value of each block's tridiagonal matrix is needed;
    loss of orthogonality in plain Lanczos only adds copies of converged Ritz values, never a
    wrong extreme one, so no reorthogonalisation is done. A block has converged when the
    residual bound ``r = β_j |u_j|`` of its top Ritz pair is <= ``tol² · θ1``, or when
    ``r <= tol · θ1`` and ``r² / gap <= QUAD_TOL`` (``gap`` = distance to the next Ritz value;
    the eigenvalue error of a symmetric problem is at most ``r² / gap``).

    Parameters
    ----------
    w : scipy.sparse.csr_array
        Block-diagonal, symmetric, non-negative; every block connected with positive degrees.
    starts : numpy.ndarray
        Block boundaries (``starts[b]:starts[b + 1]``), ``starts[-1] == w.shape[0]``.
    d : numpy.ndarray
        Degrees.
    laplacian : {"normalized", "unnormalized"}
    max_steps : int
        Lanczos steps before giving up on the blocks that have not converged.
    tol : float

    Returns
    -------
    (values, converged) : (numpy.ndarray, numpy.ndarray of bool)
        λ2 per block (NaN where not converged).
    """
    n = w.shape[0]
    sizes = np.diff(starts)
    nb = sizes.size
    ids = np.repeat(np.arange(nb), sizes)
    if laplacian == "normalized":
        v1 = np.sqrt(d)
        theta1 = np.full(nb, 2.0)
        s = 1.0 / np.sqrt(d)
        # M = D^-1/2 W D^-1/2 once, so each step is one sparse product.
        m = w.copy()
        m.data *= s[np.repeat(np.arange(n), np.diff(m.indptr))] * s[m.indices]

        def apply_s(x: np.ndarray) -> np.ndarray:
            return x + m @ x

    else:
        v1 = np.ones(n)
        theta1 = 2.0 * np.maximum.reduceat(d, starts[:-1])
        diag = theta1[ids] - d

        def apply_s(x: np.ndarray) -> np.ndarray:
            return diag * x + w @ x

    v1 = v1 / np.sqrt(_segment_sum(v1 * v1, starts))[ids]
    th = theta1[ids]

    def apply_b(x: np.ndarray) -> np.ndarray:
        return apply_s(x) - th * v1 * _segment_sum(v1 * x, starts)[ids]

    rng = np.random.default_rng(0)
    q = rng.standard_normal(n)
    q -= v1 * _segment_sum(v1 * q, starts)[ids]
    q /= np.sqrt(_segment_sum(q * q, starts))[ids]
    q_prev = np.zeros(n)
    beta_prev = np.zeros(nb)
    alphas = np.zeros((max_steps, nb))
    betas = np.zeros((max_steps, nb))
    values = np.full(nb, np.nan)
    done = np.zeros(nb, dtype=bool)
    for j in range(max_steps):
        x = apply_b(q) - beta_prev[ids] * q_prev
        alpha = _segment_sum(q * x, starts)
        x -= alpha[ids] * q
        # Keep the iterate out of the deflated direction (B maps v1 to ~0 anyway).
        x -= v1 * _segment_sum(v1 * x, starts)[ids]
        beta = np.sqrt(_segment_sum(x * x, starts))
        alphas[j], betas[j] = alpha, beta
        steps = j + 1
        check = steps % 8 == 0 or steps == max_steps or np.any(~done & (steps == sizes - 1))
        if check:
            for b in np.flatnonzero(~done):
                a_b = alphas[:steps, b]
                e_b = betas[: steps - 1, b]
                lo = max(steps - 2, 0)
                vals, vecs = sla.eigh_tridiagonal(
                    a_b, e_b, select="i", select_range=(lo, steps - 1)
                )
                top = vals[-1]
                resid = betas[j, b] * abs(vecs[-1, -1])
                # For a symmetric operator the Ritz value is within resid of an eigenvalue and,
                # when the next Ritz value is `gap` below, within resid² / gap of it.
                gap = top - vals[0] if vals.size > 1 else np.inf
                strict = resid <= tol * tol * theta1[b]
                quadratic = resid <= tol * theta1[b] and resid * resid <= QUAD_TOL * gap
                if strict or quadratic:
                    values[b] = theta1[b] - top
                    done[b] = True
            if done.all():
                break
        # Breakdown (invariant subspace) or finished block: stop its iterate cleanly.
        safe = np.where(beta > 0, beta, 1.0)
        q_prev, q = q, x / safe[ids]
        q[done[ids] | (beta[ids] == 0)] = 0.0
        beta_prev = np.where(done, 0.0, beta)
    return values, done


def lambda2_block_diagonal(
    w: sp.csr_array,
    starts: np.ndarray,
    *,
    laplacian: Laplacian = "normalized",
    method: Method = "auto",
    zero_tol: float = 0.0,
    dense_max: int | None = None,
) -> tuple[np.ndarray, list[str]]:
    r"""λ2 of each diagonal block of a sparse block-diagonal weight matrix.

    Blocks are ``w[starts[b]:starts[b+1], starts[b]:starts[b+1]]``; ``w`` has no entries
    outside them. Per block: one-vertex blocks give NaN (``"singleton"``); a zero-degree
    vertex or more than one connected component gives exactly 0 (one
    ``connected_components`` call for all blocks); then ``"dense"`` for blocks of at most
    ``dense_max`` vertices, ``"shift-invert"`` for very sparse blocks, and all remaining blocks
    go through one :func:`batched_lanczos` run, with shift-invert as the fallback for the
    blocks it could not finish within ``LANCZOS_MAX_STEPS``.

    Returns
    -------
    (values, paths)

    Examples
    --------
    >>> import numpy as np, scipy.sparse as sp
    >>> k3 = np.ones((3, 3)) - np.eye(3)
    >>> w = sp.block_diag([k3, np.zeros((1, 1)), k3[:2, :2]], format="csr")
    >>> vals, paths = lambda2_block_diagonal(w, np.array([0, 3, 4, 6]))
    >>> vals.round(12).tolist(), paths
    ([1.5, nan, 2.0], ['dense', 'singleton', 'dense'])
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if laplacian not in ("normalized", "unnormalized"):
        raise ValueError(f"laplacian must be 'normalized' or 'unnormalized', got {laplacian!r}")
    w = sp.csr_array(w)
    if np.any(w.data == 0):
        # csgraph would count stored zeros as edges.
        w = w.copy()
        w.eliminate_zeros()
    starts = np.asarray(starts, dtype=np.intp)
    sizes = np.diff(starts)
    nb = sizes.size
    limit = DENSE_MAX if dense_max is None else dense_max
    values = np.full(nb, np.nan)
    paths = ["singleton"] * nb
    if nb == 0:
        return values, paths
    ids = np.repeat(np.arange(nb), sizes)
    d = degrees(w)
    isolated = np.bincount(ids[d <= zero_tol], minlength=nb) > 0
    n_comp, comp = connected_components(w, directed=False, return_labels=True)
    comp_block = np.empty(n_comp, dtype=np.intp)
    comp_block[comp] = ids
    n_comp_per_block = np.bincount(comp_block, minlength=nb)
    nnz_per_block = np.diff(w.indptr[starts])

    def block(b: int) -> sp.csr_array:
        s, e = starts[b], starts[b + 1]
        p0, p1 = w.indptr[s], w.indptr[e]
        return sp.csr_array(
            (w.data[p0:p1], w.indices[p0:p1] - s, w.indptr[s : e + 1] - p0), shape=(e - s, e - s)
        )

    lanczos: list[int] = []
    for b in range(nb):
        nv = sizes[b]
        if nv < 2:
            continue
        if isolated[b]:
            values[b], paths[b] = 0.0, "isolated"
            continue
        if n_comp_per_block[b] > 1:
            values[b], paths[b] = 0.0, "components"
            continue
        m = method
        if m == "auto":
            if nv <= limit:
                m = "dense"
            elif nnz_per_block[b] <= SHIFT_INVERT_MAX_DEGREE * nv:
                m = "shift-invert"
            else:
                m = "lanczos"
        if nv == 2:
            m = "dense"
        if m == "dense":
            wb = block(b)
            values[b], paths[b] = _dense(wb, degrees(wb), laplacian), "dense"
        elif m == "shift-invert":
            values[b], paths[b] = _shift_invert_or_lanczos(block(b), laplacian), "shift-invert"
        else:
            lanczos.append(b)
    if lanczos:
        sel = np.array(lanczos)
        sub_starts = np.concatenate([[0], np.cumsum(sizes[sel])])
        if sel.size == nb:
            sub, sub_d = w, d
        else:
            idx = np.concatenate([np.arange(starts[b], starts[b + 1]) for b in sel])
            sub, sub_d = w[idx][:, idx], d[idx]
        vals, ok = batched_lanczos(sub, sub_starts, sub_d, laplacian, LANCZOS_MAX_STEPS, BATCH_TOL)
        for i, b in enumerate(sel):
            if ok[i]:
                values[b], paths[b] = vals[i], "lanczos"
            elif method == "lanczos":
                wb = block(b)
                values[b], paths[b] = _lanczos(wb, degrees(wb), laplacian, None), "lanczos"
            else:
                values[b] = _shift_invert_or_lanczos(block(b), laplacian)
                paths[b] = "shift-invert"
    return values, paths


def _shift_invert_or_lanczos(wb: sp.csr_array, laplacian: str) -> float:
    d = degrees(wb)
    try:
        return _shift_invert(wb, d, laplacian)
    except (RuntimeError, MemoryError, spla.ArpackError):
        # Factorisation failed or ran out of memory: restarted Lanczos without a budget.
        return _lanczos(wb, d, laplacian, None)


def lambda2(
    w: np.ndarray | sp.csr_array,
    *,
    laplacian: Laplacian = "normalized",
    method: Method = "auto",
    zero_tol: float = 0.0,
    dense_max: int | None = None,
) -> tuple[float, str]:
    r"""Second smallest eigenvalue of the Laplacian of ``w`` and the path that computed it.

    Parameters
    ----------
    w : numpy.ndarray or scipy.sparse array, shape (n, n), n >= 2
        Symmetric, non-negative weights (not checked here: the caller builds them).
    laplacian : {"normalized", "unnormalized"}
        ``I - D^{-1/2} W D^{-1/2}`` or ``D - W``.
    method : {"auto", "dense", "lanczos", "shift-invert"}
        ``"auto"`` picks per block (see the module docstring); the others force a path (after
        the exact isolated-vertex and connected-components checks, which always run).
    zero_tol : float
        A vertex whose degree is <= ``zero_tol`` is isolated.
    dense_max : int, optional
        Override of ``DENSE_MAX`` for ``method="auto"``.

    Returns
    -------
    (float, str)
        λ2 and one of ``"isolated"``, ``"components"``, ``"dense"``, ``"lanczos"``,
        ``"shift-invert"``.

    Examples
    --------
    The complete graph on n vertices has λ2 = n / (n - 1):

    >>> import numpy as np
    >>> value, path = lambda2(np.ones((4, 4)) - np.eye(4))
    >>> round(value, 12), path
    (1.333333333333, 'dense')
    >>> lambda2(np.array([[0.0, 1, 0], [1, 0, 0], [0, 0, 0]]))
    (0.0, 'isolated')
    """
    if method not in METHODS:
        raise ValueError(f"method must be one of {METHODS}, got {method!r}")
    if laplacian not in ("normalized", "unnormalized"):
        raise ValueError(f"laplacian must be 'normalized' or 'unnormalized', got {laplacian!r}")
    n = w.shape[0]
    if n < 2:
        raise ValueError("λ2 needs at least two vertices")
    if sp.issparse(w):
        vals, paths = lambda2_block_diagonal(
            w,
            np.array([0, n]),
            laplacian=laplacian,
            method=method,
            zero_tol=zero_tol,
            dense_max=dense_max,
        )
        return float(vals[0]), paths[0]
    # Dense block (dense C): same routing, one block, restarted ARPACK for the Lanczos path.
    d = degrees(w)
    if np.any(d <= zero_tol):
        return 0.0, "isolated"
    if not is_connected(w):
        return 0.0, "components"
    limit = DENSE_MAX if dense_max is None else dense_max
    if method == "dense" or n <= 2 or (method == "auto" and n <= limit):
        return _dense(w, d, laplacian), "dense"
    if method == "shift-invert":
        return _shift_invert(w, d, laplacian), "shift-invert"
    try:
        maxiter = None if method == "lanczos" else LANCZOS_MAXITER
        return _lanczos(w, d, laplacian, maxiter), "lanczos"
    except spla.ArpackNoConvergence:
        # Small gap on a dense block: one Cholesky factorisation, then shift-invert.
        return _shift_invert(w, d, laplacian), "shift-invert"
