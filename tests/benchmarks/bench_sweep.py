"""Parameter-sweep benchmark at N = 2,000 (by hand: ``python tests/benchmarks/bench_sweep.py``).

Targets (issue 4, on the 2-core machine): a 20-value LSR sweep with spectral clustering under
30 s in total; SSC-OMP under 10 s per setting; EnSC under 30 s per setting; scoring an uploaded
bundle of 20 sparse matrices under 10 s. Data: the Fourier view of the UCI handwritten digits
(``mfeat:fou``, 2,000 x 76, 10 classes), rows scaled to unit norm; ``--data synthetic`` uses a
union of 10 subspaces of dimension 6 in R^30 (200 points each, noise 0.1) instead.
"""

from __future__ import annotations

import argparse
import io
import sys
import time
import zipfile

import numpy as np
import scipy.sparse as sp


def _data(kind: str) -> tuple[np.ndarray, np.ndarray, str]:
    if kind == "synthetic":
        from metrics_core.datasets import union_of_subspaces

        X, y = union_of_subspaces(30, 6, 10, 200, noise=0.1, seed=0)
        return X, y, "synthetic 10 x 6-dim in R^30"
    from metrics_core.datasets import load_view

    X, y = load_view("fou")
    return X, y, "mfeat fou"


def main(argv: list[str] | None = None) -> int:
    from metrics_core.models import knn_affinity, normalize_rows, ssc_omp
    from metrics_core.sweep import run_sweep, score_bundle
    from metrics_core.sweep._bundle import load_bundle

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--data", choices=("mfeat", "synthetic"), default="mfeat")
    ap.add_argument("--ensc", default="0.9,0.5,0.1", help="λ values for EnSC settings")
    args = ap.parse_args(argv)
    X, y, label = _data(args.data)
    n = X.shape[0]
    rows: list[tuple[str, str, float, float, str]] = []

    def add(task: str, target: float, total: float, per: float, extra: str) -> None:
        ok = "ok" if (per if "per setting" in task else total) < target else "SLOW"
        rows.append((task, f"< {target:g} s", total, per, f"{extra} [{ok}]"))
        print(f"  {task}: {total:.2f} s ({extra})", file=sys.stderr, flush=True)

    print(f"data: {label}, N = {n}, D = {X.shape[1]}", file=sys.stderr)

    t = time.perf_counter()
    res = run_sweep(X, y, "lsr", "lambda=1e-3:1e2:20:log")
    total = time.perf_counter() - t
    fit = float(np.sum(res.column("seconds_fit")))
    clu = float(np.sum(res.column("seconds_cluster")))
    best = res.rows[res.best("acc")]
    add(
        "LSR sweep, 20 λ, total",
        30,
        total,
        total / 20,
        f"fit {fit:.1f} s, spectral {clu:.1f} s, evaluate {total - fit - clu:.1f} s; "
        f"best acc {best['acc']:.3f}",
    )

    t = time.perf_counter()
    res = run_sweep(X, y, "ssc_omp", "k=10")
    total = time.perf_counter() - t
    r = res.rows[0]
    add(
        "SSC-OMP k=10, per setting",
        10,
        total,
        total,
        f"fit {r['seconds_fit']:.1f} s; acc {r['acc']:.3f}, sre {r['sre']:.3f}, "
        f"conn_min {r['conn_min']:.3f}",
    )

    for lam in [float(v) for v in args.ensc.split(",")]:
        t = time.perf_counter()
        res = run_sweep(X, y, "ensc", {"lambda": [lam], "gamma": [50.0]})
        total = time.perf_counter() - t
        r = res.rows[0]
        add(
            f"EnSC λ={lam:g} γ=50, per setting",
            30,
            total,
            total,
            f"fit {r['seconds_fit']:.1f} s; {r['sparsity']:.1f} nnz/pt; acc {r['acc']:.3f}, "
            f"sre {r['sre']:.3f}, conn_min {r['conn_min']:.3f}",
        )

    # An uploaded-style bundle: 20 sparse matrices (SSC-OMP k = 1..10, kNN k = 3..30) as .npz.
    Xn = normalize_rows(X)
    coefs = [ssc_omp(Xn, k).coef for k in range(1, 11)]
    coefs += [knn_affinity(Xn, k).coef for k in range(3, 33, 3)]
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        lines = ["file,setting_id"]
        for i, c in enumerate(coefs):
            b = io.BytesIO()
            sp.save_npz(b, sp.csr_array(c))
            zf.writestr(f"c{i:02d}.npz", b.getvalue())
            lines.append(f"c{i:02d}.npz,{i}")
        zf.writestr("params.csv", "\n".join(lines) + "\n")
    data = buf.getvalue()
    t = time.perf_counter()
    bundle = load_bundle(data, name="bench.zip", n_samples=n)
    t_load = time.perf_counter() - t
    res = score_bundle(bundle, y)
    total = time.perf_counter() - t
    assert not bundle.errors and len(res.rows) == 20
    add(
        "score bundle, 20 sparse C (zip)",
        10,
        total,
        total / 20,
        f"load {t_load:.1f} s, {len(data) / 2**20:.1f} MiB zip",
    )

    print()
    print(f"N = {n} ({label}); times in seconds")
    print(f"| {'task':<34} | {'target':<8} | {'total':>7} | {'per set':>7} | notes")
    print(f"|{'-' * 36}|{'-' * 10}|{'-' * 9}|{'-' * 9}|------")
    for task, target, tot, per, notes in rows:
        print(f"| {task:<34} | {target:<8} | {tot:7.2f} | {per:7.2f} | {notes}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
