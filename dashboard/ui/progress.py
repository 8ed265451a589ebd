"""A progress bar that counts the steps of a long computation run inside the script."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from dashboard.ui.widgets import md_escape

#: Seconds between two redraws of a step bar. Each redraw is a message to the browser and a
#: re-render there, and on a 2-core machine that work is taken from the computation it reports
#: on: Multi-view's demo comparison (15 steps in ~1.6 s) computed in 1.80 s in the server with
#: a redraw per step, 1.64 s with at most one every 0.5 s, 1.68 s with no bar (medians over
#: alternated servers; 1.57 s in a process with no browser; tests/benchmarks/HISTORY.md).
REDRAW_INTERVAL_S = 0.5


class StepBar:
    """``progress`` callback for a computation of ``total`` steps: a bar in ``slot`` (an
    ``st.empty``) reading "k of total steps — <the last step's message>", redrawn at most every
    ``interval`` seconds (the steps done meanwhile are counted, their messages skipped).

    ``clock`` is for tests (a fake time source); the bar is drawn at 0 when it is made.
    """

    def __init__(
        self,
        slot: Any,
        total: int,
        what: str,
        *,
        interval: float = REDRAW_INTERVAL_S,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.total = max(int(total), 1)
        self.done = 0
        self.redraws = 0
        self._interval = interval
        self._clock = clock
        self._bar = slot.progress(0.0, text=md_escape(f"{what}: 0 of {self.total} steps"))
        self._last = clock()

    def __call__(self, message: str) -> None:
        self.done += 1
        now = self._clock()
        if now - self._last < self._interval:
            return
        self._last = now
        self.redraws += 1
        self._bar.progress(
            min(self.done / self.total, 1.0),
            text=md_escape(f"{self.done} of {self.total} steps — {message}"),
        )
