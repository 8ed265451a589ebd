"""``clustlens sweep``: run a built-in model over a parameter grid, or score a sweep bundle.

Examples::

    clustlens sweep --data X.npy --labels y.txt --model ensc --grid lambda=0.05:0.95:10 --out s.csv
    clustlens sweep --data mfeat:fou --model lsr --grid lambda=1e-3:1e2:20:log --out s.csv
    clustlens sweep --data synthetic --n-subspaces 5 --noise 0.1 --model ssc_omp --grid k=2,4,8
    clustlens sweep --bundle sweep.zip --labels y.txt --out s.csv

Progress goes to stderr, the table (CSV) to ``--out`` (stdout when ``-``). Ctrl-C stops after
the current setting and still writes the finished rows (exit 130). Exit 2 on bad input.
"""

from __future__ import annotations

import argparse
import signal
import sys
from typing import Any

import numpy as np

from metrics_core.validation._errors import ClustlensInputError


def _load_data(args: argparse.Namespace) -> tuple[np.ndarray, np.ndarray | None, str]:
    spec = args.data
    if spec == "synthetic":
        from metrics_core.datasets import union_of_subspaces

        try:
            X, y = union_of_subspaces(
                args.ambient_dim,
                args.subspace_dim,
                args.n_subspaces,
                args.points_per_subspace,
                args.noise,
                seed=args.data_seed,
            )
        except ValueError as exc:
            raise ClustlensInputError(str(exc), source="--data synthetic") from None
        return X, y, "synthetic"
    if spec.startswith("mfeat:"):
        from metrics_core.datasets import load_view

        try:
            X, y = load_view(spec.split(":", 1)[1])
        except ValueError as exc:
            raise ClustlensInputError(str(exc), source="--data") from None
        return X, y, spec
    from metrics_core import io as cio

    loaded = cio.load_data_matrix(spec, variable=args.variable)
    X = np.asarray(loaded.matrix)
    if args.transpose:
        X = X.T
    return X, None, spec


def _labels(args: argparse.Namespace, builtin: np.ndarray | None) -> np.ndarray | None:
    if args.labels:
        from metrics_core import io as cio

        return cio.load_labels(args.labels, variable=args.labels_variable).labels
    return builtin


def _fmt(v: Any) -> str:
    return f"{v:.4g}" if isinstance(v, float) else str(v)


def _progress(quiet: bool, names: tuple[str, ...]) -> Any:
    def report(i: int, n: int, elapsed: float, remaining: float, row: dict) -> None:
        if quiet:
            return
        params = " ".join(f"{p}={_fmt(row.get(p))}" for p in names)
        mets = " ".join(
            f"{m}={_fmt(row[m])}" for m in ("acc", "nmi", "sre", "conn_min", "sparsity") if m in row
        )
        print(
            f"[{i}/{n}] {params}  {mets}  elapsed {elapsed:.1f}s, ~{remaining:.1f}s left",
            file=sys.stderr,
            flush=True,
        )

    return report


