r"""Least-squares regression (LSR) with a zero diagonal, in closed form, for one λ or a whole path.

Problem (points as rows of ``X``, row ``i`` of ``C`` represents point ``i``)::

    min_C  ||X - C X||_F^2 + λ ||C||_F^2    subject to  diag(C) = 0.

It separates over rows. For row ``c`` of point ``i`` with Gram matrix ``G = X Xᵀ``, the Lagrangian
stationarity condition is ``(G + λI) c = G e_i - (ν/2) e_i``. Write ``P = (G + λI)^{-1}``; since
``P G = I - λP`` this gives ``c = e_i - (λ + ν/2) P e_i`` and the constraint ``c_i = 0`` fixes
``λ + ν/2 = 1 / P_ii``. Hence, row by row and ``P`` being symmetric::

    C = I - diag(P)^{-1} P          (every diagonal entry is 1 - P_ii / P_ii = 0).

This is the LSR of Lu et al. (ECCV 2012) with the diagonal constraint, written for points as rows
(their ``Z = -P diag(P)^{-1}`` with ``diag(Z) = 0`` is our ``Cᵀ``). Note the parameterisation: here
λ weighs the ridge term (larger λ, smaller coefficients); Lu et al. put it on the fit term.

Sweep shortcut: with the thin SVD ``X = U S Wᵀ`` (the eigendecomposition of ``G = U S² Uᵀ``,
computed once), ``P(λ) = I/λ + U diag(1/(s² + λ) - 1/λ) Uᵀ`` for every λ, so each λ costs one
``N x r x N`` product (``r = rank X <= min(N, D)``) instead of an ``N x N`` factorisation.
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Sequence
from typing import Any

import numpy as np
import scipy.linalg as sla

from metrics_core.models._common import CoefResult, check_data
from metrics_core.validation._errors import ClustlensInputError


def _check_lambda(lam: Any) -> float:
    lam = float(lam)
    if not np.isfinite(lam) or lam <= 0:
        raise ClustlensInputError(f"λ must be a positive finite number, got {lam!r}", source="lsr")
    return lam


def _from_p(P: np.ndarray) -> np.ndarray:
    # C = I - diag(P)^{-1} P, written in place on P to keep one N x N buffer.
    d = np.diag(P).copy()
    P /= -d[:, None]
    np.fill_diagonal(P, 0.0)
    return P


def lsr_objective(X: np.ndarray, C: np.ndarray, lam: float) -> float:
    """``||X - C X||_F^2 + λ ||C||_F^2`` (the LSR objective).

    Examples
    --------
    >>> lsr_objective(np.eye(2), np.zeros((2, 2)), 1.0)
    2.0
    """
    R = X - C @ X
    return float(np.sum(R * R) + lam * np.sum(C * C))


def lsr(X: Any, lam: float) -> np.ndarray:
    """Zero-diagonal LSR coefficients for one λ, by a direct Cholesky solve.

    Parameters
    ----------
    X : array-like of shape (N, D)
        Data, points as rows.
    lam : float
        Ridge weight λ > 0.

    Returns
    -------
    numpy.ndarray of shape (N, N)
        ``C = I - diag(P)^{-1} P`` with ``P = (X Xᵀ + λI)^{-1}``; zero diagonal.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> np.round(lsr(X, 1e-3), 3) + 0.0  # + 0.0 turns -0.0 into 0.0
    array([[0.   , 0.999, 0.   ],
           [0.999, 0.   , 0.   ],
           [0.   , 0.   , 0.   ]])
    """
    X = check_data(X)
    lam = _check_lambda(lam)
    n = X.shape[0]
    A = X @ X.T
    A[np.diag_indices(n)] += lam
    factor = sla.cho_factor(A, lower=True, overwrite_a=True, check_finite=False)
    P = sla.cho_solve(factor, np.eye(n), overwrite_b=True, check_finite=False)
    P = 0.5 * (P + P.T)  # exact symmetry, so rows and columns of C agree with the path
    return _from_p(P)


class LSRPath:
    """One SVD of ``X`` serving every λ: ``LSRPath(X).coef(lam)``.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> path = LSRPath(X)
    >>> bool(np.allclose(path.coef(0.5), lsr(X, 0.5)))
    True
    """

    def __init__(self, X: Any):
        X = check_data(X)
        self.n_samples = X.shape[0]
        U, s, _ = np.linalg.svd(X, full_matrices=False)
        # Directions with (numerically) zero singular value belong to the null part, whose
        # contribution is exactly I/λ; keeping them would add round-off only.
        keep = s > s.max() * max(X.shape) * np.finfo(float).eps if s.size else s > 0
        self.U = np.ascontiguousarray(U[:, keep])
        self.s2 = s[keep] ** 2

    def coef(self, lam: float) -> np.ndarray:
        """The zero-diagonal LSR coefficient matrix for ``lam``."""
        lam = _check_lambda(lam)
        f = 1.0 / (self.s2 + lam) - 1.0 / lam
        P = (self.U * f) @ self.U.T
        P[np.diag_indices(self.n_samples)] += 1.0 / lam
        return _from_p(P)


def lsr_path(X: Any, lambdas: Sequence[float]) -> Iterator[np.ndarray]:
    """Zero-diagonal LSR coefficient matrices for many λ from one SVD of ``X``.

    A generator, so that a sweep holds one ``N x N`` matrix at a time.

    Parameters
    ----------
    X : array-like of shape (N, D)
        Data, points as rows.
    lambdas : sequence of float
        Ridge weights, each > 0.

    Yields
    ------
    numpy.ndarray of shape (N, N)
        Equal (to round-off) to :func:`lsr` ``(X, lam)`` for each ``lam`` in turn.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [1.0, 0.0], [0.0, 1.0]])
    >>> [round(float(C[0, 1]), 3) for C in lsr_path(X, [0.01, 1.0])]
    [0.99, 0.5]
    """
    path = LSRPath(X)
    for lam in lambdas:
        yield path.coef(lam)


def fit_lsr(X: np.ndarray, params: dict[str, Any], *, path: LSRPath | None = None) -> CoefResult:
    """Registry entry: LSR for ``params["lambda"]`` (reusing ``path`` when given)."""
    t0 = time.perf_counter()
    lam = _check_lambda(params["lambda"])
    C = path.coef(lam) if path is not None else lsr(X, lam)
    seconds = time.perf_counter() - t0
    info = {"objective": lsr_objective(X, C, lam), "solver": "svd-path" if path else "cholesky"}
    return CoefResult(coef=C, params={"lambda": lam}, seconds=seconds, info=info)
