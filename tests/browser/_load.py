"""Many browser sessions at once against one dashboard server (the load test and its benchmark).

Each session, in its own browser context of one chromium: opens the app (the demo), uploads
its own ground truth, dense C and prediction through the sidebar (a size and file names no
other session has), then visits every view. Checked per view: no exception, its own ground
truth named on the page and no other session's file name anywhere. While the sessions run,
the server's process group (server + upload workers) is sampled for resident memory.

Used by ``tests/browser/test_load_browser.py`` (small sizes, in CI) and
``tests/benchmarks/bench_load.py`` (about 50 MB of C per session, 5 and 10 sessions).
"""

from __future__ import annotations

import asyncio
import os
import shutil
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ._charts import CHARTS_DRAWN_JS
from .test_dashboard_browser import KNOWN_VIEWS as VIEWS

MAIN = '[data-testid="stMain"]'

_IDLE_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app) return false;
  if (app.getAttribute('data-test-connection-state') !== 'CONNECTED') return false;
  if (app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  const w = document.querySelector('[data-testid="stStatusWidget"]');
  if (w && /running/i.test(w.innerText || '')) return false;
  if (document.querySelector('[data-testid="stSkeleton"]')) return false;
  if (document.querySelectorAll('[data-stale="true"]').length) return false;
  return true;
}"""


@dataclass
class SessionFiles:
    """One session's input files: names no other session uses, and its own N."""

    index: int
    n: int
    truth: Path
    coef: Path
    pred: Path

    @property
    def truth_name(self) -> str:
        return self.truth.name

    @property
    def names(self) -> list[str]:
        return [self.truth.name, self.coef.name, self.pred.name]


