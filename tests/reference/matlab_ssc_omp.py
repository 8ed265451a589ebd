"""Port of Chong You's SSC-OMP MATLAB evaluation (``evalSSR_error.m``, ``evalConn.m``).

The ``ssc_omp_matlab`` preset's test oracle, re-stated with dense loops from the MATLAB code:
SRE with points as columns (a column with ℓ1 norm < eps counts 1); CONN per class: 0 when a
degree is < eps, else 1 - the second largest eigenvalue of the random-walk matrix
(``eigs(cnormalize(C_in, 1)', 2, 'LR')``, solved exactly here where MATLAB uses tol 1e-3); the
min over classes.
"""

from __future__ import annotations

import numpy as np

EPS = np.finfo(float).eps


def ref_matlab_sre(c, s):
    """evalSSR_error.m: points are columns; a column with l1 norm < eps counts 1."""
    n = len(s)
    err = 0.0
    for i in range(n):
        col = np.abs(c[:, i])
        if col.sum() < EPS:
            err += 1
        else:
            err += sum(col[j] for j in range(n) if s[j] != s[i]) / col.sum()
    return err / n


def ref_random_walk_conn(a, s):
    """evalConn.m: degree < eps -> 0, else 1 - 2nd largest eigenvalue of D^-1 A; min."""
    conn = np.inf
    for k in np.unique(s):
        idx = np.flatnonzero(s == k)
        block = a[np.ix_(idx, idx)]
        deg = block.sum(axis=1)
        if deg.min() < EPS:
            value = 0.0
        else:
            ev = np.sort(np.linalg.eigvals(block / deg[:, None]).real)[::-1]
            value = 1 - ev[1]
        conn = min(conn, value)
    return conn
