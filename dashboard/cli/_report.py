"""``clustlens report``: the dashboard's self-contained HTML report, from the shell.

    clustlens report --true y.txt --pred run1.txt [--pred run2.txt] [--coef C.npz]
                     [--preset NAME] [--coef-orientation rows|columns]
                     [--noise-policy keep|exclude|singletons] [--average-method ...]
                     [--true-var V] [--pred-var V] [--coef-var V] --out report.html

Takes the same inputs and conventions as ``clustlens evaluate`` and the dashboard's pages, builds
the same :class:`~dashboard.analysis.objects.Analysis` as the dashboard (with the same
functions) and writes it with the same report builder as the dashboard's download. A sparse C
stays sparse. Exit codes: 0 on success, 2 on bad input (one message on stderr, no traceback;
the command line's own handler in :func:`metrics_core.cli.main`).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from metrics_core.cli._inputs import (
    add_convention_arguments,
    add_input_arguments,
    coef_orientation,
    load_inputs,
)
from metrics_core.validation._errors import ClustlensInputError


def _unique_names(names: list[str]) -> list[str]:
    """Two runs with the same file name (different folders) get numbered names."""
    if len(set(names)) == len(names):
        return names
    return [f"{i + 1}: {name}" for i, name in enumerate(names)]


def _build(args: argparse.Namespace) -> int:
    from dashboard.analysis.conventions import Conventions
    from dashboard.analysis.objects import analyse
    from dashboard.outputs import report

    out = Path(args.out)
    if out.exists() and out.is_dir():
        raise ClustlensInputError("--out is a directory; give a file name", source=str(out))
    if out.parent and not out.parent.exists():
        raise ClustlensInputError("the folder of --out does not exist", source=str(out))
    if not args.pred:
        raise ClustlensInputError("give at least one --pred FILE", source="arguments")
    if args.uncertainty < 0:
        raise ClustlensInputError("must be >= 0", source="--uncertainty")

    loaded = load_inputs(args)
    conv = Conventions(
        average_method=args.average_method,
        noise_policy=args.noise_policy,
        preset=args.preset,
        orientation=coef_orientation(args),
    )
    if args.preset and args.coef_orientation and conv.orientation_from_preset:
        raise ClustlensInputError(
            f"--coef-orientation {args.coef_orientation} conflicts with preset {args.preset!r}, "
            f"which reads C by {conv.effective_orientation}; drop one of them",
            source="arguments",
        )
    names = _unique_names([f.name for f in loaded.preds])
    preds = {name: f.value for name, f in zip(names, loaded.preds, strict=True)}
    files = [loaded.truth, *loaded.preds, *([loaded.coef] if loaded.coef else [])]
    notes = [f"{f.name}: {n}" for f in files for n in f.notes]
    inputs = [
        report.input_info(
            f.role,
            f.name,
            f.data,
            "; ".join(
                x
                for x in (
                    f"variable {f.variable}" if f.variable else "",
                    f"{conv.effective_orientation} are points" if f is loaded.coef else "",
                )
                if x
            ),
        )
        for f in files
    ]
    analysis = analyse(
        loaded.truth.value,
        preds,
        loaded.coef.value if loaded.coef is not None else None,
        conv,
        notes=notes,
    )
    if args.uncertainty:
        import dataclasses

        from dashboard.analysis.objects import uncertainty

        unc = uncertainty(
            loaded.truth.value,
            preds[analysis.active],
            None,
            n=args.uncertainty,
            seed=args.seed,
            average_method=conv.average_method,
        )
        analysis = dataclasses.replace(analysis, uncertainty=unc)
    html_text = report.analysis_report(analysis, inputs=inputs, title=args.title)
    tmp = out.with_name(out.name + ".part")
    tmp.write_text(html_text, encoding="utf-8")
    tmp.replace(out)
    if not args.quiet:
        print(f"wrote {out} ({len(html_text.encode('utf-8')) / 1e6:.1f} MB)")
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
    add_input_arguments(p, many_preds=True)
    add_convention_arguments(p)
    p.add_argument("--title", default="clustlens report", help="report title")
    p.add_argument("--out", required=True, metavar="FILE", help="the HTML file to write")
    p.add_argument(
        "--uncertainty", type=int, default=0, metavar="N",
        help="add 95%% bootstrap intervals and permutation p-values (N resamples each) of the "
        "first prediction",
    )  # fmt: skip
    p.add_argument("--seed", type=int, default=0, help="seed of the resampling (default 0)")
    p.add_argument("--quiet", action="store_true", help="print nothing on success")
    p.set_defaults(func=_build)
