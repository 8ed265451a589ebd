"""The library's commands: ``evaluate``, ``sweep``, ``multiview``, each a module with ``register``.

Each subcommand module defines ``register(subparsers)``, which adds its parser and sets
``func=callable(args) -> int``; registering imports nothing heavy (every command imports what it
needs when it runs). :func:`main` runs them as ``python -m metrics_core.cli``. The ``clustlens``
console script (``dashboard.cli:main``) mounts these commands and adds the dashboard's own
(``dashboard``, ``report``), so this package never imports the dashboard.

Exit codes: 0 on success, 2 on bad input (the message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from metrics_core.validation._errors import ClustlensInputError

#: The library's commands, in the order ``--help`` lists them: name -> (module, one-line help).
#: Only the module of the command being run is imported (its parser may need heavy modules for
#: its choices); ``clustlens --help`` imports none of them.
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "evaluate": (
        "metrics_core.cli._evaluate",
        "print every metric for a prediction against ground truth",
    ),
    "sweep": (
        "metrics_core.cli._sweep",
        "run a model over a parameter grid (or score a sweep bundle) into a CSV table",
    ),
    "multiview": (
        "metrics_core.cli._multiview",
        "multi-view clustering (SSF) with baselines over repeated runs",
    ),
}


def _command(argv: Sequence[str], names: Sequence[str]) -> str | None:
    """The command named on the line (the first word that is one), else None."""
    for word in argv:
        if word in names:
            return word
        if not word.startswith("-"):
            return None
    return None


def build_parser(
    extra: dict[str, tuple[str, str]] | None = None, command: str | None = "*"
) -> argparse.ArgumentParser:
    """The ``clustlens`` parser: the library's commands, then those in ``extra``.

    ``command`` names the one command whose module is imported and whose full parser is built
    (``"*"``: all of them); the others get a placeholder with their one-line help.
    """
    parser = argparse.ArgumentParser(
        prog="clustlens",
        description="Look inside a clustering result: external metrics, SRE/CONN, dashboard.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, (module_name, help_text) in {**SUBCOMMANDS, **(extra or {})}.items():
        if command in ("*", name):
            importlib.import_module(module_name).register(subparsers)
        else:
            subparsers.add_parser(name, help=help_text, add_help=False)
    return parser


def main(
    argv: Sequence[str] | None = None, *, extra: dict[str, tuple[str, str]] | None = None
) -> int:
    """Run the command line; returns the process exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    names = [*SUBCOMMANDS, *(extra or {})]
    parser = build_parser(extra, _command(argv, names))
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help(sys.stderr)
        return 2
    try:
        return int(args.func(args) or 0)
    except ClustlensInputError as exc:
        print(f"clustlens: error: {exc}", file=sys.stderr)
        return 2
    except (OSError, MemoryError) as exc:
        print(f"clustlens: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("clustlens: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
