"""Fixtures and helpers for the real-browser tests (see DEVELOPERS.md, "Browser tests").

* ``streamlit_server`` (session): the server command of ``clustlens dashboard``, run from
  ``dashboard/`` (Streamlit reads ``.streamlit/config.toml`` from its working directory, as
  ``clustlens dashboard`` does), on 127.0.0.1 and a free port; waits for
  ``/_stcore/health``; kills its process group at the end.
* ``browser`` (session): Debian's chromium through Playwright, launched as DEVELOPERS.md says.
* ``page`` (function): a fresh 1400 x 900 context. Every request that does not go to the local
  server is aborted and recorded in ``page.external_requests``; uncaught page errors go to
  ``page.js_errors``.

The tests skip only when chromium (or the playwright package) is missing **and**
``CLUSTLENS_REQUIRE_BROWSER`` is not set; with it set (``.ci/run`` sets it) they fail instead.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from dashboard.cli._serve import command, server_env, with_source_root

from ._charts import CHARTS_DRAWN_JS
from ._runs import count_runs

try:
    from playwright.sync_api import TimeoutError as PlaywrightTimeoutError
    from playwright.sync_api import sync_playwright
except ImportError:  # judged by the fixtures below (skip or fail)
    sync_playwright = None
    PlaywrightTimeoutError = TimeoutError

ROOT = Path(__file__).resolve().parents[2]
DASHBOARD = ROOT / "dashboard"
ARTIFACTS = ROOT / "tests" / "artifacts"
VIEWPORT = {"width": 1400, "height": 900}
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-dev-shm-usage",
]
#: Generous upper bounds for explicit waits (ms). The machine is shared and has 2 cores.
SERVER_START_S = 60
RUN_TIMEOUT_MS = 60_000
DRAW_TIMEOUT_MS = 30_000

#: (label, seconds) pairs collected by the tests, printed in the terminal summary.
TIMINGS: list[tuple[str, float]] = []


def _require_browser() -> bool:
    return os.environ.get("CLUSTLENS_REQUIRE_BROWSER", "").strip().lower() not in (
        "",
        "0",
        "false",
        "no",
    )


def _missing_browser_reason() -> str | None:
    if sync_playwright is None:
        return "the playwright Python package is not installed"
    if shutil.which("chromium") is None:
        return "Debian chromium is not on PATH (apt-get install chromium)"
    return None


@pytest.fixture(scope="session", autouse=True)
def _browser_available() -> None:
    """Skip (or, with CLUSTLENS_REQUIRE_BROWSER set, fail) before anything is started."""
    reason = _missing_browser_reason()
    if reason is None:
        return
    if _require_browser():
        pytest.fail(f"CLUSTLENS_REQUIRE_BROWSER is set but {reason}", pytrace=False)
    pytest.skip(f"real-browser tests need chromium: {reason}")


# ------------------------------------------------------------------------------------ server
@dataclass
class Server:
    url: str
    proc: subprocess.Popen
    log_path: Path

    def alive(self) -> bool:
        return self.proc.poll() is None

    def health(self, timeout: float = 5.0) -> str:
        with urllib.request.urlopen(f"{self.url}/_stcore/health", timeout=timeout) as r:
            return r.read().decode("utf-8", "replace")

    def log_tail(self, n: int = 40) -> str:
        try:
            lines = self.log_path.read_text("utf-8", "replace").splitlines()
        except OSError:
            return ""
        return "\n".join(lines[-n:])


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _stop(proc: subprocess.Popen) -> None:
    """Stop the server and its children (the upload worker): they share its process group."""
    if proc.poll() is not None:
        return
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM)
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(proc.pid, signal.SIGKILL)
        proc.wait(timeout=10)


@contextlib.contextmanager
def running_server(log_path: Path, env_extra: dict[str, str] | None = None) -> Iterator[Server]:
    """The dashboard's server (``clustlens dashboard``'s command) on 127.0.0.1 and a free port,
    in its own process group, healthy when yielded; stopped (group and all) afterwards.
    ``env_extra``: more environment."""
    port = _free_port()
    # the command `clustlens dashboard` runs (its launcher warms the first page's imports)
    cmd = command("127.0.0.1", port)
    # the environment `clustlens dashboard` gives its server (one BLAS thread, two arenas)
    flags = argparse.Namespace(session_memory=None, server_memory=None)
    env = server_env(flags, dict(os.environ, PYTHONUNBUFFERED="1", **(env_extra or {})))
    # this checkout's code, as `clustlens dashboard` serves it (not another checkout's that an
    # editable install points at)
    env = with_source_root(env, DASHBOARD / "app.py")
    t0 = time.perf_counter()
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            cmd, cwd=DASHBOARD, stdout=log, stderr=subprocess.STDOUT, env=env,
            start_new_session=True,
        )  # fmt: skip
    server = Server(f"http://127.0.0.1:{port}", proc, log_path)
    try:
        deadline = time.monotonic() + SERVER_START_S
        while True:
            if not server.alive():
                pytest.fail(f"streamlit exited during start-up:\n{server.log_tail()}")
            with contextlib.suppress(OSError):
                if server.health(timeout=1.0).strip() == "ok":
                    break
            if time.monotonic() > deadline:
                pytest.fail(f"streamlit not healthy after {SERVER_START_S} s:\n{server.log_tail()}")
            time.sleep(0.1)
        record_timing("server start to /_stcore/health", time.perf_counter() - t0)
        yield server
    finally:
        _stop(proc)


@pytest.fixture(scope="session")
def streamlit_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    """A live dashboard on 127.0.0.1; the demo opens on its first page."""
    with running_server(tmp_path_factory.mktemp("streamlit") / "server.log") as server:
        yield server


# ----------------------------------------------------------------------------------- browser
@pytest.fixture(scope="session")
def browser() -> Iterator[object]:
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS)
        try:
            yield b
        finally:
            b.close()


def offline_context(browser, *, allow_prefix: str | None = None):
    """A 1400 x 900 context that aborts (and records) every request not starting with
    ``allow_prefix`` (None: abort every http(s) request). ``data:`` and ``blob:`` URLs are
    never routed. Returns ``(context, recorded_urls)``."""
    context = browser.new_context(viewport=dict(VIEWPORT))
    context.set_default_timeout(DRAW_TIMEOUT_MS)
    blocked: list[str] = []

    def _route(route) -> None:
        url = route.request.url
        if allow_prefix is not None and (url == allow_prefix or url.startswith(allow_prefix + "/")):
            route.continue_()
        else:
            blocked.append(url)
            route.abort()

    context.route("**/*", _route)
    return context, blocked


def new_page(context, blocked: list[str]):
    """A page of ``context`` as every dashboard test uses it: runs counted (:func:`count_runs`),
    the requests ``offline_context`` blocked on ``external_requests``, uncaught page errors on
    ``js_errors``."""
    pg = context.new_page()
    count_runs(pg)
    pg.external_requests = blocked
    pg.js_errors = []
    pg.on("pageerror", lambda exc: pg.js_errors.append(str(exc)))
    return pg


@pytest.fixture()
def page(browser, streamlit_server: Server) -> Iterator[object]:
    context, blocked = offline_context(browser, allow_prefix=streamlit_server.url)
    pg = new_page(context, blocked)
    try:
        yield pg
    finally:
        context.close()


# ----------------------------------------------------------------------------------- helpers
def record_timing(label: str, seconds: float) -> None:
    TIMINGS.append((label, seconds))
    print(f"[timing] {label}: {seconds:.2f} s")


def pytest_terminal_summary(terminalreporter) -> None:
    if TIMINGS:
        terminalreporter.section("clustlens browser timings")
        for label, seconds in TIMINGS:
            terminalreporter.write_line(f"{seconds:7.2f} s  {label}")


_ARM_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  window.__pwSawRun = false;
  if (window.__pwObserver) window.__pwObserver.disconnect();
  if (!app) return;
  // a run can start and finish before the observer's callback runs: the records' old values
  // still show it passed through 'running'
  window.__pwObserver = new MutationObserver((records) => {
    if (app.getAttribute('data-test-script-state') === 'running'
        || records.some((r) => r.oldValue === 'running')) window.__pwSawRun = true;
  });
  window.__pwObserver.observe(app, {
    attributes: true, attributeOldValue: true, attributeFilter: ['data-test-script-state'],
  });
}"""

