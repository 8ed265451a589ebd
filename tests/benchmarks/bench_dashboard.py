"""Dashboard speed and size benchmark (run by hand): ``python tests/benchmarks/bench_dashboard.py``.

Prints one table:

- each view of the app (AppTest, server side: compute + figures + serialisation), first run
  (cold caches) and second run (cached), for the demo, N = 5,000 with a dense C and
  N = 50,000 with a sparse C of 1e6 non-zeros;
- the affinity figure's JSON size (what reaches the browser) at several N;
- cold start: ``streamlit run dashboard/app.py`` launched until the demo's first view shows
  its metric cards in headless chromium (skipped when chromium or Playwright is absent).

Targets (issue 3): cached view < 1 s at N = 5,000 dense, < 3 s at N = 50,000 sparse; affinity
JSON <= ~5 MB at any N; cold start < 5 s. Options: ``--quick`` skips N = 50,000 and the
browser; ``--no-browser`` skips the browser only.
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import numpy as np
import scipy.sparse as sp

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))
APP = ROOT / "dashboard" / "app.py"
PAGES = ["views/summary.py", "views/contingency.py", "views/pairs.py", "views/affinity.py"]
MB = 1024 * 1024


def labels(n: int, k: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Ground truth (k classes) and a prediction that splits class 0, merges 1 and 2, + 5 %."""
    rng = np.random.default_rng(seed)
    y = np.sort(rng.integers(0, k, n))
    p = y.copy()
    idx0 = np.flatnonzero(y == 0)
    p[idx0[: idx0.size // 2]] = k
    p[y == 2] = 1
    flip = rng.random(n) < 0.05
    p[flip] = rng.integers(0, k + 1, flip.sum())
    return y, p


def sparse_coef(y: np.ndarray, per_row: int, seed: int, leak: float = 0.1) -> sp.csr_array:
    """``per_row`` non-zeros per row, a share ``leak`` of them outside the point's class."""
    rng = np.random.default_rng(seed)
    n = y.size
    order = np.argsort(y, kind="stable")
    starts = np.searchsorted(y[order], y)
    ends = np.searchsorted(y[order], y, side="right")
    rows = np.repeat(np.arange(n), per_row)
    inside = rng.random(rows.size) >= leak
    lo, hi = starts[rows], ends[rows]
    same = order[lo + (rng.random(rows.size) * (hi - lo)).astype(np.int64)]
    cols = np.where(inside, same, rng.integers(0, n, rows.size))
    c = sp.csr_array((rng.random(rows.size), (rows, cols)), shape=(n, n))
    c.sum_duplicates()
    return c


def dense_coef(y: np.ndarray, seed: int) -> np.ndarray:
    c = sparse_coef(y, 60, seed).toarray()
    c += 1e-4 * np.random.default_rng(seed + 1).random(c.shape)  # dense: every entry set
    return c


def make_state(name: str, y, preds, coef):
    from dashboard.session.state import AppState, Input

    def inp(role, label, value):
        h = hashlib.sha256(f"{name}:{label}:{value.shape}".encode()).hexdigest()
        return Input(role=role, name=label, data=b"", sha256=h, value=value)

    s = AppState()
    s.truth = inp("truth", f"{name}_true.txt", y)
    s.preds = [inp("pred", f"{name}_pred{i}.txt", p) for i, p in enumerate(preds)]
    s.coef = inp("coef", f"{name}_C", coef)
    return s


def time_views(title: str, state) -> list[tuple[str, str, float, float]]:
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(APP), default_timeout=600)
    if state is not None:
        at.session_state["clustlens"] = state
    rows = []
    for i, page in enumerate(PAGES):
        if i:
            at.switch_page(page)
        t = time.perf_counter()
        at.run()
        first = time.perf_counter() - t
        t = time.perf_counter()
        at.run()
        second = time.perf_counter() - t
        bad = [e.value for e in at.exception] + [e.value for e in at.error]
        if bad:
            print(f"  !! {title} {page}: {bad}", file=sys.stderr)
        rows.append((title, Path(page).stem, first, second))
    return rows


def affinity_json_sizes(ns: list[int]) -> list[tuple[int, str, float, float]]:
    from dashboard.analysis import partition as analysis
    from dashboard.analysis import pooling
    from dashboard.figures.affinity import affinity_figure

    out = []
    for n in ns:
        y, p = labels(n, 10, n)
        c = sparse_coef(y, min(20, max(2, 1_000_000 // n)), n)
        t = time.perf_counter()
        order, groups = analysis.display_order(y, p, "ground truth")
        bounds = pooling.group_bounds(groups)
        if n <= pooling.CELL_LIMIT:
            edges = np.arange(n + 1)
            values = pooling.cell_affinity(c, order)
        else:
            edges = pooling.bin_edges(bounds, pooling.MAX_BINS)
            values = pooling.pooled_affinity(c, order, edges)
        disp = {
            "values": values,
            "edges": edges,
            "bounds": bounds,
            "group_names": [str(g) for g in range(10)],
            "group_kind": "class",
            "pooled": n > pooling.CELL_LIMIT,
            "n": n,
            "sort_mode": "ground truth",
        }
        size = len(affinity_figure(disp, log=True).to_json())
        kind = "image" if disp["pooled"] else "heatmap"
        out.append((n, kind, size / MB, time.perf_counter() - t))
    return out


def cold_start() -> float | None:
    try:
        from playwright.sync_api import sync_playwright
    except ImportError:
        return None
    chromium = shutil.which("chromium")
    if not chromium:
        return None
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=chromium,
            args=[
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
            ],
        )
        page = browser.new_page()
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "streamlit",
                "run",
                str(APP),
                "--server.headless=true",
                "--server.address=127.0.0.1",
                f"--server.port={port}",
            ],
            cwd=APP.parent,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            while True:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=1)
                    break
                except OSError:
                    time.sleep(0.05)
            page.goto(f"http://127.0.0.1:{port}/")
            page.wait_for_selector('.cl-metric, [data-testid="stMetric"]', timeout=60_000)
            return time.perf_counter() - t0
        finally:
            browser.close()
            proc.terminate()
            proc.wait(10)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--no-browser", action="store_true")
    args = ap.parse_args()
    logging.getLogger("streamlit").setLevel(logging.ERROR)

    rows = time_views("demo (N=400, sparse C)", None)
    y, p = labels(5_000, 10, 1)
    _, p2 = labels(5_000, 10, 2)
    rows += time_views("N=5,000, dense C", make_state("n5k", y, [p, p2], dense_coef(y, 1)))
    if not args.quick:
        y, p = labels(50_000, 20, 3)
        c = sparse_coef(y, 20, 3)
        print(f"(N=50,000 sparse C: {c.nnz:,} non-zeros)")
        rows += time_views("N=50,000, sparse C", make_state("n50k", y, [p], c))

    print("\nview render times (AppTest, server side)")
    print(f"{'data':<26} {'view':<12} {'first (s)':>10} {'cached (s)':>11}")
    for title, view, first, second in rows:
        print(f"{title:<26} {view:<12} {first:>10.2f} {second:>11.2f}")

    print("\naffinity figure sent to the browser")
    print(f"{'N':>8} {'kind':<8} {'JSON (MB)':>10} {'build (s)':>10}")
    for n, kind, size, secs in affinity_json_sizes([400, 600, 1_000, 5_000, 50_000, 200_000]):
        print(f"{n:>8,} {kind:<8} {size:>10.2f} {secs:>10.2f}")

    if not (args.quick or args.no_browser):
        t = cold_start()
        print(
            "\ncold start to the demo's first view (server launch → metric cards in chromium): "
            + ("skipped (no chromium/playwright)" if t is None else f"{t:.2f} s")
        )


if __name__ == "__main__":
    main()
