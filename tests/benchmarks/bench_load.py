"""Many users at once (run by hand): ``python tests/benchmarks/bench_load.py``.

Concurrent browser sessions (one headless chromium, one context each) against one dashboard
server, each uploading its own ground truth, a dense C of about 50 MB (N = 2,500, float64
``.npy``) and a prediction, then visiting every view (``tests/browser/_load.py``, the same
driver as the CI load test). Rows: 1 session (the peer, same run), 5 and 10 sessions.
Printed per row: time to the first rendered page, the three uploads and the slowest view
(median and worst over sessions, and the ratio of the worst to the single session's), whether
every session was served and never showed another session's files, and the server's resident
memory (server + upload workers) at its peak and after the sessions closed, against the stated
budget: 10 sessions of 50 MB within 8 GiB (``clustlens dashboard --server-memory``'s default).

Options: ``--sessions 1 5 10``, ``--n 2500``, ``--timeout 900`` (seconds per step).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests"))

from browser._load import VIEWS, MemorySampler, run_load, session_files  # noqa: E402
from browser.conftest import running_server  # noqa: E402

BUDGET_GB = 8.0


def _row(k: int, n: int, timeout_s: float, peer: dict | None) -> dict:
    with tempfile.TemporaryDirectory() as tmp:
        env = {"MALLOC_ARENA_MAX": "2"}  # as `clustlens dashboard` starts the server
        with running_server(Path(tmp) / "server.log", env) as server:
            files = [session_files(Path(tmp) / "files", i, n + i) for i in range(k)]
            with MemorySampler(server.proc.pid) as mem:
                results = run_load(server.url, files, timeout_ms=timeout_s * 1000)
            time.sleep(3.0)  # let the closed sessions go
            after = mem.rss()
            alive = server.alive()
    first = [r.first_render_s for r in results]
    ups = [r.uploads_s for r in results]
    slow = [max(r.views_s.values(), default=float("nan")) for r in results]
    problems = [f"session {r.index}: {p}" for r in results for p in r.problems]
    row = {
        "sessions": k,
        "first": (statistics.median(first), max(first)),
        "uploads": (statistics.median(ups), max(ups)),
        "slowest view": (statistics.median(slow), max(slow)),
        "served": sum(len(r.views_s) == len(VIEWS) and not r.problems for r in results),
        "peak_gb": mem.peak / 2**30,
        "after_gb": after / 2**30,
        "alive": alive,
        "problems": problems,
    }
    if peer is not None:
        row["ratio"] = {m: row[m][1] / peer[m][1] for m in ("first", "uploads", "slowest view")}
    return row


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, nargs="+", default=[1, 5, 10])
    ap.add_argument("--n", type=int, default=2500, help="points per session (C is n x n)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per step")
    args = ap.parse_args()
    mb = 8 * args.n * args.n / 2**20
    print(f"each session: N = {args.n:,} (+ its index), dense C {mb:.0f} MiB as .npy")
    head = (
        f"{'sessions':>8} | {'first page s (med/max)':>22} | {'3 uploads s':>13} | "
        f"{'slowest view s':>14} | {'max vs 1':>17} | {'served':>7} | {'peak GB':>7} | "
        f"{'after GB':>8} | budget"
    )
    print(head)
    print("-" * len(head))
    peer = None
    for k in args.sessions:
        row = _row(k, args.n, args.timeout, peer if k > 1 else None)
        if k == 1:
            peer = row
        ratio = row.get("ratio")
        rtxt = (
            " / ".join(f"{ratio[m]:.1f}x" for m in ("first", "uploads", "slowest view"))
            if ratio
            else "(peer)"
        )
        ok = "within" if row["peak_gb"] <= BUDGET_GB else "OVER"
        print(
            f"{k:>8} | {row['first'][0]:>10.1f} / {row['first'][1]:>9.1f} | "
            f"{row['uploads'][0]:>5.1f} / {row['uploads'][1]:>5.1f} | "
            f"{row['slowest view'][0]:>5.1f} / {row['slowest view'][1]:>6.1f} | {rtxt:>17} | "
            f"{row['served']:>3} / {k:<2} | {row['peak_gb']:>7.2f} | {row['after_gb']:>8.2f} | "
            f"{ok} {BUDGET_GB:g} GB{'' if row['alive'] else ' (server died)'}",
            flush=True,
        )
        for p in row["problems"]:
            print(f"         ! {p}")


if __name__ == "__main__":
    main()
