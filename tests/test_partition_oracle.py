"""Partition metrics against scikit-learn (the oracle) and brute force, to 1e-9."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from sklearn import metrics as skm
from sklearn.metrics.cluster import pair_confusion_matrix

import metrics_core as mc

TOL = 1e-9


def _labelings() -> list[tuple[str, np.ndarray, np.ndarray]]:
    """A seeded sweep of hundreds of labelings, including every degenerate shape."""
    rng = np.random.default_rng(20261121)
    cases: list[tuple[str, np.ndarray, np.ndarray]] = []
    for i in range(240):
        n = int(rng.choice([1, 2, 3, 5, 10, 37, 100, 500, 2000]))
        k_true = int(rng.integers(1, max(2, min(n, 30)) + 1))
        k_pred = int(rng.integers(1, max(2, min(n, 40)) + 1))
        t = rng.integers(0, k_true, n)
        p = rng.integers(0, k_pred, n)
        if i % 5 == 1:  # correlated: a noisy copy
            p = np.where(rng.random(n) < 0.8, t, p)
        if i % 7 == 2:
            t = t * -3 - 5  # negative labels
        if i % 11 == 3:
            p = np.array([f"c{v}" for v in p])  # string labels
        if i % 13 == 4:
            t = t.astype(float)  # whole-number floats
        cases.append((f"random{i}", t, p))
    for n in (1, 2, 3, 50):
        cases.append((f"single-cluster-{n}", np.arange(n) % 3, np.zeros(n, int)))
        cases.append((f"all-singletons-{n}", np.arange(n) % 2, np.arange(n)))
        cases.append((f"both-singletons-{n}", np.arange(n), np.arange(n)[::-1]))
        cases.append((f"both-one-{n}", np.zeros(n, int), np.full(n, 7)))
    cases.append(("k-ne-c", np.repeat(np.arange(3), 10), np.repeat(np.arange(6), 5)))
    return cases


CASES = _labelings()

# our evaluate key → scikit-learn function of (true, pred)
ORACLES = {
    "ari": skm.adjusted_rand_score,
    "rand": skm.rand_score,
    "fmi": skm.fowlkes_mallows_score,
    "mi": skm.mutual_info_score,
    "nmi": lambda t, p: skm.normalized_mutual_info_score(t, p, average_method="arithmetic"),
    "nmi_min": lambda t, p: skm.normalized_mutual_info_score(t, p, average_method="min"),
    "nmi_geometric": lambda t, p: skm.normalized_mutual_info_score(
        t, p, average_method="geometric"
    ),
    "nmi_max": lambda t, p: skm.normalized_mutual_info_score(t, p, average_method="max"),
    "ami": lambda t, p: skm.adjusted_mutual_info_score(t, p, average_method="arithmetic"),
    "ami_min": lambda t, p: skm.adjusted_mutual_info_score(t, p, average_method="min"),
    "ami_geometric": lambda t, p: skm.adjusted_mutual_info_score(t, p, average_method="geometric"),
    "ami_max": lambda t, p: skm.adjusted_mutual_info_score(t, p, average_method="max"),
    "homogeneity": skm.homogeneity_score,
    "completeness": skm.completeness_score,
    "v_measure": skm.v_measure_score,
}


def _ami_is_zero_over_zero(m: dict, key: str) -> bool:
    method = key.removeprefix("ami").lstrip("_") or "arithmetic"
    nmi = m["nmi" if method == "arithmetic" else f"nmi_{method}"]
    if m["mi"] == 0 or nmi == 0:
        return False
    normaliser = m["mi"] / nmi
    return abs(normaliser - m["emi"]) <= 1e-10 * max(normaliser, 1.0)


def _as_sklearn(labels: np.ndarray) -> np.ndarray:
    # scikit-learn refuses float labels as "continuous"; integers carry the same partition.
    return labels.astype(np.int64) if labels.dtype.kind == "f" else labels


@pytest.mark.parametrize(("name", "t", "p"), CASES, ids=[c[0] for c in CASES])
def test_against_sklearn(name: str, t: np.ndarray, p: np.ndarray) -> None:
    ours = mc.evaluate(t, p)
    ts, ps = _as_sklearn(t), _as_sklearn(p)
    for key, fn in ORACLES.items():
        if key.startswith("ami") and _ami_is_zero_over_zero(ours, key):
            # documented 0/0: sklearn returns rounding noise there, we return 0 or 1
            assert ours[key] in (0.0, 1.0), key
            continue
        assert ours[key] == pytest.approx(fn(ts, ps), abs=TOL, rel=TOL), key
    # sklearn counts ordered pairs: (tn, fp), (fn, tp) doubled
    (tn, fp), (fn, tp) = pair_confusion_matrix(ts, ps)
    assert (ours["pair_tp"], ours["pair_fp"], ours["pair_fn"], ours["pair_tn"]) == (
        tp // 2,
        fp // 2,
        fn // 2,
        tn // 2,
    )
    assert mc.pair_confusion(t, p, ordered=True) == (tp, fp, fn, tn)


@pytest.mark.parametrize(("name", "t", "p"), CASES[::4], ids=[c[0] for c in CASES[::4]])
def test_acc_against_dense_hungarian_on_sklearn_table(name: str, t, p) -> None:
    from scipy.optimize import linear_sum_assignment

    table = skm.cluster.contingency_matrix(_as_sklearn(t), _as_sklearn(p))
    r, c = linear_sum_assignment(-table)
    assert mc.evaluate(t, p)["acc"] == pytest.approx(table[r, c].sum() / len(t), abs=TOL)


def _brute_pairs(t, p) -> tuple[int, int, int, int]:
    tp = fp = fn = tn = 0
    for i, j in itertools.combinations(range(len(t)), 2):
        same_t, same_p = t[i] == t[j], p[i] == p[j]
        tp += same_t and same_p
        fp += (not same_t) and same_p
        fn += same_t and not same_p
        tn += (not same_t) and not same_p
    return tp, fp, fn, tn


@pytest.mark.parametrize("seed", range(25))
def test_pair_counts_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    t = rng.integers(0, rng.integers(1, 6), n)
    p = rng.integers(0, rng.integers(1, 8), n)
    assert tuple(mc.pair_confusion(t, p)) == _brute_pairs(t, p)


def _brute_acc(table: np.ndarray) -> float:
    k, c = table.shape
    best = 0
    if k <= c:
        for perm in itertools.permutations(range(c), k):
            best = max(best, sum(table[i, perm[i]] for i in range(k)))
    else:
        for perm in itertools.permutations(range(k), c):
            best = max(best, sum(table[perm[j], j] for j in range(c)))
    return best / table.sum()


def _brute_f(table: np.ndarray) -> float:
    a, b = table.sum(1), table.sum(0)
    total = 0.0
    for i in range(table.shape[0]):
        best = 0.0
        for j in range(table.shape[1]):
            if table[i, j]:
                prec, rec = table[i, j] / b[j], table[i, j] / a[i]
                best = max(best, 2 * prec * rec / (prec + rec))
        total += a[i] * best
    return total / table.sum()


@pytest.mark.parametrize("seed", range(30))
def test_set_matching_brute_force(seed: int) -> None:
    rng = np.random.default_rng(seed)
    table = rng.integers(0, 6, size=(int(rng.integers(1, 5)), int(rng.integers(1, 6))))
    table[0, 0] += 1
    table = table[table.sum(1) > 0][:, table.sum(0) > 0]
    m = mc.evaluate(contingency=table)
    assert m["acc"] == pytest.approx(_brute_acc(table), abs=TOL)
    assert m["f_measure"] == pytest.approx(_brute_f(table), abs=TOL)
    assert m["purity"] == pytest.approx(table.max(0).sum() / table.sum(), abs=TOL)


def test_pair_counts_do_not_overflow_at_ten_million() -> None:
    n = 10_000_000
    table = np.array([[n // 2, 0], [1, n // 2 - 1]])
    pc = mc.pair_confusion(contingency=table)
    assert pc.total == n * (n - 1) // 2
    a, b = n // 2, n // 2
    assert pc.tp == a * (a - 1) // 2 + (b - 1) * (b - 2) // 2
    big = mc.pair_confusion(contingency=np.array([[2_000_000_000, 1_000_000_000]]))
    assert big.total == 3_000_000_000 * 2_999_999_999 // 2
    assert isinstance(big.tp, int)


def test_emi_truncation_matches_full_sum() -> None:
    """The truncated hypergeometric walk equals the full sum over every support point.

    The oracle sums all of the support in 50-digit arithmetic (mpmath), so it is exact to far
    beyond double precision; the fast path must agree to 1e-12 of the sum of the absolute terms
    (the sum itself can cancel to far less than its terms: then no double-precision sum does
    better).
    """
    mpmath = pytest.importorskip("mpmath")
    from metrics_core.partition._information import _hypergeometric_expectation

    def full(a: int, b: int, n: int) -> tuple[float, float]:
        with mpmath.workdps(50):
            lo, hi = max(0, a + b - n), min(a, b)
            p = mpmath.binomial(a, lo) * mpmath.binomial(n - a, b - lo) / mpmath.binomial(n, b)
            mu = mpmath.mpf(a) * b / n
            total = mpmath.mpf(0)
            scale = mpmath.mpf(0)
            mass = mpmath.mpf(0)
            for x in range(lo, hi + 1):
                mass += p
                if x > 0:
                    total += p * x * mpmath.log(x / mu)
                    scale += abs(p * x * mpmath.log(x / mu))
                p = p * (a - x) * (b - x) / ((x + 1) * (n - a - b + x + 1))
            return float(total / mass), float(scale / mass)

    cases = [
        (5, 7, 20),
        (300, 400, 1000),
        (1, 1, 2),
        (999, 999, 1000),
        (2000, 30, 5000),
        (40_000, 35_000, 100_000),
        (10_000, 10_000, 10_000_000),
        (5, 5_000_000, 10_000_000),
        (20_000, 30_000, 1 << 26),  # past _EXACT_PRODUCTS_MAX_N: the products of differences
    ]
    for ai, bi, n in cases:
        got = _hypergeometric_expectation(np.array([ai]), np.array([bi]), n)[0]
        want, scale = full(ai, bi, n)
        assert abs(got - want) <= 1e-12 * scale + 1e-300, (ai, bi, n, got, want)


def test_emi_ratios_as_matrix_products_are_the_same_numbers(monkeypatch) -> None:
    """Up to n = 2^25 the ratio recurrence's numerators and denominators come from matrix
    products of [1, x, x²] (exact: every integer in them stays below 2^53); past it, from the
    products of differences. Both give the same doubles, so E[MI] is the same to the bit."""
    from metrics_core.partition import _information as inf

    rng = np.random.default_rng(11)
    cases = []
    for n in (2, 7, 100, 1000, 54_321, 1_000_000, 30_000_000, 1 << 25):
        a = rng.integers(1, n + 1, 300)
        b = rng.integers(1, n + 1, 300)
        # the edges: a or b of 1, of n, both near n (a + b − n > 0), both near n / 2
        a[:6] = [1, n, n, max(n - 1, 1), max(n // 2, 1), 1]
        b[:6] = [1, 1, n, max(n - 2, 1), max(n // 2, 1), n]
        cases.append((a, b, n))
    assert inf._EXACT_PRODUCTS_MAX_N == 1 << 25
    fast = [inf._hypergeometric_expectation(a, b, n) for a, b, n in cases]
    monkeypatch.setattr(inf, "_EXACT_PRODUCTS_MAX_N", -1)
    plain = [inf._hypergeometric_expectation(a, b, n) for a, b, n in cases]
    for (_a, _b, n), x, y in zip(cases, fast, plain, strict=True):
        assert np.array_equal(x, y), (n, np.flatnonzero(x != y)[:5])


def test_large_sparse_table_matching() -> None:
    from metrics_core.partition import _matching

    rng = np.random.default_rng(3)
    n = 3000
    t = rng.integers(0, 40, n)
    p = np.where(rng.random(n) < 0.7, t * 2, rng.integers(0, 90, n))
    dense = mc.evaluate(t, p)["acc"]
    c = mc.contingency_table(t, p)
    import scipy.sparse as sp

    old = _matching.DENSE_MATCHING_CELL_LIMIT
    try:
        _matching.DENSE_MATCHING_CELL_LIMIT = 0
        wrapped = mc.Contingency(sp.csr_array(c.table), c.classes, c.clusters)
        sparse_acc = mc.accuracy_score(contingency=wrapped)
    finally:
        _matching.DENSE_MATCHING_CELL_LIMIT = old
    assert sparse_acc == pytest.approx(dense, abs=TOL)


def test_sparse_contingency_path_matches_dense() -> None:
    from metrics_core.partition import _contingency

    rng = np.random.default_rng(5)
    t = rng.integers(0, 300, 4000)
    p = rng.integers(0, 400, 4000)
    dense = mc.evaluate(t, p)
    old = _contingency.DENSE_CELL_LIMIT
    try:
        _contingency.DENSE_CELL_LIMIT = 10
        c = mc.contingency_table(t, p)
        assert c.is_sparse
        sparse = mc.evaluate(contingency=c)
    finally:
        _contingency.DENSE_CELL_LIMIT = old
    for k, v in dense.items():
        assert sparse[k] == pytest.approx(v, abs=TOL), k
