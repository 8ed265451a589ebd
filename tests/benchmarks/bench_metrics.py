"""Benchmark: every partition metric in one evaluate call vs the one-pass floor and scikit-learn.

Run by hand: ``python tests/benchmarks/bench_metrics.py [--quick]``. Prints a table (seconds,
peak traced memory). Not a test: speed goals live here, correctness lives in tests/.

The peer is the **one-pass floor**, timed in the same run: ``pandas.factorize`` of both label
vectors plus one ``np.bincount`` of the pair codes, i.e. reading the labels once and counting
the table, with no metric computed. ``ratio`` is ours / that floor; the goal is at most 2 at
N >= 1e6 for K up to 1,000. The compact-int floor (``astype`` + ``bincount``, only possible when
the labels already are 0..K-1) is printed next to it. Each time is the best of ``--repeats``
runs, ours and the floors interleaved so that the machine's noise falls on both. The
scikit-learn suite (one call per metric) is timed once, on the compact-int rows only.
"""

from __future__ import annotations

import argparse
import gc
import time
import tracemalloc

import numpy as np
import pandas as pd


def _labels(n: int, k: int, kind: str = "int", seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Ground truth and a realistic prediction (70% right, the rest random) over K labels.

    ``kind``: ``"int"`` compact codes 0..K-1, ``"id40"`` arbitrary 40-bit integer ids,
    ``"str"`` strings (a numpy ``U`` array).
    """
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.7, t, rng.integers(0, k, n))
    if kind == "id40":
        ids = rng.integers(0, 2**40, k)
        return ids[t], ids[p]
    if kind == "str":
        names = np.array([f"class-{i:05d}" for i in rng.permutation(k)])
        return names[t], names[p]
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
    """The one-pass floor: factorise both vectors (pandas) and count the pair codes."""
    start = time.perf_counter()
    ti, classes = pd.factorize(t)
    pi, clusters = pd.factorize(p)
    np.bincount(ti * len(clusters) + pi, minlength=len(classes) * len(clusters))
    return time.perf_counter() - start


def _floor_compact(t: np.ndarray, p: np.ndarray) -> float:
    """The floor when the labels already are compact codes 0..K-1: no factorising at all."""
    start = time.perf_counter()
    ti = t.astype(np.intp, copy=False)
    pi = p.astype(np.intp, copy=False)
    k, c = int(ti.max()) + 1, int(pi.max()) + 1
    np.bincount(ti * c + pi, minlength=k * c)
    return time.perf_counter() - start


def _ours(t: np.ndarray, p: np.ndarray) -> float:
    import metrics_core as mc

    start = time.perf_counter()
    mc.evaluate(t, p)
    return time.perf_counter() - start


def _peak(t: np.ndarray, p: np.ndarray) -> int:
    """Peak traced memory of one evaluate (a run of its own: tracing slows numpy down)."""
    import metrics_core as mc

    gc.collect()
    tracemalloc.start()
    mc.evaluate(t, p)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--quick", action="store_true", help="skip the N = 1e7 row")
    ap.add_argument("--no-sklearn", action="store_true", help="skip the scikit-learn suite")
    ap.add_argument("--no-sklearn-1000", action="store_true", help="skip sklearn at K = 1000")
    ap.add_argument("--repeats", type=int, default=5, help="best of this many runs (>= 3)")
    args = ap.parse_args()
    repeats = max(3, args.repeats)
    rows = [
        (1_000_000, 10, "int", True),
        (1_000_000, 100, "int", True),
        (1_000_000, 1000, "int", not args.no_sklearn_1000),
        (1_000_000, 100, "id40", False),
        (1_000_000, 100, "str", False),
    ]
    if not args.quick:
        rows.insert(3, (10_000_000, 1000, "int", False))
    print(
        f"{'N':>11} {'K':>5} {'labels':>6} {'floor s':>8} {'int s':>7} {'ours s':>8} "
        f"{'ratio':>6} {'peak MB':>8} {'sklearn s':>10} {'speed-up':>9}"
    )
    import metrics_core as mc

    for n, k, kind, with_sk in rows:
        t, p = _labels(n, k, kind)
        mc.evaluate(t[:1000], p[:1000])  # warm imports
        floor = floor_int = ours = float("inf")
        for _ in range(repeats):
            gc.collect()
            floor = min(floor, _floor(t, p))
            if kind == "int":
                floor_int = min(floor_int, _floor_compact(t, p))
            gc.collect()
            ours = min(ours, _ours(t, p))
        peak = _peak(t, p)
        sk = _sklearn_suite(t, p) if with_sk and not args.no_sklearn else float("nan")
        fi = f"{floor_int:>7.3f}" if kind == "int" else f"{'—':>7}"
        print(
            f"{n:>11,} {k:>5} {kind:>6} {floor:>8.3f} {fi} {ours:>8.3f} {ours / floor:>5.2f}x "
            f"{peak / 2**20:>8.0f} {sk:>10.2f} {sk / ours:>8.1f}x",
            flush=True,
        )


if __name__ == "__main__":
    main()
