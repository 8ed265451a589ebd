"""The server's long-lived objects kept out of Python's cycle collector.

Python's full (generation-2) collection walks every container object the process holds, with
the interpreter held: in the dashboard's server, after the warm-up's imports (pandas, scipy,
plotly, pyarrow, Streamlit's runtime, later scikit-learn), 0.10-0.13 s each time. It comes
on its own whenever enough new objects have survived, three times over the browser
benchmark's session, in whichever thread allocates at that moment: the page's script (a
first visit of Affinity whose script ran 0.31 s instead of 0.18 s), or the server's event loop
while the page's messages wait to be sent. Streamlit's own collection after every run is
already off (``runner.postScriptGC``).

:func:`freeze_long_lived` moves every object that exists into the permanent generation, which
no collection walks again: called once the warm-up threads have imported their modules, a
later full collection walks only what was made since (the same session: one collection of
0.03-0.04 s, none in a page's run). Freezing does not keep anything alive: an object that
is no longer referenced is still freed at once; only *cyclic* garbage among the frozen objects
is never reclaimed, and right after the imports there is little of it (a full collection at
that point frees ~300 objects).
"""

from __future__ import annotations

import gc
import logging

_log = logging.getLogger(__name__)


def freeze_long_lived(after: str) -> int:
    """Freeze every object the process holds (``after``: what was just done, for the log);
    returns how many objects are frozen in all.

    No example here: freezing a test process would keep its cyclic garbage for good (the
    test suite runs it in a process of its own, ``tests/test_warmup.py``).
    """
    gc.freeze()
    count = gc.get_freeze_count()
    _log.debug("froze %d long-lived objects after %s", count, after)
    return count
