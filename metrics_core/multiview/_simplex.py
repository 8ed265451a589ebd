"""Euclidean projection onto the probability simplex, one column at a time (vectorised)."""

from __future__ import annotations

import numpy as np


def project_simplex(
    values: np.ndarray, *, axis: int = 0, exclude_diagonal: bool = False
) -> np.ndarray:
    """Project every column (or row) of ``values`` onto the probability simplex.

    Solves, independently for each column ``v``, ``min_s ||s - v||_2^2`` subject to ``s >= 0``
    and ``sum(s) = 1``. The solution is ``s = max(v - tau, 0)`` with the threshold ``tau`` found
    from the sorted entries (Held, Wolfe & Crowder 1974; Duchi et al. 2008), all columns at once.

    Parameters
    ----------
    values : numpy.ndarray
        A 1-D vector or a 2-D array.
    axis : int
        For 2-D input, ``0`` projects each column (the seed paper's ``s_j``), ``1`` each row.
    exclude_diagonal : bool
        For a square 2-D input, force ``s_jj = 0`` (no self-loops) and project the remaining
        entries of each column onto the simplex of one dimension less.

    Returns
    -------
    numpy.ndarray
        Same shape as ``values``; every projected column is non-negative and sums to one.

    Examples
    --------
    >>> project_simplex(np.array([0.5, 0.5, 0.5])).round(4).tolist()
    [0.3333, 0.3333, 0.3333]
    >>> project_simplex(np.array([2.0, 0.0])).tolist()
    [1.0, 0.0]
    """
    v = np.asarray(values, dtype=float)
    if v.ndim == 1:
        return _project_columns(v[:, None].copy())[:, 0]
    if v.ndim != 2:
        raise ValueError("values must be 1-D or 2-D")
    work = v.T.copy() if axis == 1 else v.copy()
    if exclude_diagonal:
        if work.shape[0] != work.shape[1]:
            raise ValueError("exclude_diagonal needs a square array")
        # Any entry <= max(column) - 1 is never in the support (tau >= max - 1), so pushing the
        # diagonal below that bound removes it from the problem without special-casing.
        idx = np.arange(work.shape[0])
        work[idx, idx] = work.min(axis=0) - 1.0
    out = _project_columns(work)
    if exclude_diagonal:
        out[idx, idx] = 0.0
    return out.T if axis == 1 else out


def _project_columns(v: np.ndarray, top: int = 64) -> np.ndarray:
    n = v.shape[0]
    if n > 4 * top:
        # Fast path: the support is usually small, so sort only the ``top`` largest entries of
        # every column; a column whose threshold is not certified (its ``top + 1``-th value may
        # still be above ``tau``) is redone with a full sort.
        part = -np.partition(-v, top, axis=0)[: top + 1]
        u = -np.sort(-part[:top], axis=0)
        tau = _tau(u)
        ok = part[top] <= tau  # then no entry outside the leading ``top`` is in the support
        out = np.maximum(v - tau[None, :], 0.0)
        bad = np.flatnonzero(~ok)
        if bad.size:
            out[:, bad] = _project_columns(v[:, bad], top=n)
        return out
    u = -np.sort(-v, axis=0)  # descending
    return np.maximum(v - _tau(u)[None, :], 0.0)


def _tau(u: np.ndarray) -> np.ndarray:
    """Threshold from the (descending) sorted leading entries ``u`` of every column."""
    n = u.shape[0]
    css = np.cumsum(u, axis=0) - 1.0
    ind = np.arange(1, n + 1, dtype=float)[:, None]
    cond = u - css / ind > 0
    # rho = last index where the condition holds (it holds on a prefix, always at index 0).
    rho = n - 1 - np.argmax(cond[::-1], axis=0)
    return css[rho, np.arange(u.shape[1])] / (rho + 1.0)
