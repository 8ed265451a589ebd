"""Our tab strip: one light element that names the open tab; what a browser sends is checked
before it opens a tab, and a tab opened is kept for the session."""

from __future__ import annotations

from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest
from tab_strips import tab_strips

from dashboard.ui import tab_strip

LEARN = Path(__file__).resolve().parents[1] / "dashboard" / "views" / "learn.py"
LEARN_TABS = ["Contingency table", "Move points", "Random labels", "SRE / CONN", "Questions"]


def test_a_tab_sent_is_one_of_the_strip_s():
    assert tab_strip.picked(["B", 1764412345678], ["A", "B"]) == "B"


@pytest.mark.parametrize(
    "sent",
    [None, "B", ["B"], ["B", 1, 2], ["C", 1], [["B"], 1], [1, 1], {"open": "B"}, ("B", 1)],
)
def test_anything_else_a_browser_sends_opens_no_tab(sent):
    assert tab_strip.picked(sent, ["A", "B"]) is None


def _script() -> None:
    import streamlit as st

    from dashboard.ui import tab_strip

    st.session_state["t_strip"] = {"open": st.session_state.get("sent")}  # the strip's state
    tab_strip._clicked("t", ["A", "B"])
    st.text(str(st.session_state.get("t")))


@pytest.mark.parametrize(("sent", "opened"), [(["B", 7], "B"), (["C", 7], "A"), ("B", "A")])
def test_a_click_opens_the_tab_it_names_before_the_run_it_starts(sent, opened):
    at = AppTest.from_function(_script)
    at.session_state["t"] = "A"
    at.session_state["sent"] = sent
    at.run()
    assert not at.exception
    assert at.text[0].value == opened


def test_learn_shows_one_strip_on_its_first_tab_and_no_streamlit_tabs():
    at = AppTest.from_file(str(LEARN), default_timeout=60).run()
    assert not at.exception
    assert not at.tabs
    want = {"labels": LEARN_TABS, "open": LEARN_TABS[0], "name": "Learn: sections"}
    assert tab_strips(at) == [want]


def test_the_strip_shows_the_tab_kept_and_the_first_for_an_unknown_one():
    at = AppTest.from_file(str(LEARN), default_timeout=60)
    at.session_state["learn_tab"] = "Questions"
    at.run()
    assert tab_strips(at)[0]["open"] == "Questions"
    at.session_state["learn_tab"] = "a tab from an older session"
    at.run()
    assert not at.exception
    assert tab_strips(at)[0]["open"] == LEARN_TABS[0]
    assert at.session_state["learn_tab"] == LEARN_TABS[0]
