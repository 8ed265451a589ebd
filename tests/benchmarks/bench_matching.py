"""Exact ACC on huge sparse contingency tables: clustlens vs scipy's sparse matcher alone.

    python tests/benchmarks/bench_matching.py

Cases: N = 2e5 points with ~1e5 classes and ~1e5 clusters (random, ~2e5 non-zero cells), and
the near-singleton case of the trust issue (1e5 clusters of 2 points over 100 classes). The peer
is ``scipy.sparse.csgraph.min_weight_full_bipartite_matching`` on the same table (what clustlens
used before); both give the same exact matched count.
"""

from __future__ import annotations

import time

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import min_weight_full_bipartite_matching

import metrics_core as mc


def peer_acc(c: mc.Contingency) -> float:
    t = sp.csr_array(c.table).astype(np.float64)
    k, n = t.shape
    aug = sp.hstack([t, sp.identity(k, format="csr") * (0.5 / (k + 1))], format="csr")
    cols = min_weight_full_bipartite_matching(aug, maximize=True)[1]
    rows = np.arange(k)
    real = cols < n
    return float(t[rows[real], cols[real]].sum() / c.n_samples)


def main() -> None:
    rng = np.random.default_rng(0)
    n = 200_000
    cases = {
        "1e5 x 1e5 random, 2e5 points": (
            rng.integers(0, 100_000, n),
            rng.integers(0, 100_000, n),
        ),
        "100 classes x 1e5 near-singleton clusters": (
            rng.integers(0, 100, n),
            np.repeat(np.arange(n // 2), 2),
        ),
    }
    print(
        f"{'case':46s} {'K x C':>17s} {'nnz':>8s} {'clustlens s':>12s} {'peer s':>8s} {'ratio':>6s}"
    )
    for name, (t, p) in cases.items():
        c = mc.contingency_table(t, p)
        t0 = time.perf_counter()
        acc = mc.accuracy_score(contingency=c)
        ours = time.perf_counter() - t0
        t0 = time.perf_counter()
        ref = peer_acc(c)
        peer = time.perf_counter() - t0
        assert abs(acc - ref) < 1e-12, (acc, ref)
        shape = f"{c.n_classes:,} x {c.n_clusters:,}"
        print(f"{name:46s} {shape:>17s} {c.counts.size:>8,} {ours:12.3f} {peer:8.2f} "
              f"{peer / ours:6.0f}x")  # fmt: skip


if __name__ == "__main__":
    main()
