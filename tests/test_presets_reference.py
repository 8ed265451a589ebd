"""Each preset against a port of its reference code, case by case (issue: trust).

The ports live in ``tests/reference/`` (written from reading the references; each cites
repository, file and commit). Cases are generated to hit every quirk the references have: zero
rows, nonzero diagonals, one- and two-point classes, disconnected classes, negative entries,
tiny rows, unequal class sizes, dense and sparse C.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp

import metrics_core as mc
from tests.reference import python_toolbox as toolbox
from tests.reference.matlab_ssc_omp import ref_matlab_sre, ref_random_walk_conn
from tests.reference.senet import l2_rows, ref_senet_conn, ref_senet_sre


def _case(seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    kind = seed % 8
    sizes = [int(x) for x in rng.integers(3, 9, size=int(rng.integers(2, 5)))]
    if kind == 1:
        sizes += [1]  # a one-point class
    if kind == 2:
        sizes += [2]  # a two-point class (the sparse reference fails there)
    n = sum(sizes)
    y = np.repeat(np.arange(len(sizes)), sizes)
    rng.shuffle(y)
    density = [0.5, 0.3, 0.3, 0.15, 0.6, 0.4, 0.2, 0.5][kind]
    c = rng.normal(size=(n, n)) * (rng.random((n, n)) < density)
    if kind != 5:
        np.fill_diagonal(c, 0.0)  # kind 5 keeps a nonzero diagonal
    if kind == 4:
        c[rng.integers(n)] = 0.0  # an all-zero row
    if kind == 6:
        c[rng.integers(n)] *= 1e-17  # a row whose norm is below 10 eps
    if kind == 7:
        # make one class disconnected: no coefficient links its two halves
        idx = np.flatnonzero(y == 0)
        a, b = idx[: len(idx) // 2], idx[len(idx) // 2 :]
        c[np.ix_(a, b)] = 0.0
        c[np.ix_(b, a)] = 0.0
    return c, y


CASES = range(48)


@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize("fmt", ["dense", "sparse"])
def test_ensc_python_reproduces_the_python_toolbox(seed: int, fmt: str) -> None:
    c, y = _case(seed)
    ref_input = c if fmt == "dense" else sp.csr_matrix(c)
    ours_input = c if fmt == "dense" else sp.csr_array(c)
    ref_sre = toolbox.self_representation_loss(y, ref_input)
    ref_conn, arpack_failed = toolbox.self_representation_connectivity(y, ref_input)
    sre = mc.subspace_preserving_error(ours_input, y, preset="ensc_python")
    assert sre.reported == pytest.approx(ref_sre, abs=1e-9)
    if arpack_failed:
        pytest.skip("the reference's eigsh failed on a block of >= 3 points (scored 0 there)")
    conn = mc.connectivity(ours_input, y, preset="ensc_python")
    assert conn.reported == pytest.approx(ref_conn, abs=1e-9)
    assert conn.reported == conn.min  # the reference reports the min, capped at 1
    d = mc.evaluate(y, y, ours_input, affinity_preset="ensc_python")
    assert d["sre"] == sre.value and d["conn_min"] == conn.min


@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize("fmt", ["dense", "sparse"])
def test_ssc_omp_matlab_reproduces_the_matlab_code(seed: int, fmt: str) -> None:
    c, y = _case(seed)
    coef = c if fmt == "dense" else sp.csr_array(c)
    sre = mc.subspace_preserving_error(coef, y, preset="ssc_omp_matlab")
    assert sre.reported == pytest.approx(ref_matlab_sre(c, y), abs=1e-9)
    conn = mc.connectivity(coef, y, preset="ssc_omp_matlab")
    ref = ref_random_walk_conn(np.abs(c) + np.abs(c).T, y)
    assert conn.reported == pytest.approx(ref, abs=1e-8)


@pytest.mark.parametrize("seed", CASES)
@pytest.mark.parametrize("fmt", ["dense", "sparse"])
def test_senet_reproduces_senet_utils(seed: int, fmt: str) -> None:
    c, y = _case(seed)
    coef = c if fmt == "dense" else sp.csr_array(c)
    sre = mc.subspace_preserving_error(coef, y, preset="senet")
    assert sre.reported == pytest.approx(ref_senet_sre(c, y), abs=1e-9, nan_ok=True)
    if np.bincount(y).min() < 2:
        pytest.skip("a one-point class crashes the reference (index error); the preset skips it")
    cn = l2_rows(c)
    ref = ref_senet_conn(0.5 * (np.abs(cn) + np.abs(cn).T), y, sparse_variant=False)
    conn = mc.connectivity(coef, y, preset="senet")
    assert conn.reported == pytest.approx(ref, abs=1e-9, nan_ok=True)


# --- the quirks named one by one, with their numbers ------------------------------------------


def test_toolbox_zero_row_counts_zero_not_one() -> None:
    c = np.array([[0.0, 1.0, 1.0], [0.0, 0.0, 0.0], [1.0, 0.0, 0.0]])
    y = np.array([0, 0, 1])
    # row 0: off-class mass 1 of 2 -> 0.5; row 1: zero row -> 0/(0 + 1e-10) = 0; row 2: 1 of 1
    expected = (1 / (2 + 1e-10) + 0.0 + 1 / (1 + 1e-10)) / 3
    assert toolbox.self_representation_loss(y, c) == pytest.approx(expected, abs=1e-15)
    assert mc.subspace_preserving_error(c, y, preset="ensc_python").value == pytest.approx(
        expected, abs=1e-15
    )
    # the documented default counts the zero row 0 too, the MATLAB code counts it 1
    assert mc.subspace_preserving_error(c, y, preset="ssc_omp_matlab").value > expected


def test_toolbox_conn_is_capped_at_one() -> None:
    c = np.ones((3, 3)) - np.eye(3)  # a complete 3-point class: lambda2 = 3/2
    y = np.zeros(3, dtype=int)
    assert mc.connectivity(c, y).min == pytest.approx(1.5)
    assert mc.connectivity(c, y, preset="ensc_python").reported == 1.0
    assert toolbox.self_representation_connectivity(y, c)[0] == pytest.approx(1.0)


def test_toolbox_ignores_the_diagonal() -> None:
    rng = np.random.default_rng(3)
    c = np.abs(rng.normal(size=(6, 6)))
    c[np.diag_indices(6)] = 5.0
    y = np.zeros(6, dtype=int)
    ours = mc.connectivity(c, y, preset="ensc_python").reported
    assert ours == pytest.approx(toolbox.self_representation_connectivity(y, c)[0], abs=1e-9)
    kept = mc.connectivity(c, y, normalize_rows=True, affinity_scale=0.5).min
    assert abs(kept - ours) > 1e-3  # keeping the diagonal is a different number


def test_toolbox_two_point_class_sparse_zero_dense_one() -> None:
    c = np.array([[0.0, 1.0, 0, 0, 0], [1.0, 0, 0, 0, 0]] + [[0, 0, 0, 1.0, 1.0]] * 3)
    c[3, 3] = c[4, 4] = 0.0
    y = np.array([0, 0, 1, 1, 1])
    assert mc.connectivity(c, y, preset="ensc_python").per_class[0] == 1.0  # 2, capped
    assert mc.connectivity(sp.csr_array(c), y, preset="ensc_python").per_class[0] == 0.0
    assert mc.connectivity(sp.csr_array(c), y).per_class[0] == pytest.approx(2.0)
    assert toolbox.self_representation_connectivity(y, sp.csr_matrix(c))[0] == 0.0


def test_toolbox_tiny_rows_are_left_unnormalised_on_dense_input() -> None:
    c, y = _case(6)  # holds one row scaled by 1e-17
    ours = mc.connectivity(c, y, preset="ensc_python").reported
    assert ours == pytest.approx(toolbox.self_representation_connectivity(y, c)[0], abs=1e-9)


def test_explicit_convention_contradicting_a_preset_raises() -> None:
    c, y = _case(0)
    with pytest.raises(mc.ClustlensInputError, match="conflicts with preset 'ssc_omp_matlab'"):
        mc.subspace_preserving_error(c, y, preset="ssc_omp_matlab", orientation="rows")
    with pytest.raises(mc.ClustlensInputError, match="conflicts"):
        mc.connectivity(c, y, preset="ssc_omp_matlab", orientation="rows")
    with pytest.raises(mc.ClustlensInputError, match="conflicts"):
        mc.evaluate(y, y, c, affinity_preset="ssc_omp_matlab", coef_orientation="rows")
    # agreeing is fine, and omitting it takes the preset's
    a = mc.subspace_preserving_error(c, y, preset="ssc_omp_matlab", orientation="columns")
    assert a.value == mc.subspace_preserving_error(c, y, preset="ssc_omp_matlab").value


def test_every_preset_names_its_reference_or_says_it_has_none() -> None:
    for name, spec in mc.AFFINITY_PRESETS.items():
        if name == "unnormalized_mean":
            assert spec["reference"] == "" and "NOT a reference code" in spec["description"]
        else:
            assert spec["reference"], name
    assert "commit" in mc.AFFINITY_PRESETS["ensc_python"]["reference"]
    assert "commit" in mc.AFFINITY_PRESETS["senet"]["reference"]
    # the old name keeps working and means the same conventions
    c, y = _case(3)
    old = mc.connectivity(c, y, preset="senet_sparse")
    new = mc.connectivity(c, y, preset="unnormalized_mean")
    assert old.reported == new.reported
