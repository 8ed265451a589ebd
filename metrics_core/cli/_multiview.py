"""``clustlens multiview``: SSF and its baselines over repeated runs, tables written to a folder.

Examples (shell)::

    clustlens multiview --dataset hw --runs 20 --out results/hw
    clustlens multiview --data-dir views/ --labels truth.csv --runs 5 --out results/mine

``--data-dir`` holds one file per view (``.csv``/``.txt``/``.npy``/``.npz``/``.mat``, points as
rows), read in file-name order; the labels file is skipped if it sits in the same folder.
Exit codes: 0 success, 2 bad input (message on stderr).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from metrics_core.validation._errors import ClustlensInputError

VIEW_SUFFIXES = (".csv", ".txt", ".tsv", ".npy", ".npz", ".mat")


def _floats(text: str) -> list[float]:
    try:
        return [float(t) for t in text.split(",") if t.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(f"expected comma-separated numbers, got {text!r}") from exc


def _ints(text: str) -> list[int]:
    try:
        return [int(t) for t in text.split(",") if t.strip()]
    except ValueError as exc:
        raise argparse.ArgumentTypeError(
            f"expected comma-separated integers, got {text!r}"
        ) from exc


def _load(args: argparse.Namespace):
    from metrics_core.multiview import load_hw, load_views_from_files

    if args.dataset == "hw":
        return load_hw()
    data_dir = Path(args.data_dir)
    if not data_dir.is_dir():
        raise ClustlensInputError("is not a folder", source=str(data_dir))
    if args.labels is None:
        raise ClustlensInputError("--labels is required with --data-dir", source="--labels")
    labels = Path(args.labels)
    if not labels.is_file():
        raise ClustlensInputError("no such file", source=str(labels))
    paths = sorted(
        p
        for p in data_dir.iterdir()
        if p.is_file() and p.suffix.lower() in VIEW_SUFFIXES and p.resolve() != labels.resolve()
    )
    if not paths:
        raise ClustlensInputError(
            f"no view files ({', '.join(VIEW_SUFFIXES)}) found", source=str(data_dir)
        )
    views, y, names = load_views_from_files(paths, labels)
    return views, y, names


def _run(args: argparse.Namespace) -> int:
    import numpy as np

    from metrics_core.multiview import run_protocol, sensitivity_grid

    if args.runs < 1:
        raise ClustlensInputError("must be at least 1", source="--runs")
    views, y, names = _load(args)
    k = args.n_clusters or int(np.unique(y).size)
    if not 1 <= k <= len(y):
        raise ClustlensInputError(f"must be between 1 and {len(y)}", source="--n-clusters")
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    from metrics_core.multiview import METHODS

    methods = list(args.methods) if args.methods else list(METHODS)
    if not args.baselines:
        methods = ["ssf"]
    unknown = sorted(set(methods) - set(METHODS))
    if unknown:
        raise ClustlensInputError(
            f"unknown method(s) {unknown}; choose from {', '.join(METHODS)}", source="--methods"
        )
    seeds = list(range(args.seed, args.seed + args.runs))
    ssf_params = {
        "alpha": args.alpha,
        "beta": args.beta,
        "gamma": args.gamma,
        "max_iter": args.max_iter,
        "tol": args.tol,
        "init": args.init,
        "init_neighbors": args.init_neighbors,
    }
    say = (lambda m: print(m, file=sys.stderr)) if args.verbose else None
    res = run_protocol(
        views,
        y,
        runs=args.runs,
        seeds=seeds,
        methods=methods,
        view_names=names,
        n_clusters=k,
        ssf_params=ssf_params,
        knn_grid=args.knn_grid,
        progress=say,
        selection=args.selection,
    )
    written = res.save(out)
    if args.sensitivity:
        grid = sensitivity_grid(
            views,
            y,
            n_clusters=k,
            alpha=args.alpha,
            betas=args.betas,
            gammas=args.gammas,
            seed=args.seed,
            ssf_params={"max_iter": args.max_iter, "tol": args.tol},
            progress=say,
        )
        p = out / "sensitivity.csv"
        grid.to_csv(p, index=False)
        written.append(p)
    meta = {
        "model": args.model,
        "views": names,
        "n_samples": len(y),
        "n_clusters": k,
        "seeds": seeds,
        "ssf_params": ssf_params,
        "knn_grid": list(args.knn_grid),
        "methods": methods,
        "selection": args.selection,
        "notes": res.notes,
        "files": [p.name for p in written],
    }
    (out / "run.json").write_text(json.dumps(meta, indent=1), encoding="utf-8")
    print(res.table.round(4).to_string())
    for note in res.notes:
        print(f"note: {note}")
    print(f"wrote {len(written) + 1} files to {out}")
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    from metrics_core.multiview import KNN_GRID

    p = subparsers.add_parser(
        "multiview",
        help="multi-view clustering (SSF) with baselines over repeated runs",
        description="Run spectral structure fusion (SSF) and its baselines (SC, AMGL, SwMC, "
        "co-reg) "
        "over repeated runs; write mean ± std tables (CSV, LaTeX), convergence and weights.",
    )
    src = p.add_mutually_exclusive_group(required=True)
    src.add_argument("--data-dir", help="folder with one data file per view (points as rows)")
    src.add_argument("--dataset", choices=["hw"], help="a shipped data set (hw: UCI mfeat)")
    p.add_argument("--labels", help="ground-truth labels file (with --data-dir)")
    p.add_argument("--model", choices=["ssf"], default="ssf", help="the multi-view model")
    p.add_argument("--runs", type=int, default=20, help="repeated runs (20)")
    p.add_argument("--seed", type=int, default=0, help="first seed; run r uses seed + r")
    p.add_argument("--out", default="results", help="output folder (created)")
    p.add_argument("--n-clusters", type=int, default=None, help="default: number of labels")
    p.add_argument("--alpha", type=float, default=10.0)
    p.add_argument("--beta", type=float, default=1e-3)
    p.add_argument("--gamma", type=float, default=6.0)
    p.add_argument("--max-iter", type=int, default=30)
    p.add_argument("--tol", type=float, default=1e-5)
    p.add_argument(
        "--init",
        choices=("pkn", "ridge"),
        default="pkn",
        help="SSF's initial graphs: pkn (adaptive neighbours, Nie, Wang & Huang 2014; the "
        "default, better on HW) or ridge (the self-representation without the spectral term)",
    )
    p.add_argument("--init-neighbors", type=int, default=10, help="k of the pkn start (10)")
    p.add_argument(
        "--methods",
        type=lambda t: [m.strip() for m in t.split(",") if m.strip()],
        default=None,
        help="comma-separated subset of ssf,sc,sc_avg,sc_concat,amgl,swmc,coreg_pairwise,"
        "coreg_centroid (default: all)",
    )
    p.add_argument(
        "--selection",
        choices=("truth", "unsupervised"),
        default="truth",
        help="how a baseline's k-NN size / λ is chosen: truth = best mean ACC against the ground "
        "truth (as the paper; said in the table), unsupervised = best silhouette, no labels",
    )
    p.add_argument(
        "--knn-grid",
        type=_ints,
        default=list(KNN_GRID),
        help="k-NN sizes for the SC baselines (5,10,...,60)",
    )
    p.add_argument("--no-baselines", dest="baselines", action="store_false", help="run SSF only")
    p.add_argument(
        "--sensitivity", action="store_true", help="also run the (beta, gamma) grid at fixed alpha"
    )
    p.add_argument("--betas", type=_floats, default=[1e-4, 1e-3, 1e-2])
    p.add_argument("--gammas", type=_floats, default=[4.0, 6.0, 8.0, 10.0])
    p.add_argument("-v", "--verbose", action="store_true", help="progress on stderr")
    p.set_defaults(func=_run)
