"""Benchmark: every partition metric in one evaluate call vs scikit-learn one call at a time.

Run by hand: ``python tests/benchmarks/bench_metrics.py [--quick]``. Prints a table (seconds,
peak traced memory). Not a test: speed goals live here, correctness lives in tests/.
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc

import numpy as np


def _labels(n: int, k: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k, n)
    # a realistic prediction: 70% right, the rest random
    p = np.where(rng.random(n) < 0.7, t, rng.integers(0, k, n))
    return t, p


def _sklearn_suite(t: np.ndarray, p: np.ndarray) -> float:
    from scipy.optimize import linear_sum_assignment
    from sklearn import metrics as skm

    start = time.perf_counter()
    table = skm.cluster.contingency_matrix(t, p)
    r, c = linear_sum_assignment(-table)
    _ = table[r, c].sum() / len(t)
    skm.adjusted_rand_score(t, p)
    skm.rand_score(t, p)
    skm.fowlkes_mallows_score(t, p)
    skm.cluster.pair_confusion_matrix(t, p)
    skm.mutual_info_score(t, p)
    for m in ("min", "geometric", "arithmetic", "max"):
        skm.normalized_mutual_info_score(t, p, average_method=m)
    skm.adjusted_mutual_info_score(t, p)
    skm.homogeneity_completeness_v_measure(t, p)
    return time.perf_counter() - start


def _floor(t: np.ndarray, p: np.ndarray) -> float:
    """The one-pass floor: factorise both vectors and count pairs (bincount)."""
    start = time.perf_counter()
    ti = t.astype(np.intp, copy=False)
    pi = p.astype(np.intp, copy=False)
    k, c = int(ti.max()) + 1, int(pi.max()) + 1
    np.bincount(ti * c + pi, minlength=k * c)
    return time.perf_counter() - start


def _ours(t: np.ndarray, p: np.ndarray) -> tuple[float, float]:
    import metrics_core as mc

    gc.collect()
    start = time.perf_counter()
    mc.evaluate(t, p)
    elapsed = time.perf_counter() - start
    # a second, traced run for the peak: tracing numpy's allocations doubles the run time
    gc.collect()
    tracemalloc.start()
    mc.evaluate(t, p)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return elapsed, peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="skip the N = 1e7 row")
    ap.add_argument("--no-sklearn-1000", action="store_true", help="skip sklearn at K = 1000")
    args = ap.parse_args()
    rows = [
        (1_000_000, 10, True),
        (1_000_000, 100, True),
        (1_000_000, 1000, not args.no_sklearn_1000),
    ]
    if not args.quick:
        rows.append((10_000_000, 1000, False))
    print(
        f"{'N':>11} {'K':>5} {'floor s':>8} {'ours s':>8} {'peak MB':>8} "
        f"{'sklearn s':>10} {'speed-up':>9}"
    )
    for n, k, with_sk in rows:
        t, p = _labels(n, k)
        _ours(t[:1000], p[:1000])  # warm imports
        floor = _floor(t, p)
        ours, peak = _ours(t, p)
        sk = _sklearn_suite(t, p) if with_sk else float("nan")
        speed = sk / ours if with_sk else float("nan")
        print(
            f"{n:>11,} {k:>5} {floor:>8.3f} {ours:>8.3f} {peak / 2**20:>8.0f} "
            f"{sk:>10.2f} {speed:>8.1f}x"
        )


if __name__ == "__main__":
    main()
