"""Benchmark SSF on HW (run by hand: ``python tests/benchmarks/bench_multiview.py [--runs R]``).

Prints:

- one SSF run on HW (N = 2,000, six views, α=10, β=1e-3, γ=6): wall and CPU seconds, outer
  iterations, seconds per iteration, ξ steps, components, Acc/NMI. Goal: under 60 s wall on the
  2-core development machine.
- the protocol timings (``--runs`` repetitions, default 2; the README numbers use 20): mean
  seconds per run of every method; the SC rows include the spectral embedding and k-means of the
  chosen k-NN size, the "sweep" column all 12 sizes.

Wall time depends on what else runs on the machine; CPU time (process) is printed beside it.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from metrics_core import evaluate
from metrics_core.multiview import load_hw, run_protocol, ssf_fit


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2, help="protocol repetitions (2)")
    parser.add_argument("--skip-protocol", action="store_true")
    args = parser.parse_args()

    views, y, names = load_hw()
    print(f"HW: N={len(y)}, views={names}, dims={[v.shape[1] for v in views]}")
    wall, cpu = time.perf_counter(), time.process_time()
    res = ssf_fit(views, 10, alpha=10.0, beta=1e-3, gamma=6.0, max_iter=30, tol=1e-6, seed=0)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    sc = evaluate(y, res.labels)
    print(
        f"{'case':<28}{'wall s':>9}{'cpu s':>9}{'iters':>7}{'s/iter':>8}{'comps':>7}"
        f"{'acc':>8}{'nmi':>8}"
    )
    print(
        f"{'SSF one run (goal < 60 s)':<28}{wall:>9.1f}{cpu:>9.1f}{res.n_iter:>7}"
        f"{wall / max(res.n_iter, 1):>8.2f}{res.n_components:>7}{sc['acc']:>8.4f}"
        f"{sc['nmi']:>8.4f}"
    )
    print(f"  xi history: {np.round(res.xi_history, 3).tolist()}")
    print(f"  converged: {res.converged}, weights: {np.round(res.weights, 4).tolist()}")
    if args.skip_protocol:
        return

    t0 = time.perf_counter()
    proto = run_protocol(views, y, runs=args.runs, view_names=names)
    total = time.perf_counter() - t0
    per = proto.timings.groupby("method", sort=False)["seconds"].mean()
    sweep = proto.sweep.groupby("method", sort=False)["seconds"].sum() / args.runs
    print(f"\nprotocol, {args.runs} runs, total {total:.1f} s wall")
    print(f"{'method':<10}{'s/run':>9}{'sweep s/run':>13}{'acc':>8}{'nmi':>8}")
    for method, sec in per.items():
        row = proto.table.loc[method]
        print(
            f"{method:<10}{sec:>9.2f}{sweep.get(method, float('nan')):>13.2f}"
            f"{row['acc_mean']:>8.4f}{row['nmi_mean']:>8.4f}"
        )


if __name__ == "__main__":
    main()
