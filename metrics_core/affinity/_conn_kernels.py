"""Compiled Lanczos steps for many small sparse blocks (numba, imported only when needed).

One call advances each listed block of a block-diagonal CSR matrix by its own number of
plain Lanczos steps, one block after the other: a block of ~1,000 points and ~36,000 stored
entries (~0.4 MB) stays in a core's cache for all its steps, where one sparse product per step
over every block at once streamed the whole group's matrix from memory each time. The GIL is
released for the whole call, so runs of classes solved on threads do not wait on each other.
Only the convergence checks (LAPACK on each block's small tridiagonal matrix) stay in Python:
see :func:`metrics_core.affinity._spectral_gap.batched_lanczos`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numba import njit


def _compiled(fn: Callable) -> Callable:
    """``fn`` compiled without the GIL, its machine code cached on disk beside this file (or in
    the user's cache folder); where neither can be written, compiled again in each process
    (numba refuses ``cache=True`` outright there)."""
    try:
        return njit(nogil=True, cache=True)(fn)
    except RuntimeError:
        return njit(nogil=True)(fn)


@_compiled
def lanczos_steps(
    indptr: np.ndarray,
    indices: np.ndarray,
    data: np.ndarray,
    diag: np.ndarray,
    starts: np.ndarray,
    blocks: np.ndarray,
    upto: np.ndarray,
    q: np.ndarray,
    q_prev: np.ndarray,
    v1: np.ndarray,
    beta_prev: np.ndarray,
    done_steps: np.ndarray,
    alphas: np.ndarray,
    betas: np.ndarray,
    beta_min: np.ndarray,
) -> None:  # pragma: no cover - compiled; its results are tested through batched_lanczos
    """Advance each block ``blocks[i]`` from ``done_steps[b]`` to ``upto[i]`` Lanczos steps.

    The operator of block ``b`` (rows and columns ``starts[b]:starts[b + 1]``) is the
    symmetric ``A = diag(diag) + U + Uᵀ``, ``U`` its strictly upper triangle in CSR
    (``indptr``, ``indices``, ``data``: each off-diagonal entry stored once, so a product
    reads half of what a full CSR product reads), deflated by the unit vector ``v1``: each
    step computes ``x = A q - α q - β_prev q_prev`` with ``α = qᵀ A q``, then removes ``x``'s
    component along ``v1`` (after the three-term update, so its rounding is relative to
    ``|x|``, not ``|A q|``), ``β = |x|``, and moves ``q ← x / β``. Writes ``alphas[b, j]``,
    ``betas[b, j]`` for step ``j``; a block whose ``β`` is at most ``beta_min[i]`` stops
    there (``done_steps[b]`` tells): its Krylov space is invariant to rounding, and ``x / β``
    would be rounding noise, no longer orthogonal to ``v1``.
    """
    for bi in range(blocks.size):
        b = blocks[bi]
        s = starts[b]
        e = starts[b + 1]
        us = np.uint64(s)
        bp = beta_prev[b]
        y = np.empty(e - s)
        for j in range(done_steps[b], upto[bi]):
            for i in range(s, e):
                y[i - s] = diag[i] * q[i]
            for i in range(s, e):
                qi = q[i]
                # Four sums: one would wait on each addition's latency (~13 % slower).
                acc0 = acc1 = acc2 = acc3 = 0.0
                k = indptr[i]
                end = indptr[i + 1]
                while k + 3 < end:
                    # Unsigned: no negative-index wraparound test in the innermost loop.
                    c0 = np.uint64(indices[k]) - us
                    c1 = np.uint64(indices[k + 1]) - us
                    c2 = np.uint64(indices[k + 2]) - us
                    c3 = np.uint64(indices[k + 3]) - us
                    a0, a1, a2, a3 = data[k], data[k + 1], data[k + 2], data[k + 3]
                    acc0 += a0 * q[us + c0]
                    acc1 += a1 * q[us + c1]
                    acc2 += a2 * q[us + c2]
                    acc3 += a3 * q[us + c3]
                    y[c0] += a0 * qi
                    y[c1] += a1 * qi
                    y[c2] += a2 * qi
                    y[c3] += a3 * qi
                    k += 4
                while k < end:
                    c0 = np.uint64(indices[k]) - us
                    acc0 += data[k] * q[us + c0]
                    y[c0] += data[k] * qi
                    k += 1
                y[i - s] += (acc0 + acc1) + (acc2 + acc3)
            alpha = 0.0
            for i in range(s, e):
                alpha += q[i] * y[i - s]
            c = 0.0
            for i in range(s, e):
                t = y[i - s] - (alpha * q[i] + bp * q_prev[i])
                y[i - s] = t
                c += v1[i] * t
            nrm = 0.0
            for i in range(s, e):
                t = y[i - s] - c * v1[i]
                y[i - s] = t
                nrm += t * t
            beta = np.sqrt(nrm)
            alphas[b, j] = alpha
            betas[b, j] = beta
            done_steps[b] = j + 1
            if beta <= beta_min[bi]:
                break
            inv = 1.0 / beta
            for i in range(s, e):
                q_prev[i] = q[i]
                q[i] = y[i - s] * inv
            bp = beta
        beta_prev[b] = bp


@_compiled
def scaled_upper(
    indptr: np.ndarray, indices: np.ndarray, data: np.ndarray, scale: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # pragma: no cover - compiled
    """``diag(scale) W diag(scale)`` of a symmetric CSR ``W`` as (strict upper triangle in CSR:
    indptr, indices, data; and its diagonal)."""
    n = indptr.size - 1
    diag = np.zeros(n)
    count = 0
    for i in range(n):
        for k in range(indptr[i], indptr[i + 1]):
            if indices[k] > i:
                count += 1
    up_ptr = np.empty(n + 1, dtype=indptr.dtype)
    up_idx = np.empty(count, dtype=indices.dtype)
    up_val = np.empty(count)
    up_ptr[0] = 0
    o = 0
    for i in range(n):
        si = scale[i]
        for k in range(indptr[i], indptr[i + 1]):
            j = indices[k]
            if j > i:
                up_idx[o] = j
                up_val[o] = data[k] * si * scale[j]
                o += 1
            elif j == i:
                diag[i] += data[k] * si * si
        up_ptr[i + 1] = o
    return up_ptr, up_idx, up_val, diag
