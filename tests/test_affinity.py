"""SRE, CONN and leakage on a coefficient matrix: oracles, known values, properties, bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg as sla
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics_core.affinity._spectral_gap as sg
from metrics_core.affinity._conventions import AFFINITY_PRESETS
from metrics_core.affinity._diagnostics import (
    affinity_diagnostics,
    connectivity,
    leakage_matrix,
    subspace_preserving_error,
)
from metrics_core.validation._coef import check_coef
from metrics_core.validation._errors import ClustlensInputError
from tests.reference.matlab_ssc_omp import ref_matlab_sre, ref_random_walk_conn
from tests.reference.senet import l2_rows, ref_senet_conn, ref_senet_sre

EPS = np.finfo(float).eps

# --------------------------------------------------------------------------- helpers


def random_coef(n, density, seed, zero_rows=0):
    """Random dense C with a zero diagonal and ``zero_rows`` all-zero rows."""
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((n, n)) * (rng.random((n, n)) < density)
    np.fill_diagonal(c, 0.0)
    if zero_rows:
        c[rng.choice(n, zero_rows, replace=False)] = 0.0
    return c


def random_labels(n, k, seed):
    rng = np.random.default_rng(seed + 1000)
    labels = rng.integers(0, k, n)
    labels[:k] = np.arange(k)  # every class present
    return labels


def brute_sre_rows(c, labels, zero_value):
    """SRE straight from the definition, one point and one coefficient at a time."""
    n = len(labels)
    per = []
    for i in range(n):
        total = sum(abs(c[i, j]) for j in range(n))
        off = sum(abs(c[i, j]) for j in range(n) if labels[j] != labels[i])
        per.append(zero_value if total == 0 else off / total)
    return per


def normalized_lap(w):
    d = w.sum(axis=1)
    s = 1.0 / np.sqrt(d)
    return np.eye(len(w)) - s[:, None] * w * s[None, :]


def ref_lambda2(w, laplacian="normalized"):
    """λ2 by full dense eigvalsh of an explicitly built Laplacian."""
    w = w.toarray() if sp.issparse(w) else np.asarray(w, dtype=float)
    d = w.sum(axis=1)
    if np.any(d == 0):
        return 0.0
    lap = normalized_lap(w) if laplacian == "normalized" else np.diag(d) - w
    return float(np.linalg.eigvalsh(lap)[1])


def brute_conn(c, labels, laplacian="normalized"):
    w = np.abs(c) + np.abs(c).T
    vals = []
    for k in np.unique(labels):
        idx = np.flatnonzero(labels == k)
        if len(idx) < 2:
            continue
        vals.append(ref_lambda2(w[np.ix_(idx, idx)], laplacian))
    return vals


# Graph families for the eigen-solver paths.
def ring(n):
    i = np.arange(n)
    return sp.csr_array((np.ones(2 * n), (np.r_[i, i], np.r_[(i + 1) % n, (i - 1) % n])), (n, n))


def path_graph(n):
    i = np.arange(n - 1)
    return sp.csr_array((np.ones(2 * n - 2), (np.r_[i, i + 1], np.r_[i + 1, i])), (n, n))


def star(n):
    i = np.arange(1, n)
    z = np.zeros(n - 1, dtype=int)
    return sp.csr_array((np.ones(2 * n - 2), (np.r_[z, i], np.r_[i, z])), (n, n))


def complete(n):
    return sp.csr_array(np.ones((n, n)) - np.eye(n))


def random_sparse(n, k, seed):
    rng = np.random.default_rng(seed)
    a = sp.csr_array(
        (rng.random(n * k), (np.repeat(np.arange(n), k), rng.integers(0, n, n * k))), (n, n)
    )
    w = (a + a.T).tolil()
    w.setdiag(0)
    w = sp.csr_array(w)
    w.eliminate_zeros()
    # Chain the vertices so the graph is connected whatever the draw.
    return (w + path_graph(n) * 0.01).tocsr()


def barbell(m):
    """Two m-cliques joined by one edge: a tiny λ2."""
    w = sp.block_diag([complete(m), complete(m)]).tolil()
    w[m - 1, m] = w[m, m - 1] = 1.0
    return sp.csr_array(w)


GRAPHS = {
    "ring": ring(120),
    "path": path_graph(90),
    "star": star(70),
    "complete": complete(40),
    "random": random_sparse(150, 6, 0),
    "barbell": barbell(25),
}


# --------------------------------------------------------------------------- check_coef


def test_check_coef_returns_float_dense_and_csr_without_densifying():
    assert check_coef([[0, 1], [1, 0]]).dtype == np.float64
    out = check_coef(sp.coo_array(np.eye(3, dtype=int)))
    assert sp.issparse(out) and out.format == "csr" and out.dtype == np.float64


@pytest.mark.parametrize(
    "coef",
    [
        np.zeros((2, 3)),
        np.zeros(4),
        np.zeros((2, 2, 2)),
        np.array([[0.0, np.nan], [1.0, 0.0]]),
        np.array([[0.0, np.inf], [1.0, 0.0]]),
        np.array([[0j, 1j], [1, 0]]),
        np.array([["a", "b"], ["c", "d"]]),
        sp.csr_array(np.zeros((2, 3))),
        sp.csr_array(np.array([[0.0, np.nan], [1.0, 0.0]])),
    ],
)
def test_check_coef_rejects(coef):
    with pytest.raises(ClustlensInputError):
        check_coef(coef)


def test_check_coef_rejects_out_of_range_sparse_index():
    bad = sp.csr_array((np.ones(1), np.array([0]), np.array([0, 1, 1])), shape=(2, 2))
    bad.indices[0] = 7  # scipy would accept this and crash on first use
    with pytest.raises(ClustlensInputError, match="out of range"):
        check_coef(bad)


def test_check_coef_without_copy_shares_only_canonical_csr_and_never_writes_to_it():
    canonical = sp.csr_array(np.array([[0.0, 2.0], [3.0, 0.0]]))
    out = check_coef(canonical, copy=False)
    assert np.shares_memory(out.data, canonical.data)
    assert not np.shares_memory(check_coef(canonical).data, canonical.data)
    # Unsorted, with a duplicate: summed in a copy, the caller's arrays untouched.
    data, indices, indptr = np.array([1.0, 2.0, 4.0]), np.array([1, 0, 1]), np.array([0, 3, 3])
    messy = sp.csr_array((data.copy(), indices.copy(), indptr.copy()), shape=(2, 2))
    for user_c in (messy, sp.csr_matrix(messy), sp.csr_array(messy, dtype=np.int64)):
        out = check_coef(user_c, copy=False)
        assert out.has_canonical_format
        np.testing.assert_array_equal(out.toarray(), [[2.0, 5.0], [0.0, 0.0]])
        np.testing.assert_array_equal(user_c.indices, indices)
        np.testing.assert_array_equal(user_c.data, data.astype(user_c.dtype))
    # And SRE/CONN on it agree with a copied input.
    labels = [0, 0]
    assert subspace_preserving_error(messy, labels).value == 0.0
    dense = connectivity(messy.toarray(), labels).min
    assert connectivity(messy, labels).min == pytest.approx(dense, abs=1e-15)


def test_check_coef_size_mismatch():
    with pytest.raises(ClustlensInputError, match="3 labels"):
        check_coef(np.zeros((2, 2)), n_samples=3)


@pytest.mark.parametrize(
    "func", [subspace_preserving_error, connectivity, leakage_matrix, affinity_diagnostics]
)
@pytest.mark.parametrize(
    ("coef", "labels"),
    [
        (np.zeros((3, 4)), [0, 0, 1]),
        (np.array([[0, np.nan, 0], [1, 0, 0], [0, 1, 0]]), [0, 0, 1]),
        (np.zeros((3, 3)), [0, 0, 1, 1]),
        (np.zeros((3, 3)), [0, np.nan, 1]),
        (np.zeros((0, 0)), []),
    ],
)
def test_bad_input_raises_clustlens_error(func, coef, labels):
    with pytest.raises(ClustlensInputError):
        func(coef, labels)


@pytest.mark.parametrize(
    "kwargs",
    [{"orientation": "diagonal"}, {"zero_rows": "maybe"}, {"preset": "nope"}],
)
def test_bad_convention_raises(kwargs):
    with pytest.raises(ClustlensInputError):
        subspace_preserving_error(np.eye(2), [0, 1], **kwargs)


def test_bad_conn_convention_raises():
    for kwargs in [{"laplacian": "weird"}, {"singletons": "drop"}, {"method": "magic"}]:
        with pytest.raises(ClustlensInputError):
            connectivity(np.eye(2), [0, 1], **kwargs)
    with pytest.raises(ClustlensInputError):
        affinity_diagnostics(np.eye(2), [0, 1], colour="red")


# --------------------------------------------------------------------------- SRE


@pytest.mark.parametrize("sparse", [False, True])
def test_block_diagonal_coef_has_zero_sre(sparse):
    labels = np.repeat([0, 1, 2], [4, 5, 3])
    c = np.zeros((12, 12))
    for k in range(3):
        idx = np.flatnonzero(labels == k)
        c[np.ix_(idx, idx)] = np.random.default_rng(k).standard_normal((len(idx), len(idx)))
    perm = np.random.default_rng(9).permutation(12)
    c, labels = c[np.ix_(perm, perm)], labels[perm]
    r = subspace_preserving_error(sp.csr_array(c) if sparse else c, labels)
    assert r.value == 0.0
    assert np.all(r.per_point == 0.0)
    lk = leakage_matrix(c, labels).matrix
    assert np.count_nonzero(lk - np.diag(np.diag(lk))) == 0


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize(("policy", "zero_value"), [("zero", 0.0), ("one", 1.0), ("nan", None)])
def test_sre_matches_brute_force(seed, policy, zero_value):
    n = 30
    c = random_coef(n, 0.3, seed, zero_rows=3)
    labels = random_labels(n, 4, seed)
    per = brute_sre_rows(c, labels, np.nan if zero_value is None else zero_value)
    expected = np.nanmean(per) if policy == "nan" else np.mean(per)
    for coef in (c, sp.csr_array(c), sp.coo_array(c)):
        r = subspace_preserving_error(coef, labels, zero_rows=policy)
        assert r.value == pytest.approx(expected, abs=1e-12)
        np.testing.assert_allclose(r.per_point, per, atol=1e-12)
        assert r.n_zero_rows == 3
        for k, cls in enumerate(r.classes):
            sel = [p for p, lab in zip(per, labels, strict=True) if lab == cls]
            ref = np.nanmean(sel) if policy == "nan" else np.mean(sel)
            assert r.per_class[k] == pytest.approx(ref, abs=1e-12, nan_ok=True)


def test_zero_row_policies_on_a_known_case():
    c = np.array([[0.0, 1.0, 3.0], [0.0, 0.0, 0.0], [1.0, 1.0, 0.0]])
    labels = [0, 0, 1]
    # row 0: off-class 3 of 4; row 1: zero; row 2: all off-class.
    assert subspace_preserving_error(c, labels).value == pytest.approx((0.75 + 0 + 1) / 3)
    assert subspace_preserving_error(c, labels, zero_rows="one").value == pytest.approx(
        (0.75 + 1 + 1) / 3
    )
    assert subspace_preserving_error(c, labels, zero_rows="nan").value == pytest.approx(0.875)
    assert np.isnan(subspace_preserving_error(c, labels, zero_rows="propagate").value)
    r = subspace_preserving_error(c, labels, zero_rows="nan")
    assert np.isnan(r.per_point[1]) and r.n_zero_rows == 1
    # zero_tol turns a tiny row into a zero row.
    c[1, 0] = 1e-20
    assert subspace_preserving_error(c, labels).n_zero_rows == 0
    assert subspace_preserving_error(c, labels, zero_tol=EPS).n_zero_rows == 1


@pytest.mark.parametrize("seed", range(4))
def test_orientation_columns_on_c_equals_rows_on_transpose(seed):
    c = random_coef(25, 0.3, seed, zero_rows=2)
    labels = random_labels(25, 3, seed)
    for conv in ({}, {"zero_rows": "one"}):
        a = subspace_preserving_error(c, labels, orientation="columns", **conv)
        b = subspace_preserving_error(c.T, labels, **conv)
        s = subspace_preserving_error(sp.csc_array(c), labels, orientation="columns", **conv)
        assert a.value == b.value == pytest.approx(s.value, abs=1e-15)
    for norm in (False, True):
        a = connectivity(c, labels, orientation="columns", normalize_rows=norm)
        b = connectivity(c.T, labels, normalize_rows=norm)
        np.testing.assert_allclose(a.per_class, b.per_class, atol=1e-12)
    # With row normalisation the orientation matters (a check that the argument is used).
    assert not np.allclose(
        connectivity(c, labels, normalize_rows=True).per_class,
        connectivity(c, labels, orientation="columns", normalize_rows=True).per_class,
    )


def test_sre_unchanged_by_row_normalisation():
    c = random_coef(20, 0.4, 3)
    labels = random_labels(20, 3, 3)
    a = subspace_preserving_error(c, labels).value
    assert subspace_preserving_error(c, labels, normalize_rows=True).value == a


# --------------------------------------------------------------------------- leakage


@pytest.mark.parametrize("sparse", [False, True])
def test_leakage_sums_match_l1_mass(sparse):
    c = random_coef(40, 0.2, 5)
    labels = random_labels(40, 5, 5)
    m, classes = leakage_matrix(sp.csr_array(c) if sparse else c, labels)
    assert m.shape == (5, 5)
    assert m.sum() == pytest.approx(np.abs(c).sum(), rel=1e-12)
    for a, ca in enumerate(classes):
        for b, cb in enumerate(classes):
            ref = np.abs(c[np.ix_(labels == ca, labels == cb)]).sum()
            assert m[a, b] == pytest.approx(ref, rel=1e-12, abs=1e-15)
    # Columns orientation is the transpose of the class-to-class flow.
    mt = leakage_matrix(c, labels, orientation="columns").matrix
    np.testing.assert_allclose(mt, m.T, rtol=1e-12)
    # SRE's total off-class mass agrees with the off-diagonal leakage.
    r = subspace_preserving_error(c, labels)
    rows_mass = np.abs(c).sum(axis=1)
    assert (r.per_point * rows_mass).sum() == pytest.approx(m.sum() - np.trace(m), rel=1e-12)


# --------------------------------------------------------------------------- CONN


@pytest.mark.parametrize("n", [2, 3, 5, 17, 60])
@pytest.mark.parametrize("sparse", [False, True])
def test_complete_graph_lambda2(n, sparse):
    c = np.ones((n, n)) - np.eye(n)
    coef = sp.csr_array(c) if sparse else c
    r = connectivity(coef, np.zeros(n, dtype=int))
    assert r.min == pytest.approx(n / (n - 1), abs=1e-12)
    for method in ("lanczos", "shift-invert"):
        if n > 2:
            r = connectivity(coef, np.zeros(n, dtype=int), method=method)
            assert r.min == pytest.approx(n / (n - 1), abs=1e-9)


@pytest.mark.parametrize("sparse", [False, True])
def test_disconnected_class_isolated_vertex_and_singleton(sparse):
    # class 0: two disjoint edges; class 1: a triangle plus an isolated vertex;
    # class 2: a triangle; class 3: one point.
    c = np.zeros((12, 12))
    c[0, 1] = c[2, 3] = 1.0
    c[4, 5] = c[5, 6] = c[6, 4] = 1.0
    c[8, 9] = c[9, 10] = c[10, 8] = 2.0
    c[0, 11] = 5.0  # leakage to the singleton: not in any class block
    labels = np.array([0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 3])
    coef = sp.csr_array(c) if sparse else c
    r = connectivity(coef, labels)
    assert r.per_class[0] == 0.0 and r.per_class[1] == 0.0
    assert r.per_class[2] == pytest.approx(1.5)
    assert np.isnan(r.per_class[3])
    assert r.skipped_singletons == [3]
    assert r.method_per_class[:2] == ["components", "isolated"]
    assert r.method_per_class[3] == "skipped"
    assert r.min == 0.0 and r.mean == pytest.approx(0.5)
    z = connectivity(coef, labels, singletons="zero")
    assert z.per_class[3] == 0.0 and z.skipped_singletons == []
    assert z.mean == pytest.approx(1.5 / 4)
    nan = connectivity(coef, labels, isolated="nan")
    assert np.isnan(nan.per_class[1]) and np.isnan(nan.min)
    d = affinity_diagnostics(coef, labels)
    assert d["conn_skipped_singletons"] == 1 and d["conn_min"] == 0.0


def test_stored_zeros_are_not_edges():
    # Two disjoint edges in one class, plus stored zeros that would join them if counted.
    c = sp.csr_array(
        (np.array([1.0, 1.0, 0.0, 0.0]), (np.array([0, 2, 1, 3]), np.array([1, 3, 2, 0]))),
        shape=(4, 4),
    )
    assert c.nnz == 4
    r = connectivity(c, [0, 0, 0, 0], dense_max=1)
    assert r.min == 0.0 and r.method_per_class == ["components"]
    w = sp.csr_array(
        (np.r_[1.0, 1, 1, 1, 0, 0], (np.r_[0, 1, 2, 3, 1, 2], np.r_[1, 0, 3, 2, 2, 1]))
    )
    assert w.nnz == 6
    assert sg.lambda2(w, dense_max=1) == (0.0, "components")


def test_cap_clips_at_one():
    c = np.ones((4, 4)) - np.eye(4)
    assert connectivity(c, [0, 0, 0, 0]).min == pytest.approx(4 / 3)
    assert connectivity(c, [0, 0, 0, 0], cap=True).min == 1.0


@pytest.mark.parametrize("seed", range(5))
def test_conn_sparse_equals_dense_equals_brute_force(seed):
    n = 60
    c = random_coef(n, 0.15, seed, zero_rows=1)
    labels = random_labels(n, 4, seed)
    ref = brute_conn(c, labels)
    for coef in (c, sp.csr_array(c)):
        for dense_max in (None, 3):
            r = connectivity(coef, labels, dense_max=dense_max)
            np.testing.assert_allclose(r.per_class, ref, atol=1e-9)
    refu = brute_conn(c, labels, "unnormalized")
    ru = connectivity(sp.csr_array(c), labels, laplacian="unnormalized", dense_max=3)
    np.testing.assert_allclose(ru.per_class, refu, atol=1e-8)


@pytest.mark.parametrize("name", sorted(GRAPHS))
@pytest.mark.parametrize("laplacian", ["normalized", "unnormalized"])
@pytest.mark.parametrize("method", ["dense", "lanczos", "shift-invert"])
def test_solver_paths_agree_with_dense_eigvalsh(name, laplacian, method):
    w = GRAPHS[name]
    ref = ref_lambda2(w, laplacian)
    scale = 1.0 if laplacian == "normalized" else float(w.sum(axis=1).max())
    value, path = sg.lambda2(w, laplacian=laplacian, method=method)
    assert path == method
    assert value == pytest.approx(ref, abs=1e-9 * scale, rel=1e-6)
    # Dense blocks (dense C) take the ARPACK / Cholesky versions of the same paths.
    value, path = sg.lambda2(w.toarray(), laplacian=laplacian, method=method)
    assert path == method
    assert value == pytest.approx(ref, abs=1e-9 * scale, rel=1e-6)


def test_small_gap_relative_accuracy():
    """Ring λ2 ~ 1e-5: the shift-invert path keeps relative accuracy."""
    n = 1500
    value, path = sg.lambda2(ring(n), dense_max=10)
    assert path == "shift-invert"
    assert value == pytest.approx(1 - np.cos(2 * np.pi / n), rel=1e-8)


def test_disconnected_blocks_are_exactly_zero_on_every_path():
    w = sp.block_diag([ring(40), random_sparse(50, 4, 1)], format="csr")
    for method in ("auto", "dense", "lanczos", "shift-invert"):
        assert sg.lambda2(w, method=method) == (0.0, "components")
        assert sg.lambda2(w.toarray(), method=method) == (0.0, "components")


def test_auto_picks_each_path_and_falls_back(monkeypatch):
    blocks = [ring(200), random_sparse(200, 6, 2), complete(20)]
    w = sp.block_diag(blocks, format="csr")
    starts = np.array([0, 200, 400, 420])
    refs = [ref_lambda2(b) for b in blocks]
    vals, paths = sg.lambda2_block_diagonal(w, starts, dense_max=50)
    assert paths == ["shift-invert", "lanczos", "dense"]
    np.testing.assert_allclose(vals, refs, atol=1e-9)
    # Out of Lanczos budget: the batched run hands the block to shift-invert.
    monkeypatch.setattr(sg, "LANCZOS_MAX_STEPS", 3)
    vals, paths = sg.lambda2_block_diagonal(w, starts, dense_max=50)
    assert paths == ["shift-invert", "shift-invert", "dense"]
    np.testing.assert_allclose(vals, refs, atol=1e-9)
    # Same for a dense block through restarted ARPACK.
    monkeypatch.setattr(sg, "LANCZOS_MAXITER", 1)
    value, path = sg.lambda2(ring(200).toarray(), dense_max=50)
    assert path == "shift-invert"
    assert value == pytest.approx(refs[0], rel=1e-8)


def test_batched_lanczos_many_blocks_matches_dense():
    blocks = [random_sparse(30 + 7 * i, 4, i) for i in range(12)] + [barbell(12), star(30)]
    w = sp.block_diag(blocks, format="csr")
    starts = np.concatenate([[0], np.cumsum([b.shape[0] for b in blocks])])
    for laplacian in ("normalized", "unnormalized"):
        vals, paths = sg.lambda2_block_diagonal(w, starts, laplacian=laplacian, method="lanczos")
        assert set(paths) == {"lanczos"}
        refs = [ref_lambda2(b, laplacian) for b in blocks]
        np.testing.assert_allclose(vals, refs, rtol=1e-7, atol=1e-9)


def mixed_blocks(seed, with_loops=False):
    """Random block structures covering every route of ``lambda2_block_diagonal``.

    Tiny blocks (2-3 points, single points), disconnected blocks, blocks with an isolated
    vertex, blocks exactly at and one above ``DENSE_MAX``, expander-like random blocks, a
    small-gap ring and a barbell; optionally with self-loops (stored diagonal entries).
    """
    rng = np.random.default_rng(seed)
    k = sg.DENSE_MAX
    blocks = [
        complete(2),
        path_graph(3),
        sp.csr_array(np.zeros((1, 1))),
        random_sparse(int(rng.integers(4, 40)), 3, seed),
        sp.block_diag([ring(12), ring(9)], format="csr"),  # two components
        sp.block_diag([complete(5), np.zeros((1, 1))], format="csr"),  # isolated vertex
        random_sparse(k, 4, seed + 1),  # at the dense threshold
        random_sparse(k + 1, 4, seed + 2),  # one above: sparse paths
        random_sparse(int(rng.integers(150, 400)), 12, seed + 3),  # expander-like: Lanczos
        random_sparse(int(rng.integers(150, 400)), 12, seed + 4),
        ring(int(rng.integers(150, 300))),  # small gap, very sparse: shift-invert
        barbell(int(rng.integers(70, 90))),  # small gap, dense enough for Lanczos
    ]
    order = rng.permutation(len(blocks))
    blocks = [blocks[i] for i in order]
    if with_loops:
        blocks = [sp.csr_array(b + sp.diags_array(rng.random(b.shape[0]) * 0.5)) for b in blocks]
    w = sp.block_diag(blocks, format="csr")
    starts = np.concatenate([[0], np.cumsum([b.shape[0] for b in blocks])])
    return blocks, w, starts


def dense_lambda2(block, laplacian):
    """Reference: dense eigvalsh of the explicit Laplacian (self-loops kept), 0 if isolated."""
    w = block.toarray()
    if w.shape[0] < 2:
        return np.nan
    d = w.sum(axis=1)
    if np.any(d == 0):
        return 0.0
    if laplacian == "normalized":
        s = 1.0 / np.sqrt(d)
        lap = np.eye(len(w)) - s[:, None] * w * s[None, :]
    else:
        lap = np.diag(d) - w
    return float(np.linalg.eigvalsh(lap)[1])


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("laplacian", ["normalized", "unnormalized"])
@pytest.mark.parametrize("method", ["auto", "lanczos"])
def test_block_diagonal_paths_match_dense_eigvalsh_to_1e12(seed, laplacian, method, monkeypatch):
    loops = seed % 2 == 1
    blocks, w, starts = mixed_blocks(seed, with_loops=loops)
    vals, paths = sg.lambda2_block_diagonal(w, starts, laplacian=laplacian, method=method)
    refs = np.array([dense_lambda2(b, laplacian) for b in blocks])
    for b, (v, r, path) in enumerate(zip(vals, refs, paths, strict=True)):
        scale = 1.0 if laplacian == "normalized" else float(blocks[b].sum(axis=1).max())
        if np.isnan(r):
            assert np.isnan(v) and path == "singleton"
        elif r == 0.0:
            assert v == 0.0 and path in ("components", "isolated")
        else:
            assert abs(v - r) <= 1e-12 * scale, (b, path, v, r)
    if method == "auto":
        assert {"dense", "lanczos", "shift-invert", "components"} <= set(paths)
    # A self-loop gives the lone vertex a degree: then it is a second component instead.
    assert ("isolated" in paths) != loops


def test_dense_batch_pads_mixed_sizes_without_changing_values():
    rng = np.random.default_rng(7)
    blocks = [random_sparse(int(n), 3, i) for i, n in enumerate(rng.integers(2, 60, 40))]
    blocks += [complete(2), complete(3), path_graph(3)]
    w = sp.block_diag(blocks, format="csr")
    starts = np.concatenate([[0], np.cumsum([b.shape[0] for b in blocks])])
    for laplacian in ("normalized", "unnormalized"):
        got = sg._dense_batch(w, starts, sg.degrees(w), np.arange(len(blocks)), laplacian)
        ref = [dense_lambda2(b, laplacian) for b in blocks]
        scale = 1.0 if laplacian == "normalized" else float(w.sum(axis=1).max())
        np.testing.assert_allclose(got, ref, rtol=0, atol=1e-12 * scale)


@pytest.mark.parametrize("steps", [1, 2, 3, 17, 150])
def test_top_ritz_and_gap_match_a_full_eigendecomposition(steps):
    rng = np.random.default_rng(steps)
    alpha = rng.standard_normal(steps)
    beta = rng.random(steps) + 0.05
    top, resid, gap = sg._top_ritz(alpha, beta)
    t = np.diag(alpha) + np.diag(beta[:-1], 1) + np.diag(beta[:-1], -1)
    vals, vecs = np.linalg.eigh(t)
    assert top == pytest.approx(vals[-1], abs=1e-14)
    assert resid == pytest.approx(beta[-1] * abs(vecs[-1, -1]), rel=1e-8, abs=1e-15)
    if steps == 1:
        assert gap == np.inf and sg._ritz_gap(alpha, beta, top) == np.inf
        return
    exact = vals[-1] - vals[-2]
    # The schedule's gap is a lower bound within 3 GAP_ABSTOL; the test's one is exact.
    assert exact - 3 * sg.GAP_ABSTOL - 1e-14 <= gap <= exact + 1e-14
    assert sg._ritz_gap(alpha, beta, top) == pytest.approx(exact, abs=1e-14)


def test_ritz_gap_of_a_repeated_top_value_is_zero_not_negative():
    """Plain Lanczos repeats converged Ritz values (ghosts): two equal top eigenvalues."""
    alpha = np.array([1.0, 0.3, 1.0, 0.3])
    beta = np.array([0.2, 0.0, 0.2, 0.1])  # two identical 2 x 2 blocks
    top, _, gap = sg._top_ritz(alpha, beta)
    assert gap == 0.0
    assert sg._ritz_gap(alpha, beta, top) == 0.0


def test_narrow_codes_keeps_values_in_the_smallest_type():
    import metrics_core.affinity._diagnostics as diag

    assert diag._narrow_codes(np.array([0, 32767])).dtype == np.int16
    assert diag._narrow_codes(np.array([0, 32768])).dtype == np.int32
    assert diag._narrow_codes(np.array([0, 2**31])).dtype == np.intp
    assert diag._narrow_codes(np.zeros(0, dtype=np.intp)).dtype == np.int16
    # Past the int16 range SRE and CONN still see every class apart.
    n = 2 * 33_000
    labels = np.repeat(np.arange(33_000), 2)
    rows = np.r_[np.arange(n), 0]
    cols = np.r_[np.arange(n) ^ 1, 2]  # each point's partner, and one entry outside its class
    c = sp.csr_array((np.ones(n + 1), (rows, cols)), shape=(n, n))
    sre = subspace_preserving_error(c, labels)
    assert sre.per_point[0] == pytest.approx(0.5) and np.count_nonzero(sre.per_point) == 1
    conn = connectivity(c, labels)
    assert np.all(conn.per_class == pytest.approx(2.0))


def test_take_blocks_slices_diagonal_blocks():
    blocks = [random_sparse(n, 3, n) for n in (5, 9, 4, 7)]
    w = sp.block_diag(blocks, format="csr")
    starts = np.concatenate([[0], np.cumsum([b.shape[0] for b in blocks])])
    sub, sub_starts, rows = sg._take_blocks(w, starts, np.array([1, 3]))
    np.testing.assert_array_equal(sub_starts, [0, 9, 16])
    np.testing.assert_array_equal(rows, np.r_[5:14, 18:25])
    np.testing.assert_array_equal(sub.toarray(), sp.block_diag([blocks[1], blocks[3]]).toarray())


@pytest.mark.parametrize("seed", range(3))
def test_conn_in_runs_of_classes_equals_brute_force(seed, monkeypatch):
    """W built a few classes at a time (tiny runs) gives the same λ2 as the dense definition."""
    import metrics_core.affinity._diagnostics as diag

    monkeypatch.setattr(diag, "_CONN_GROUP_NNZ", 50)
    rng = np.random.default_rng(seed)
    n = 160
    c = random_coef(n, 0.08, seed, zero_rows=2)
    c[np.diag_indices(n)] = rng.random(n) * (rng.random(n) < 0.3)  # some self-loops
    c[c != 0] += 0.0  # keep sign pattern
    c[0, 1] = 0.0
    labels = random_labels(n, 9, seed)
    labels[-3:] = 50 + np.arange(3)  # singletons
    cs = sp.csr_array(c)
    for kwargs in ({}, {"self_loops": "drop"}, {"normalize_rows": True, "affinity_scale": 0.5}):
        dense = connectivity(c, labels, **kwargs)
        sparse = connectivity(cs, labels, **kwargs)
        np.testing.assert_allclose(sparse.per_class, dense.per_class, atol=1e-12)
        assert sparse.skipped_singletons == dense.skipped_singletons
    ru = connectivity(cs, labels, laplacian="unnormalized")
    np.testing.assert_allclose(
        ru.per_class, connectivity(c, labels, laplacian="unnormalized").per_class, atol=1e-10
    )
    # And the reference definition, block by block.
    a = np.abs(c)
    w = a + a.T
    for k, cls in enumerate(np.unique(labels)):
        idx = np.flatnonzero(labels == cls)
        if idx.size >= 2:
            ref = dense_lambda2(sp.csr_array(w[np.ix_(idx, idx)]), "normalized")
            assert abs(connectivity(cs, labels).per_class[k] - ref) <= 1e-12


def _lanczos_classes(seed: int) -> tuple[sp.csr_array, np.ndarray]:
    """A sparse C whose classes (150-260 points, above DENSE_MAX) take the Lanczos path."""
    rng = np.random.default_rng(seed)
    sizes = rng.integers(150, 260, 7)
    labels = rng.permutation(np.repeat(np.arange(sizes.size), sizes))
    n = labels.size
    order = np.argsort(labels, kind="stable")
    starts = np.concatenate([[0], np.cumsum(sizes)])
    rows = np.repeat(np.arange(n), 12)
    cls = labels[rows]
    inside = order[starts[cls] + (rng.random(rows.size) * sizes[cls]).astype(np.intp)]
    cols = np.where(rng.random(rows.size) < 0.9, inside, rng.integers(0, n, rows.size))
    return sp.csr_array((rng.standard_normal(rows.size), (rows, cols)), shape=(n, n)), labels


@pytest.mark.parametrize("seed", range(2))
def test_conn_values_do_not_depend_on_the_number_of_threads(seed, monkeypatch):
    """Runs of one or two classes solved on 1, 2 or 3 threads: the same bits, the same paths,
    and each class within 1e-12 of dense eigvalsh on its block."""
    import metrics_core.affinity._diagnostics as diag

    monkeypatch.setattr(diag, "_CONN_GROUP_NNZ", 4_000)
    c, labels = _lanczos_classes(seed)
    for kwargs in ({}, {"laplacian": "unnormalized"}, {"self_loops": "drop"}):
        one = connectivity(c, labels, workers=1, **kwargs)
        assert set(one.method_per_class) == {"lanczos"}
        for workers in (2, 3, None):
            many = connectivity(c, labels, workers=workers, **kwargs)
            np.testing.assert_array_equal(many.per_class, one.per_class)
            assert many.method_per_class == one.method_per_class
    a = np.abs(c.toarray())
    w = a + a.T
    for k in range(labels.max() + 1):
        idx = np.flatnonzero(labels == k)
        ref = dense_lambda2(sp.csr_array(w[np.ix_(idx, idx)]), "normalized")
        assert abs(connectivity(c, labels).per_class[k] - ref) <= 1e-12


@pytest.mark.parametrize("workers", [0, -1, 1.5, True, "2"])
def test_workers_must_be_none_or_a_positive_integer(workers):
    c, labels = _lanczos_classes(0)
    with pytest.raises(ClustlensInputError) as err:
        connectivity(c, labels, workers=workers)
    assert err.value.source == "workers"


def test_lanczos_gives_the_same_bits_with_32_and_64_bit_indices():
    """The compiled steps are specialised per index type; both must compute the same."""
    blocks = [random_sparse(n, 6, n) for n in (150, 200, 170)]
    w = sp.block_diag(blocks, format="csr")
    starts = np.concatenate([[0], np.cumsum([b.shape[0] for b in blocks])])
    narrow = sp.csr_array(
        (w.data, w.indices.astype(np.int32), w.indptr.astype(np.int32)), shape=w.shape
    )
    wide = sp.csr_array(
        (w.data, w.indices.astype(np.int64), w.indptr.astype(np.int64)), shape=w.shape
    )
    assert wide.indices.dtype == np.int64 and narrow.indices.dtype == np.int32
    for laplacian in ("normalized", "unnormalized"):
        a = sg.batched_lanczos(narrow, starts, sg.degrees(narrow), laplacian, 300, 1e-7)
        b = sg.batched_lanczos(wide, starts, sg.degrees(wide), laplacian, 300, 1e-7)
        assert a[1].all() and b[1].all()
        np.testing.assert_array_equal(a[0], b[0])


@pytest.mark.parametrize("weight", [1.0, 2.0, 7.5])
@pytest.mark.parametrize("n", [3, 4, 9])
def test_lanczos_stops_cleanly_on_an_invariant_krylov_space(n, weight):
    """A complete graph's deflated operator is a multiple of the identity: the first step's β
    is rounding noise (~1e-32, not 0). Dividing by it would restart from noise that is no
    longer orthogonal to the deflated eigenvector (λ2 came out 0 before the kernel stopped
    there)."""
    w = sp.csr_array(weight * (np.ones((n, n)) - np.eye(n)))
    for laplacian, expect in (("normalized", n / (n - 1)), ("unnormalized", n * weight)):
        vals, ok = sg.batched_lanczos(w, np.array([0, n]), sg.degrees(w), laplacian, 300, 1e-7)
        assert ok[0] and vals[0] == pytest.approx(expect, abs=1e-12 * max(1.0, expect))


@pytest.mark.parametrize("chunk", [1, 3, 7, 10**9])
def test_sparse_sre_in_row_chunks_equals_dense(chunk, monkeypatch):
    import metrics_core.affinity._diagnostics as diag

    monkeypatch.setattr(diag, "_SPARSE_CHUNK", chunk)
    c = random_coef(30, 0.2, 3, zero_rows=3)
    c[5] = 0.0
    labels = random_labels(30, 4, 3)
    dense = subspace_preserving_error(c, labels)
    sparse = subspace_preserving_error(sp.csr_array(c), labels)
    np.testing.assert_allclose(sparse.per_point, dense.per_point, atol=1e-15)
    assert sparse.n_zero_rows == dense.n_zero_rows
    empty = subspace_preserving_error(sp.csr_array((4, 4)), [0, 0, 1, 1])
    assert empty.n_zero_rows == 4 and empty.value == 0.0


@pytest.mark.parametrize("laplacian", ["normalized", "unnormalized"])
def test_components_found_after_the_solve_on_every_route(laplacian):
    """Disconnected blocks without isolated vertices reach each solver, then score exactly 0;
    a connected block whose λ2 is below CONNECTED_MIN keeps its value."""
    n_path = 25_000  # λ2 = 1 - cos(π / (n - 1)) ~ 8e-9 < CONNECTED_MIN: the check runs
    blocks = [
        sp.block_diag([complete(30), complete(40)], format="csr"),  # dense route
        sp.block_diag([random_sparse(200, 12, 1), random_sparse(150, 12, 2)], format="csr"),
        sp.block_diag([ring(300), ring(200)], format="csr"),  # sparse: shift-invert
        sp.block_diag([complete(3)] * 60, format="csr"),  # many components, Lanczos
        random_sparse(300, 12, 3),
        path_graph(n_path),
    ]
    w = sp.block_diag(blocks, format="csr")
    starts = np.concatenate([[0], np.cumsum([b.shape[0] for b in blocks])])
    for method in ("auto", "shift-invert"):
        vals, paths = sg.lambda2_block_diagonal(w, starts, laplacian=laplacian, method=method)
        assert paths[:4] == ["components"] * 4 and vals[:4].tolist() == [0.0] * 4
        assert paths[4] != "components" and vals[4] > 0
        assert paths[5] == "shift-invert" and vals[5] > 0
        if laplacian == "normalized":
            assert vals[5] == pytest.approx(1 - np.cos(np.pi / (n_path - 1)), rel=1e-6)
    # Forced dense or Lanczos (no path block: a 5 GB matrix, an unbounded ARPACK run).
    short = sp.csr_array(w[:-n_path, :-n_path])
    for method in ("dense", "lanczos"):
        vals, paths = sg.lambda2_block_diagonal(
            short, starts[:-1], laplacian=laplacian, method=method
        )
        assert paths[:4] == ["components"] * 4 and vals[:4].tolist() == [0.0] * 4
        assert paths[4] == method and vals[4] > 0


def test_small_gap_ring_forced_through_batched_lanczos(monkeypatch):
    """A ring too long for the step budget leaves the batch and is finished elsewhere."""
    monkeypatch.setattr(sg, "LANCZOS_MAX_STEPS", 40)
    blocks = [ring(400), random_sparse(300, 12, 3)]
    w = sp.block_diag(blocks, format="csr")
    vals, paths = sg.lambda2_block_diagonal(w, np.array([0, 400, 700]), method="lanczos")
    assert paths == ["lanczos", "lanczos"]
    np.testing.assert_allclose(vals, [dense_lambda2(b, "normalized") for b in blocks], atol=1e-12)


# --------------------------------------------------------------------------- presets
# Each reference re-stated as plainly as possible, with dense loops, from its published code.


def preset_cases():
    cases = []
    for seed in range(5):
        n = 24
        c = random_coef(n, 0.45 if seed < 3 else 0.12, seed, zero_rows=1 if seed == 4 else 0)
        labels = random_labels(n, 3, seed)
        cases.append((c, labels))
    return cases


@pytest.mark.parametrize("case", range(5))
def test_preset_ssc_omp_matlab(case):
    c, s = preset_cases()[case]
    sre = subspace_preserving_error(c, s, preset="ssc_omp_matlab")
    assert sre.value == pytest.approx(ref_matlab_sre(c, s), abs=1e-12)
    assert sre.reported == sre.value
    conn = connectivity(c, s, preset="ssc_omp_matlab")
    a = np.abs(c) + np.abs(c).T
    assert conn.reported == conn.min
    assert conn.min == pytest.approx(ref_random_walk_conn(a, s), abs=1e-8)


@pytest.mark.parametrize("case", range(5))
@pytest.mark.parametrize("preset", ["senet", "unnormalized_mean", "senet_sparse"])
def test_preset_senet(case, preset):
    c, s = preset_cases()[case]
    sre = subspace_preserving_error(c, s, preset=preset)
    ref = ref_senet_sre(c, s)
    assert sre.reported == pytest.approx(ref, abs=1e-10, nan_ok=True)
    if not np.isnan(ref):
        assert sre.value == pytest.approx(ref / 100, abs=1e-12)
    cn = l2_rows(c)
    a = 0.5 * (np.abs(cn) + np.abs(cn).T)
    conn = connectivity(c, s, preset=preset)
    expected = ref_senet_conn(a, s, sparse_variant=preset != "senet")
    assert conn.reported == pytest.approx(expected, abs=1e-9, nan_ok=True)


def test_preset_case_with_singletons_matches_matlab():
    c = random_coef(10, 0.6, 11)
    s = np.array([0, 0, 0, 0, 1, 1, 1, 1, 2, 3])
    conn = connectivity(c, s, preset="ssc_omp_matlab")
    assert conn.min == 0.0  # a one-point class has degree 0 in the reference
    assert conn.min == pytest.approx(ref_random_walk_conn(np.abs(c) + np.abs(c).T, s))


def test_presets_are_documented_and_conflicts_raise():
    for name, spec in AFFINITY_PRESETS.items():
        assert len(spec["description"]) > 100, name
        assert spec["orientation"] in ("rows", "columns")
    c = random_coef(12, 0.5, 1)
    s = random_labels(12, 2, 1)
    # An argument not given takes the preset's value...
    a = subspace_preserving_error(c, s, preset="ssc_omp_matlab")
    b = subspace_preserving_error(c, s, orientation="columns", zero_rows="one", zero_tol=EPS)
    assert a.value == b.value
    # ...a given one that disagrees raises (even the documented default); one that agrees is fine.
    with pytest.raises(ClustlensInputError, match="conflicts"):
        subspace_preserving_error(c, s, preset="senet", zero_rows="one")
    with pytest.raises(ClustlensInputError, match="conflicts"):
        connectivity(c, s, preset="senet", laplacian="unnormalized")
    connectivity(c, s, preset="senet_sparse", laplacian="unnormalized")
    d = affinity_diagnostics(c, s, preset="ssc_omp_matlab")
    assert d["sre"] == a.value


# --------------------------------------------------------------------------- one call


def test_affinity_diagnostics_plain_numbers():
    c = random_coef(30, 0.3, 2, zero_rows=2)
    s = random_labels(30, 3, 2)
    d = affinity_diagnostics(sp.csr_array(c), s, orientation="columns")
    assert set(d) == {"sre", "sre_zero_rows", "conn_min", "conn_mean", "conn_skipped_singletons"}
    assert all(type(v) in (int, float) for v in d.values())
    assert d["sre"] == subspace_preserving_error(c, s, orientation="columns").value
    assert d["conn_min"] == pytest.approx(connectivity(c, s, orientation="columns").min)


# --------------------------------------------------------------------------- properties


@st.composite
def coef_and_labels(draw):
    n = draw(st.integers(2, 14))
    k = draw(st.integers(1, 4))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    c = rng.standard_normal((n, n)) * (rng.random((n, n)) < draw(st.floats(0.1, 0.9)))
    labels = rng.integers(0, k, n)
    perm = rng.permutation(n)
    return c, labels, perm


@settings(max_examples=60, deadline=None)
@given(coef_and_labels())
def test_permuting_points_changes_nothing(data):
    c, labels, perm = data
    cp, lp = c[np.ix_(perm, perm)], labels[perm]
    for zero_rows in ("zero", "one"):
        a = subspace_preserving_error(c, labels, zero_rows=zero_rows)
        b = subspace_preserving_error(sp.csr_array(cp), lp, zero_rows=zero_rows)
        assert a.value == pytest.approx(b.value, abs=1e-12)
        np.testing.assert_allclose(a.per_point[perm], b.per_point, atol=1e-12)
    for norm in (False, True):
        a = connectivity(c, labels, normalize_rows=norm)
        b = connectivity(sp.csr_array(cp), lp, normalize_rows=norm, dense_max=2)
        np.testing.assert_allclose(a.per_class, b.per_class, atol=1e-9)
        assert a.skipped_singletons == b.skipped_singletons
    for r in (a,):
        vals = r.per_class[~np.isnan(r.per_class)]
        assert np.all(vals >= 0) and np.all(vals <= 2 + 1e-12)


def test_lambda2_matches_scipy_eigvalsh_reference_on_weighted_blocks():
    rng = np.random.default_rng(4)
    w = rng.random((40, 40))
    w = w + w.T
    ref = sla.eigvalsh(normalized_lap(w))[1]
    assert sg.lambda2(sp.csr_array(w), method="lanczos")[0] == pytest.approx(ref, abs=1e-10)


@pytest.mark.parametrize("preset", sorted(AFFINITY_PRESETS))
@pytest.mark.parametrize("orientation", ["rows", "columns"])
def test_sre_conn_and_leakage_never_write_to_the_callers_sparse_c(preset, orientation):
    """C is validated without a copy when it is a canonical float64 CSR matrix (memory at
    N = 1e6): no diagnostic may then change the caller's arrays, whatever the conventions."""
    rng = np.random.default_rng(3)
    n = 120
    labels = np.repeat(np.arange(4), n // 4)
    c = sp.random_array((n, n), density=0.08, random_state=rng, format="csr")
    c.data -= 0.5  # signed entries: |C| is taken somewhere
    c.sort_indices()
    assert c.has_canonical_format and c.dtype == np.float64
    before = (c.data.copy(), c.indices.copy(), c.indptr.copy())
    conv = {"preset": preset} if orientation == "rows" else {"orientation": orientation}
    affinity_diagnostics(c, labels, **conv)
    leakage_matrix(c, labels, orientation=orientation)
    for now, then in zip((c.data, c.indices, c.indptr), before, strict=True):
        assert np.array_equal(now, then)
