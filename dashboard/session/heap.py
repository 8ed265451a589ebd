"""Python's full garbage collections moved to moments when no page is being built.

A full (generation-2) collection walks every container object the process holds, with the
interpreter held: in the dashboard's server, once the pages' modules are imported (pandas,
scipy, plotly, pyarrow, Streamlit's runtime, later scikit-learn: ~250,000 objects), 0.10-0.13 s
each time. Python starts one on its own after enough young collections, in whichever thread
allocates at that moment: three times over the browser benchmark's session, in a page's script
(a first visit of Affinity whose script ran 0.31 s instead of 0.18 s, under a profiler) or in the
server's event loop while a page's messages waited to be sent. (Streamlit's own collection after
every run is already off: ``runner.postScriptGC``.)

:func:`start` turns Python's own full collections off (young ones go on as before) and runs
them from a thread of its own instead: once no page has been built for :data:`QUIET_S` —
while a person reads the page — and, whatever happens, at least every :data:`OVERDUE_S` under
constant load, each time only after as many young collections as Python itself waits for
(:data:`ROUNDS`), so cyclic garbage is reclaimed as before, a little later at most.

Not ``gc.freeze()`` (tried twice): frozen objects are never walked again, but neither is
frozen garbage ever reclaimed. Measured with two sessions: the first one's state stayed in memory,
and counted against the server's budget, after it closed and Streamlit dropped it (without the
freeze it is freed at once) — garbage cycles frozen with the rest, its finished script runs most
likely, still held it.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from collections.abc import Callable

#: No page built for this long: a full collection may run (seconds). A person reading a page
#: pauses longer; a shorter pause is often the moment before the next click (1 s: two of them
#: fell between the browser benchmark's visits, each holding the interpreter 0.10-0.16 s).
QUIET_S = 2.0
#: A full collection runs after this long even if pages keep being built (seconds).
OVERDUE_S = 60.0
#: Young (generation-1) collections since the last full one before another is worth it:
#: Python's own default third threshold.
ROUNDS = 10
#: How often the thread looks (seconds).
POLL_S = 0.1
#: Python's third threshold while the thread collects: never reached.
_NEVER = 2**30

_log = logging.getLogger(__name__)
_started = threading.Lock()


def due(now: float, quiet_since: float | None, last_full: float, rounds: int) -> bool:
    """Whether a full collection should run now: enough young collections since the last one
    (``rounds``), and either no page built since ``quiet_since`` for :data:`QUIET_S`, or the
    last one ``OVERDUE_S`` ago.

    Examples
    --------
    >>> due(10.0, quiet_since=7.5, last_full=0.0, rounds=12)  # quiet for 2.5 s
    True
    >>> due(10.0, quiet_since=None, last_full=0.0, rounds=12)  # a page is being built
    False
    >>> due(70.0, quiet_since=None, last_full=0.0, rounds=12)  # overdue
    True
    >>> due(10.0, quiet_since=2.0, last_full=0.0, rounds=3)  # little allocated since
    False
    """
    if rounds < ROUNDS:
        return False
    if quiet_since is not None and now - quiet_since >= QUIET_S:
        return True
    return now - last_full >= OVERDUE_S


def _collect() -> int:
    return gc.collect()


def start(
    pages_building: Callable[[], bool], wait_built: Callable[[float], object] | None = None
) -> bool:
    """Move full collections to quiet moments (see the module), once per process;
    ``pages_building`` tells whether a page is being built, ``wait_built(timeout_s)`` blocks
    until none is (:mod:`dashboard.session.scripts`). False if already started."""
    if not _started.acquire(blocking=False):
        return False
    threading.Thread(
        target=_run,
        kwargs={"pages_building": pages_building, "wait_built": wait_built},
        name="clustlens-full-gc",
        daemon=True,
    ).start()
    return True


def _run(
    pages_building: Callable[[], bool],
    stop: threading.Event | None = None,
    wait_built: Callable[[float], object] | None = None,
) -> None:
    stop = stop or threading.Event()
    young, middle, own = gc.get_threshold()
    gc.set_threshold(young, middle, _NEVER)
    try:
        last_full = time.monotonic()
        quiet_since: float | None = None
        while not stop.wait(POLL_S):
            if wait_built is not None and pages_building():
                # Sleep through the page's run, not look every POLL_S: each look takes the
                # interpreter lock from the page's computing. Woken in time for an overdue one.
                wait_built(max(0.0, last_full + OVERDUE_S - time.monotonic()))
            now = time.monotonic()
            if pages_building():
                quiet_since = None
            elif quiet_since is None:
                quiet_since = now
            if due(now, quiet_since, last_full, gc.get_count()[2]):
                found = _collect()
                last_full = time.monotonic()
                _log.debug("full collection: %d unreachable, %.3f s", found, last_full - now)
    finally:  # whatever stopped this thread, Python collects on its own again
        gc.set_threshold(young, middle, own)
