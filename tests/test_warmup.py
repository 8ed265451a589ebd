"""The first page's imports warmed while the browser loads (``dashboard.ui.warmup``), and the
launcher that starts it (``dashboard.launch``, the server command of ``clustlens dashboard``)."""

from __future__ import annotations

import ast
import importlib.util
import logging
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from dashboard.cli._serve import command
from dashboard.ui import warmup

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"


@pytest.fixture
def fresh(monkeypatch):
    """The module's state as in a new process (nothing started), restored afterwards."""
    monkeypatch.setattr(warmup, "_done", threading.Event())
    warmup._done.set()
    monkeypatch.setattr(warmup, "_started", threading.Lock())
    # the full-collection thread changes the process's thresholds: not in the test process
    monkeypatch.setattr(warmup.heap, "start", lambda *_a: False)
    return warmup


def test_every_warmed_module_exists():
    missing = [m for m in warmup.MODULES if importlib.util.find_spec(m) is None]
    assert not missing


def test_the_warm_up_never_imports_scikit_learn():
    """The launcher's warm-up runs before the first page: scikit-learn (0.6 s, scipy.stats in
    one 0.3 s piece) is left to the pause-aware warm-up of the model pages."""
    code = (
        "import importlib, sys\n"
        "from dashboard.ui import warmup\n"
        "for m in warmup.MODULES: importlib.import_module(m)\n"
        "warmup._exercise()\n"
        "print(sorted(m for m in ('sklearn', 'scipy.stats') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout


def test_after_the_warm_up_no_page_imports_a_plotting_module():
    """Every page's first visit, after the warm-up: no plotly class (each trace type and layout
    part is a module plotly loads on first use), no PIL plugin, no narwhals layer is left to be
    imported while a page is built — nor any module of ours that the warm-up lists."""
    code = (
        "import importlib, sys\n"
        "from dashboard.ui import warmup\n"
        "for m in warmup.MODULES: importlib.import_module(m)\n"
        "warmup._exercise()\n"
        "from streamlit.testing.v1 import AppTest\n"
        "at = AppTest.from_file('dashboard/app.py', default_timeout=120)\n"
        "at.run()\n"
        "before = set(sys.modules)\n"
        "for page in ('contingency', 'pairs', 'compare', 'affinity', 'points', 'sweep',\n"
        "             'multiview', 'learn'):\n"
        "    at.switch_page(f'views/{page}.py').run()\n"
        "    assert not at.exception, (page, [e.value for e in at.exception])\n"
        "new = sorted(set(sys.modules) - before)\n"
        "print([m for m in new if m.startswith(('plotly.', 'PIL.', 'narwhals.', 'dashboard.',\n"
        "                                       'metrics_core.', 'demo_data.'))])"
    )
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=root, env=env)  # fmt: skip
    assert out.stdout.strip().splitlines()[-1] == "[]", out.stdout


def test_wait_returns_at_once_when_nothing_was_started(fresh):
    assert fresh.wait(timeout=0.01) is True


def test_start_waits_for_the_runtime_then_imports_and_releases_waiters(fresh, monkeypatch):
    up = threading.Event()
    imported: list[str] = []
    monkeypatch.setattr(fresh, "_runtime_started", up.is_set)
    monkeypatch.setattr(fresh, "_POLL_S", 0.01)
    monkeypatch.setattr(fresh, "MODULES", ("json", "no_such_module_xyz", "csv"))
    real = fresh.importlib.import_module

    def record(name: str):
        # only the warm-up's own list: other threads of this test process (a page's warm-up
        # of the model imports, scipy's lazy submodules) import through this function too
        if name in fresh.MODULES:
            imported.append(name)
        return real(name)

    monkeypatch.setattr(fresh.importlib, "import_module", record)
    monkeypatch.setattr(fresh, "_exercise", lambda: imported.append("first figure and table"))
    monkeypatch.setattr(fresh.heap, "start", lambda *_a: imported.append("collector"))
    assert fresh.start() is True
    assert fresh.start() is False  # once per process
    assert fresh.wait(timeout=0.2) is False and imported == []  # the server is not up yet
    up.set()
    assert fresh.wait(timeout=10) is True
    # a module that fails is logged and skipped (the page imports it again and says why)
    # then full collections move to pauses (dashboard.session.heap)
    assert imported == ["json", "no_such_module_xyz", "csv", "first figure and table", "collector"]


