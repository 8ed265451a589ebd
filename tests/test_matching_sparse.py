"""Exact matching on sparse tables: the pendant peeling plus the core solve equal the Hungarian."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from scipy.optimize import linear_sum_assignment

import metrics_core as mc
from metrics_core.partition._matching import _assign, _assign_lapjv, _assign_sparse


@pytest.mark.parametrize("seed", range(60))
def test_sparse_assignment_equals_the_dense_hungarian(seed) -> None:
    rng = np.random.default_rng(seed)
    k, n = (int(x) for x in rng.integers(2, 40, 2))
    w = sp.random(k, n, density=[0.03, 0.08, 0.2, 0.5][seed % 4], random_state=seed, format="csr")
    w.data = np.round(w.data * [1, 3, 10][seed % 3]) + 1.0
    if seed % 5 == 0:
        w.data[:] = 1.0  # all ties
    rows, cols = _assign_sparse(w)
    assert len(set(rows.tolist())) == rows.size and len(set(cols.tolist())) == cols.size
    dense = w.toarray()
    r, c = linear_sum_assignment(dense, maximize=True)
    got = dense[rows, cols].sum() if rows.size else 0.0
    assert got == pytest.approx(dense[r, c].sum(), abs=1e-9)


@pytest.mark.parametrize("seed", range(80))
def test_sparse_matcher_equals_the_hungarian_on_counts_and_floats(seed) -> None:
    # the matcher used for small dense tables (and big sparse cores): integer counts, float
    # weights of PSI/NCA's kind (n_ij / max(a_i, b_j)), ties, empty rows and columns
    rng = np.random.default_rng(seed)
    k, n = (int(x) for x in rng.integers(1, 30, 2))
    dense = rng.integers(0, [2, 5, 60][seed % 3], (k, n)).astype(np.float64)
    dense[rng.random((k, n)) < [0.0, 0.5, 0.9][seed % 3]] = 0.0
    if seed % 2:
        a, b = dense.sum(axis=1), dense.sum(axis=0)
        with np.errstate(invalid="ignore", divide="ignore"):
            dense = np.nan_to_num(dense / np.maximum(a[:, None], b[None, :]))
    rows, cols = _assign_lapjv(sp.csr_array(dense))
    assert len(set(rows.tolist())) == rows.size and len(set(cols.tolist())) == cols.size
    r, c = linear_sum_assignment(dense, maximize=True)
    assert dense[rows, cols].sum() == pytest.approx(dense[r, c].sum(), rel=1e-13, abs=1e-13)
    r2, c2 = _assign(dense)  # the dispatcher takes this path for small dense tables
    assert dense[r2, c2].sum() == pytest.approx(dense[r, c].sum(), rel=1e-13, abs=1e-13)


def test_huge_sparse_table_is_matched_exactly_and_fast() -> None:
    # ~86k x 86k classes x clusters, 2e5 points: the pendant peeling leaves a tiny core
    rng = np.random.default_rng(0)
    t = rng.integers(0, 100_000, 200_000)
    p = rng.integers(0, 100_000, 200_000)
    c = mc.contingency_table(t, p)
    assert c.is_sparse
    m = mc.best_matching(contingency=c)
    # the value scipy's full sparse matcher gives on this table (21 s there; see
    # tests/benchmarks/bench_matching.py)
    assert m.accuracy == pytest.approx(0.392355, abs=1e-12)
