"""The step bar of a long computation: every step counted, the bar redrawn at most every
``interval`` seconds (each redraw costs the browser work that the computation it reports on
then waits for)."""

from __future__ import annotations

import re

import pytest

from dashboard.ui.progress import REDRAW_INTERVAL_S, StepBar


class FakeBar:
    def __init__(self) -> None:
        self.drawn: list[tuple[float, str]] = []  # markdown escapes undone
        self.raw: list[str] = []

    def progress(self, value: float, text: str) -> FakeBar:
        self.raw.append(text)
        self.drawn.append((value, re.sub(r"\\(.)", r"\1", text)))
        return self


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def test_the_bar_is_drawn_at_zero_then_at_most_once_an_interval():
    slot, clock = FakeBar(), Clock()
    bar = StepBar(slot, 15, "running the protocol (3 runs)", interval=0.5, clock=clock)
    assert slot.drawn == [(0.0, "running the protocol (3 runs): 0 of 15 steps")]
    # a step every 0.1 s: redrawn at 0.5 s, 1.0 s, 1.5 s with the steps done by then
    for step in range(1, 16):
        clock.now = 100.0 + 0.1 * step + 1e-9
        bar(f"step {step}")
    assert bar.done == 15
    assert [text for _v, text in slot.drawn[1:]] == [
        "5 of 15 steps — step 5",
        "10 of 15 steps — step 10",
        "15 of 15 steps — step 15",
    ]
    assert [v for v, _t in slot.drawn[1:]] == pytest.approx([5 / 15, 10 / 15, 1.0])
    assert bar.redraws == 3


def test_slow_steps_are_each_drawn():
    slot, clock = FakeBar(), Clock()
    bar = StepBar(slot, 3, "run", clock=clock)
    for step in range(1, 4):
        clock.now += REDRAW_INTERVAL_S
        bar(f"s{step}")
    assert [t for _v, t in slot.drawn] == [
        "run: 0 of 3 steps", "1 of 3 steps — s1", "2 of 3 steps — s2", "3 of 3 steps — s3",
    ]  # fmt: skip


def test_more_steps_than_announced_never_overfill_the_bar():
    slot, clock = FakeBar(), Clock()
    bar = StepBar(slot, 0, "run", interval=0.0, clock=clock)  # a total of 0 counts as 1
    bar("a")
    bar("b")
    assert [v for v, _t in slot.drawn] == [0.0, 1.0, 1.0]
    assert slot.drawn[-1][1] == "2 of 1 steps — b"


def test_messages_are_shown_as_text_not_markdown():
    slot, clock = FakeBar(), Clock()
    bar = StepBar(slot, 2, "run", interval=0.0, clock=clock)
    bar("SC_*view* [1](x)")
    assert slot.drawn[-1][1] == "1 of 2 steps — SC_*view* [1](x)"
    assert r"SC\_\*view\* \[1\]\(x\)" in slot.raw[-1]  # escaped for Streamlit's markdown
