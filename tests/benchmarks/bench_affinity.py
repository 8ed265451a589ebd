"""Benchmark SRE and CONN (run by hand: ``python tests/benchmarks/bench_affinity.py``).

Prints one row per case: N, stored entries per row, classes, SRE time, CONN time and how many
class blocks each eigen-solver path handled. Cases:

- ``sparse-subspace``: N = 1e5, 20 non-zeros per row, 100 classes, 90% of each row's entries
  inside its class (a self-expressive C that is mostly subspace-preserving). Goal: SRE + CONN
  under 3 s.
- ``sparse-random``: the same size with columns drawn uniformly (class blocks fall apart: the
  connected-components check answers without any eigen-solve).
- ``ring-10k``: one 10,000-point class whose C is a ring (λ2 ~ 2e-7): the small-gap case.
- ``dense-5k``: a dense 5,000 x 5,000 C with 10 classes (dense blocks of 500).
- ``reference``: the reference codes' way on the dense 5,000 case — SRE through the N x N
  same-class mask, CONN with a full dense eigendecomposition per class — for comparison.

``--slow`` adds the 10,000-point ring forced through the batched Lanczos path (its budget is
exhausted and it falls back to shift-invert) and a 2,000-point dense eigvalsh reference for
the ring.
"""

from __future__ import annotations

import argparse
import collections
import time

import numpy as np
import scipy.sparse as sp

from metrics_core.affinity._diagnostics import connectivity, subspace_preserving_error


def subspace_like(n: int, per_row: int, k: int, inside: float, seed: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, k, n)
    order = np.argsort(labels, kind="stable")
    counts = np.bincount(labels, minlength=k)
    starts = np.concatenate([[0], np.cumsum(counts)])
    rows = np.repeat(np.arange(n), per_row)
    cls = labels[rows]
    same = rng.random(n * per_row) < inside
    in_class = order[starts[cls] + (rng.random(n * per_row) * counts[cls]).astype(np.intp)]
    cols = np.where(same, in_class, rng.integers(0, n, n * per_row))
    c = sp.csr_array((rng.standard_normal(n * per_row), (rows, cols)), shape=(n, n))
    return c, labels


def ring_coef(n: int, seed: int = 0) -> sp.csr_array:
    rng = np.random.default_rng(seed)
    i = np.arange(n)
    return sp.csr_array((1.0 + 0.1 * rng.random(n), (i, (i + 1) % n)), shape=(n, n))


def dense_case(n: int, k: int, seed: int = 0) -> tuple:
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(k), n // k)
    c = rng.standard_normal((n, n)) * 0.05
    for cls in range(k):
        idx = np.flatnonzero(labels == cls)
        c[np.ix_(idx, idx)] *= 20.0
    np.fill_diagonal(c, 0.0)
    return c, labels


def reference_sre(c: np.ndarray, labels: np.ndarray) -> float:
    """The reference codes' SRE: an N x N same-class mask."""
    k = labels.max() + 1
    onehot = np.zeros((labels.size, k))
    onehot[np.arange(labels.size), labels] = 1.0
    mask = onehot @ onehot.T
    l1 = np.abs(c).sum(axis=1)
    masked = np.abs(mask * c).sum(axis=1)
    return float(np.mean(1.0 - masked / l1))


def reference_conn(c: np.ndarray, labels: np.ndarray) -> float:
    """Dense normalised Laplacian and full eigvalsh per class, min over classes."""
    w = np.abs(c) + np.abs(c).T
    vals = []
    for cls in np.unique(labels):
        idx = np.flatnonzero(labels == cls)
        block = w[np.ix_(idx, idx)]
        s = 1.0 / np.sqrt(block.sum(axis=1))
        lap = np.eye(idx.size) - s[:, None] * block * s[None, :]
        vals.append(np.linalg.eigvalsh(lap)[1])
    return float(np.min(vals))


def timed(fn, *args, repeat=1, **kwargs):
    """Best wall-clock time over ``repeat`` runs (the machine may be shared) and its CPU time."""
    best = (np.inf, np.inf)
    for _ in range(repeat):
        t, p = time.perf_counter(), time.process_time()
        out = fn(*args, **kwargs)
        best = min(best, (time.perf_counter() - t, time.process_time() - p))
    return out, best


def row(name, c, labels, repeat=1, **conn_kwargs):
    n = labels.size
    nnz = c.nnz if sp.issparse(c) else np.count_nonzero(c)
    sre, (t_sre, p_sre) = timed(subspace_preserving_error, c, labels, repeat=repeat)
    conn, (t_conn, p_conn) = timed(connectivity, c, labels, repeat=repeat, **conn_kwargs)
    paths = collections.Counter(conn.method_per_class)
    paths_txt = " ".join(f"{k}={v}" for k, v in sorted(paths.items()))
    k = np.unique(labels).size
    print(
        f"{name:<22} {n:>7} {nnz / n:>8.1f} {k:>7} {t_sre:>8.3f} {t_conn:>8.3f} "
        f"{t_sre + t_conn:>8.3f} {p_sre + p_conn:>8.3f}  SRE={sre.value:.4f} "
        f"CONN_min={conn.min:.3e}  {paths_txt}"
    )
    return sre, conn


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slow", action="store_true", help="add the forced-Lanczos ring cases")
    args = parser.parse_args()
    print(
        f"{'case':<22} {'N':>7} {'nnz/row':>8} {'classes':>7} {'SRE s':>8} {'CONN s':>8} "
        f"{'total s':>8} {'cpu s':>8}  values / solver paths"
    )
    c, labels = subspace_like(100_000, 20, 100, inside=0.9)
    row("sparse-subspace", c, labels, repeat=3)
    c, labels = subspace_like(100_000, 20, 100, inside=0.0)
    row("sparse-random", c, labels)
    ring = ring_coef(10_000)
    zeros = np.zeros(10_000, dtype=int)
    row("ring-10k", ring, zeros)
    c, labels = dense_case(5_000, 10)
    row("dense-5k", c, labels)
    out, (t_ref_sre, p_ref_sre) = timed(reference_sre, c, labels)
    ref_conn, (t_ref_conn, p_ref_conn) = timed(reference_conn, c, labels)
    print(
        f"{'reference (mask/eigh)':<22} {5000:>7} {5000.0:>8.1f} {10:>7} {t_ref_sre:>8.3f} "
        f"{t_ref_conn:>8.3f} {t_ref_sre + t_ref_conn:>8.3f} {p_ref_sre + p_ref_conn:>8.3f}  "
        f"SRE={out:.4f} CONN_min={ref_conn:.3e}  N x N mask, full eigvalsh per class"
    )
    cs = sp.csr_array(c)
    row("dense-5k as CSR", cs, labels)
    if args.slow:
        row("ring-10k lanczos", ring, zeros, method="lanczos")
        small = ring_coef(2_000)
        row("ring-2k dense", small, np.zeros(2_000, dtype=int), method="dense")


if __name__ == "__main__":
    main()