_IDLE_JS = """(needRun) => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return false;
  if (app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
  if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (needRun && !window.__pwSawRun) return false;
  const w = document.querySelector('[data-testid="stStatusWidget"]');
  if (w && /running/i.test(w.innerText || '')) return false;
  return document.querySelectorAll('[data-stale="true"]').length === 0;
}"""


_APP_STATE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const w = document.querySelector('[data-testid="stStatusWidget"]');
  return {
    url: location.pathname,
    connection: app && app.getAttribute('data-test-connection-state'),
    script: app && app.getAttribute('data-test-script-state'),
    runSeen: window.__pwSawRun === true,
    stale: document.querySelectorAll('[data-stale="true"]').length,
    status: w ? (w.innerText || '').slice(0, 60) : null,
  };
}"""


def wait_for_app_idle(
    page,
    timeout_ms: int = RUN_TIMEOUT_MS,
    *,
    after_run: bool = False,
    runs_before: int | None = None,
) -> None:
    """Wait until the script is not running: connected, script state ``notRunning``, no
    "Running..." in the status widget, no stale elements left. With ``after_run`` the run
    armed by :func:`expect_rerun` must have been seen first: by the page's script-state
    attribute, or (``runs_before``, pages set up by :func:`count_runs`) by a "script finished"
    message received since. On a timeout the message says which of these did not hold."""
    if after_run and runs_before is not None:
        deadline = time.monotonic() + timeout_ms / 1000
        while True:
            ran = page.runs_finished > runs_before
            if page.evaluate(_IDLE_JS, not ran):
                return
            if time.monotonic() > deadline:
                break
            page.wait_for_timeout(100)
    else:
        try:
            page.wait_for_function(_IDLE_JS, arg=after_run, timeout=timeout_ms, polling=100)
            return
        except PlaywrightTimeoutError:
            pass
    state = page.evaluate(_APP_STATE_JS)
    if runs_before is not None:
        state["runsFinishedSinceArmed"] = page.runs_finished - runs_before
    raise AssertionError(
        f"the app was not idle{' after the expected rerun' if after_run else ''} within "
        f"{timeout_ms / 1000:.0f} s: {state}"
    )


@contextlib.contextmanager
def expect_rerun(page, timeout_ms: int = RUN_TIMEOUT_MS) -> Iterator[None]:
    """Around a user action that reruns the script: wait until that rerun has finished.

    A MutationObserver armed before the action notes the script entering ``running``; so the
    idle wait cannot be satisfied by the state left over from the previous run.
    """
    page.evaluate(_ARM_JS)
    before = getattr(page, "runs_finished", None)
    yield
    wait_for_app_idle(page, timeout_ms, after_run=True, runs_before=before)


def wait_for_charts_drawn(page, scope: str | None = None, timeout_ms: int = DRAW_TIMEOUT_MS):
    """Wait until nothing (in ``scope``, a CSS selector) is still a loading skeleton, every
    shown chart is drawn and every shown dataframe has its canvas (``CHARTS_DRAWN_JS``)."""
    page.wait_for_function(CHARTS_DRAWN_JS, arg=scope, timeout=timeout_ms, polling=100)


def assert_no_exception(page) -> None:
    """No Streamlit exception element, no "Traceback" text, no uncaught page error."""
    n = page.locator('[data-testid="stException"]').count()
    assert n == 0, f"{n} exception element(s) on the page: {page.url}"
    text = page.locator('[data-testid="stApp"]').inner_text()
    assert "Traceback" not in text, f"a traceback is shown on {page.url}"
    assert not getattr(page, "js_errors", []), f"uncaught page errors: {page.js_errors}"


def wait_for_layout_stable(page, timeout_ms: int = 10_000) -> None:
    """Wait until chart sizes and the page height stop changing (after a resize)."""
    page.wait_for_function(
        """() => {
          const m = document.querySelector('[data-testid="stMain"]');
          const sig = [m ? m.scrollHeight : 0,
            ...[...document.querySelectorAll('.js-plotly-plot .main-svg')].map(
              s => s.getAttribute('width') + 'x' + s.getAttribute('height'))].join();
          if (sig === window.__pwLastSig) { window.__pwStable = (window.__pwStable || 0) + 1; }
          else { window.__pwStable = 0; window.__pwLastSig = sig; }
          return window.__pwStable >= 3;
        }""",
        timeout=timeout_ms,
        polling=100,
    )


def slug(title: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", title.lower()).strip("_") or "view"


@contextlib.contextmanager
def full_height(page) -> Iterator[None]:
    """The viewport grown to the content's height (at most 12,000 px), then as it was.

    Streamlit scrolls inside ``stMain`` (the document itself is one viewport high): a
    Playwright full-page shot would stop at 900 px, and nothing below it is hit-testable.
    """
    height = page.evaluate(
        """() => Math.max(document.documentElement.scrollHeight,
             ...['stMain', 'stSidebarContent'].map(id => {
               const e = document.querySelector(`[data-testid="${id}"]`);
               return e ? e.scrollHeight : 0; }))"""
    )
    before = dict(page.viewport_size or VIEWPORT)
    page.set_viewport_size(
        {"width": before["width"], "height": max(before["height"], min(height, 12_000))}
    )
    try:
        wait_for_layout_stable(page)
        yield
    finally:
        page.set_viewport_size(before)


def save_full_page(page, name: str) -> Path:
    """Screenshot the whole page at the viewport's width to ``tests/artifacts/<name>.png``."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    with full_height(page):
        page.screenshot(path=str(path), full_page=True)
    return path
