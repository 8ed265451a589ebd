"""``clustlens dashboard`` as a person (or a script) starts it: no question, from any folder,
usage statistics off, and SIGTERM / SIGINT leave no process behind."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest

from dashboard.cli._serve import _healthy as _server_healthy
from dashboard.cli._serve import command

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _healthy(port: int) -> bool:
    return _server_healthy(f"http://127.0.0.1:{port}")


def _children(pid: int) -> list[int]:
    out = subprocess.run(["ps", "-o", "pid=", "--ppid", str(pid)], capture_output=True, text=True)
    return [int(x) for x in out.stdout.split()]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    with open(f"/proc/{pid}/stat") as fh:  # a zombie is gone for our purposes
        return fh.read().split()[2] != "Z"


def test_command_never_prompts_and_never_reports_usage():
    cmd = command("127.0.0.1", 8501)
    assert "--server.headless=true" in cmd
    assert "--browser.gatherUsageStats=false" in cmd


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGINT])
def test_starts_without_a_terminal_from_any_folder_and_stops_cleanly(tmp_path, sig):
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "dashboard.cli", "dashboard", "--port", str(port)],
        cwd=tmp_path,  # not the project: the config must still be found
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not _healthy(port):
            assert proc.poll() is None, proc.stdout.read()
            assert time.monotonic() < deadline, "no answer on /_stcore/health within 60 s"
            time.sleep(0.3)
        server = _children(proc.pid)
        assert server, "the streamlit server process was not found"
        proc.send_signal(sig)
        proc.wait(30)
        time.sleep(0.5)
        assert not any(_alive(p) for p in server), "a server process outlived clustlens"
        assert not _healthy(port)
        text = proc.stdout.read()
        assert "Email" not in text and "gatherUsageStats" not in text, text
    finally:
        if proc.poll() is None:
            proc.kill()


def test_the_server_imports_the_checkout_its_entry_script_is_in(tmp_path):
    """From a source checkout the server's PYTHONPATH starts with that checkout (so a clone run
    beside an editable install of another imports its own code); an installed package's folder
    is never put there."""
    from dashboard.cli._serve import with_source_root

    checkout = tmp_path / "clone"
    (checkout / "dashboard").mkdir(parents=True)
    (checkout / "pyproject.toml").write_text("[project]\nname = 'clustlens'\n")
    app = checkout / "dashboard" / "app.py"
    env = with_source_root({"PYTHONPATH": f"/x{os.pathsep}/y", "PATH": "/bin"}, app)
    assert env["PYTHONPATH"].split(os.pathsep) == [str(checkout.resolve()), "/x", "/y"]
    assert env["PATH"] == "/bin"
    assert with_source_root({}, app)["PYTHONPATH"] == str(checkout.resolve())
    installed = tmp_path / "site-packages" / "dashboard" / "app.py"
    installed.parent.mkdir(parents=True)
    assert with_source_root({"PATH": "/bin"}, installed) == {"PATH": "/bin"}


def test_server_environment_defaults_and_user_overrides():
    """A shared server: two malloc arenas and one BLAS thread per computation by default (an
    OpenBLAS pool spinning for busy cores made SSF 10x slower under load); the user's own
    settings and the memory flags win."""
    import argparse

    from dashboard.cli._serve import server_env
    from dashboard.session.budget import SESSION_ENV

    args = argparse.Namespace(session_memory=None, server_memory=None)
    env = server_env(args, base={"PATH": "/bin"})
    assert env["MALLOC_ARENA_MAX"] == "2"
    assert env["OPENBLAS_NUM_THREADS"] == env["OMP_NUM_THREADS"] == "1"
    assert env["STREAMLIT_BROWSER_GATHER_USAGE_STATS"] == "false"
    assert env["PATH"] == "/bin"
    args = argparse.Namespace(session_memory="2G", server_memory=None)
    env = server_env(args, base={"OPENBLAS_NUM_THREADS": "4"})
    assert env["OPENBLAS_NUM_THREADS"] == "4"
    assert env[SESSION_ENV] == "2G"
