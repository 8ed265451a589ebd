"""``clustlens evaluate``: print every metric for label files (and a C), or for a counts table."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys

from metrics_core.evaluation._catalog import METRICS_BY_KEY
from metrics_core.evaluation._evaluate import evaluate
from metrics_core.partition._contingency import NOISE_POLICIES
from metrics_core.partition._information import AVERAGE_METHODS
from metrics_core.validation._errors import ClustlensInputError


def _format_value(value: float | int) -> str:
    if isinstance(value, int):
        return f"{value:,}"
    if math.isnan(value):
        return "nan"
    return f"{value:.6f}"


def format_table(metrics: dict[str, float | int]) -> str:
    """A readable table: family, metric, value, direction."""
    lines = []
    width = max(len(METRICS_BY_KEY[k].name) if k in METRICS_BY_KEY else len(k) for k in metrics)
    family = None
    for key, value in metrics.items():
        info = METRICS_BY_KEY.get(key)
        fam = info.family if info else "other"
        if fam != family:
            lines.append(f"\n[{fam}]")
            family = fam
        name = info.name if info else key
        arrow = {"higher": "↑", "lower": "↓"}.get(info.direction if info else "", " ")
        lines.append(f"  {name:<{width}}  {_format_value(value):>18} {arrow}  ({key})")
    return "\n".join(lines).lstrip("\n")


def _run(args: argparse.Namespace) -> int:
    from metrics_core import io as cio

    kwargs = dict(
        average_method=args.average_method,
        noise_policy=args.noise_policy,
        beta=args.beta,
    )
    if args.contingency:
        if args.true or args.pred or args.coef:
            raise ClustlensInputError(
                "--contingency scores a table on its own; "
                "do not combine it with --true/--pred/--coef",
                source="arguments",
            )
        table = cio.load_table(args.contingency).table
        metrics = evaluate(contingency=table, **kwargs)
    else:
        if not (args.true and args.pred):
            raise ClustlensInputError(
                "give --true FILE and --pred FILE (or --contingency FILE)", source="arguments"
            )
        y_true = cio.load_labels(args.true, variable=args.true_var, kind="true").labels
        y_pred = cio.load_labels(args.pred, variable=args.pred_var, kind="pred").labels
        coef = None
        if args.coef:
            coef = cio.load_coef(args.coef, variable=args.coef_var).matrix
            if coef.shape[0] != len(y_true):
                raise ClustlensInputError(
                    f"C is {coef.shape[0]} x {coef.shape[1]} but there are {len(y_true)} labels",
                    source=args.coef,
                )
        if len(y_true) != len(y_pred):
            raise ClustlensInputError(
                f"{args.true} has {len(y_true)} labels but {args.pred} has {len(y_pred)}",
                source="labels",
            )
        metrics = evaluate(
            y_true,
            y_pred,
            coef,
            coef_orientation=args.coef_orientation,
            affinity_preset=args.preset,
            **kwargs,
        )
    if args.json:
        print(json.dumps(metrics, indent=2, allow_nan=True))
    elif args.csv:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["metric", "value"])
        for key, value in metrics.items():
            writer.writerow([key, repr(value) if isinstance(value, float) else value])
        sys.stdout.write(buf.getvalue())
    else:
        print(format_table(metrics))
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "evaluate",
        help="print every metric for a prediction against ground truth",
        description="Print every external metric (and SRE/CONN given --coef). Exit 2 on bad input.",
    )
    p.add_argument("--true", metavar="FILE", help="ground-truth labels (.txt/.csv/.tsv/.npy/.mat)")
    p.add_argument("--pred", metavar="FILE", help="predicted labels")
    p.add_argument("--coef", metavar="FILE", help="coefficient matrix C (.npy/.npz/.mat/.csv)")
    p.add_argument("--true-var", help="variable or column holding the ground truth")
    p.add_argument("--pred-var", help="variable or column holding the prediction")
    p.add_argument("--coef-var", help="variable holding C in a .mat/.npz file")
    p.add_argument(
        "--coef-orientation",
        choices=("rows", "columns"),
        default="rows",
        help="rows: row i of C represents point i (default); columns: MATLAB SSC code",
    )
    p.add_argument("--preset", default=None, help="SRE/CONN preset of a reference code")
    p.add_argument(
        "--contingency",
        metavar="FILE",
        help="CSV of (class, cluster, count) rows, e.g. the output of a SQL GROUP BY",
    )
    p.add_argument("--average-method", choices=AVERAGE_METHODS, default="arithmetic")
    p.add_argument("--noise-policy", choices=NOISE_POLICIES, default="keep")
    p.add_argument("--beta", type=float, default=1.0, help="V-measure β")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument("--json", action="store_true", help="print exactly the evaluate keys as JSON")
    fmt.add_argument("--csv", action="store_true", help="print metric,value rows")
    p.set_defaults(func=_run)