def session_files(folder: Path, index: int, n: int, k: int = 5, seed: int = 0) -> SessionFiles:
    """Labels for ``n`` points in ``k`` classes, a prediction that merges two of them, and a
    dense block-structured C (``n`` x ``n`` float64, ``8 n²`` bytes as ``.npy``), written to
    ``folder``."""
    rng = np.random.default_rng(seed + index)
    y = np.repeat(np.arange(k), -(-n // k))[:n]
    pred = np.where(y == k - 1, k - 2, y)
    coef = rng.random((n, n)) * (y[:, None] == y[None, :]) + 1e-3 * rng.random((n, n))
    np.fill_diagonal(coef, 0.0)
    folder.mkdir(parents=True, exist_ok=True)
    tag = f"load{index:02d}"
    out = SessionFiles(index, n, folder / f"{tag}_truth.txt", folder / f"{tag}_coef.npy",
                       folder / f"{tag}_pred.npy")  # fmt: skip
    out.truth.write_text("\n".join(f"c{v}" for v in y) + "\n", encoding="utf-8")
    np.save(out.coef, coef, allow_pickle=False)
    np.save(out.pred, pred.astype(np.int64), allow_pickle=False)
    return out


@dataclass
class SessionResult:
    index: int
    first_render_s: float = float("nan")
    uploads_s: float = float("nan")
    views_s: dict[str, float] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class MemorySampler:
    """Resident memory of a process group (the server and its workers), sampled in a thread."""

    def __init__(self, pgid: int, every_s: float = 0.25) -> None:
        self.pgid, self.every_s = pgid, every_s
        self.peak = 0
        self.last = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def rss(self) -> int:
        total = 0
        page = os.sysconf("SC_PAGE_SIZE")
        for pid in os.listdir("/proc"):
            if not pid.isdigit():
                continue
            try:
                with open(f"/proc/{pid}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                if int(fields[2]) != self.pgid:  # field 5 (pgrp), after pid and comm
                    continue
                with open(f"/proc/{pid}/statm") as fh:
                    total += int(fh.read().split()[1]) * page
            except (OSError, ValueError, IndexError):
                continue
        return total

    def _run(self) -> None:
        while not self._stop.is_set():
            self.last = self.rss()
            self.peak = max(self.peak, self.last)
            self._stop.wait(self.every_s)

    def __enter__(self) -> MemorySampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.last = self.rss()


async def _idle(page, timeout_ms: float) -> None:
    await page.wait_for_function(_IDLE_JS, timeout=timeout_ms, polling=200)
    await page.wait_for_function(CHARTS_DRAWN_JS, arg=MAIN, timeout=timeout_ms, polling=200)


async def _upload(page, label: str, path: Path, timeout_ms: float) -> None:
    """Upload the file at ``path``: a path, not bytes, so chromium reads it from disk (bytes
    would travel base64-encoded through Playwright's driver, which then becomes the bottleneck:
    with five 48 MiB uploads at once it stalled for minutes while the server sat idle)."""
    name = path.name
    box = page.get_by_test_id("stFileUploader").filter(
        has=page.get_by_test_id("stWidgetLabel").get_by_text(label, exact=True)
    )
    await box.locator('input[type="file"]').set_input_files(str(path))
    # the rerun is recognised by its message, not by watching the script state: under load the
    # app element is re-mounted and an observer armed on it can miss the run
    side = page.get_by_test_id("stSidebar")
    ok = side.get_by_test_id("stAlertContentSuccess").filter(has_text=f"loaded {name}")
    refused = side.get_by_test_id("stAlertContentError").filter(has_text=name)
    await ok.or_(refused).first.wait_for(timeout=timeout_ms)
    if await refused.count():
        # the whole text, hidden parts included (inner_text once gave only the icon's "error")
        texts = [t.strip() for t in await refused.all_text_contents()]
        raise RuntimeError(f"refused: {' | '.join(texts)}")
    await _idle(page, timeout_ms)


async def _open_view(page, title: str, timeout_ms: float) -> None:
    """Click ``title`` in the navigation; done when it is the current page and the app idle."""
    link = page.get_by_test_id("stSidebarNavLink").filter(
        has=page.get_by_test_id("stMarkdownContainer").get_by_text(title, exact=True)
    )
    if await link.get_attribute("aria-current") != "page":
        await link.click()
    # done when the page is current and has its title, or shows an exception (reported after)
    await page.wait_for_function(
        """(title) => document.querySelector('[data-testid="stException"]') !== null
           || ([...document.querySelectorAll('[data-testid="stSidebarNavLink"]')].some(
             a => a.getAttribute('aria-current') === 'page' && a.innerText.includes(title))
           && document.querySelector('[data-testid="stMain"] h1') !== null)""",
        arg=title,
        timeout=timeout_ms,
    )
    await _idle(page, timeout_ms)


async def _state(page) -> str:
    """Connection and script state of the app, for a report of where a session stopped."""
    try:
        return await page.evaluate(
            """() => { const a = document.querySelector('[data-testid="stApp"]');
              const w = document.querySelector('[data-testid="stStatusWidget"]');
              return JSON.stringify({connection: a && a.getAttribute('data-test-connection-state'),
                script: a && a.getAttribute('data-test-script-state'),
                status: w ? w.innerText : null,
                stale: document.querySelectorAll('[data-stale="true"]').length,
                skeleton: !!document.querySelector('[data-testid="stSkeleton"]'),
                charts: document.querySelectorAll(
                  '[data-testid="stPlotlyChart"], .clustlens-chart').length,
                drawn: document.querySelectorAll('.js-plotly-plot .main-svg').length}); }"""
        )
    except Exception as exc:
        return f"unknown ({type(exc).__name__})"


async def run_session(
    browser, url: str, files: SessionFiles, others: list[str], timeout_ms: float
) -> SessionResult:
    """One user: first page, three uploads, every view; problems are collected, not raised."""
    res = SessionResult(files.index)
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    context.set_default_timeout(timeout_ms)
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    step = "opening the app"
    try:
        t0 = time.perf_counter()
        await page.goto(url)
        await page.locator(f"{MAIN} h1").first.wait_for(timeout=timeout_ms)
        await _idle(page, timeout_ms)
        res.first_render_s = time.perf_counter() - t0
        t0 = time.perf_counter()
        step = f"uploading {files.truth.name}"
        await _upload(page, "Ground-truth labels", files.truth, timeout_ms)
        step = f"uploading {files.coef.name}"
        await _upload(page, "Coefficient matrix C", files.coef, timeout_ms)
        step = f"uploading {files.pred.name}"
        await _upload(page, "Predicted labels (one or more files)", files.pred, timeout_ms)
        res.uploads_s = time.perf_counter() - t0
        own = f"{files.truth_name} ({files.n:,} points)"
        for title in VIEWS:
            step = f"opening {title}"
            t0 = time.perf_counter()
            await _open_view(page, title, timeout_ms)
            res.views_s[title] = time.perf_counter() - t0
            shown = page.locator('[data-testid="stException"]')
            if await shown.count():
                said = (await shown.first.inner_text()).splitlines()[:2]
                res.problems.append(f"{title}: an exception is shown: {' '.join(said)}")
            text = await page.locator('[data-testid="stApp"]').inner_text()
            if "Traceback" in text:
                res.problems.append(f"{title}: a traceback is shown")
            foreign = [o for o in others if o in text]
            if foreign:
                res.problems.append(f"{title}: shows another session's file(s) {foreign}")
            if title == "Summary" and own not in text:
                res.problems.append(f"Summary does not say 'ground truth: {own}'")
    except Exception as exc:  # a timeout is a finding of the load test, reported with the rest
        res.problems.append(
            f"stopped while {step}: {type(exc).__name__}: {str(exc).splitlines()[0]}; "
            f"page state {await _state(page)}"
        )
    finally:
        res.problems += [f"page error: {e}" for e in errors]
        await context.close()
    return res


async def _run_all(url: str, sessions: list[SessionFiles], timeout_ms: float, stagger_s: float):
    from playwright.async_api import async_playwright

    from .conftest import CHROMIUM_ARGS

    async with async_playwright() as p:
        browser = await p.chromium.launch(
            executable_path=shutil.which("chromium"), args=CHROMIUM_ARGS
        )
        try:
            names = {f.index: f.names for f in sessions}

            async def one(f: SessionFiles) -> SessionResult:
                await asyncio.sleep(stagger_s * f.index)
                others = [n for i, ns in names.items() if i != f.index for n in ns]
                return await run_session(browser, url, f, others, timeout_ms)

            return await asyncio.gather(*(one(f) for f in sessions))
        finally:
            await browser.close()


def run_load(
    url: str, sessions: list[SessionFiles], *, timeout_ms: float = 300_000, stagger_s: float = 0.5
) -> list[SessionResult]:
    """Run every session at once (started ``stagger_s`` apart, as people arrive).

    In a thread of its own: a test run may already have Playwright's sync API (its own event
    loop) going in this thread, and asyncio cannot start a loop inside it.
    """
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=1) as pool:
        job = pool.submit(asyncio.run, _run_all(url, sessions, timeout_ms, stagger_s))
        return job.result()
