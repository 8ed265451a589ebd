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
    affinity = None
    notes: list[str] = []
    diagnosis = None
    uncertainty = None
    if args.uncertainty and (args.table or args.contingency):
        raise ClustlensInputError(
            "--uncertainty resamples points: give --true and --pred (a counts table has none)",
            source="arguments",
        )
    if args.uncertainty < 0:
        raise ClustlensInputError("must be >= 0", source="--uncertainty")
    if args.explain and args.table:
        raise ClustlensInputError(
            "--explain needs the labels in memory (--true/--pred, optionally --coef, or "
            "--contingency); an engine's counts have no points to trace",
            source="arguments",
        )
    if args.table:
        metrics, described, affinity, notes = _run_table(args, kwargs)
    elif args.contingency:
        if args.true or args.pred or args.coef:
            raise ClustlensInputError(
                "--contingency scores a table on its own; "
                "do not combine it with --true/--pred/--coef",
                source="arguments",
            )
        loaded = cio.load_table(args.contingency)
        metrics = evaluate(contingency=loaded.table, **kwargs)
        if args.explain:
            from metrics_core.diagnosis import diagnose
            from metrics_core.partition import contingency_from_table

            table = contingency_from_table(loaded.table, loaded.classes, loaded.clusters)
            diagnosis = diagnose(contingency=table, thresholds=_thresholds(args))
        described = [{"role": "contingency", "file": args.contingency,
                      "shape": list(loaded.table.shape)}]  # fmt: skip
    else:
        _refuse_table_flags(args)
        inputs = load_inputs(args)
        metrics = evaluate(inputs.truth.value, inputs.preds[0].value, **kwargs)
        if inputs.coef is not None:
            from metrics_core.affinity._diagnostics import affinity_report
            from metrics_core.evaluation._evaluate import affinity_conventions

            conventions = affinity_conventions(orientation_argument(args), args.preset)
            keys, affinity = affinity_report(inputs.coef.value, inputs.truth.value, **conventions)
            metrics.update(keys)
        if args.explain:
            from metrics_core.diagnosis import diagnose

            conv = {"orientation": orientation_argument(args), "preset": args.preset}
            diagnosis = diagnose(
                inputs.truth.value,
                inputs.preds[0].value,
                None if inputs.coef is None else inputs.coef.value,
                thresholds=_thresholds(args),
                noise_policy=args.noise_policy,
                **{k: v for k, v in conv.items() if v is not None},
            )
        described = inputs.describe()
        if args.uncertainty:
            from metrics_core.uncertainty import bootstrap_intervals, method_text

            rows = bootstrap_intervals(
                inputs.truth.value, inputs.preds[0].value, n_boot=args.uncertainty,
                n_perm=args.uncertainty, seed=args.seed, average_method=args.average_method,
            )  # fmt: skip
            uncertainty = {
                "method": method_text(args.uncertainty, args.uncertainty, 0.95, args.seed),
                "n_boot": args.uncertainty,
                "n_perm": args.uncertainty,
                "level": 0.95,
                "seed": args.seed,
                "metrics": [r.as_dict() for r in rows],
            }
    if args.json:
        out: dict = {**metrics, "inputs": described}
        if affinity is not None:
            out["affinity"] = affinity
        if uncertainty is not None:
            out["uncertainty"] = uncertainty
        if diagnosis is not None:
            from metrics_core.diagnosis import verdict

            out["diagnosis"] = [f.as_dict() for f in diagnosis]
            out["verdict"] = verdict(diagnosis)
            out["diagnosis_thresholds"] = _thresholds(args).as_dict()
        print(json.dumps(out, indent=2, allow_nan=True))
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
        if uncertainty is not None:
            print(f"\n[uncertainty] {uncertainty['method']}")
            for r in uncertainty["metrics"]:
                print(f"  {r['metric']:<4} {r['value']:.4f}  95% CI [{r['low']:.4f}, "
                      f"{r['high']:.4f}]  p = {r['p_value']:.4g}")  # fmt: skip
        if diagnosis is not None:
            print(format_diagnosis(diagnosis, _thresholds(args)))
        for note in notes:
            print(f"note: {note}")
    return 0


_TABLE_FLAGS = ("true_col", "pred_col", "id_col", "edges")


def _thresholds(args: argparse.Namespace):
    from metrics_core.diagnosis import Thresholds

    return Thresholds(
        min_share=args.min_share, weak_conn=args.weak_conn, leak_share=args.leak_share
    )


