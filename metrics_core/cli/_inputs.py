"""One way for every command to take its inputs: the same flags, the same loaders, the same checks.

``clustlens evaluate`` and ``clustlens report`` (and any later command) add their arguments with
:func:`add_input_arguments` and :func:`add_convention_arguments` and read the files with
:func:`load_inputs`, so a flag means the same everywhere and every input is described the same
way (file, variable, shape, orientation) in the output.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from metrics_core.validation._errors import ClustlensInputError

AVERAGE_METHODS = ("arithmetic", "geometric", "min", "max")
NOISE_POLICIES = ("keep", "exclude", "singletons")


def add_input_arguments(p: argparse.ArgumentParser, *, many_preds: bool = False) -> None:
    """``--true/--pred/--coef`` and the ``--*-var`` pickers."""
    p.add_argument("--true", metavar="FILE", help="ground-truth labels (.txt/.csv/.tsv/.npy/.mat)")
    if many_preds:
        p.add_argument(
            "--pred", action="append", metavar="FILE",
            help="predicted labels (repeat for several runs or methods)",
        )  # fmt: skip
    else:
        p.add_argument("--pred", metavar="FILE", help="predicted labels")
    p.add_argument("--coef", metavar="FILE", help="coefficient matrix C (.npy/.npz/.mat/.csv)")
    p.add_argument("--true-var", help="variable (.mat/.npz) or column (text) of the ground truth")
    p.add_argument("--pred-var", help="variable or column holding the prediction")
    p.add_argument("--coef-var", help="variable holding C in a .mat/.npz file")


def add_convention_arguments(p: argparse.ArgumentParser) -> None:
    """The conventions every surface takes: orientation, preset, normaliser, noise policy."""
    from metrics_core.affinity import AFFINITY_PRESETS, PRESET_ALIASES

    p.add_argument(
        "--coef-orientation",
        choices=("rows", "columns"),
        default=None,
        help="rows: row i of C represents point i (the default); columns: MATLAB SSC code. "
        "Omitted with a preset: the preset's orientation",
    )
    p.add_argument(
        "--preset",
        default=None,
        choices=sorted([*AFFINITY_PRESETS, *PRESET_ALIASES]),
        help="SRE/CONN conventions of a reference code",
    )
    p.add_argument("--average-method", choices=AVERAGE_METHODS, default="arithmetic",
                   help="NMI/AMI normaliser")  # fmt: skip
    p.add_argument("--noise-policy", choices=NOISE_POLICIES, default="keep",
                   help="how predicted label -1 is counted")  # fmt: skip


@dataclass
class LoadedFile:
    """One input as read: its role, file, what was picked inside it, and the parsed value."""

    role: str
    path: str
    data: bytes
    value: Any
    variable: str | None = None
    notes: list[str] = field(default_factory=list)
    orientation: str | None = None

    @property
    def name(self) -> str:
        return os.path.basename(self.path)

    def describe(self) -> dict[str, Any]:
        """File, variable, shape (and orientation for C): printed by every command."""
        out: dict[str, Any] = {
            "role": self.role,
            "file": self.path,
            "variable": self.variable,
            "shape": list(getattr(self.value, "shape", ())),
        }
        if self.orientation is not None:
            out["orientation"] = self.orientation
        if self.notes:
            out["notes"] = list(self.notes)
        return out


@dataclass
class LoadedInputs:
    """Ground truth, the predictions and C, checked against each other."""

    truth: LoadedFile
    preds: list[LoadedFile]
    coef: LoadedFile | None = None

    def describe(self) -> list[dict[str, Any]]:
        items = [self.truth, *self.preds]
        if self.coef is not None:
            items.append(self.coef)
        return [f.describe() for f in items]


def _read(path: str, what: str) -> bytes:
    try:
        return Path(path).read_bytes()
    except OSError as exc:
        raise ClustlensInputError(
            f"cannot read the {what} file: {exc.strerror or exc}", source=path
        ) from None


def coef_orientation(args: argparse.Namespace) -> str:
    """The orientation C is read with: the flag, else the preset's, else the file's default
    (:func:`metrics_core.io.default_orientation`: ``.mat`` columns, anything else rows)."""
    if args.coef_orientation is not None:
        return str(args.coef_orientation)
    if getattr(args, "preset", None):
        from metrics_core.affinity import preset_conventions

        return str(preset_conventions(args.preset).get("orientation", "rows"))
    from metrics_core.io import default_orientation

    return default_orientation(getattr(args, "coef", None))


def orientation_argument(args: argparse.Namespace) -> str | None:
    """What to pass as the orientation next to ``--preset``: the flag if given (a conflict with
    the preset is then an error), ``None`` with a preset (its own), else the resolved one."""
    if getattr(args, "preset", None):
        return args.coef_orientation
    return coef_orientation(args)


def load_inputs(args: argparse.Namespace) -> LoadedInputs:
    """Read ``--true``, every ``--pred`` and ``--coef`` with the safe loaders; check sizes.

    Every size mismatch names both files.
    """
    from metrics_core import io as cio

    if not (args.true and args.pred):
        raise ClustlensInputError("give --true FILE and --pred FILE", source="arguments")
    data = _read(args.true, "ground-truth")
    lt = cio.load_labels(data, name=os.path.basename(args.true), variable=args.true_var,
                         kind="true")  # fmt: skip
    truth = LoadedFile("ground truth", args.true, data, lt.labels, lt.variable, list(lt.notes))
    n = len(truth.value)
    preds = []
    for path in args.pred if isinstance(args.pred, list) else [args.pred]:
        data = _read(path, "prediction")
        lp = cio.load_labels(data, name=os.path.basename(path), variable=args.pred_var,
                             kind="pred")  # fmt: skip
        if len(lp.labels) != n:
            raise ClustlensInputError(
                f"{path} has {len(lp.labels):,} labels but the ground truth {args.true} has "
                f"{n:,}; both must label the same points",
                source="labels",
            )
        preds.append(LoadedFile("prediction", path, data, lp.labels, lp.variable, list(lp.notes)))
    coef = None
    if args.coef:
        data = _read(args.coef, "coefficient matrix")
        lc = cio.load_coef(data, name=os.path.basename(args.coef), variable=args.coef_var)
        m = lc.matrix
        if m.shape[0] != n:
            raise ClustlensInputError(
                f"C is {m.shape[0]:,} x {m.shape[1]:,} but {args.true} has {n:,} labels; "
                "C must have one row and one column per labelled point",
                source=args.coef,
            )
        coef = LoadedFile("coefficient matrix", args.coef, data, m, lc.variable, list(lc.notes),
                          orientation=coef_orientation(args))  # fmt: skip
    return LoadedInputs(truth, preds, coef)
