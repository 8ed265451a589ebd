"""Registry-driven properties of every partition metric, plus hand-computed known values."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import metrics_core as mc
from metrics_core import METRICS

PARTITION_KEYS = [m.key for m in METRICS if m.family != mc.METRICS_BY_KEY["sre"].family]
SCORE_KEYS = [m.key for m in METRICS if m.key in PARTITION_KEYS and m.direction != "info"]
SYMMETRIC_KEYS = [m.key for m in METRICS if m.key in PARTITION_KEYS and m.symmetric]

labelings = st.integers(1, 40).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(-3, 4), min_size=n, max_size=n),
        st.lists(st.integers(0, 6), min_size=n, max_size=n),
    )
)


@given(labelings)
def test_bounds(pair: tuple[list[int], list[int]]) -> None:
    m = mc.evaluate(*pair)
    for key in SCORE_KEYS:
        if key not in m:  # nmi_arithmetic / ami_arithmetic: listed only for another headline
            continue
        lo, hi = mc.METRICS_BY_KEY[key].bounds
        assert not math.isnan(m[key]), key
        if lo is not None:
            assert m[key] >= lo - 1e-12, key
        if hi is not None:
            assert m[key] <= hi + 1e-12, key
    assert (
        m["pair_tp"] + m["pair_fp"] + m["pair_fn"] + m["pair_tn"]
        == len(pair[0]) * (len(pair[0]) - 1) // 2
    )
    assert m["jaccard"] <= m["fmi"] + 1e-12  # Jaccard is never above Fowlkes–Mallows
    assert m["acc"] <= m["purity"] + 1e-12  # a one-to-one map is one of purity's maps


@given(labelings, st.randoms(use_true_random=False))
def test_relabelling_invariance(pair, rnd) -> None:
    t, p = pair
    names = [f"lab{i}" for i in range(10)]
    rnd.shuffle(names)
    perm_t = {v: rnd.randint(-1000, 1000) * 10 + i for i, v in enumerate(sorted(set(t)))}
    p2 = [names[v] for v in p]
    t2 = [perm_t[v] for v in t]
    a, b = mc.evaluate(t, p), mc.evaluate(t2, p2)
    for key in (k for k in PARTITION_KEYS if k in a):
        assert a[key] == pytest.approx(b[key], abs=1e-12), key


@given(labelings)
def test_symmetry(pair) -> None:
    t, p = pair
    a, b = mc.evaluate(t, p), mc.evaluate(p, t)
    for key in (k for k in SYMMETRIC_KEYS if k in a):
        assert a[key] == pytest.approx(b[key], abs=1e-12), key
    # the asymmetric pairs swap
    assert a["homogeneity"] == pytest.approx(b["completeness"], abs=1e-12)
    assert a["pair_fp"] == b["pair_fn"]
    assert a["pair_precision"] == pytest.approx(b["pair_recall"], abs=1e-12)


@given(labelings)
def test_point_order_invariance(pair) -> None:
    t, p = np.array(pair[0]), np.array(pair[1])
    order = np.random.default_rng(len(t)).permutation(len(t))
    a, b = mc.evaluate(t, p), mc.evaluate(t[order], p[order])
    for key in (k for k in PARTITION_KEYS if k in a):
        assert a[key] == pytest.approx(b[key], abs=1e-12), key


@given(st.lists(st.integers(0, 5), min_size=1, max_size=50))
def test_identical_partitions_score_one(t) -> None:
    m = mc.evaluate(t, [v + 100 for v in t])
    for key in ("acc", "purity", "f_measure", "rand", "ari", "nmi", "ami", "v_measure"):
        assert m[key] == pytest.approx(1.0), key
    assert m["pair_fp"] == m["pair_fn"] == 0


def test_seed_example_acc() -> None:
    """Seed 001: 100 objects, 2 classes, 3 clusters → ACC 0.88."""
    m = mc.evaluate(contingency=[[3, 44, 3], [2, 4, 44]])
    assert m["acc"] == pytest.approx(0.88)
    assert m["clustering_error"] == pytest.approx(0.12)
    assert m["purity"] == pytest.approx(0.91)
    assert m["cluster_ratio"] == 1.5
    match = mc.best_matching(contingency=[[3, 44, 3], [2, 4, 44]])
    assert match.cluster_index.tolist() == [1, 2]


def test_hand_computed_small_table() -> None:
    # classes a: {0,1,2}, b: {3,4,5}; clusters x: {0,1}, y: {2,3}, z: {4,5}
    t = ["a", "a", "a", "b", "b", "b"]
    p = ["x", "x", "y", "y", "z", "z"]
    m = mc.evaluate(t, p)
    # table [[2,1,0],[0,1,2]]: TP = 1 + 1 = 2; same cluster = 3 → FP = 1; same class = 6 → FN = 4
    assert (m["pair_tp"], m["pair_fp"], m["pair_fn"], m["pair_tn"]) == (2, 1, 4, 8)
    assert m["acc"] == pytest.approx(4 / 6)
    assert m["purity"] == pytest.approx(5 / 6)
    assert m["rand"] == pytest.approx(10 / 15)
    assert m["jaccard"] == pytest.approx(2 / 7)
    assert m["fmi"] == pytest.approx(2 / math.sqrt(3 * 6))
    assert m["fmi_weighted"] == pytest.approx(2 / math.sqrt(3 * 6))
    # F: class a best F = 2*2/(3+2) = 0.8; class b best = 2*2/(3+2) = 0.8
    assert m["f_measure"] == pytest.approx(0.8)
    h = math.log(2)
    mi = (2 / 6) * math.log(6 * 2 / (3 * 2)) * 2 + (1 / 6) * math.log(6 / (3 * 2)) * 2
    assert m["mi"] == pytest.approx(mi)
    hc = -3 * (1 / 3) * math.log(1 / 3)
    assert m["homogeneity"] == pytest.approx(mi / h)
    assert m["completeness"] == pytest.approx(mi / hc)
    assert m["nmi_min"] == pytest.approx(mi / h)
    assert m["nmi_max"] == pytest.approx(mi / hc)


def test_weighted_fmi() -> None:
    m = mc.evaluate([0, 0, 1, 1], [0, 0, 0, 1], fmi_alpha=1.0)
    assert m["fmi_weighted"] == pytest.approx(m["pair_precision"])
    m = mc.evaluate([0, 0, 1, 1], [0, 0, 0, 1], fmi_alpha=0.0)
    assert m["fmi_weighted"] == pytest.approx(m["pair_recall"])


def test_v_measure_beta() -> None:
    h, c, _ = mc.homogeneity_completeness_v_measure([0, 0, 1, 2], [0, 0, 1, 1])
    v2 = mc.v_measure_score([0, 0, 1, 2], [0, 0, 1, 1], beta=2.0)
    assert v2 == pytest.approx(3 * h * c / (2 * h + c))


def test_average_method_switches_headline() -> None:
    t, p = [0, 0, 1, 1, 2, 2], [0, 0, 0, 1, 1, 1]
    a = mc.evaluate(t, p)
    g = mc.evaluate(t, p, average_method="geometric")
    assert g["nmi"] == pytest.approx(a["nmi_geometric"])
    assert g["ami"] == pytest.approx(a["ami_geometric"])
    assert g["nmi_arithmetic"] == pytest.approx(a["nmi"])


def test_noise_policies() -> None:
    t = [0, 0, 0, 1, 1, 1]
    p = [0, 0, -1, 1, 1, -1]
    keep = mc.evaluate(t, p)
    excl = mc.evaluate(t, p, noise_policy="exclude")
    single = mc.evaluate(t, p, noise_policy="singletons")
    assert keep["n_noise"] == excl["n_noise"] == single["n_noise"] == 2
    assert keep["n_clusters"] == 3 and keep["n_samples"] == 6
    assert excl["n_samples"] == 4 and excl["acc"] == 1.0
    assert single["n_clusters"] == 4 and single["pair_fp"] == 0
    with pytest.raises(mc.ClustlensInputError, match="noise_policy"):
        mc.evaluate(t, p, noise_policy="drop")


def test_degenerate_inputs() -> None:
    one = mc.evaluate([5], [7])
    assert one["acc"] == 1.0 and one["ari"] == 1.0 and one["nmi"] == 1.0 and one["rand"] == 1.0
    assert one["pair_tp"] + one["pair_fp"] + one["pair_fn"] + one["pair_tn"] == 0
    empty = mc.evaluate([], [])
    assert empty["n_samples"] == 0 and empty["acc"] == 1.0
    merged = mc.evaluate([0, 0, 1, 1], [3, 3, 3, 3])
    assert merged["completeness"] == 1.0 and merged["homogeneity"] == 0.0
    assert merged["ami"] == 0.0 and merged["nmi"] == 0.0
    split = mc.evaluate([0, 0, 1, 1], [0, 1, 2, 3])
    assert split["homogeneity"] == pytest.approx(1.0) and split["purity"] == 1.0
    assert split["pair_precision"] == 0.0  # TP = 0 → 0 (sklearn's FMI convention)


def test_contingency_input_equals_labels() -> None:
    rng = np.random.default_rng(0)
    t, p = rng.integers(0, 4, 200), rng.integers(0, 6, 200)
    table = mc.contingency_table(t, p).table
    a, b = mc.evaluate(t, p), mc.evaluate(contingency=table)
    assert a == pytest.approx(b)
    # empty rows/columns in a given table are dropped
    padded = np.pad(table, ((0, 1), (1, 0)))
    assert mc.evaluate(contingency=padded) == pytest.approx(a)


@pytest.mark.parametrize(
    ("t", "p", "match"),
    [
        ([0, 1], [0], "2 entries but labels_pred has 1"),
        ([0, 1.5], [0, 1], "whole numbers"),
        ([0, float("nan")], [0, 1], "missing label"),
        ([[0, 1], [1, 0]], [0, 1, 1, 0], "one-dimensional"),
        ([0, None], [0, 1], "None"),
        ([0, {"a": 1}], [0, 1], "numbers or strings"),
        ("abc", [0, 1, 2], "single string"),
    ],
)
def test_bad_labels(t, p, match) -> None:
    with pytest.raises(mc.ClustlensInputError, match=match):
        mc.evaluate(t, p)


@pytest.mark.parametrize(
    ("table", "match"),
    [
        ([[1, -1]], "non-negative"),
        ([[1.5, 1]], "whole numbers"),
        ([1, 2, 3], "2-D"),
        ([[np.inf, 1]], "finite"),
        ([["a", "b"]], "numbers"),
    ],
)
def test_bad_contingency(table, match) -> None:
    with pytest.raises(mc.ClustlensInputError, match=match):
        mc.evaluate(contingency=table)


def test_label_kinds_normalised() -> None:
    from metrics_core.validation._labels import check_labels

    assert check_labels(np.array([[1, 2, 3]])).tolist() == [1, 2, 3]
    assert check_labels(np.array([[1], [2]])).tolist() == [1, 2]
    assert check_labels([1.0, -2.0]).dtype.kind == "i"
    assert check_labels(np.array([b"a", b"b"])).tolist() == ["a", "b"]
    assert check_labels(np.array([1, "x"], dtype=object)).tolist() == ["1", "x"]
