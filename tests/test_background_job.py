"""``dashboard.compute.background.Job``: a computation on a thread of its own that a page
watches (Multi-view's comparison). It ends with a result or an error, stops at the first step
after a cancel, pauses while nobody watches it and ends if its session is gone, and a job made
``after`` another starts computing only once that one has ended."""

from __future__ import annotations

import threading
import time

import pytest

from dashboard.compute import background as bg
from dashboard.compute.background import Job

WAIT = 10.0


def _steps(n: int, gate: threading.Event | None = None, result: object = "done"):
    """A computation of ``n`` steps; each step waits for ``gate`` when given."""

    def compute(progress):
        for i in range(n):
            if gate is not None:
                assert gate.wait(WAIT)
                gate.clear()
            progress(f"step {i}")
        return result

    return compute


def test_a_job_ends_with_its_result_its_steps_and_its_computing_time():
    job = Job("k", _steps(4, result=42), total=4).start()
    assert job.wait(WAIT) and job.done
    assert (job.result, job.error, job.steps, job.message, job.fraction) == (
        42,
        None,
        4,
        "step 3",
        1.0,
    )
    assert not job.cancelled and 0 <= job.seconds < WAIT


def test_an_error_in_the_computation_is_kept_not_raised():
    def compute(progress):
        progress("one")
        raise ValueError("views disagree")

    job = Job("k", compute, total=3).start()
    assert job.wait(WAIT)
    assert isinstance(job.error, ValueError) and job.result is None and job.steps == 1


def test_cancel_stops_the_job_at_its_next_step_without_a_result():
    gate = threading.Event()
    job = Job("k", _steps(5, gate), total=5).start()
    gate.set()
    deadline = time.monotonic() + WAIT
    while job.steps < 1 and time.monotonic() < deadline:
        time.sleep(0.01)
    job.cancel()
    gate.set()  # the step in progress finishes; the job stops at its end
    assert job.wait(WAIT)
    assert job.cancelled and job.result is None and job.error is None and job.steps == 2


class _Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_an_unwatched_job_pauses_at_its_next_step_and_goes_on_when_watched(monkeypatch):
    monkeypatch.setattr(bg, "PAUSE_POLL_S", 0.01)
    clock = _Clock()
    gate = threading.Event()
    job = Job("k", _steps(3, gate), total=3, clock=clock).start()
    clock.now = bg.UNWATCHED_S + 1  # nobody looked for longer than that
    gate.set()
    time.sleep(0.3)
    assert job.steps == 1 and not job.done  # paused after its step
    job.watched()  # the page came back
    gate.set()
    deadline = time.monotonic() + WAIT
    while job.steps < 2 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert job.steps == 2
    gate.set()
    assert job.wait(WAIT) and job.result == "done"


def test_a_paused_job_ends_once_its_session_is_gone(monkeypatch):
    monkeypatch.setattr(bg, "PAUSE_POLL_S", 0.01)
    clock = _Clock()
    alive = threading.Event()
    alive.set()
    gate = threading.Event()
    job = Job("k", _steps(3, gate), total=3, alive=alive.is_set, clock=clock).start()
    clock.now = bg.UNWATCHED_S + 1
    gate.set()
    time.sleep(0.2)
    assert not job.done  # paused, its session still there
    alive.clear()
    deadline = time.monotonic() + WAIT  # not job.wait(): a page waiting watches the job
    while not job.done and time.monotonic() < deadline:
        time.sleep(0.01)
    assert job.cancelled and job.result is None and job.steps == 1


def test_a_job_made_after_another_computes_once_that_one_has_ended():
    gate = threading.Event()
    first = Job("a", _steps(2, gate), total=2).start()
    order: list[str] = []

    def second_compute(progress):
        order.append("second began")
        progress("x")
        return "b"

    first.cancel()
    second = Job("b", second_compute, total=1, after=first).start()
    time.sleep(0.2)
    assert order == [] and not first.done  # the first is still in its step
    gate.set()
    assert second.wait(WAIT) and first.done and first.cancelled
    assert order == ["second began"] and second.result == "b"


@pytest.mark.parametrize("total", [0, -3])
def test_a_job_of_no_steps_still_has_a_fraction(total):
    job = Job("k", lambda progress: None, total=total)
    assert job.total == 1 and job.fraction == 0.0
