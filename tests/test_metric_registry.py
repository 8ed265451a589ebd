"""Registry-driven tests of every public partition metric function, and the two new scores.

Every registered key is checked through its public ``*_score`` function and through
``evaluate`` (the same kernel must give the same number), against its catalogue (bounds,
symmetry), for relabelling invariance and for ``contingency=`` input. NCA and PSI are checked on
hand-worked tables, against genieclust's definitions (tests/reference/genieclust.py) and against
a brute-force assignment.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import metrics_core as mc
from metrics_core.partition import REGISTRY
from tests.reference import genieclust

#: registry key -> the public function that computes it alone
PUBLIC: dict[str, object] = {
    "acc": mc.accuracy_score,
    "clustering_error": mc.clustering_error,
    "purity": mc.purity_score,
    "f_measure": mc.f_measure_score,
    "nca": mc.normalized_clustering_accuracy_score,
    "psi": mc.pair_sets_index_score,
    "cluster_ratio": mc.cluster_ratio,
    "pair_precision": mc.pair_precision_score,
    "pair_recall": mc.pair_recall_score,
    "pair_f1": mc.pair_f1_score,
    "rand": mc.rand_score,
    "ari": mc.adjusted_rand_score,
    "fmi": mc.fowlkes_mallows_score,
    "jaccard": mc.jaccard_score,
    "mi": mc.mutual_info_score,
    "nmi": mc.normalized_mutual_info_score,
    "ami": mc.adjusted_mutual_info_score,
    "emi": mc.expected_mutual_info,
    "homogeneity": mc.homogeneity_score,
    "completeness": mc.completeness_score,
    "v_measure": mc.v_measure_score,
}

labelings = st.integers(1, 30).flatmap(
    lambda n: st.tuples(
        st.lists(st.integers(0, 4), min_size=n, max_size=n),
        st.lists(st.integers(0, 5), min_size=n, max_size=n),
    )
)


def test_every_registered_key_is_in_the_catalogue_and_evaluate() -> None:
    m = mc.evaluate([0, 0, 1, 1, 2], [0, 1, 1, 2, 2], average_method="min")
    for key, entry in REGISTRY.items():
        assert mc.METRICS_BY_KEY[key] is entry.info
        assert key in m, key
        assert entry.info.short, key
    # every scoring function of the public API has its registry entry
    for key in PUBLIC:
        assert key in REGISTRY


@settings(max_examples=60, deadline=None)
@given(labelings)
def test_public_functions_equal_evaluate(pair) -> None:
    t, p = pair
    m = mc.evaluate(t, p)
    table = mc.contingency_table(t, p).dense()
    for key, fn in PUBLIC.items():
        assert fn(t, p) == pytest.approx(m[key], abs=1e-12), key
        assert fn(contingency=table) == pytest.approx(m[key], abs=1e-12), key


@settings(max_examples=60, deadline=None)
@given(labelings, st.sets(st.sampled_from(sorted(REGISTRY)), min_size=1))
def test_evaluate_of_some_metrics_equals_the_full_call(pair, keys) -> None:
    """``evaluate(metrics=...)`` computes only what those keys need: the same numbers, exactly
    (the same kernels on the same table), and nothing else."""
    t, p = pair
    full = mc.evaluate(t, p)
    some = mc.evaluate(t, p, metrics=keys)
    assert some == {k: full[k] for k in full if k in keys}


def test_evaluate_refuses_an_unknown_metric_and_takes_one_key_as_a_string() -> None:
    with pytest.raises(ValueError, match=r"unknown metric\(s\) \['accuracy'\]; choose from"):
        mc.evaluate([0, 1], [0, 1], metrics=["acc", "accuracy"])
    assert mc.evaluate([0, 0, 1], [0, 1, 1], metrics="ari") == {
        "ari": mc.adjusted_rand_score([0, 0, 1], [0, 1, 1])
    }


@settings(max_examples=60, deadline=None)
@given(labelings, st.randoms(use_true_random=False))
def test_bounds_symmetry_and_relabelling(pair, rnd) -> None:
    t, p = pair
    m, swapped = mc.evaluate(t, p), mc.evaluate(p, t)
    names = [f"c{i}" for i in range(6)]
    rnd.shuffle(names)
    relabelled = mc.evaluate([10 * v + 3 for v in t], [names[v] for v in p])
    for key, entry in REGISTRY.items():
        if key not in m:
            continue
        lo, hi = entry.info.bounds
        if lo is not None:
            assert m[key] >= lo - 1e-12, key
        if hi is not None:
            assert m[key] <= hi + 1e-12, key
        if entry.info.symmetric:
            assert m[key] == pytest.approx(swapped[key], abs=1e-12), key
        assert m[key] == pytest.approx(relabelled[key], abs=1e-12), key


@pytest.mark.parametrize(
    "key", [k for k, e in REGISTRY.items() if not e.info.symmetric and e.info.direction != "info"]
)
def test_metrics_marked_asymmetric_are_asymmetric(key) -> None:
    # V-measure and the weighted FMI are symmetric only at their defaults (β = 1, α = 0.5)
    params = {"beta": 2.0, "fmi_alpha": 0.3}
    examples = [
        ([0, 0, 0, 0, 1, 1, 2, 2, 2], [0, 0, 1, 1, 1, 2, 2, 2, 2]),
        ([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 3]),
    ]
    assert any(
        mc.evaluate(x, y, **params)[key] != pytest.approx(mc.evaluate(y, x, **params)[key])
        for x, y in examples
    )


# --------------------------------------------------------------------------- NCA and PSI


def test_nca_hand_worked() -> None:
    # classes of 50 and 50; best matching gives recalls 44/50 and 44/50:
    # (0.88 + 0.88 - 1) / (2 - 1) = 0.76
    table = [[3, 44, 3], [2, 4, 44]]
    assert mc.normalized_clustering_accuracy_score(contingency=table) == pytest.approx(0.76)
    # unequal classes weigh the same: recalls 9/10 and 1/1 -> (0.9 + 1 - 1) / 1 = 0.9, while
    # ACC = 10/11
    table = [[9, 1], [0, 1]]
    assert mc.normalized_clustering_accuracy_score(contingency=table) == pytest.approx(0.9)
    assert mc.accuracy_score(contingency=table) == pytest.approx(10 / 11)
    # everything in one cluster: one class keeps recall 1, the others 0 -> (1 - 1)/(K - 1) = 0
    assert mc.normalized_clustering_accuracy_score([0, 1, 2, 0], [5, 5, 5, 5]) == 0.0


def test_nca_is_defined_for_k_not_c() -> None:
    # K = 2 < C = 3: extra cluster is an error. recalls 4/5 (col 0), 5/5 (col 2) -> 0.8
    table = [[4, 1, 0], [0, 0, 5]]
    assert mc.normalized_clustering_accuracy_score(contingency=table) == pytest.approx(0.8)
    # K = 3 > C = 2: one class has no cluster of its own (recall 0): (1 + 1 + 0 - 1) / 2
    table = [[4, 0], [0, 5], [3, 0]]
    assert mc.normalized_clustering_accuracy_score(contingency=table) == pytest.approx(0.5)


def test_psi_hand_worked() -> None:
    # sizes a = (4, 4), b = (5, 3); S = 4/5 + 3/4 = 1.55; E = (min(3,4) + min(5,4)) / 8 = 7/8
    # PSI = (1.55 - 0.875) / (2 - 0.875) = 0.6
    table = [[4, 0], [1, 3]]
    assert mc.pair_sets_index_score(contingency=table) == pytest.approx(0.6)
    assert mc.pair_sets_index_score([0, 0, 1, 1], [1, 1, 0, 0]) == 1.0
    assert mc.pair_sets_index_score(contingency=[[7]]) == 1.0


@settings(max_examples=80, deadline=None)
@given(
    st.integers(2, 5).flatmap(
        lambda k: st.lists(
            st.lists(st.integers(0, 9), min_size=k, max_size=k), min_size=k, max_size=k
        )
    )
)
def test_nca_and_psi_agree_with_genieclust_on_square_tables(rows) -> None:
    table = np.array(rows)
    if (table.sum(axis=1) == 0).any() or (table.sum(axis=0) == 0).any():
        return  # an empty class or cluster does not exist in a labeling
    assert mc.normalized_clustering_accuracy_score(contingency=table) == pytest.approx(
        genieclust.nca(table), abs=1e-12
    )
    assert mc.pair_sets_index_score(contingency=table) == pytest.approx(
        genieclust.psi(table), abs=1e-12
    )


@pytest.mark.parametrize("seed", range(12))
def test_nca_brute_force_over_every_assignment(seed) -> None:
    rng = np.random.default_rng(seed)
    k, c = int(rng.integers(2, 5)), int(rng.integers(1, 6))
    table = rng.integers(1, 9, size=(k, c))
    recall = table / table.sum(axis=1, keepdims=True)
    size = max(k, c)
    padded = np.zeros((k, size))
    padded[:, :c] = recall
    best = max(
        sum(padded[i, j] for i, j in zip(range(k), perm, strict=False))
        for perm in itertools.permutations(range(size), k)
    )
    expected = (best - 1) / (k - 1)
    got = mc.normalized_clustering_accuracy_score(contingency=table)
    assert got == pytest.approx(expected, abs=1e-12)


def test_large_sparse_table_uses_the_sparse_matcher() -> None:
    # 5,000 x 5,000 = 2.5e7 cells, past the dense Hungarian's limit: NCA, PSI and ACC go
    # through the sparse assignment over the stored entries
    from metrics_core.partition._matching import DENSE_MATCHING_CELL_LIMIT

    n = 5000
    assert n * n > DENSE_MATCHING_CELL_LIMIT
    t = np.arange(n).repeat(2)
    p = t.copy()
    p[::2] = (p[::2] + 1) % n  # half the points move to the next cluster
    m = mc.evaluate(t, p)
    assert m["nca"] == pytest.approx((n * 0.5 - 1) / (n - 1))
    assert m["acc"] == pytest.approx(0.5)
    # every class and cluster has 2 points, S = n * 1/2, E = n * 2 / 2n = 1
    assert m["psi"] == pytest.approx((n / 2 - 1) / (n - 1))
