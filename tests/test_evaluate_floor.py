"""Exactness of the fast paths behind ``evaluate`` at the one-pass floor (issue 14, item 3).

E[MI] and AMI against brute-force references (every support point summed; mpmath for small
tables), the argmax shortcut of the matching against the Hungarian algorithm, MI from the
table's non-zero cells against the dense formula, and evaluate on arbitrary ids, strings and
negative integers against evaluate on their factorised codes. No timing here: speed lives in
tests/benchmarks/bench_metrics.py.
"""

from __future__ import annotations

import numpy as np
import pytest

import metrics_core as mc
from metrics_core.partition import _information, _matching
from metrics_core.partition._contingency import _factorize, contingency_from_table


def _pair_expectation(a: int, b: int, n: int) -> float:
    """E[X log(X/μ)], X hypergeometric, summed over its whole support (float64).

    The weights come from the pmf's ratio recurrence walked from the mode over every support
    point, log(x/μ) as log1p of the exact integer difference x n − a b: accurate to about
    eps · sd · 2μ / var relative, i.e. ~1e-14 for tables whose groups are well below N.
    """
    lo, hi = max(0, a + b - n), min(a, b)
    mode = min(max((a + 1) * (b + 1) // (n + 2), lo), hi)
    up = np.arange(mode, hi, dtype=np.float64)  # P(x+1)/P(x) from x = mode .. hi−1
    down = np.arange(mode, lo, -1, dtype=np.float64)  # P(x−1)/P(x) from x = mode .. lo+1
    w_up = np.cumprod((a - up) * (b - up) / ((up + 1) * (n - a - b + up + 1)))
    w_down = np.cumprod(down * (n - a - b + down) / ((a - down + 1) * (b - down + 1)))
    w = np.concatenate([w_down[::-1], [1.0], w_up])
    xs = np.arange(lo, hi + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        lr = np.log1p((xs * n - a * b) / (a * b))
        terms = np.where(xs > 0, xs * lr, 0.0)
    return float((w * terms).sum() / w.sum())


def _emi_reference(table: np.ndarray) -> float:
    """E[MI] of a table by the definition: every (a_i, b_j), every support point."""
    table = np.asarray(table)
    rows = table.sum(axis=1)
    cols = table.sum(axis=0)
    rows, cols = rows[rows > 0], cols[cols > 0]
    n = int(rows.sum())
    a_vals, a_mult = np.unique(rows, return_counts=True)
    b_vals, b_mult = np.unique(cols, return_counts=True)
    total = 0.0
    for a, ma in zip(a_vals.tolist(), a_mult.tolist(), strict=True):
        for b, mb in zip(b_vals.tolist(), b_mult.tolist(), strict=True):
            total += ma * mb * _pair_expectation(a, b, n)
    return total / n


def _emi_mpmath(table: np.ndarray) -> float:
    """E[MI] of a small table in 40-digit arithmetic (the hypergeometric pmf from binomials)."""
    mpmath = pytest.importorskip("mpmath")
    table = np.asarray(table)
    rows = [int(v) for v in table.sum(axis=1) if v > 0]
    cols = [int(v) for v in table.sum(axis=0) if v > 0]
    n = sum(rows)
    with mpmath.workdps(40):
        total = mpmath.mpf(0)
        for a in rows:
            for b in cols:
                for x in range(max(1, a + b - n), min(a, b) + 1):
                    p = mpmath.binomial(a, x) * mpmath.binomial(n - a, b - x)
                    p /= mpmath.binomial(n, b)
                    total += p * x * mpmath.log(mpmath.mpf(x) * n / (a * b))
        return float(total / n)


def _random_tables(rng: np.random.Generator) -> list[np.ndarray]:
    """Random tables, degenerate ones included."""
    tables = []
    for _ in range(12):
        k, c = int(rng.integers(2, 30)), int(rng.integers(2, 30))
        n = int(rng.integers(k * c, 20_000))
        t = rng.integers(0, k, n)
        p = np.where(rng.random(n) < rng.random(), t % c, rng.integers(0, c, n))
        tables.append(mc.contingency_table(t, p).dense())
    tables.append(np.array([[5], [7], [1]]))  # one cluster
    tables.append(np.array([[5, 7, 1]]))  # one class
    tables.append(np.eye(40, dtype=np.int64))  # all singletons on both sides
    tables.append(np.array([[1] * 30, [1] * 30, [2] * 30]))  # the prediction: 30 clusters
    tables.append(np.array([[3, 0, 2], [0, 0, 0], [1, 4, 0]]))  # an empty row
    tables.append(np.array([[9_000, 1_000], [2_000, 8_000]]))  # large groups, var << μ
    tables.append(np.array([[1_000_000 - 3, 1], [1, 1]]))  # one group holds almost all
    return tables


def test_emi_matches_the_full_support_sum_on_random_tables() -> None:
    rng = np.random.default_rng(14)
    for table in _random_tables(rng):
        got = mc.expected_mutual_info(contingency=table)
        want = _emi_reference(table)
        assert got == pytest.approx(want, rel=1e-12, abs=1e-15), table.shape


def test_emi_matches_mpmath_on_small_tables() -> None:
    rng = np.random.default_rng(7)
    tables = [np.array([[1, 1], [1, 1]]), np.array([[3, 0], [0, 2]]), np.eye(5, dtype=int)]
    for _ in range(6):
        k, c = int(rng.integers(1, 5)), int(rng.integers(1, 5))
        tables.append(rng.integers(0, 12, (k, c)))
    for table in tables:
        if table.sum() == 0:
            continue
        got = mc.expected_mutual_info(contingency=table)
        assert got == pytest.approx(_emi_mpmath(table), rel=1e-13, abs=1e-16), table


def test_emi_of_a_sparse_table_with_a_thousand_classes() -> None:
    """K = C = 1,000, N = 20,000: a sparse table with hundreds of distinct group sizes."""
    rng = np.random.default_rng(3)
    n = 20_000
    t = rng.integers(0, 1000, n)
    p = np.where(rng.random(n) < 0.6, t, rng.integers(0, 1000, n))
    c = mc.contingency_table(t, p)
    assert mc.evaluate(t, p)["emi"] == pytest.approx(_emi_reference(c.dense()), rel=1e-12, abs=0)


def test_emi_is_exact_where_the_variance_is_far_below_the_mean() -> None:
    """Groups near N: E[X log(X/μ)] ~ var / 2μ is tiny while its terms are of size sd.

    Summing x log(x/μ) directly loses up to ~1e-10 of the result here (the previous
    implementation did); the centred form must stay within 1e-13 of 50-digit arithmetic.
    """
    mpmath = pytest.importorskip("mpmath")

    def exact(a: int, b: int, n: int) -> float:
        with mpmath.workdps(50):
            mu = mpmath.mpf(a) * b / n
            lo, hi = max(0, a + b - n), min(a, b)
            mode = min(max((a + 1) * (b + 1) // (n + 2), lo), hi)
            sd = float(mpmath.sqrt(mu * (n - a) * (n - b) / (mpmath.mpf(n) * (n - 1))))
            reach = int(40 * sd) + 40
            weights = {mode: mpmath.mpf(1)}
            w, x = mpmath.mpf(1), mode
            while x < min(hi, mode + reach):
                w *= mpmath.mpf((a - x) * (b - x)) / ((x + 1) * (n - a - b + x + 1))
                x += 1
                weights[x] = w
            w, x = mpmath.mpf(1), mode
            while x > max(lo, mode - reach):
                w *= mpmath.mpf(x * (n - a - b + x)) / ((a - x + 1) * (b - x + 1))
                x -= 1
                weights[x] = w
            total = sum(v * x * mpmath.log(x / mu) for x, v in weights.items() if x > 0)
            return float(total / sum(weights.values()))

    cases = [
        (19_346_852, 19_420_503, 19_470_061),
        (13_322_332, 13_959_040, 13_982_317),
        (7_983_532, 8_670_397, 9_014_482),
        (3, 999_995, 1_000_000),
        (999_999, 999_999, 1_000_000),
        (5_000, 5_000, 1_000_000),
        (1, 1, 10_000_000),
    ]
    for ai, bi, n in cases:
        got = _information._hypergeometric_expectation(np.array([ai]), np.array([bi]), n)[0]
        assert got == pytest.approx(exact(ai, bi, n), rel=1e-13, abs=0), (ai, bi, n)


def test_emi_pairs_evaluated_together_equal_pairs_alone() -> None:
    """Grouping pairs on a shared grid changes nothing: each pair as if computed alone."""
    rng = np.random.default_rng(5)
    n = 1_000_000
    a = rng.integers(1, n, 400)
    b = rng.integers(1, 50_000, 400)
    together = _information._hypergeometric_expectation(a, b, n)
    alone = [_information._hypergeometric_expectation(a[i : i + 1], b[i : i + 1], n)[0]
             for i in range(0, 400, 37)]  # fmt: skip
    np.testing.assert_allclose(together[::37], alone, rtol=1e-13)


def test_emi_of_all_singletons_is_the_entropy_of_the_other_side() -> None:
    """b_j = 1 for every j: E[MI] = Σ_i (a_i/N) log(N/a_i) = H(true), exactly."""
    rng = np.random.default_rng(2)
    t = rng.integers(0, 50, 5_000)
    m = mc.evaluate(t, np.arange(t.size))
    assert m["emi"] == pytest.approx(mc.entropy(t), rel=1e-13, abs=0)


def test_empty_rows_and_columns_change_no_information_score() -> None:
    table = np.array([[3, 0, 2, 0], [0, 0, 0, 0], [1, 4, 0, 0]])
    trimmed = np.array([[3, 0, 2], [1, 4, 0]])
    full, small = mc.evaluate(contingency=table), mc.evaluate(contingency=trimmed)
    for key in ("mi", "emi", "ami", "ami_min", "nmi", "v_measure"):
        assert full[key] == small[key], key


@pytest.mark.parametrize("average_method", ["min", "geometric", "arithmetic", "max"])
def test_ami_matches_the_reference_emi(average_method: str) -> None:
    rng = np.random.default_rng(11)
    for table in _random_tables(rng)[:12]:
        c = contingency_from_table(table)
        mi = mc.mutual_info_score(contingency=c)
        emi = _emi_reference(table)
        h_true = _information._entropy_from_counts(c.row_sums)
        h_pred = _information._entropy_from_counts(c.col_sums)
        norm = _information._generalized_mean(h_true, h_pred, average_method)
        want = (mi - emi) / (norm - emi)
        got = mc.adjusted_mutual_info_score(contingency=c, average_method=average_method)
        assert got == pytest.approx(want, rel=1e-10, abs=1e-12)


def test_mi_from_the_non_zero_cells_matches_the_dense_formula() -> None:
    rng = np.random.default_rng(4)
    for table in _random_tables(rng)[:12]:
        n = table.sum()
        a = table.sum(axis=1, keepdims=True)
        b = table.sum(axis=0, keepdims=True)
        nz = table > 0
        want = float(np.sum(table[nz] / n * np.log(n * table[nz] / (a * b)[nz])))
        assert mc.mutual_info_score(contingency=table) == pytest.approx(want, rel=1e-12, abs=1e-16)


def test_argmax_assignment_is_optimal_when_it_applies() -> None:
    from scipy.optimize import linear_sum_assignment

    rng = np.random.default_rng(8)
    applied = 0
    for trial in range(120):
        k, c = int(rng.integers(1, 12)), int(rng.integers(1, 12))
        w = rng.integers(0, 6, (k, c)).astype(float)
        if trial % 2:  # a strong diagonal, as a good clustering gives: the shortcut applies
            d = min(k, c)
            w[np.arange(d), rng.permutation(c)[:d] if k <= c else np.arange(d)] += 10
        r, s = _matching._assign(w)
        lr, ls = linear_sum_assignment(w, maximize=True)
        assert len(set(r.tolist())) == r.size and len(set(s.tolist())) == s.size
        assert w[r, s].sum() == w[lr, ls].sum(), w
        applied += _matching._argmax_assignment(w) is not None
    assert applied > 40


def test_argmax_assignment_declines_shared_best_columns() -> None:
    w = np.array([[10.0, 9.0], [9.0, 0.0]])  # both rows' best is column 0; optimum is 18
    assert _matching._argmax_assignment(w) is None
    r, s = _matching._assign(w)
    assert w[r, s].sum() == 18.0


def test_best_cells_are_the_argmax_assignment_of_the_table() -> None:
    """ACC, NCA and PSI take each class's best cluster from the stored cells (_row_best) when
    they can: the very cells the dense table's argmax assignment picks (first of ties), None
    exactly when it declines, and to the bit the pivots and matching of the table path."""
    rng = np.random.default_rng(17)
    applied = declined = 0
    for trial in range(600):
        k, c = int(rng.integers(1, 12)), int(rng.integers(1, 12))
        n = int(rng.integers(1, 150))
        t = rng.integers(0, k, n)
        p = np.where(rng.random(n) < rng.random(), t % c, rng.integers(0, c, n))
        ct = mc.contingency_table(t, p)
        for scale_cols in (None, ct.col_sums):
            vals = _matching._scaled_cells(ct, ct.row_sums, scale_cols)
            table = _matching._scaled_table(ct, ct.row_sums, scale_cols)
            for v, dense in ((ct.counts, ct.dense()), (vals, table)):
                first = _matching._row_best(ct, v)
                want = (
                    _matching._argmax_assignment(dense) if ct.n_classes <= ct.n_clusters else None
                )
                assert (first is None) == (want is None), (trial, dense)
                if first is not None:
                    assert (ct.nz_rows[first] == want[0]).all()
                    assert (ct.nz_cols[first] == want[1]).all()
                    applied += 1
                else:
                    declined += 1
            assert _matching._scaled_pivot_sum(ct, ct.row_sums, scale_cols) == (
                _matching._pivot_sum(table)
            )
        rows, cols = _matching._assign(ct.dense())
        m = _matching._match(ct)
        counts = ct.dense()[rows, cols]
        keep = counts > 0
        order = np.argsort(rows[keep], kind="stable")
        assert m.class_index.tolist() == rows[keep][order].tolist()
        assert m.cluster_index.tolist() == cols[keep][order].tolist()
        assert m.matched_counts.tolist() == counts[keep][order].tolist()
    assert applied > 500 and declined > 300


@pytest.mark.parametrize(
    "table", [[[3, 0], [0, 0], [1, 4]], [[3, 1], [0, 4], [0, 0]], [[0, 5, 0], [0, 0, 0], [3, 0, 1]]]
)
def test_a_hand_built_table_with_an_empty_class_takes_the_table_path(table) -> None:
    """contingency_table never leaves a class without cells, but a Contingency built by hand
    may: the cell-based shortcuts step aside (no index past the cells) and the numbers are the
    table path's."""
    from metrics_core.partition._contingency import Contingency
    from metrics_core.partition._registry import TableStats

    c = Contingency(np.array(table), np.arange(len(table)), np.arange(len(table[0])))
    assert _matching._row_starts(c) is None and _matching._row_best(c, c.counts) is None
    want = _matching._pivot_sum(_matching._scaled_table(c, c.row_sums, None))
    assert _matching._scaled_pivot_sum(c, c.row_sums, None) == want
    dense = np.array(table, dtype=float)
    f = np.where(dense > 0, 2 * dense / (c.row_sums[:, None] + c.col_sums[None, :]), 0.0)
    assert _matching._f_matrix_max(c).tolist() == f.max(axis=1).tolist()
    assert 0 <= _matching._acc(TableStats(c)) <= 1


def _same(left: dict, right: dict) -> None:
    assert left.keys() == right.keys()
    for key in left:
        assert left[key] == pytest.approx(right[key], rel=1e-12, abs=1e-14), key


def test_evaluate_on_arbitrary_ids_strings_and_negative_ints_equals_codes() -> None:
    rng = np.random.default_rng(21)
    n, k, c = 20_000, 37, 45
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.7, t, rng.integers(0, c, n))
    codes = mc.evaluate(t, p)
    # ids increasing with the code: the same table, row for row, so the very same numbers
    ids_t = np.sort(rng.choice(2**40, k, replace=False))
    ids_p = np.sort(rng.choice(2**40, c, replace=False))
    assert mc.evaluate(ids_t[t], ids_p[p]) == codes
    names_t = np.array([f"class-{i:03d}" for i in range(k)])
    names_p = np.array([f"cluster-{i:03d}" for i in range(c)])
    assert mc.evaluate(names_t[t], names_p[p]) == codes
    assert mc.evaluate(t - 1_000, p - 7, noise_labels=()) == codes  # -1 is not noise here
    big = np.uint64(2**63) + np.arange(c, dtype=np.uint64) * np.uint64(2**40)
    assert mc.evaluate(t, big[p]) == codes
    # ids in another order: rows and columns permuted, equal up to the order of the sums
    _same(mc.evaluate(rng.choice(2**40, k, replace=False)[t], p), codes)
    shuffled = rng.permutation(k)
    _same(mc.evaluate(np.array([f"x{i}" for i in shuffled])[t], p), codes)


def test_factorize_sorts_arbitrary_ids_and_strings() -> None:
    rng = np.random.default_rng(1)
    for labels in (
        rng.choice(2**40, 50)[rng.integers(0, 50, 1000)],
        np.array(["b", "a", "c", "a", "b"]),
        np.array([-(2**40), 5, -(2**40), 2**41]),
        np.array([2**64 - 1, 0, 2**63], dtype=np.uint64),
    ):
        uniques, codes = _factorize(labels)
        assert uniques.tolist() == sorted(set(labels.tolist()))
        assert uniques.dtype == labels.dtype
        assert (uniques[codes] == labels).all()


@pytest.mark.parametrize("k", [30, 2_100])  # 2,100² cells: a sparse (CSR) table
def test_hash_factorised_table_is_the_table_of_the_sorted_codes(k: int) -> None:
    """Ids counted in order of first appearance, then the table's rows and columns sorted:
    the very table (and numbers) of the codes ranked by id."""
    rng = np.random.default_rng(k)
    n = 30_000
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.7, t, rng.integers(0, k, n))
    ids_t, ids_p = rng.choice(2**40, k, replace=False), rng.choice(2**40, k, replace=False)
    rank_t = np.unique(ids_t[t], return_inverse=True)[1]
    rank_p = np.unique(ids_p[p], return_inverse=True)[1]
    got = mc.contingency_table(ids_t[t], ids_p[p])
    want = mc.contingency_table(rank_t, rank_p)
    assert got.is_sparse == want.is_sparse == (k > 2_000)
    assert (got.dense() == want.dense()).all()
    assert (got.classes == np.unique(ids_t[t])).all()
    assert (got.clusters == np.unique(ids_p[p])).all()
    assert mc.evaluate(ids_t[t], ids_p[p]) == mc.evaluate(rank_t, rank_p)


def test_hash_factorised_labels_with_noise_singletons() -> None:
    rng = np.random.default_rng(9)
    t = rng.integers(0, 20, 2_000)
    p = np.where(rng.random(2_000) < 0.1, -1, rng.integers(0, 25, 2_000))
    names = np.array([f"c{i}" for i in rng.permutation(20)])
    ids = rng.choice(2**40, 25, replace=False)
    ids_p = np.where(p < 0, -1, ids[p])
    for policy in ("keep", "exclude", "singletons"):
        got = mc.evaluate(names[t], ids_p, noise_policy=policy)
        rank_t = np.unique(names[t], return_inverse=True)[1]
        rank_p = np.unique(ids_p, return_inverse=True)[1] - 1  # -1 stays the lowest: noise
        assert got == mc.evaluate(rank_t, rank_p, noise_policy=policy), policy


def _labels_of_every_kind(n: int) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """(kind, truth, prediction) pairs of n labels: compact codes, 40-bit ids, negative ints,
    uint64 ids, strings, and predictions with noise (-1)."""
    rng = np.random.default_rng(n)
    t = rng.integers(0, 23, n)
    p = np.where(rng.random(n) < 0.7, t, rng.integers(0, 31, n))
    ids_t, ids_p = rng.choice(2**40, 23, replace=False), rng.choice(2**40, 31, replace=False)
    big = np.uint64(2**63) + np.arange(31, dtype=np.uint64) * np.uint64(2**40)
    noisy = np.where(rng.random(n) < 0.05, -1, ids_p[p])
    return [
        ("codes", t, p),
        ("ids", ids_t[t], ids_p[p]),
        ("negative", t - 1_000, p - 7),
        ("uint64", t, big[p]),
        ("strings", np.array([f"c{i}" for i in range(23)])[t], p),
        ("noise", ids_t[t], noisy),
    ]


@pytest.mark.parametrize("policy", ["keep", "exclude", "singletons"])
def test_factorising_on_two_threads_counts_the_same_table(monkeypatch, policy: str) -> None:
    """From CONCURRENT_MIN labels two numeric vectors are factorised at once: the same table,
    classes and clusters as on one thread, and the second thread is really used (not for
    strings: both vectors' Python strings would be alive at once)."""
    from metrics_core.partition import _contingency

    used = []
    real = _contingency.thread_map

    def spy(fn, items, workers):
        used.append(workers)
        return real(fn, items, workers)

    monkeypatch.setattr(_contingency, "thread_map", spy)
    # a quarter more: "exclude" drops the noise (-1) of "negative" and "noise" first
    for kind, t, p in _labels_of_every_kind(_contingency.CONCURRENT_MIN * 5 // 4):
        used.clear()
        one = mc.contingency_table(t, p, noise_policy=policy, workers=1)
        assert used == [], kind
        two = mc.contingency_table(t, p, noise_policy=policy, workers=2)
        assert used == ([] if kind == "strings" else [2]), kind
        assert (one.dense() == two.dense()).all(), kind
        assert one.classes.tolist() == two.classes.tolist(), kind
        assert one.clusters.tolist() == two.clusters.tolist(), kind
        assert (one.n_noise, one.noise_policy) == (two.n_noise, two.noise_policy), kind
        assert mc.evaluate(t, p, noise_policy=policy, workers=2) == mc.evaluate(
            t, p, noise_policy=policy, workers=1
        ), kind
    used.clear()
    short = _contingency.CONCURRENT_MIN - 1
    mc.contingency_table(np.arange(short) % 5, np.arange(short) % 7, workers=2)
    assert used == []  # below the threshold a second thread costs what it saves


@pytest.mark.parametrize("n", [1_000, 70_000])
def test_counting_never_writes_into_the_callers_labels(n: int) -> None:
    """The pair codes are formed in the class codes' array when it is scratch; labels that
    already are codes 0..K-1 (int64: that array is the caller's own) must come back as given."""
    for kind, t, p in _labels_of_every_kind(n):
        t0, p0 = t.copy(), p.copy()
        for policy in ("keep", "exclude", "singletons"):
            mc.evaluate(t, p, noise_policy=policy)
            assert (t == t0).all() and (p == p0).all(), (kind, policy)
    codes = np.arange(n, dtype=np.int64) % 9  # codes 0..8 as they come: no copy is made
    before = codes.copy()
    assert mc.contingency_table(codes, codes).n_samples == n
    assert (codes == before).all()


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_evaluate_refuses_a_bad_workers_value_by_name(bad) -> None:
    with pytest.raises(mc.ClustlensInputError, match="workers"):
        mc.evaluate([0, 0, 1], [1, 1, 0], workers=bad)


def test_a_sampled_size_hint_only_for_labels_with_few_distinct_values() -> None:
    """pandas' hash table starts small when a strided sample holds few distinct labels (the
    codes and uniques are the same either way), and at one slot a label when most differ."""
    from metrics_core.partition import _contingency

    rng = np.random.default_rng(5)
    n = _contingency.SMALL_HINT * 4
    few = rng.choice(2**40, 300)[rng.integers(0, 300, n)]
    many = rng.choice(2**40, n, replace=False)
    assert _contingency._size_hint(few) == _contingency.SMALL_HINT
    assert _contingency._size_hint(many) is None
    assert _contingency._size_hint(few[: _contingency.SMALL_HINT]) is None  # short: pandas'
    # sorted labels: the sample is strided, so it still sees every one of them
    assert _contingency._size_hint(np.sort(many)) is None
    for labels in (few, many, np.sort(few), np.array([f"s{i}" for i in few[:100_000]])):
        uniques, codes, _order = _contingency._factorize_unsorted(labels)
        assert (uniques[codes] == labels).all()
        assert len(uniques) == len(set(labels.tolist()))


@pytest.mark.parametrize("dense", [True, False])
def test_noise_kept_is_counted_from_the_clusters_as_from_the_points(monkeypatch, dense) -> None:
    """Under "keep" the noise points are counted from the table (the clusters whose label is
    a noise label), not by a pass over the N labels: the same count as the points give, for
    every label kind, custom noise labels, noise absent, and a sparse table."""
    from metrics_core.partition import _contingency

    if not dense:
        monkeypatch.setattr(_contingency, "DENSE_CELL_LIMIT", 10)
    rng = np.random.default_rng(21)
    n = 3_000
    cases = [(kind, t, p, (-1,)) for kind, t, p in _labels_of_every_kind(n)]
    p = rng.integers(0, 40, n)
    cases += [
        ("compact with -1", p % 7, p - 1, (-1,)),
        ("strings '-1'", p % 7, np.array([str(v - 3) for v in p]), (-1,)),
        ("two noise labels", p % 7, p, (0, 39, "x")),
        ("string noise label", p % 7, np.array([f"k{v}" for v in p]), ("k5", 5)),
        ("noise absent", p % 7, p + 1, (-1,)),
        ("all noise", p % 7, np.full(n, -1), (-1,)),
        ("no noise labels", p % 7, p - 1, ()),
    ]
    for kind, t, p, labels in cases:
        c = mc.contingency_table(t, p, noise_labels=labels)
        assert c.is_sparse is not dense or c.n_clusters * c.n_classes <= 10, kind
        want = int(_contingency._is_noise(np.asarray(p), labels).sum())
        assert c.n_noise == want, (kind, c.n_noise, want)
        assert (
            mc.contingency_table(t, p, noise_labels=labels, noise_policy="singletons").n_noise
            == want
        )
        assert mc.evaluate(t, p, noise_labels=labels)["n_noise"] == want, kind
