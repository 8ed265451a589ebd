"""``clustlens dashboard``: start the Streamlit app on 127.0.0.1 with the demo loaded.

No question is asked (Streamlit's first-run e-mail prompt only appears when it is not headless,
so it always runs headless; ``--open`` opens the browser ourselves once the server answers),
usage statistics are off, it works from any working directory, and Ctrl-C / SIGTERM stop the
server and every process it started (it runs in its own process group, which we signal and
reap).
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Mapping
from pathlib import Path

from dashboard.session.budget import SERVER_ENV, SESSION_ENV

#: Seconds to wait for the server's health endpoint before ``--open`` gives up.
OPEN_TIMEOUT_S = 60
#: Seconds the server gets to stop after SIGTERM before it is killed.
STOP_GRACE_S = 10


def _app_path() -> Path:
    import dashboard

    return Path(dashboard.__file__).resolve().parent / "app.py"


def command(address: str, port: int) -> list[str]:
    """The ``streamlit run`` command line (every setting that matters given explicitly), through
    :mod:`dashboard.launch` (Streamlit's command line, the first page's imports warmed)."""
    return [
        sys.executable,
        "-m",
        "dashboard.launch",
        "run",
        str(_app_path()),
        f"--server.address={address}",
        f"--server.port={port}",
        "--server.headless=true",  # no e-mail prompt, no browser opened by Streamlit
        "--browser.gatherUsageStats=false",
        "--runner.magicEnabled=false",  # see .streamlit/config.toml
        "--server.fileWatcherType=none",  # see .streamlit/config.toml
        "--runner.postScriptGC=false",  # see .streamlit/config.toml
        "--global.maxCachedMessageAge=50",  # see .streamlit/config.toml
        "--server.enableStaticServing=true",  # plotly.js for the chart element (ui/chart_element)
        f"--browser.serverAddress={address}",
    ]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
            return r.status == 200
    except OSError:
        return False


def _open_when_ready(url: str, proc: subprocess.Popen) -> None:
    import webbrowser

    deadline = time.monotonic() + OPEN_TIMEOUT_S
    while time.monotonic() < deadline and proc.poll() is None:
        if _healthy(url):
            webbrowser.open(url)
            return
        time.sleep(0.3)


def _stop(proc: subprocess.Popen) -> None:
    """SIGTERM the server's process group, wait, then SIGKILL what is left."""
    if proc.poll() is not None:
        return
    try:
        os.killpg(proc.pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    try:
        proc.wait(STOP_GRACE_S)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()


def server_env(args: argparse.Namespace, base: Mapping[str, str] | None = None) -> dict[str, str]:
    """The server's environment: ``base`` (this process's) with the budgets from the flags and
    the defaults a shared server needs; a variable the user set is kept."""
    env = dict(os.environ if base is None else base)
    env["STREAMLIT_BROWSER_GATHER_USAGE_STATS"] = "false"
    for value, var in ((args.session_memory, SESSION_ENV), (args.server_memory, SERVER_ENV)):
        if value is not None:
            env[var] = value
    # glibc gives each thread (each session's script run) its own malloc arena and rarely
    # returns their memory; two arenas keep what ended sessions freed reusable by the next
    env.setdefault("MALLOC_ARENA_MAX", "2")
    # One BLAS thread per computation: the server already runs one script thread per session
    # (plus upload workers and, often, the browser on the same machine), and OpenBLAS threads
    # that spin-wait for a busy core slow everything down. SSF on the Multi-view page's default
    # HW subset: 3.7 s with OpenBLAS's 2 threads against 0.35 s with one, on this 2-core machine
    # under load (tests/benchmarks/bench_browser.py measures the pages). Set them to override.
    for var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        env.setdefault(var, "1")
    return env


def with_source_root(env: Mapping[str, str], app: Path) -> dict[str, str]:
    """``env`` with the source checkout ``app`` belongs to first on ``PYTHONPATH``, when it is
    one (its root holds ``pyproject.toml``); an installed package's environment is returned as
    it is (its folder, site-packages, must not go ahead of the standard library).

    The server runs from the app's folder, where ``python -m dashboard.launch`` would otherwise
    import whichever ``dashboard`` is installed: from a second checkout (a clone beside an
    editable install of another), the server ran that other checkout's code with this one's
    entry script, and its charts' plotly.js went to the other checkout's static folder (every
    chart blank)."""
    out = dict(env)
    root = app.resolve().parent.parent
    if (root / "pyproject.toml").is_file():
        rest = [p for p in out.get("PYTHONPATH", "").split(os.pathsep) if p]
        out["PYTHONPATH"] = os.pathsep.join([str(root), *rest])
    return out


def _run(args: argparse.Namespace) -> int:
    app = _app_path()
    env = with_source_root(server_env(args), app)
    # Streamlit reads .streamlit/config.toml from the working directory, so run from the app's
    # folder to pick up ours (upload cap, XSRF, theme) whatever folder the user is in.
    proc = subprocess.Popen(
        command(args.address, args.port),
        cwd=app.parent,
        env=env,
        stdin=subprocess.DEVNULL,  # nothing may wait for an answer on a terminal
        start_new_session=True,  # its own process group: one signal reaches all of it
    )
    url = f"http://{args.address}:{args.port}"
    print(f"clustlens dashboard on {url} (Ctrl-C to stop)", flush=True)

    stop_at: list[float] = []  # when a stop was asked (signal handlers must not wait)

    def on_signal(signum: int, _frame: object) -> None:
        if not stop_at:
            stop_at.append(time.monotonic())
            _signal_group(proc, signal.SIGTERM)

    old = {s: signal.signal(s, on_signal) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        if args.open:
            threading.Thread(target=_open_when_ready, args=(url, proc), daemon=True).start()
        while proc.poll() is None:
            if stop_at and time.monotonic() - stop_at[0] > STOP_GRACE_S:
                _signal_group(proc, signal.SIGKILL)
            time.sleep(0.2)
        return 0 if stop_at else int(proc.returncode)
    finally:
        _stop(proc)
        for s, h in old.items():
            signal.signal(s, h)


def _signal_group(proc: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(proc.pid, sig)
    except ProcessLookupError:
        pass


def register(subparsers: argparse._SubParsersAction) -> None:
    p = subparsers.add_parser("dashboard", help="open the dashboard (demo loaded)")
    p.add_argument("--address", default="127.0.0.1", help="address to listen on (127.0.0.1)")
    p.add_argument("--port", type=int, default=8501)
    p.add_argument("--open", action="store_true", help="open a browser once the server answers")
    p.add_argument(
        "--headless",
        action="store_true",
        help="accepted for compatibility: the server never asks or opens anything by itself",
    )
    p.add_argument(
        "--session-memory",
        metavar="SIZE",
        type=_memory_size,
        help="what one browser session's inputs may hold, with the arrays pages derive from "
        "them (default 1GiB; README, Limits and safety)",
    )
    p.add_argument(
        "--server-memory",
        metavar="SIZE",
        type=_memory_size,
        help="what all sessions together may hold (default 8GiB)",
    )
    p.set_defaults(func=_run)


def _memory_size(text: str) -> str:
    """argparse type: a size such as 2GB or 512MiB (checked now, passed on as written)."""
    from metrics_core.engines import parse_memory
    from metrics_core.validation import ClustlensInputError

    try:
        parse_memory(text)
    except ClustlensInputError:
        raise argparse.ArgumentTypeError(
            f"{text!r} is not a memory size; write e.g. 2GB, 512MB or 1.5GiB"
        ) from None
    return text
