r"""Elastic-net subspace clustering (EnSC) coefficients, solved exactly point by point.

For every point ``x_i`` (row ``i`` of ``X``), with ``c_i = 0`` (You et al., CVPR 2016)::

    min_c  λ ||c||_1 + (1 - λ)/2 ||c||_2^2 + γ/2 ||x_i - Xᵀ c||_2^2.

``λ = 1`` is SSC's lasso (sparse, subspace preserving, poorly connected); as ``λ`` falls the ℓ2
term spreads the coefficients (better connected, more leakage); ``λ -> 0`` approaches LSR.

``gamma_scale="relative"`` (default, as the reference toolbox's ``gamma_nz``) reads ``gamma`` in
units of the smallest γ giving a non-zero solution: ``γ_i = gamma · λ / max_{j≠i} |<x_i, x_j>|``,
so that every point gets coefficients as soon as ``gamma > 1`` whatever the scale of the data.
``"absolute"`` uses ``γ_i = gamma``. (The toolbox's constant differs by scikit-learn's ``1/D``
scaling of the data term; the solutions of the two parameterisations coincide up to that factor.)

Solver: feature-sign search (Lee, Battle, Raina & Ng, NIPS 2007) on the equivalent problem
``α ||c||_1 + ½ cᵀ(G + μI)c - gᵀc`` with ``α = λ/γ``, ``μ = (1 - λ)/γ``, ``G = X Xᵀ``: one
coordinate enters per iteration (the largest KKT violation), the active-set system is solved
exactly and a discrete line search over sign changes keeps the objective decreasing. It ends
with the KKT conditions met to a relative ``tol`` and exact zeros elsewhere, so sparsity counts
are exact — which coordinate descent on these highly coherent columns is too slow to reach.
The objective after every iteration is recorded per point (convergence curves).
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from metrics_core.models._common import CoefResult, check_data
from metrics_core.validation._errors import ClustlensInputError

# Smallest ℓ2 weight used when λ = 1 (pure lasso), so that the active-set systems stay
# non-singular when more coordinates than the rank of X are tried; far below solver tolerance.
_MU_FLOOR = 1e-12


def _objective(c: np.ndarray, H: np.ndarray, b: np.ndarray, alpha: float) -> float:
    return float(alpha * np.abs(c).sum() + 0.5 * c @ H @ c - b @ c)


def _feature_sign(
    X: np.ndarray,
    G: np.ndarray,
    i: int,
    alpha: float,
    mu: float,
    tol: float,
    max_iter: int,
    max_add: int = 1,
) -> tuple[np.ndarray, np.ndarray, list[float], int, bool]:
    """Solve ``min α|c|_1 + ½cᵀ(G+μI)c - G_iᵀc`` with ``c_i = 0``; return (support, values, ...)."""
    b = G[i]
    S = np.empty(0, dtype=np.intp)
    cS = np.empty(0)
    history: list[float] = []
    n_iter = 0
    converged = False

    n_add = min(2, max_add)
    single = max_add == 1
    while n_iter < max_iter:
        # Gradient of the smooth part at the current point, for every coordinate; computed as
        # X (Xᵀ c) so the cost is N·D, not a copy of |S| rows of the N x N Gram.
        d = b - X @ (cS @ X[S]) if S.size else b.copy()
        if S.size:
            d[S] = 0.0  # active coordinates already satisfy their KKT equation exactly
        d[i] = 0.0
        ad = np.abs(d)
        if n_add == 1 or ad.size <= n_add:
            new = np.array([int(np.argmax(ad))])
        else:
            top = np.argpartition(-ad, n_add)[:n_add]
            new = top[np.argsort(-ad[top], kind="stable")]
        new = new[ad[new] > alpha * (1.0 + tol)]
        if new.size == 0:
            converged = True
            break
        f_before = history[-1] if history else 0.0
        iter_before = n_iter
        S = np.concatenate([S, new])
        sigma = np.concatenate([np.sign(cS), np.sign(d[new])])
        cS = np.concatenate([cS, np.zeros(new.size)])
        # Inner loop: the feature-sign step, repeated until the signs are consistent.
        while n_iter < max_iter:
            n_iter += 1
            H = G[np.ix_(S, S)]
            H[np.diag_indices_from(H)] += mu
            rhs = b[S] - alpha * sigma
            try:
                c_new = np.linalg.solve(H, rhs)
            except np.linalg.LinAlgError:  # duplicated points with λ = 1: singular system
                c_new = np.linalg.lstsq(H, rhs, rcond=None)[0]
            if np.all(np.sign(c_new) == sigma):
                cS = c_new
                history.append(_objective(cS, H, b[S], alpha))
                break
            # Discrete line search on [cS, c_new]: the ends and every zero crossing,
            # evaluated at once (the smooth part is a quadratic in the step t).
            delta = c_new - cS
            with np.errstate(divide="ignore", invalid="ignore"):
                cross = -cS / delta
            cross = np.where((cross > 0) & (cross < 1), cross, np.inf)
            # t = 0 (stay) is a candidate too, so a bad batch never raises the objective.
            ts = np.unique(np.concatenate([[0.0], cross[np.isfinite(cross)], [1.0]]))
            Hc, Hd = H @ cS, H @ delta
            bS = b[S]
            quad = 0.5 * (cS @ Hc + 2 * ts * (cS @ Hd) + ts**2 * (delta @ Hd))
            lin = bS @ cS + ts * (bS @ delta)
            l1 = np.abs(cS[None, :] + ts[:, None] * delta[None, :]).sum(axis=1)
            vals = alpha * l1 + quad - lin
            k = int(np.argmin(vals))
            best_c = cS + ts[k] * delta
            best_c[cross == ts[k]] = 0.0  # the coordinates crossing there are exactly zero
            keep = best_c != 0
            S, cS = S[keep], best_c[keep]
            sigma = np.sign(cS)
            history.append(float(vals[k]))
            if S.size == 0:
                break
        # Adding several coordinates at once is a heuristic (fewer iterations): grow the batch
        # while additions keep their signs, shrink it when the line search had to drop some.
        # One at a time is the method with the descent guarantee, so stay there for good when
        # a batch fails to decrease the objective.
        if single or (history and history[-1] >= f_before - 1e-14 * abs(f_before)):
            single, n_add = True, 1
        elif n_iter - iter_before > 1:
            n_add = max(1, n_add // 2)
        else:
            n_add = min(max_add, 2 * n_add)
    return S, cS, history, n_iter, converged


def ensc(
    X: Any,
    lam: float = 0.9,
    gamma: float = 50.0,
    *,
    gamma_scale: str = "relative",
    tol: float = 1e-9,
    max_iter: int = 2000,
    max_add: int = 8,
) -> CoefResult:
    """EnSC coefficient matrix (sparse CSR, zero diagonal, row ``i`` represents point ``i``).

    Parameters
    ----------
    X : array-like of shape (N, D)
        Data, points as rows (normalise rows first for the usual setting).
    lam : float in (0, 1]
        ℓ1 weight λ; the ℓ2 weight is ``1 - λ``.
    gamma : float > 0
        Weight of the data term (see ``gamma_scale``).
    gamma_scale : {"relative", "absolute"}
        How ``gamma`` is read (module docstring).
    tol : float
        Relative tolerance on the KKT conditions of the inactive coordinates.
    max_iter : int
        Feature-sign iterations per point.
    max_add : int
        Coordinates entering per outer iteration (the largest KKT violations); 1 is the
        original one-at-a-time method, used automatically whenever a batch fails to decrease
        the objective. The solution is the same (the problem is strictly convex for λ < 1).

    Returns
    -------
    CoefResult
        ``info`` holds ``n_iter`` and ``objective`` per point (objective ``F`` of the module
        docstring divided by ``γ_i``) and ``n_not_converged``.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [0.8, 0.6], [0.0, 1.0]])
    >>> res = ensc(X, lam=0.9, gamma=10.0)
    >>> res.coef.shape, float(res.coef.diagonal().max())
    ((3, 3), 0.0)
    """
    X = check_data(X)
    lam = float(lam)
    gamma = float(gamma)
    if not (0.0 < lam <= 1.0):
        raise ClustlensInputError(f"λ must be in (0, 1], got {lam!r}", source="ensc")
    if not (np.isfinite(gamma) and gamma > 0):
        raise ClustlensInputError(f"gamma must be positive, got {gamma!r}", source="ensc")
    if gamma_scale not in ("relative", "absolute"):
        raise ClustlensInputError(
            f"gamma_scale must be 'relative' or 'absolute', got {gamma_scale!r}", source="ensc"
        )
    t0 = time.perf_counter()
    n = X.shape[0]
    G = X @ X.T
    if gamma_scale == "relative":
        coh = np.abs(G)
        np.fill_diagonal(coh, 0.0)
        top = coh.max(axis=1)
        with np.errstate(divide="ignore"):
            gam = np.where(top > 0, gamma * lam / top, np.inf)
    else:
        gam = np.full(n, gamma)
    rows, cols, vals = [], [], []
    history: list[np.ndarray] = []
    n_iter = np.zeros(n, dtype=np.int64)
    objective = np.zeros(n)
    n_bad = 0
    for i in range(n):
        if not np.isfinite(gam[i]):  # a point orthogonal to every other: c = 0 is optimal
            history.append(np.zeros(0))
            continue
        alpha = lam / gam[i]
        mu = max((1.0 - lam) / gam[i], _MU_FLOOR)
        S, cS, hist, it, ok = _feature_sign(X, G, i, alpha, mu, tol, max_iter, max_add)
        rows.append(np.full(S.size, i))
        cols.append(S)
        vals.append(cS)
        # Report the objective without the dropped constant ½|x_i|², so it is F/γ_i exactly.
        const = 0.5 * G[i, i]
        history.append(np.asarray(hist) + const)
        objective[i] = (hist[-1] if hist else 0.0) + const
        n_iter[i] = it
        n_bad += not ok
    C = sp.csr_array(
        (
            np.concatenate(vals) if vals else np.zeros(0),
            (
                np.concatenate(rows) if rows else np.zeros(0, int),
                np.concatenate(cols) if cols else np.zeros(0, int),
            ),
        ),
        shape=(n, n),
    )
    C.sort_indices()
    seconds = time.perf_counter() - t0
    info = {"n_iter": n_iter, "objective": objective, "n_not_converged": int(n_bad), "gamma_i": gam}
    params = {"lambda": lam, "gamma": gamma, "gamma_scale": gamma_scale}
    return CoefResult(coef=C, params=params, objective_history=history, seconds=seconds, info=info)


def fit_ensc(X: np.ndarray, params: dict[str, Any]) -> CoefResult:
    """Registry entry: :func:`ensc` from a params dict."""
    return ensc(
        X,
        lam=params["lambda"],
        gamma=params["gamma"],
        gamma_scale=params.get("gamma_scale", "relative"),
    )