def format_diagnosis(findings: list, thresholds) -> str:
    """The verdict, then one finding per line, most costly first, each with its cause."""
    from metrics_core.diagnosis import CAUSE_WORDS, verdict

    t = thresholds
    lines = [
        "",
        f"[diagnosis] (thresholds: min share {t.min_share:g}, weak CONN < {t.weak_conn:g}, "
        f"leakage ≥ {t.leak_share:g}, coincide ≥ {t.coincide:g})",
    ]
    lines.append(f"  {verdict(findings)}")
    for k, f in enumerate(findings, 1):
        cause = CAUSE_WORDS.get(f.cause, "") if f.cause != "unknown" else ""
        pts = f"{f.points:,} point{'s' if f.points != 1 else ''}"
        lines.append(f"  {k}. [{f.kind}, {pts}{', ' + cause if cause else ''}] "
                     f"{f.text}")  # fmt: skip
    return "\n".join(lines)


def _refuse_table_flags(args: argparse.Namespace) -> None:
    given = [f"--{k.replace('_', '-')}" for k in _TABLE_FLAGS if getattr(args, k, None)]
    if given:
        raise ClustlensInputError(
            f"{', '.join(given)} only apply with --table FILE", source="arguments"
        )


def _run_table(args: argparse.Namespace, kwargs: dict) -> tuple[dict, list, dict | None, list]:
    """``--table``: count with the chosen engine, score with the in-memory code."""
    from metrics_core.engines import evaluate_table

    if args.true or args.pred or args.coef or args.contingency:
        raise ClustlensInputError(
            "--table reads the labels from one table; do not combine it with "
            "--true/--pred/--coef/--contingency (give C as --edges)",
            source="arguments",
        )
    if not (args.true_col and args.pred_col):
        raise ClustlensInputError(
            "--table needs --true-col NAME and --pred-col NAME", source="arguments"
        )
    result = evaluate_table(
        args.table,
        args.true_col,
        args.pred_col,
        edges=args.edges,
        id_col=args.id_col,
        engine=args.engine,
        memory_limit=args.memory_limit,
        coef_orientation=args.coef_orientation,
        affinity_preset=args.preset,
        **kwargs,
    )
    return result.metrics, result.inputs, result.affinity, result.notes


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
    table = p.add_argument_group(
        "a labels table counted by an engine (any size)",
        "LABELS and EDGES are parquet or CSV (with a header). EDGES holds C as rows i, j, value "
        "(C[i, j] = value; repeated pairs are summed); i and j are ids of --id-col, or 0-based "
        "data-row numbers of LABELS. The JSON has the keys and values of the in-memory path.",
    )
    table.add_argument("--table", metavar="LABELS", help="parquet or CSV, one row per point")
    table.add_argument("--true-col", metavar="A", help="column of the ground truth")
    table.add_argument("--pred-col", metavar="B", help="column of the prediction")
    table.add_argument("--id-col", metavar="ID", help="column of unique point ids (for --edges)")
    table.add_argument("--edges", metavar="EDGES", help="C as an edge list (i, j, value)")
    table.add_argument(
        "--engine",
        choices=("duckdb", "spark", "memory"),
        default="duckdb",
        help="duckdb: out of core (default; pip install 'clustlens[duckdb]'); spark: local "
        "Spark (pip install 'clustlens[spark]', Java 17+); memory: read into numpy (refused "
        "up front when it would not fit under --memory-limit)",
    )
    table.add_argument(
        "--memory-limit",
        default="2GB",
        metavar="SIZE",
        help="DuckDB's memory limit (it spills to disk beyond it), Spark's driver memory, the "
        "in-memory path's budget (default 2GB)",
    )
    p.add_argument("--beta", type=float, default=1.0, help="V-measure β")
    unc = p.add_argument_group("uncertainty", "is the score a real difference from chance?")
    unc.add_argument(
        "--uncertainty",
        type=int,
        default=0,
        metavar="N",
        help="N bootstrap resamples (95%% percentile interval of ACC, ARI, AMI, NMI) and N "
        'permutations (p-value against chance); with --json: "uncertainty"',
    )
    unc.add_argument("--seed", type=int, default=0, help="seed of the resampling (0)")
    diag = p.add_argument_group(
        "diagnosis", "--explain: every split, merge and misassignment, costed and (with C) traced"
    )
    diag.add_argument(
        "--explain",
        action="store_true",
        help='print the diagnosis after the table (with --json: a "diagnosis" list)',
    )
    diag.add_argument(
        "--min-share",
        type=float,
        default=0.1,
        help="share of a class (cluster) that makes a piece of a split (merge)",
    )
    diag.add_argument(
        "--weak-conn",
        type=float,
        default=0.05,
        help="λ2 below which a class is held together by weak links",
    )
    diag.add_argument(
        "--leak-share",
        type=float,
        default=0.05,
        help="share of two classes' coefficient mass on each other that is a leak",
    )
    fmt = p.add_mutually_exclusive_group()
    fmt.add_argument(
        "--json",
        action="store_true",
        help='print the evaluate keys as JSON, with the inputs used under "inputs" (and, given '
        'C, per-class SRE/CONN and the leakage matrix under "affinity")',
    )
    fmt.add_argument("--csv", action="store_true", help="print metric,value rows")
    p.set_defaults(func=_run)
