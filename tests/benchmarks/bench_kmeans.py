"""k-means: ``metrics_core.models.kmeans`` against scikit-learn's ``KMeans`` in the same run.

    python tests/benchmarks/bench_kmeans.py [--repeat 9]

Shapes from the dashboard's computing: the multi-view comparison's 99 fits on HW's 200-point
demo (embeddings of K = 10 columns, the co-regularised concatenation's 60, 20 clusters), the
Sweep demo's spectral clustering (200 points, K = 5), N = 1,000, then N = 2,000 (mfeat sweeps)
and 20,000, where ``kmeans`` calls scikit-learn's compiled loop. Each row: the
best of ``--repeat`` interleaved fits of ``n_init = 10`` restarts, the ratio, and whether the
labels are identical (they must be, ties included: ``tests/test_kmeans.py``). One BLAS and one
OpenMP thread, as the dashboard's server runs.
Then the demo's whole comparison (3 runs, the quick k choices), timed in-process both ways.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings

# As `clustlens dashboard` runs its server (dashboard/cli/_serve.py): one BLAS and one OpenMP
# thread per computation. scikit-learn's k-means then sums its points in order, as ours does.
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402


def _blobs(rng: np.random.Generator, n: int, k: int, d: int) -> np.ndarray:
    centers = rng.standard_normal((k, d)) * 2.0
    return centers[rng.integers(0, k, n)] + rng.standard_normal((n, d))


def _best(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=9)
    repeat = ap.parse_args().repeat
    from sklearn.cluster import KMeans

    from metrics_core.models import kmeans, kmeans_seeds
    from metrics_core.models._kmeans import SIDE_BY_SIDE_MAX

    warnings.simplefilter("ignore")
    rng = np.random.default_rng(0)
    shapes = [
        ("multi-view demo: SC embedding", 200, 10, 10),
        ("multi-view demo: co-reg concatenation", 200, 10, 60),
        ("multi-view demo: 20 clusters", 200, 20, 20),
        ("Sweep demo: spectral clustering", 200, 5, 5),
        ("N = 1,000", 1000, 10, 10),
        ("N = 2,000 (mfeat sweeps)", 2000, 10, 10),
        ("N = 20,000", 20000, 10, 10),
    ]
    print(f"{'fit (n_init = 10)':<38} | {'n':>6} | {'K':>3} | {'d':>3} | {'path':<12} | "
          f"{'ours ms':>8} | {'sklearn ms':>10} | {'speed-up':>8} | same labels")  # fmt: skip
    print("-" * 38 + "-+-" + "-+-".join("-" * w for w in (6, 3, 3, 12, 8, 10, 8, 11)))
    for name, n, k, d in shapes:
        X = _blobs(rng, n, k, d)
        path = "side by side" if n <= SIDE_BY_SIDE_MAX else "scikit-learn"
        ours = lambda X=X, k=k: kmeans(X, k, seed=3)  # noqa: E731
        peer = lambda X=X, k=k: KMeans(k, n_init=10, random_state=3).fit(X)  # noqa: E731
        ours(), peer()
        reps = max(3, repeat // (1 + n // 5000))
        t_ours = t_peer = float("inf")
        for _ in range(reps):  # interleaved: the machine's load falls on both
            t_ours = min(t_ours, _best(ours, 1))
            t_peer = min(t_peer, _best(peer, 1))
        same = np.array_equal(ours().labels, peer().labels_)
        print(f"{name:<38} | {n:>6} | {k:>3} | {d:>3} | {path:<12} | {1e3 * t_ours:>8.2f} | "
              f"{1e3 * t_peer:>10.2f} | {t_peer / t_ours:>7.2f}× | {same}")  # fmt: skip
    print(f"(beyond {SIDE_BY_SIDE_MAX:,} points kmeans calls scikit-learn's compiled loop)")

    # A comparison clusters each embedding once per run: kmeans_seeds runs every seed's
    # restarts in one Lloyd loop (each seed's result is kmeans's, bit for bit; tests).
    print()
    print("three seeds (a comparison's runs) of one embedding, n_init = 10, best of interleaved:")
    for name, n, k, d in shapes[:2]:
        X = _blobs(rng, n, k, d)
        one_call = lambda X=X, k=k: kmeans_seeds(X, k, seeds=(0, 1, 2))  # noqa: E731
        a_call_each = lambda X=X, k=k: [kmeans(X, k, seed=s) for s in (0, 1, 2)]  # noqa: E731
        peer = lambda X=X, k=k: [  # noqa: E731
            KMeans(k, n_init=10, random_state=s).fit(X) for s in (0, 1, 2)
        ]
        one_call(), a_call_each(), peer()
        t1 = t2 = t3 = float("inf")
        for _ in range(repeat):
            t1 = min(t1, _best(one_call, 1))
            t2 = min(t2, _best(a_call_each, 1))
            t3 = min(t3, _best(peer, 1))
        same = all(
            np.array_equal(r.labels, f.labels_) for r, f in zip(one_call(), peer(), strict=True)
        )
        print(f"  {name} (d = {d}): one call {1e3 * t1:.2f} ms, a call a seed "
              f"{1e3 * t2:.2f} ms ({t2 / t1:.2f}×), scikit-learn {1e3 * t3:.2f} ms "
              f"({t3 / t1:.2f}×); same labels: {same}")  # fmt: skip

    import metrics_core.models._spectral as spectral
    import metrics_core.multiview._baselines as baselines
    from metrics_core.multiview import run_protocol

    def sklearn_kmeans(E, n_clusters, *, seed, n_init=10):
        # kmeans's own scikit-learn path: KMeans(n_clusters, n_init, random_state=seed).fit(E)
        return kmeans(E, n_clusters, seed=seed, n_init=n_init, side_by_side=False)

    def sklearn_kmeans_seeds(E, n_clusters, *, seeds, n_init=10):
        # the comparison clusters every run of an embedding in one call: a seed at a time here
        return kmeans_seeds(E, n_clusters, seeds=seeds, n_init=n_init, side_by_side=False)

    import logging

    import streamlit  # noqa: F401  (creates its loggers: quiet them, its caches warn here)

    for logger in list(logging.root.manager.loggerDict):
        if logger.startswith("streamlit"):
            logging.getLogger(logger).setLevel(logging.ERROR)
    from dashboard.compute import multiview as cm
    from dashboard.views.multiview import DEFAULT_PARAMS, KNN_CHOICES

    data = cm.hw(cm.HW_DEFAULT_N, 0)

    def comparison():
        return run_protocol(
            list(data.views), data.labels, runs=3, ssf_params=DEFAULT_PARAMS,
            knn_grid=KNN_CHOICES["quick"][1], view_names=list(data.view_names),
            selection="truth",
        )  # fmt: skip

    ours_k, ours_b, ours_s = spectral.kmeans, baselines.kmeans, baselines.kmeans_seeds
    times = {"ours": [], "sklearn": []}
    tables = {}
    comparison()
    for _ in range(3):
        for side in ("ours", "sklearn"):
            spectral.kmeans = baselines.kmeans = ours_k if side == "ours" else sklearn_kmeans
            baselines.kmeans_seeds = ours_s if side == "ours" else sklearn_kmeans_seeds
            t0 = time.perf_counter()
            tables[side] = comparison()
            times[side].append(time.perf_counter() - t0)
    spectral.kmeans, baselines.kmeans, baselines.kmeans_seeds = ours_k, ours_b, ours_s
    same = _same_reports(tables["ours"], tables["sklearn"])
    a, b = min(times["ours"]), min(times["sklearn"])
    print()
    print("the demo's multi-view comparison (3 runs, k = 10, 20, 40), best of 3 interleaved:")
    print(f"  with ours {a:.2f} s, with scikit-learn's {b:.2f} s: {b / a:.2f}×; "
          f"every method's labels identical: {same}")  # fmt: skip


def _same_reports(x, y) -> bool:
    """Every (method, run) row's metrics and every k tried, exactly."""

    def drop(df):
        return df.drop(columns=[c for c in df.columns if c == "seconds"])

    return bool(drop(x.runs).equals(drop(y.runs)) and drop(x.sweep).equals(drop(y.sweep)))


if __name__ == "__main__":
    main()
