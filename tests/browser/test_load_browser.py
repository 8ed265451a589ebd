"""Many users at once: concurrent browser sessions, each with its own uploads, on one server.

Small sizes here (CI); ``tests/benchmarks/bench_load.py`` runs the same sessions with about
50 MB of C each, 5 and 10 at once. Every session must be served on every view, never show
another session's files, and the server's resident memory (server + upload workers) must stay
under the stated budget.
"""

from __future__ import annotations

import pytest

from ._load import VIEWS, MemorySampler, run_load, session_files
from .conftest import record_timing, running_server

pytestmark = [pytest.mark.browser, pytest.mark.load]

SESSIONS = 5
N = 300  # C is 300 x 300 dense (720 KB as .npy); each session a different N (300, 310, ...)
#: Resident memory the server process group may reach with these sessions (it starts at about
#: 0.3 GB with the demo loaded; the upload worker's fork server adds about 0.1 GB).
MEMORY_BUDGET = 1.5 * 2**30


@pytest.fixture(scope="module")
def load_server(tmp_path_factory):
    env = {"MALLOC_ARENA_MAX": "2"}  # as `clustlens dashboard` starts the server
    with running_server(tmp_path_factory.mktemp("load") / "server.log", env) as server:
        yield server


def test_concurrent_sessions_are_served_isolated_and_within_memory(load_server, tmp_path) -> None:
    files = [session_files(tmp_path, i, N + 10 * i) for i in range(SESSIONS)]
    with MemorySampler(load_server.proc.pid) as mem:
        results = run_load(load_server.url, files, timeout_ms=240_000)
    assert load_server.alive(), load_server.log_tail()
    for r in results:
        record_timing(f"load: session {r.index} first page", r.first_render_s)
        record_timing(f"load: session {r.index} three uploads", r.uploads_s)
        slowest = max(r.views_s.items(), key=lambda kv: kv[1], default=("-", float("nan")))
        record_timing(f"load: session {r.index} slowest view ({slowest[0]})", slowest[1])
    print(f"[memory] load: server peak {mem.peak / 2**30:.2f} GiB with {SESSIONS} sessions")
    problems = [f"session {r.index}: {p}" for r in results for p in r.problems]
    assert not problems, "\n".join(problems)
    assert all(len(r.views_s) == len(VIEWS) for r in results)
    assert mem.peak < MEMORY_BUDGET, f"server peaked at {mem.peak / 2**30:.2f} GB"
