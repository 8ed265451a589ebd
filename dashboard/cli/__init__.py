"""The ``clustlens`` console script: the library's commands plus ``dashboard`` and ``report``.

:mod:`metrics_core.cli` owns ``evaluate``, ``sweep`` and ``multiview``; this module mounts them
and adds the two commands that need the dashboard's code (Streamlit, Plotly). Registering a
command imports nothing heavy, so ``clustlens evaluate`` never imports streamlit or plotly.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from metrics_core import cli as _library_cli

#: The dashboard's commands, mounted after the library's: name -> (module, one-line help).
SUBCOMMANDS: dict[str, tuple[str, str]] = {
    "dashboard": ("dashboard.cli._serve", "open the dashboard (demo loaded)"),
    "report": (
        "dashboard.cli._report",
        "write a self-contained HTML report (metrics, conventions, interactive figures)",
    ),
}


def main(argv: Sequence[str] | None = None) -> int:
    """Run ``clustlens``; returns the process exit code."""
    return _library_cli.main(argv, extra=SUBCOMMANDS)


if __name__ == "__main__":
    sys.exit(main())
