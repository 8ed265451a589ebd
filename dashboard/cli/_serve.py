"""``clustlens dashboard``: start the Streamlit app on 127.0.0.1 with the demo loaded."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path


def _app_path() -> Path:
    import dashboard

    return Path(dashboard.__file__).resolve().parent / "app.py"


def _run(args: argparse.Namespace) -> int:
    app = _app_path()
    cmd = [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(app),
        f"--server.address={args.address}",
        f"--server.port={args.port}",
    ]
    if args.headless:
        cmd.append("--server.headless=true")
    # Streamlit reads .streamlit/config.toml from the working directory, so run from the app's
    # folder to pick up ours (upload cap, XSRF, no usage statistics).
    return subprocess.call(cmd, cwd=app.parent, env=os.environ.copy())


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("dashboard", help="open the dashboard (demo loaded)")
    p.add_argument("--address", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=int, default=8501)
    p.add_argument("--headless", action="store_true", help="do not open a browser")
    p.set_defaults(func=_run)
