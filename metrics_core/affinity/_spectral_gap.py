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
    found more than one component: λ2 = 0 exactly. A dense block is checked before any
    eigen-solve; the blocks of ``lambda2_block_diagonal`` after it, and only those whose
    computed λ2 is <= ``CONNECTED_MIN`` (a connected block's λ2 is positive, so any larger
    value proves connectivity and the check would cost ~5 % of CONN for nothing).
``"dense"``
    LAPACK on the dense Laplacian. Cheapest for small blocks, ~n³ beyond. In
    ``lambda2_block_diagonal`` the small blocks are stacked by padded size into batched
    ``numpy.linalg.eigvalsh`` calls (one LAPACK loop for many blocks instead of a Python call
    per block); a single dense block uses ``scipy.linalg.eigvalsh`` for the two smallest
    eigenvalues only.
``"lanczos"``
    The largest eigenvalue of the shifted and deflated operator ``B = S - θ1 v1 v1ᵀ``, with
    ``S = I + D^{-1/2} W D^{-1/2}`` (normalised) or ``S = c I - L``, ``c = 2 max d``
    (unnormalised). ``S`` is positive semi-definite and its top eigenpair is known exactly
    (``v1 ∝ D^{1/2} 1`` with θ1 = 2, resp. ``v1 ∝ 1`` with θ1 = c), so the largest eigenvalue
    of ``B`` is θ1 - λ2. Asking for the *largest* eigenvalue of a deflated operator converges
    in far fewer products than ``which='SA'`` on ``L``. Sparse blocks go through
    :func:`batched_lanczos` (compiled steps, each block on its own and in cache between two
    of its convergence checks; in the normalised case on ``D^{-1/2} W D^{-1/2}`` itself: the
    same Krylov space as ``S``; budget ``LANCZOS_MAX_STEPS`` steps); dense blocks use
    ARPACK ``eigsh`` (``which='LA'``, budget ``LANCZOS_MAXITER`` restarts). The cost grows
    when λ2 is tiny relative to the spread of the spectrum (ring- or path-like blocks), hence
    the budgets. Expander-like blocks (a self-expressive C's classes) need ~90 steps to
    1e-13 whatever their size, so the cost per step is what the compiled steps cut.
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

# Blocks with at most this many vertices use dense eigvalsh (batched). 100 classes of n points,
# whole CONN, dense against the compiled Lanczos: n = 32 8 / 9 ms, 64 21 / 19, 128 67 / 36,
# 256 670 / 78. Lanczos wins from ~64, but by milliseconds below 128, and there it would load
# numba's runtime (~0.3 s, ~100 MiB, once per process) for small inputs such as the
# dashboard's demo (classes of 80 points), which the dense path computes without it.
DENSE_MAX = 128
# ARPACK restarts allowed to the deflated Lanczos before falling back to shift-invert.
LANCZOS_MAXITER = 60
LANCZOS_NCV = 24
LANCZOS_TOL = 1e-12
# Steps of the batched (unrestarted) Lanczos over all sparse blocks at once.
LANCZOS_MAX_STEPS = 300
# Batched Lanczos convergence: residual <= BATCH_TOL² θ1, or residual <= BATCH_TOL θ1 and the
# quadratic error bound residual² / gap <= QUAD_TOL, ten times below the 1e-12 CONN promises
# (1e-14 cost ~4 % more steps on expander-like classes for no visible change).
BATCH_TOL = 1e-7
QUAD_TOL = 1e-13
# Convergence checks of the batched Lanczos (each the top eigenpair of a ~100 x 100
# tridiagonal matrix and its next eigenvalue by LAPACK stebz/stein; checking every 8 steps through
# scipy.linalg.eigh_tridiagonal cost 2.1 s of 21 s at N = 1e6): the first at step
# CHECK_FIRST, the second CHECK_RETRY steps later, then at CHECK_SAFETY times the distance to
# the step where the residual, extrapolated geometrically from the last two checks, passes
# the test (Lanczos convergence speeds up, so a full extrapolation would overshoot), at most
# CHECK_EVERY steps ahead. About 5 checks per expander-like block of ~1000 points (which
# converge in 80-125 steps) instead of 12, for a step or two of overshoot.
CHECK_FIRST = 16
CHECK_RETRY = 8
CHECK_SAFETY = 0.7
CHECK_EVERY = 32
# Absolute accuracy of the second Ritz value in the checks that only steer the schedule.
GAP_ABSTOL = 1e-9
# Dense blocks are stacked by size (padded to a multiple of 8) into batched eigvalsh calls of
# at most DENSE_BATCH_ENTRIES floats; blocks above DENSE_BATCH_MAX (only reached with
# method="dense") are solved one by one, asking LAPACK for the two smallest eigenvalues only.
DENSE_BATCH_MAX = 256
DENSE_BATCH_ENTRIES = 4_000_000
# Sparse blocks whose mean number of stored entries per row is at most this go straight to
# shift-invert: such blocks (rings, paths, grids, chains of small clusters) are where λ2 is tiny,
# and their LU factors stay sparse.
SHIFT_INVERT_MAX_DEGREE = 4.0
# σ = -SHIFT * scale (scale 1 for the normalised Laplacian, the mean degree otherwise). Far
# below any λ2 we care about, so (λ2 - σ) / (λ3 - σ) stays close to λ2 / λ3.
SHIFT = 1e-10
SHIFT_INVERT_TOL = 1e-12
# λ2 computed above this (times the block's largest degree for the unnormalised Laplacian)
# proves the block connected; at or below it, connected_components decides (see
# lambda2_block_diagonal).
CONNECTED_MIN = 1e-8


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


def _take_blocks(
    w: sp.csr_array,
    starts: np.ndarray,
    keep: np.ndarray,
) -> tuple[sp.csr_array, np.ndarray, np.ndarray]:
    """The diagonal blocks ``keep`` (block indices, increasing) of a block-diagonal CSR ``w``.

    Returns the block-diagonal sub-matrix, its block boundaries and the kept rows of ``w``.
    Each kept block is a contiguous run of rows and of stored entries, all inside the block,
    so this is one slice copy per block plus a shift of its column indices (no search, no
    sort).
    """
    keep = np.asarray(keep, dtype=np.intp)
    sizes = np.diff(starts)[keep]
    new_starts = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    lo, hi = starts[keep], starts[keep + 1]
    p0, p1 = w.indptr[lo], w.indptr[hi]
    offsets = np.concatenate([[0], np.cumsum(p1 - p0)])
    n = int(new_starts[-1])
    # Filled slice by slice: no per-block temporaries, no concatenation copy. 32-bit indices
    # whenever they fit (scipy keeps a sparse array's int64 indices as given): a quarter less
    # memory.
    idx = np.int32 if max(n, int(offsets[-1])) < 2**31 else np.int64
    data = np.empty(int(offsets[-1]), dtype=w.data.dtype)
    indices = np.empty(int(offsets[-1]), dtype=idx)
    indptr = np.empty(n + 1, dtype=idx)
    indptr[0] = 0
    rows = np.empty(int(sizes.sum()), dtype=np.intp)
    r = 0
    for i in range(keep.size):
        a, b, o, o_end = p0[i], p1[i], offsets[i], offsets[i + 1]
        s, e, t = lo[i], hi[i], new_starts[i]
        data[o:o_end] = w.data[a:b]
        np.subtract(w.indices[a:b], s - t, out=indices[o:o_end], casting="unsafe")
        np.subtract(
            w.indptr[s + 1 : e + 1], a - o, out=indptr[t + 1 : t + 1 + e - s], casting="unsafe"
        )
        rows[r : r + e - s] = np.arange(s, e)
        r += e - s
    sub = sp.csr_array((data, indices, indptr), shape=(n, n))
    return sub, new_starts, rows


def batched_lanczos(
    w: sp.csr_array,
    starts: np.ndarray,
    d: np.ndarray,
    laplacian: str,
    max_steps: int,
    tol: float,
    blocks: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""λ2 of every diagonal block of a block-diagonal ``w`` by plain Lanczos, block by block.

    Runs plain (unrestarted) Lanczos on the deflated, shifted operator of each block: in the
    normalised case on ``M = D^{-1/2} W D^{-1/2}`` (the same Krylov space as
    ``S = I + M``, whose top eigenpair ``θ1 = 2``, ``v1 ∝ D^{1/2} 1`` is removed from every
    iterate; λ2 = 1 - the top Ritz value), in the unnormalised one on ``S = c I - L``,
    ``c = 2 max d`` (``v1 ∝ 1``; λ2 = c - the top Ritz value). Only the largest Ritz value of
    each block's tridiagonal matrix is needed; loss of orthogonality in plain Lanczos only adds
    copies of converged Ritz values, never a wrong extreme one, so no reorthogonalisation is
    done. A block has converged when the residual bound ``r = β_j |u_j|`` of its top Ritz
    pair is <= ``tol² · θ1``, or when ``r <= tol · θ1`` and ``r² / gap <= QUAD_TOL``
    (``gap`` = distance to the next Ritz value; the eigenvalue error of a symmetric problem
    is at most ``r² / gap``).

    The steps run compiled (:func:`metrics_core.affinity._conn_kernels.lanczos_steps`):
    each block on its own between two of its convergence checks, its operator stored as its
    strict upper triangle and diagonal (half the stored entries a product reads), the
    three-term update, the deflation and the norm fused into passes over its ~1,000-entry
    vectors, the GIL released (runs of classes solve on threads without waiting on each
    other). 100 products on the 26 classes of a 25,000-point run (885,000 stored entries):
    49 ms in the compiled loop, 59 ms with scipy's CSR product. A block is checked
    at the step its residual is predicted to meet the test (geometric decay fitted to its
    last two checks, at most ``CHECK_EVERY`` steps apart), not at every step: about 5 checks
    for the 80-125 steps of an expander-like class.
    Block Lanczos needs more products than it saves (block size 8: ~42 steps, ~330 products,
    for the same accuracy), and a factorised shift-invert fills in on such blocks.

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
    blocks : numpy.ndarray of int, optional
        Solve only these blocks (increasing); ``values`` and ``converged`` follow their order.

    Returns
    -------
    (values, converged) : (numpy.ndarray, numpy.ndarray of bool)
        λ2 per block (NaN where not converged).
    """
    from metrics_core.affinity._conn_kernels import lanczos_steps, scaled_upper

    starts = np.asarray(starts, dtype=np.intp)
    if blocks is None:
        blocks = np.arange(starts.size - 1)
    blocks = np.asarray(blocks, dtype=np.intp)
    nb = blocks.size
    values = np.full(nb, np.nan)
    done = np.zeros(nb, dtype=bool)
    if nb == 0:
        return values, done
    w = sp.csr_array(w)
    d = np.asarray(d, dtype=np.float64)
    n = d.size
    sizes = np.diff(starts)[blocks]
    # The rows of `blocks`, block after block.
    ids = np.repeat(np.arange(nb), sizes)
    rows = np.arange(ids.size) + np.repeat(starts[blocks] - (np.cumsum(sizes) - sizes), sizes)
    # One 1-D vector per role over all of w's rows; only the rows of `blocks` are used.
    v1 = np.zeros(n)
    scale = np.zeros(n)  # rows outside `blocks` are never read
    if laplacian == "normalized":
        theta1 = np.full(nb, 2.0)
        offset = np.full(nb, 1.0)
        root = np.sqrt(d[rows])
        v1[rows] = root
        scale[rows] = 1.0 / root
    else:
        theta1 = 2.0 * np.maximum.reduceat(d[rows], np.concatenate([[0], np.cumsum(sizes)[:-1]]))
        offset = theta1
        v1[rows] = 1.0
        scale[rows] = 1.0
    data = np.asarray(w.data, dtype=np.float64)
    indptr, indices, data, diag = scaled_upper(w.indptr, w.indices, data, scale)
    if laplacian == "unnormalized":
        # S = c I - L = (c - D) + W: the shift joins W's diagonal (its self-loops).
        diag[rows] += np.repeat(theta1, sizes) - d[rows]
    norms = np.sqrt(np.add.reduceat(v1[rows] ** 2, np.concatenate([[0], np.cumsum(sizes)[:-1]])))
    v1[rows] /= np.repeat(norms, sizes)
    # A fixed start vector (the same draw for the same blocks) keeps results reproducible.
    q = np.zeros(n)
    q[rows] = np.random.default_rng(0).standard_normal(rows.size)
    proj = np.bincount(ids, weights=v1[rows] * q[rows], minlength=nb)
    q[rows] -= v1[rows] * proj[ids]
    q[rows] /= np.repeat(np.sqrt(np.bincount(ids, weights=q[rows] ** 2, minlength=nb)), sizes)
    q_prev = np.zeros(n)
    # The kernel indexes blocks by their position in `starts`; bookkeeping here is by the
    # position in `blocks` (i), mapped through `blocks` when calling it.
    nblocks = starts.size - 1
    beta_prev = np.zeros(nblocks)
    steps = np.zeros(nblocks, dtype=np.intp)
    alphas = np.zeros((nblocks, max_steps))
    betas = np.zeros((nblocks, max_steps))
    # Check schedule per block: the next step to check and the last (step, log residual).
    next_check = np.full(nb, CHECK_FIRST)
    last_step = np.zeros(nb, dtype=np.intp)
    last_log = np.full(nb, np.nan)
    # β this small ends a block: its top Ritz value then passes the strict test below (the
    # residual bound is at most β), and dividing by it would only normalise rounding noise.
    beta_min = tol * tol * theta1
    running = np.arange(nb)
    while running.size:
        b_run = blocks[running]
        # A block is advanced to its next check, or to where its Krylov space must be
        # exhausted (size - 1 steps), or to the budget; always by at least one step.
        upto = np.minimum(np.minimum(next_check[running], sizes[running] - 1), max_steps)
        upto = np.maximum(upto, steps[b_run] + 1).astype(np.intp)
        upto = np.minimum(upto, max_steps)
        lanczos_steps(
            indptr, indices, data, diag, starts, b_run, upto,
            q, q_prev, v1, beta_prev, steps, alphas, betas, beta_min[running],
        )  # fmt: skip
        still = []
        for i in running:
            b = blocks[i]
            j = int(steps[b])
            top, resid, gap = _top_ritz(alphas[b, :j], betas[b, :j])
            # For a symmetric operator the Ritz value is within resid of an eigenvalue and,
            # when the next Ritz value is `gap` below, within resid² / gap of it. (`gap` is
            # a lower bound, within GAP_ABSTOL; exact once resid is small.)
            strict = resid <= tol * tol * theta1[i]
            quadratic = False
            if not strict and resid <= tol * theta1[i]:
                gap = _ritz_gap(alphas[b, :j], betas[b, :j], top)
                quadratic = resid * resid <= QUAD_TOL * gap
            if strict or quadratic:
                values[i], done[i] = offset[i] - top, True
                continue
            if j >= max_steps:
                continue
            # Residuals decay about geometrically: aim the next check at the step the
            # quadratic test should pass.
            log_r = np.log(max(resid, 1e-300))
            target = np.log(max(min(tol * theta1[i], np.sqrt(QUAD_TOL * gap)), 1e-300))
            rate = (log_r - last_log[i]) / (j - last_step[i]) if last_step[i] else 0.0
            if rate < 0:
                ahead = int(np.ceil(CHECK_SAFETY * (target - log_r) / rate))
                next_check[i] = j + min(max(ahead, 1), CHECK_EVERY)
            else:
                next_check[i] = j + CHECK_RETRY
            last_step[i], last_log[i] = j, log_r
            still.append(i)
        running = np.asarray(still, dtype=np.intp)
    return values, done


_STEBZ, _STEIN = sla.get_lapack_funcs(("stebz", "stein"), (np.zeros(1),))


def _top_ritz(alpha: np.ndarray, beta: np.ndarray) -> tuple[float, float, float]:
    """Top Ritz value of the tridiagonal (``alpha``, ``beta[:-1]``), its residual bound
    ``beta[-1] |u_last|`` and a lower bound of the distance to the next Ritz value.

    The largest eigenvalue by bisection (LAPACK ``stebz``) and its vector by inverse iteration
    (``stein``), as ``scipy.linalg.eigh_tridiagonal`` would, without its argument checks
    (which cost more than the LAPACK work on these ~100 x 100 matrices). The next eigenvalue
    is only bisected to ``GAP_ABSTOL``: the gap steers the check schedule, and the
    convergence test asks :func:`_ritz_gap` for the exact one (most checks only learn that
    the residual is still too large, so a full second bisection was a third of their cost).
    """
    steps = alpha.size
    if steps == 1:
        return float(alpha[0]), float(beta[0]), np.inf
    e = beta[:-1]
    m, w, iblock, isplit, info = _STEBZ(alpha, e, 2, 0.0, 0.0, steps, steps, 0.0, "B")
    if info == 0 and m == 1:
        z, info = _STEIN(alpha, e, w[:1], iblock, isplit)
    if info != 0 or m != 1:
        w, z = sla.eigh_tridiagonal(alpha, e, select="i", select_range=(steps - 1, steps - 1))
    top = float(w[0])
    m2, w2, _, _, info2 = _STEBZ(alpha, e, 2, 0.0, 0.0, steps - 1, steps - 1, GAP_ABSTOL, "B")
    if info2 != 0 or m2 != 1:
        return top, float(beta[-1] * abs(z[-1, 0])), _ritz_gap(alpha, beta, top)
    # The bisection leaves w2 within GAP_ABSTOL (plus rounding) of the eigenvalue.
    gap = max(top - float(w2[0]) - 2 * GAP_ABSTOL, 0.0)
    return top, float(beta[-1] * abs(z[-1, 0])), gap


def _ritz_gap(alpha: np.ndarray, beta: np.ndarray, top: float) -> float:
    """Distance from ``top`` to the second largest Ritz value, bisected to full accuracy."""
    steps = alpha.size
    if steps == 1:
        return np.inf
    m, w, _, _, info = _STEBZ(alpha, beta[:-1], 2, 0.0, 0.0, steps - 1, steps - 1, 0.0, "B")
    if info != 0 or m != 1:
        w = sla.eigh_tridiagonal(
            alpha, beta[:-1], eigvals_only=True, select="i", select_range=(steps - 2, steps - 2)
        )
    # Two separate bisections of (nearly) equal Ritz values, e.g. a converged one and its
    # ghost copy in plain Lanczos, can come out in either order.
    return max(top - float(w[0]), 0.0)


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
    vertex gives exactly 0; then ``"dense"`` for blocks of at most
    ``dense_max`` vertices (stacked by padded size into batched ``numpy.linalg.eigvalsh``
    calls), ``"shift-invert"`` for very sparse blocks, and all remaining blocks go through
    :func:`batched_lanczos`, with shift-invert as the fallback for the blocks it could not
    finish within ``LANCZOS_MAX_STEPS``. Last, the blocks whose computed λ2 is
    at most ``CONNECTED_MIN`` (the only ones that can be disconnected) go through one
    ``connected_components`` call: more than one component gives exactly 0
    (``"components"``).

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
    d = degrees(w)
    ids = np.repeat(np.arange(nb), sizes)
    isolated = np.bincount(ids[d <= zero_tol], minlength=nb) > 0
    nnz_per_block = np.diff(w.indptr[starts])

    def block(b: int) -> sp.csr_array:
        s, e = starts[b], starts[b + 1]
        p0, p1 = w.indptr[s], w.indptr[e]
        return sp.csr_array(
            (w.data[p0:p1], w.indices[p0:p1] - s, w.indptr[s : e + 1] - p0), shape=(e - s, e - s)
        )

    route = np.full(nb, "", dtype=object)
    for b in range(nb):
        nv = sizes[b]
        if nv < 2:
            continue
        if isolated[b]:
            values[b], paths[b] = 0.0, "isolated"
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
        route[b] = m
    dense = np.flatnonzero(route == "dense")
    if dense.size:
        values[dense] = _dense_batch(w, starts, d, dense, laplacian)
        for b in dense:
            paths[b] = "dense"
    for b in np.flatnonzero(route == "shift-invert"):
        values[b], paths[b] = _shift_invert_or_lanczos(block(b), laplacian), "shift-invert"
    lanczos = np.flatnonzero(route == "lanczos")
    if lanczos.size:
        vals, ok = batched_lanczos(
            w, starts, d, laplacian, LANCZOS_MAX_STEPS, BATCH_TOL, blocks=lanczos
        )
        for i, b in enumerate(lanczos):
            if ok[i]:
                values[b], paths[b] = vals[i], "lanczos"
            elif method == "lanczos":
                wb = block(b)
                values[b], paths[b] = _lanczos(wb, degrees(wb), laplacian, None), "lanczos"
            else:
                values[b] = _shift_invert_or_lanczos(block(b), laplacian)
                paths[b] = "shift-invert"
    # Disconnected blocks are exactly 0. Checked after the solve, and only where it is in
    # doubt: a computed λ2 above CONNECTED_MIN (x the block's largest degree, unnormalised) is
    # ~1e4 times any solver error above 0, so that block is connected; a disconnected one
    # computes to ~1e-15. (The components of every block took ~5 % of CONN at N = 1e5.)
    solved = np.flatnonzero(route != "")
    if solved.size:
        scale = np.ones(solved.size)
        if laplacian == "unnormalized":
            scale = np.array([d[starts[b] : starts[b + 1]].max() for b in solved])
        doubt = solved[~(values[solved] > CONNECTED_MIN * scale)]
        if doubt.size:
            sub, sub_starts, _ = _take_blocks(w, starts, doubt)
            # W is symmetric, so its strongly connected components are its connected ones;
            # directed=False would first build W + Wᵀ, a second copy of the matrix.
            n_comp, comp = connected_components(sub, directed=True, connection="strong")
            comp_block = np.empty(n_comp, dtype=np.intp)
            comp_block[comp] = np.repeat(np.arange(doubt.size), np.diff(sub_starts))
            for i in np.flatnonzero(np.bincount(comp_block, minlength=doubt.size) > 1):
                values[doubt[i]], paths[doubt[i]] = 0.0, "components"
    return values, paths


def _dense_batch(
    w: sp.csr_array, starts: np.ndarray, d: np.ndarray, blocks: np.ndarray, laplacian: str
) -> np.ndarray:
    """λ2 of the small ``blocks`` by stacked ``numpy.linalg.eigvalsh`` (one LAPACK loop).

    Blocks are padded to a common size (a multiple of 8, at most ``DENSE_BATCH_PAD`` larger)
    with a diagonal of ``pad`` > every Laplacian eigenvalue (2 normalised, 2 max d
    unnormalised), so the two smallest eigenvalues of a padded matrix are the block's.
    Blocks larger than ``DENSE_BATCH_MAX`` (only with ``method="dense"``) go one at a time
    through ``scipy.linalg.eigvalsh`` with only the two smallest eigenvalues asked for.
    """
    sizes = np.diff(starts)[blocks]
    out = np.empty(blocks.size)
    big = sizes > DENSE_BATCH_MAX
    for i in np.flatnonzero(big):
        s, e = starts[blocks[i]], starts[blocks[i] + 1]
        wb = w[s:e][:, s:e]
        out[i] = _dense(wb, d[s:e], laplacian)
    padded = -(-sizes // 8) * 8
    for p in np.unique(padded[~big]):
        sel = np.flatnonzero(~big & (padded == p))
        # Stacks of at most ~DENSE_BATCH_ENTRIES floats keep the work array small.
        step = max(1, DENSE_BATCH_ENTRIES // int(p * p))
        for c0 in range(0, sel.size, step):
            part = sel[c0 : c0 + step]
            out[part] = _dense_stack(w, starts, d, blocks[part], int(p), laplacian)
    return out


def _dense_stack(w, starts, d, blocks, p: int, laplacian: str) -> np.ndarray:
    sub, sub_starts, rows = _take_blocks(w, starts, blocks)
    sizes = np.diff(sub_starts)
    g = blocks.size
    dd = d[rows]
    row_block = np.repeat(np.arange(g), sizes)
    local = np.arange(sub_starts[-1]) - np.repeat(sub_starts[:-1], sizes)
    row_nnz = np.diff(sub.indptr)
    e_block = np.repeat(row_block, row_nnz)
    e_row = np.repeat(local, row_nnz)
    e_col = sub.indices - sub_starts[e_block]
    lap = np.zeros((g, p, p))
    if laplacian == "normalized":
        s = 1.0 / np.sqrt(dd)
        lap[e_block, e_row, e_col] = -sub.data * np.repeat(s, row_nnz) * s[sub.indices]
        diag = np.ones(dd.size)
        pad = np.full(g, 4.0)
    else:
        lap[e_block, e_row, e_col] = -sub.data
        diag = dd
        pad = 4.0 * np.maximum.reduceat(dd, sub_starts[:-1]) + 1.0
    # Self-loops are stored entries on the diagonal: add the Laplacian's diagonal to them.
    lap[row_block, local, local] += diag
    fill = np.arange(p)[None, :] >= sizes[:, None]
    gi, li = np.nonzero(fill)
    lap[gi, li, li] = pad[gi]
    return np.linalg.eigvalsh(lap)[:, 1]


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