def _run(args: argparse.Namespace) -> int:
    from metrics_core.sweep import parse_grid, run_sweep, score_bundle

    stop = {"flag": False}

    def on_sigint(signum: int, frame: Any) -> None:
        if stop["flag"]:
            raise KeyboardInterrupt
        stop["flag"] = True
        print(
            "clustlens: stopping after the current setting (Ctrl-C again to abort)", file=sys.stderr
        )

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        if args.bundle:
            if args.data or args.model or args.grid:
                raise ClustlensInputError(
                    "give either --bundle or --data/--model/--grid", source="sweep"
                )
            from metrics_core.sweep._bundle import load_bundle

            labels = _labels(args, None)
            bundle = load_bundle(args.bundle, n_samples=None if labels is None else len(labels))
            for err in bundle.errors:
                print(f"clustlens: warning: {err}", file=sys.stderr)
            if not bundle.settings:
                raise ClustlensInputError("no setting could be loaded", source=args.bundle)
            result = score_bundle(
                bundle,
                labels,
                args.clusters,
                seed=args.seed,
                coef_orientation=args.orientation,
                on_progress=_progress(args.quiet, bundle.param_names),
                should_stop=lambda: stop["flag"],
            )
            for err in result.errors[len(bundle.errors) :]:
                print(f"clustlens: warning: {err}", file=sys.stderr)
        else:
            if not (args.data and args.model and args.grid):
                raise ClustlensInputError(
                    "needs --data, --model and --grid (or --bundle)", source="sweep"
                )
            X, builtin_labels, _ = _load_data(args)
            labels = _labels(args, builtin_labels)
            if labels is None:
                raise ClustlensInputError("--labels is required for this --data", source="sweep")
            grid = parse_grid(args.grid)
            result = run_sweep(
                X,
                labels,
                args.model,
                grid,
                n_clusters=args.clusters,
                seed=args.seed,
                on_progress=_progress(args.quiet, grid.names),
                should_stop=lambda: stop["flag"],
                save_coef_dir=args.save_coef,
                normalize=not args.no_normalize,
            )
    finally:
        signal.signal(signal.SIGINT, previous)
    text = result.to_csv()
    if args.out == "-":
        sys.stdout.write(text)
    else:
        with open(args.out, "w", encoding="utf-8") as fh:
            fh.write(text)
    if not args.quiet:
        print(
            f"clustlens: {len(result.rows)} of {result.n_settings} settings in "
            f"{result.seconds:.1f}s -> {args.out}",
            file=sys.stderr,
        )
    return 130 if result.stopped else 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``sweep`` subcommand."""
    from metrics_core.models import MODELS

    p = subparsers.add_parser(
        "sweep",
        help="run a model over a parameter grid (or score a sweep bundle) into a CSV table",
        description=__doc__,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    src = p.add_argument_group("data")
    src.add_argument(
        "--data",
        help="data matrix file (.csv/.npy/.npz/.mat, points as rows), 'synthetic' or "
        "'mfeat:<view>' (fou, fac, kar, pix, zer, mor)",
    )
    src.add_argument("--variable", help="variable of --data in a .mat/.npz")
    src.add_argument("--transpose", action="store_true", help="--data stores points as columns")
    src.add_argument("--labels", help="ground-truth labels file (built in for synthetic/mfeat)")
    src.add_argument("--labels-variable", help="variable/column of --labels")
    src.add_argument("--bundle", help="score a sweep bundle (.zip + params.csv, .mat, results CSV)")
    src.add_argument(
        "--orientation",
        choices=("rows", "columns"),
        default="rows",
        help="bundle matrices: row i (default) or column i represents point i",
    )
    syn = p.add_argument_group("synthetic data (--data synthetic)")
    syn.add_argument("--ambient-dim", type=int, default=30)
    syn.add_argument("--subspace-dim", type=int, default=5)
    syn.add_argument("--n-subspaces", type=int, default=5)
    syn.add_argument("--points-per-subspace", type=int, default=60)
    syn.add_argument("--noise", type=float, default=0.0)
    syn.add_argument("--data-seed", type=int, default=0)
    run = p.add_argument_group("sweep")
    run.add_argument("--model", choices=sorted(MODELS), help="built-in model")
    run.add_argument(
        "--grid",
        action="append",
        help="name=start:stop:count[:log] or name=v1,v2,... (repeat for a cartesian product)",
    )
    run.add_argument("--clusters", type=int, help="clusters K (default: number of classes)")
    run.add_argument("--seed", type=int, default=0, help="spectral-clustering seed (0)")
    run.add_argument("--save-coef", metavar="DIR", help="save each C + predictions + params.csv")
    run.add_argument(
        "--no-normalize", action="store_true", help="do not scale data rows to unit norm"
    )
    p.add_argument("--out", default="-", help="output CSV (default '-': stdout)")
    p.add_argument("--quiet", action="store_true", help="no progress on stderr")
    p.set_defaults(func=_run)
