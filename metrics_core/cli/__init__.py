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

#: The library's subcommand modules, in the order ``--help`` lists them.
SUBCOMMANDS: tuple[str, ...] = (
    "metrics_core.cli._evaluate",
    "metrics_core.cli._sweep",
    "metrics_core.cli._multiview",
)


def build_parser(extra: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The ``clustlens`` parser: the library's commands, then the modules named in ``extra``."""
    parser = argparse.ArgumentParser(
        prog="clustlens",
        description="Look inside a clustering result: external metrics, SRE/CONN, dashboard.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in (*SUBCOMMANDS, *extra):
        importlib.import_module(module_name).register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None, *, extra: Sequence[str] = ()) -> int:
    """Run the command line; returns the process exit code."""
    parser = build_parser(extra)
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