def test_after_the_warm_up_full_collections_wait_for_a_pause():
    """The server's full collections held the interpreter 0.10-0.13 s each, in a page's run or
    while its messages waited: after the warm-up, Python no longer starts them itself; a thread
    of ours does, when no page is being built. In a process of its own (it changes the
    process's collection thresholds)."""
    code = (
        "import gc, threading\n"
        "from dashboard.ui import warmup\n"
        "from dashboard.session import heap\n"
        "warmup._runtime_started = lambda: True\n"
        "warmup._run()\n"
        "names = [t.name for t in threading.enumerate()]\n"
        "print(gc.get_threshold()[2] == heap._NEVER, 'clustlens-full-gc' in names)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split()[-2:] == ["True", "True"], out.stdout + out.stderr


def test_the_exercise_builds_a_figure_and_a_frame():
    warmup._exercise()  # raises if plotly or pyarrow changed what it calls


def test_a_failing_import_is_logged_not_raised(fresh, monkeypatch, caplog):
    monkeypatch.setattr(fresh, "_runtime_started", lambda: True)
    monkeypatch.setattr(fresh, "MODULES", ("no_such_module_xyz",))
    with caplog.at_level(logging.WARNING, logger=fresh.__name__):
        fresh.start()
        assert fresh.wait(timeout=10)
    assert "no_such_module_xyz" in caplog.text


def test_the_entry_script_waits_before_importing_our_modules():
    """No module is imported by two threads at once: app.py calls warmup.wait() before any of
    its ``dashboard`` imports other than the warm-up module itself and the chart element (which
    asks the browser for plotly.js first; it imports nothing the warm-up imports: below)."""
    tree = ast.parse(APP.read_text())
    order = []
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("dashboard"):
            names = [a.name for a in node.names]
            early = node.module == "dashboard.ui" and set(names) <= {"warmup", "chart_element"}
            order.append("warmup" if early else f"import {node.module}")
        elif (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and ast.unparse(node.value) == "warmup.wait()"
        ):
            order.append("wait")
    assert order[:2] == ["warmup", "wait"] and len(order) > 2


def test_the_chart_element_imports_nothing_the_warm_up_imports():
    code = (
        "import sys, streamlit; before = set(sys.modules); import dashboard.ui.chart_element; "
        "print(sorted(m for m in set(sys.modules) - before if m.split('.')[0] in "
        "('dashboard', 'numpy', 'pandas', 'scipy', 'plotly', 'pyarrow', 'metrics_core')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == [
        "['dashboard',",
        "'dashboard.ui',",
        "'dashboard.ui.chart_element']",
    ]
    from dashboard.ui.warmup import MODULES

    assert "dashboard.ui.chart_element" not in MODULES


def test_the_server_command_runs_the_launcher():
    cmd = command("127.0.0.1", 8501)
    assert cmd[1:4] == ["-m", "dashboard.launch", "run"] and cmd[4].endswith("app.py")


def test_the_server_watches_no_source_files():
    """Streamlit's source watcher walks every imported module after each script run, on the
    thread that sends the page (~0.2 s after a page imported scikit-learn or scipy); off in the
    command and in the config file Streamlit reads from the app's folder."""
    import tomllib

    assert "--server.fileWatcherType=none" in command("127.0.0.1", 8501)
    config = tomllib.loads((APP.parent / ".streamlit" / "config.toml").read_text())
    assert config["server"]["fileWatcherType"] == "none"


def test_the_server_does_not_collect_the_whole_heap_after_each_run():
    """Streamlit's post-run ``gc.collect(2)`` holds the GIL for 0.1-0.15 s while the run's last
    messages wait to be sent; off in the command and in the config file."""
    import tomllib

    assert "--runner.postScriptGC=false" in command("127.0.0.1", 8501)
    config = tomllib.loads((APP.parent / ".streamlit" / "config.toml").read_text())
    assert config["runner"]["postScriptGC"] is False


def test_the_browser_keeps_large_messages_for_fifty_runs():
    """A chart's message the browser already has comes back as a reference to its copy for 50
    runs after its last use (Streamlit keeps them for 2): a page visited again after a few
    others does not get its charts' data again (Affinity's five; tested in chromium)."""
    import tomllib

    assert "--global.maxCachedMessageAge=50" in command("127.0.0.1", 8501)
    config = tomllib.loads((APP.parent / ".streamlit" / "config.toml").read_text())
    assert config["global"]["maxCachedMessageAge"] == 50


def test_no_parent_frame_is_allowed_to_control_the_app():
    """No origin may send the app commands by postMessage (stop, rerun, change page, set an auth
    token): the dashboard is never embedded, and the browser then matches no message the app
    posts against URL patterns (3-14 ms a visit). Read from the config file only: a command-line
    flag cannot give an empty list. The browser test checks the running server's host config."""
    import tomllib

    config = tomllib.loads((APP.parent / ".streamlit" / "config.toml").read_text())
    assert config["client"]["allowedOrigins"] == []


def test_importing_the_launcher_imports_nothing_heavy():
    """The upload worker's forkserver re-imports the server's __main__ (the launcher)."""
    code = (
        "import sys, dashboard.launch; "
        "print(sorted(m for m in ('streamlit', 'numpy', 'pandas') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_the_collector_runs_full_collections_in_pauses_only(monkeypatch):
    """While a page is being built no full collection runs; once none has been for QUIET_S,
    one does; when the thread stops, Python's own threshold is back."""
    import gc

    from dashboard.session import heap

    monkeypatch.setattr(heap, "QUIET_S", 0.05)
    monkeypatch.setattr(heap, "POLL_S", 0.005)
    monkeypatch.setattr(heap, "ROUNDS", 0)
    building = threading.Event()
    building.set()
    runs: list[int] = []
    real = heap._collect
    monkeypatch.setattr(heap, "_collect", lambda: runs.append(1) or real())
    before = gc.get_threshold()
    stop = threading.Event()
    thread = threading.Thread(target=heap._run, args=(building.is_set, stop))
    thread.start()
    try:
        threading.Event().wait(0.2)
        assert runs == []  # a page is being built all along
        building.clear()
        for _ in range(200):
            if runs:
                break
            threading.Event().wait(0.01)
        assert runs, "no full collection in a pause"
    finally:
        stop.set()
        thread.join(5)
    assert gc.get_threshold() == before


def test_the_collector_sleeps_through_a_page_run(monkeypatch):
    """While a page is being built, the collector's thread blocks in ``wait_built`` until the
    run ends instead of looking every POLL_S (each look took the interpreter lock from the
    page's computing); an overdue collection still runs on time meanwhile."""
    from dashboard.session import heap

    monkeypatch.setattr(heap, "POLL_S", 0.005)
    monkeypatch.setattr(heap, "ROUNDS", 0)
    monkeypatch.setattr(heap, "_collect", lambda: 0)
    built = threading.Event()
    looks: list[float] = []

    def building() -> bool:
        looks.append(1.0)
        return not built.is_set()

    stop = threading.Event()
    thread = threading.Thread(
        target=heap._run,
        kwargs={"pages_building": building, "stop": stop, "wait_built": built.wait},
    )
    thread.start()
    try:
        threading.Event().wait(0.4)  # a page built for 0.4 s: ~80 looks at 5 ms before
        assert len(looks) <= 5, f"{len(looks)} looks while one page was built"
    finally:
        built.set()
        stop.set()
        thread.join(5)


def test_an_overdue_collection_runs_during_a_long_page_run(monkeypatch):
    from dashboard.session import heap

    monkeypatch.setattr(heap, "POLL_S", 0.005)
    monkeypatch.setattr(heap, "ROUNDS", 0)
    monkeypatch.setattr(heap, "OVERDUE_S", 0.1)
    runs: list[int] = []
    monkeypatch.setattr(heap, "_collect", lambda: runs.append(1) or 0)
    built = threading.Event()
    stop = threading.Event()
    thread = threading.Thread(
        target=heap._run,
        kwargs={"pages_building": lambda: not built.is_set(), "stop": stop,
                "wait_built": built.wait},
    )  # fmt: skip
    thread.start()
    try:
        threading.Event().wait(0.5)
        assert runs, "no collection although one was overdue"
    finally:
        built.set()
        stop.set()
        thread.join(5)


def test_streamlit_does_not_poll_its_config_files(monkeypatch):
    """Streamlit looks at its config files every 0.2 s from pool threads whatever the file
    watcher setting; the launcher turns that off (``dashboard.launch.no_config_file_polling``).
    Should a Streamlit release stop polling or rename the step, this test says so."""
    from streamlit.web import bootstrap

    from dashboard import launch

    watched: list[str] = []
    monkeypatch.setattr(bootstrap, "watch_file", lambda path, *_a, **_k: watched.append(path))
    original = bootstrap._install_config_watchers
    original({})
    assert watched, "this Streamlit no longer watches its config files: drop the patch"
    watched.clear()
    monkeypatch.setattr(bootstrap, "_install_config_watchers", original)  # undone after
    assert launch.no_config_file_polling() is True
    bootstrap._install_config_watchers({})
    assert watched == []
