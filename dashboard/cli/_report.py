"""``clustlens report``: the dashboard's self-contained HTML report, from the shell.

    clustlens report --true y.txt --pred run1.txt [--pred run2.txt] [--coef C.npz]
                     [--coef-orientation rows|columns] --out report.html

Exit codes: 0 on success, 2 on bad input (one message on stderr, no traceback).
Registered by adding ``"dashboard.cli._report"`` to ``metrics_core.cli.SUBCOMMANDS``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from metrics_core.validation._errors import ClustlensInputError


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise ClustlensInputError(
            f"cannot read {what} file: {exc.strerror or exc}", source=path
        ) from None


def _run(args: argparse.Namespace) -> int:
    try:
        return _build(args)
    except ClustlensInputError as exc:
        print(f"clustlens report: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, MemoryError, ValueError) as exc:
        print(f"clustlens report: error: {exc}", file=sys.stderr)
        return 2


def _build(args: argparse.Namespace) -> int:
    import metrics_core as mc
    from dashboard.outputs import report
    from metrics_core import io as cio

    out = Path(args.out)
    if out.exists() and out.is_dir():
        raise ClustlensInputError("--out is a directory; give a file name", source=str(out))
    if out.parent and not out.parent.exists():
        raise ClustlensInputError("the folder of --out does not exist", source=str(out))

    true_bytes = _read(args.true, "ground-truth")
    y_true = cio.load_labels(true_bytes, name=os.path.basename(args.true), kind="true")
    inputs = [report.input_info("ground truth", os.path.basename(args.true), true_bytes)]
    notes = [f"ground truth: {n}" for n in y_true.notes]
    preds = []
    for p in args.pred:
        b = _read(p, "prediction")
        lp = cio.load_labels(b, name=os.path.basename(p), kind="pred")
        if len(lp.labels) != len(y_true.labels):
            raise ClustlensInputError(
                f"{len(lp.labels)} predicted labels but {len(y_true.labels)} true labels",
                source=p,
            )
        preds.append((os.path.basename(p), lp.labels))
        inputs.append(report.input_info("prediction", os.path.basename(p), b))
        notes += [f"{os.path.basename(p)}: {n}" for n in lp.notes]
    coef = None
    if args.coef:
        b = _read(args.coef, "coefficient matrix")
        lc = cio.load_coef(b, name=os.path.basename(args.coef))
        coef = lc.matrix
        n = len(y_true.labels)
        if coef.shape != (n, n):
            raise ClustlensInputError(
                f"C is {coef.shape[0]} x {coef.shape[1]} but there are {n} labels", source=args.coef
            )
        inputs.append(
            report.input_info(
                "coefficient matrix",
                os.path.basename(args.coef),
                b,
                f"{args.coef_orientation} are points"
                + (f"; variable {lc.variable}" if lc.variable else ""),
            )
        )
        notes += [f"{os.path.basename(args.coef)}: {n}" for n in lc.notes]

    names = [name for name, _ in preds]
    if len(set(names)) != len(names):  # two runs with the same file name in different folders
        names = [f"{i + 1}: {name}" for i, name in enumerate(names)]
    results = {}
    for name, (_, labels) in zip(names, preds, strict=True):
        results[name] = mc.evaluate(
            y_true.labels,
            labels,
            coef,
            coef_orientation=args.coef_orientation,
            average_method=args.average_method,
        )
    figures = []
    for i, (name, (_, labels)) in enumerate(zip(names, preds, strict=True)):
        for cap, fig in report.standard_figures(
            y_true.labels,
            labels,
            coef if i == 0 else None,  # C does not depend on the prediction: draw it once
            orientation=args.coef_orientation,
        ):
            figures.append((f"{name} — {cap}" if len(names) > 1 else cap, fig))
    conventions = {
        "NMI/AMI normaliser": args.average_method,
        "noise labels": "kept as a cluster (policy 'keep')",
        "pairs": "unordered",
    }
    if coef is not None:
        conventions["C orientation"] = f"{args.coef_orientation} are points"
        conventions["SRE zero rows"] = "count as 0 (documented default)"
        conventions["CONN"] = "λ2 of the normalised Laplacian per class; min and mean reported"
    html_text = report.build_report(
        results,
        figures=figures,
        inputs=inputs,
        conventions=conventions,
        notes=notes,
        title=args.title,
    )
    tmp = out.with_name(out.name + ".part")
    tmp.write_text(html_text, encoding="utf-8")
    tmp.replace(out)
    if not args.quiet:
        print(
            f"wrote {out} ({len(html_text.encode('utf-8')) / 1e6:.1f} MB, {len(figures)} figures)"
        )
    return 0


def register(subparsers: argparse._SubParsersAction) -> None:
    """Add the ``report`` subcommand."""
    p = subparsers.add_parser(
        "report",
        help="write a self-contained HTML report (metrics, conventions, interactive figures)",
        description=(
            "Write one HTML file that opens offline: every metric with its convention, the "
            "interactive figures, the inputs' SHA-256 and the versions. Exit 2 on bad input."
        ),
    )
    p.add_argument("--true", required=True, metavar="FILE", help="ground-truth labels")
    p.add_argument(
        "--pred", required=True, action="append", metavar="FILE",
        help="predicted labels (repeat for several runs or methods)",
    )  # fmt: skip
    p.add_argument("--coef", metavar="FILE", help="coefficient matrix C (.npy/.npz/.mat/.csv)")
    p.add_argument("--coef-orientation", choices=("rows", "columns"), default="rows",
                   help="whether rows (default) or columns of C represent the points")  # fmt: skip
    p.add_argument("--average-method", choices=("arithmetic", "geometric", "min", "max"),
                   default="arithmetic", help="NMI/AMI normaliser")  # fmt: skip
    p.add_argument("--title", default="clustlens report", help="report title")
    p.add_argument("--out", required=True, metavar="FILE", help="the HTML file to write")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(func=_run)
