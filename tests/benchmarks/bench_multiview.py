"""SSF and every baseline on HW, in the protocol of Liu, Wang & Qian's paper (run by hand).

    python tests/benchmarks/bench_multiview.py                 # 20 runs (the paper's protocol)
    python tests/benchmarks/bench_multiview.py --runs 2 --quick

Prints, for HW (N = 2,000, six views, α = 10, β = 1e-3, γ = 6):

1. SSF with each initial graph (``pkn``, the default, and ``ridge``): mean ± std of Acc, NMI,
   ARI, F-measure over the runs and wall seconds per run (goals: Acc ≥ 0.97, NMI ≥ 0.94, one run
   ≤ 10 s on the 2-core machine; the peer in the same run is SSF with the ridge start);
2. the whole comparison table (:func:`metrics_core.multiview.run_protocol`, every baseline,
   settings chosen against the ground truth as the paper does, and — with ``--unsupervised`` —
   without it), with seconds per run of every method, and its LaTeX.

The published-code reference ranges the issue gives for HW are printed beside the baselines.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from metrics_core import evaluate
from metrics_core.multiview import load_hw, run_protocol, ssf_fit

RANGES = {
    "AMGL": "ACC 0.88-0.90 / NMI 0.90",
    "SwMC": "ACC 0.85 ± 0.05 / NMI 0.90",
    "Co-reg (pairwise)": "ACC 0.93 / NMI 0.87",
    "Co-reg (centroid)": "ACC 0.93 / NMI 0.87",
}


def ssf_runs(views, y, runs: int, init: str) -> dict:
    scores, secs = [], []
    for seed in range(runs):
        t0 = time.perf_counter()
        res = ssf_fit(views, 10, seed=seed, init=init, tol=1e-5)
        secs.append(time.perf_counter() - t0)
        m = evaluate(y, res.labels)
        scores.append([m["acc"], m["nmi"], m["ari"], m["f_measure"]])
    a = np.array(scores)
    sd = a.std(axis=0, ddof=1) if runs > 1 else np.zeros(4)
    return {"mean": a.mean(axis=0), "std": sd, "sec": np.mean(secs), "max": np.max(secs)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--quick", action="store_true", help="k-NN grid 5..30 only")
    ap.add_argument("--unsupervised", action="store_true", help="also choose settings blindly")
    args = ap.parse_args()
    views, y, names = load_hw()
    print(f"HW: N={len(y)}, views={names}, {args.runs} runs")
    print("| SSF init | Acc | NMI | ARI | F-measure | s/run (max) |")
    print("|---|---|---|---|---|---|")
    for init in ("pkn", "ridge"):
        r = ssf_runs(views, y, args.runs, init)
        cells = " | ".join(f"{m:.4f} ± {s:.4f}" for m, s in zip(r["mean"], r["std"], strict=True))
        print(f"| {init} | {cells} | {r['sec']:.1f} ({r['max']:.1f}) |", flush=True)

    grid = (5, 10, 15, 20, 25, 30) if args.quick else None
    for selection in ("truth", "unsupervised") if args.unsupervised else ("truth",):
        t0 = time.perf_counter()
        kw = {"knn_grid": grid} if grid else {}
        proto = run_protocol(views, y, runs=args.runs, view_names=names, selection=selection, **kw)
        total = time.perf_counter() - t0
        per = proto.timings.groupby("method", sort=False)["seconds"].mean()
        print(f"\nprotocol ({selection} selection), total {total:.0f} s")
        print("| method | setting | Acc | NMI | ARI | F-measure | s/run | reference range |")
        print("|---|---|---|---|---|---|---|---|")
        for method, row in proto.table.iterrows():
            cells = " | ".join(
                f"{row[f'{k}_mean']:.4f} ± {row[f'{k}_std']:.4f}"
                for k in ("acc", "nmi", "ari", "f_measure")
            )
            print(
                f"| {method} | {row.get('setting', '')} | {cells} | {per.get(method, 0):.2f} "
                f"| {RANGES.get(method, '')} |"
            )
        print()
        for note in proto.notes:
            print(f"- {note}")
        print()
        print(proto.to_latex(caption=f"HW, {args.runs} runs ({selection} selection)"))


if __name__ == "__main__":
    main()
