"""Whether a page is being built (a Streamlit script run of any session), and waiting until
none is without polling.

The server's background threads (the warm-up, the full collections of
:mod:`dashboard.session.heap`) make way for page runs. They used to look every 20 ms and
100 ms, and each look takes the interpreter lock from a page that computes: during the demo's
Multi-view "Run comparison" (~2.5 s) the server's other threads woke ~1,250 times (the warm-up
~550, the event loop ~400, Streamlit's config-file polling ~230, the collector ~110), and the
page's thread waited for the lock ~290 times. The same computing, run three times in a row in
the server and, each time after it, in a fresh process beside it (two servers): a median of
2.70 s in the server against 2.57 s. With these threads asleep until the run ends and the
config-file polling off (:mod:`dashboard.launch`): 46–71 waits, 2.45 s against 2.47 s.
"""

from __future__ import annotations

import threading
import time

#: The name of the thread Streamlit runs a script in (one per run).
SCRIPT_THREAD = "ScriptRunner.scriptThread"


def running() -> list[threading.Thread]:
    """The script runs in progress (their threads)."""
    return [t for t in threading.enumerate() if t.name == SCRIPT_THREAD and t.is_alive()]


def building() -> bool:
    """Whether a page is being built (a script run of any session is in progress)."""
    return bool(running())


def wait_built(timeout_s: float) -> bool:
    """Block until no page is being built, joining each run's thread (no wake-up until it
    ends); False if ``timeout_s`` passed first. A run that starts meanwhile is waited for too.

    Examples
    --------
    >>> wait_built(0.0)  # no script thread in a plain interpreter
    True
    """
    deadline = time.monotonic() + timeout_s
    while True:
        threads = [t for t in running() if t is not threading.current_thread()]
        if not threads:
            return True
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        threads[0].join(remaining)
