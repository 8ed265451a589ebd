"""A computation on a thread of its own, which a page watches in short runs.

UI-free (no ``st.*``). A page starts a :class:`Job` on a button's click, then its run waits for
the job's end a fraction of a second at a time (:meth:`Job.wait`), redrawing its progress, and
ends early when a click waits behind it: Streamlit holds a click inside a fragment until the
fragment's run ends, so Stop is seen within that fraction of a second instead of once the
computation is over, and nothing else on the page is built again while the job computes.

The job reports its steps through the ``progress`` callback the computation is given. That
callback is also where the job stops: at the first step after :meth:`Job.cancel`, and it
pauses while nobody has watched it for :data:`UNWATCHED_S` seconds (the user went to another
page: the job goes on when they come back, as a sweep does) — and ends if ``alive()`` says its
session is gone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

#: A job nobody has looked at (:meth:`Job.watched`) for this long pauses at its next step.
UNWATCHED_S = 3.0
#: While paused, how often the job checks that it is watched again or its session is gone.
PAUSE_POLL_S = 0.5


class Cancelled(Exception):
    """Raised inside the computation, at a step, once the job is cancelled."""


class Job:
    """``compute(progress)`` on a daemon thread; ``progress(message)`` counts one step.

    Parameters
    ----------
    key : str
        What the job computes (the page compares it with what it would compute now).
    compute : callable
        Called once on the job's thread with the ``progress`` callback; its return value is
        :attr:`result`, an exception it raises is :attr:`error`.
    total : int
        The number of steps ``compute`` reports (for the page's bar).
    alive : callable, optional
        ``alive()`` is False once the session that started the job is gone: a paused job
        then ends instead of waiting for a page that will not come back.
    after : Job, optional
        A job cancelled just before this one: this one starts computing once it has ended,
        so a session never has two computing at once.
    clock : callable
        Time source (tests).

    Examples
    --------
    >>> job = Job("demo", lambda progress: [progress(f"step {i}") for i in range(3)] and 42,
    ...           total=3)
    >>> job.start().wait(5.0), job.result, job.steps, job.message
    (True, 42, 3, 'step 2')
    """

    def __init__(
        self,
        key: str,
        compute: Callable[[Callable[[str], None]], Any],
        *,
        total: int,
        alive: Callable[[], bool] = lambda: True,
        after: Job | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.key = key
        self.total = max(int(total), 1)
        self.steps = 0
        self.message = ""
        self.result: Any = None
        self.error: BaseException | None = None
        self.seconds = 0.0  # computing, not waiting for ``after`` nor paused
        self._paused = 0.0
        self._compute = compute
        self._alive = alive
        self._after = after
        self._clock = clock
        self._cancelled = threading.Event()
        self._done = threading.Event()
        self._watched_at = clock()
        self._thread = threading.Thread(target=self._run, name=f"clustlens job {key}", daemon=True)

    # ---------------------------------------------------------------- the page's side
    def start(self) -> Job:
        self._thread.start()
        return self

    def watched(self) -> None:
        """The page has shown the job (a paused job goes on)."""
        self._watched_at = self._clock()

    def wait(self, seconds: float) -> bool:
        """Wait up to ``seconds`` for the job's end; True once it has ended (any way)."""
        self.watched()
        return self._done.wait(seconds)

    def cancel(self) -> None:
        """Ask the job to stop at its next step (its result is then never set)."""
        self._cancelled.set()

    @property
    def done(self) -> bool:
        return self._done.is_set()

    @property
    def cancelled(self) -> bool:
        return self._cancelled.is_set()

    @property
    def fraction(self) -> float:
        return min(self.steps / self.total, 1.0)

    # ---------------------------------------------------------------- the job's side
    def _progress(self, message: str) -> None:
        self.steps += 1
        self.message = message
        self._checkpoint()

    def _checkpoint(self) -> None:
        while True:
            if self._cancelled.is_set():
                raise Cancelled
            if self._clock() - self._watched_at <= UNWATCHED_S:
                return
            if not self._alive():
                self._cancelled.set()
                raise Cancelled
            t0 = time.perf_counter()
            self._cancelled.wait(PAUSE_POLL_S)
            self._paused += time.perf_counter() - t0

    def _run(self) -> None:
        if self._after is not None:
            self._after._done.wait()
        began = time.perf_counter()
        try:
            self._checkpoint()
            self.result = self._compute(self._progress)
        except Cancelled:
            pass
        except BaseException as exc:  # said on the page by the run that finds it
            self.error = exc
        finally:
            self.seconds = time.perf_counter() - began - self._paused
            self._done.set()
