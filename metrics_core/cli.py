"""The ``clustlens`` console script: one module per subcommand, each with ``register(subparsers)``.

Exit codes: 0 on success, 2 on bad input (the message on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Sequence

from metrics_core._errors import ClustlensInputError

# Subcommand modules; each defines ``register(subparsers)`` that adds its parser and sets
# ``func=callable(args) -> int``. A module that is missing (not written yet) is skipped.
SUBCOMMANDS = (
    "metrics_core._cli_evaluate",
    "metrics_core._cli_dashboard",
    "metrics_core._cli_sweep",
    "metrics_core._cli_multiview",
    # needs plotly: lives with the dashboard, imported only when the CLI starts
    "dashboard.cli_report",
)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="clustlens",
        description="Look inside a clustering result: external metrics, SRE/CONN, dashboard.",
    )
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    for module_name in SUBCOMMANDS:
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if exc.name == module_name:
                continue
            raise
        module.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the console script; returns the process exit code."""
    parser = build_parser()
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
