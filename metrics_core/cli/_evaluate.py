"""``clustlens evaluate``: print every metric for label files (and a C), or for a counts table."""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import sys

from metrics_core.cli._inputs import (
    add_convention_arguments,
    add_input_arguments,
    load_inputs,
    orientation_argument,
)
from metrics_core.evaluation._catalog import METRICS_BY_KEY
from metrics_core.evaluation._evaluate import evaluate
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
        loaded = cio.load_table(args.contingency)
        metrics = evaluate(contingency=loaded.table, **kwargs)
        described = [{"role": "contingency", "file": args.contingency,
                      "shape": list(loaded.table.shape)}]  # fmt: skip
    else:
        inputs = load_inputs(args)
        coef = inputs.coef.value if inputs.coef is not None else None
        metrics = evaluate(
            inputs.truth.value,
            inputs.preds[0].value,
            coef,
            coef_orientation=orientation_argument(args),
            affinity_preset=args.preset,
            **kwargs,
        )
        described = inputs.describe()
    if args.json:
        print(json.dumps({**metrics, "inputs": described}, indent=2, allow_nan=True))
    elif args.csv:
        buf = io.StringIO()
        writer = csv.writer(buf, lineterminator="\n")
        writer.writerow(["metric", "value"])
        for key, value in metrics.items():
            writer.writerow([key, repr(value) if isinstance(value, float) else value])
        sys.stdout.write(buf.getvalue())
    else:
        print(format_inputs(described))
        print(format_table(metrics))
    return 0


def format_inputs(described: list[dict]) -> str:
    """One line per input: role, file, variable, shape, orientation."""
    lines = ["[inputs]"]
    for d in described:
        shape = " x ".join(f"{s:,}" for s in d.get("shape", []))
        extra = [f"variable {d['variable']!r}"] if d.get("variable") else []
        if d.get("orientation"):
            extra.append(f"{d['orientation']} are points")
        lines.append(f"  {d['role']}: {d['file']} ({shape}{'; ' if extra else ''}"
                     f"{'; '.join(extra)})")  # fmt: skip
    return "\n".join(lines) + "\n"


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser(
        "evaluate",
        help="print every metric for a prediction against ground truth",
        description="Print every external metric (and SRE/CONN given --coef). Exit 2 on bad input.",
    )
    add_input_arguments(p)
    add_convention_arguments(p)
    p.add_argument(
        "--contingency",
        metavar="FILE",
        help="CSV of (class, cluster, count) rows, e.g. the output of a SQL GROUP BY",
    )
    p.add_argument("--beta", type=float, default=1.0, help="V-measure β")
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument(
        "--json",
        action="store_true",
        help='print the evaluate keys as JSON, with the inputs used under "inputs"',
    )
    fmt.add_argument("--csv", action="store_true", help="print metric,value rows")
    p.set_defaults(func=_run)
