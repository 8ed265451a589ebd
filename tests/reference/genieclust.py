"""Ports of genieclust's NCA and PSI, the oracles of the two set-matching scores.

Re-stated from github.com/gagolews/genieclust, ``src/c_compare_partitions.h``
(``Ccompare_partitions_nca``, ``Ccompare_partitions_psi``), commit
87ae15ad2dc68c4e36a97870ef705991af3193eb, with scipy's dense Hungarian in place of theirs.
Their NCA asserts a square table (K = C); their PSI zero-pads a non-square one.
"""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment


def nca(table: np.ndarray) -> float:
    c = np.asarray(table, dtype=float)
    k, m = c.shape
    assert k == m, "genieclust's NCA is defined for square tables only"
    s = c / c.sum(axis=1, keepdims=True)
    rows, cols = linear_sum_assignment(s, maximize=True)
    return (s[rows, cols].sum() - 1.0) / (k - 1.0)


def psi(table: np.ndarray) -> float:
    c = np.asarray(table, dtype=float)
    n = c.sum()
    size = max(c.shape)
    pad = np.zeros((size, size))
    pad[: c.shape[0], : c.shape[1]] = c
    a, b = pad.sum(axis=1), pad.sum(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.where(pad > 0, pad / np.maximum(a[:, None], b[None, :]), 0.0)
    rows, cols = linear_sum_assignment(s, maximize=True)
    total = np.sort(s[rows, cols]).sum()
    es = np.minimum(np.sort(a), np.sort(b)).sum() / n
    return max(0.0, (total - es) / (size - es))
