"""Boxes whose content is built only when opened (``st.expander(on_change="rerun")``), in
chromium: opening one reruns the page and shows its content; what was set in it stays when it
closes. Learn's step-by-step boxes, the diagnosis thresholds."""

from __future__ import annotations

import pytest

from .conftest import assert_no_exception, expect_rerun, wait_for_app_idle
from .test_dashboard_browser import MAIN, open_first_view, open_view

pytestmark = pytest.mark.browser


def _box(page, label: str):
    return page.locator(f"{MAIN} [data-testid='stExpander']").filter(
        has=page.locator("summary", has_text=label)
    )


def test_opening_a_step_shows_its_formula_and_derivation(page, streamlit_server) -> None:
    open_first_view(page, streamlit_server.url)
    open_view(page, "Learn")
    acc = _box(page, "accuracy (ACC) = 0.8800")
    ari = _box(page, "adjusted Rand index = 0.6526")
    assert acc.locator(".katex").count() >= 1  # open by default
    assert "ACC = (44 + 44) / 100" in acc.locator("pre.cl-pre").first.inner_text()
    assert ari.locator(".katex").count() == 0 and ari.locator("pre.cl-pre").count() == 0
    with expect_rerun(page):
        ari.locator("summary").click()
    wait_for_app_idle(page)
    ari.locator(".katex").first.wait_for(timeout=30_000)
    assert "0.6526" in ari.locator("pre.cl-pre").first.inner_text()
    assert acc.locator(".katex").count() >= 1  # the other open box stays open
    assert_no_exception(page)


def test_thresholds_set_in_their_box_stay_when_it_closes(page, streamlit_server) -> None:
    """The thresholds' widgets are built only while their box is open; their values are
    session values: set on Contingency, closed, they still hold there and on Summary."""
    open_first_view(page, streamlit_server.url)
    open_view(page, "Contingency")
    box = _box(page, "Thresholds of the diagnosis")
    assert box.locator("input").count() == 0
    with expect_rerun(page):
        box.locator("summary").click()
    wait_for_app_idle(page)
    share = box.get_by_role("spinbutton", name="piece / part share")
    share.wait_for(timeout=30_000)
    with expect_rerun(page):
        share.fill("0.60")
        share.press("Enter")
    wait_for_app_idle(page)
    page.locator(MAIN).get_by_text("Misassignment only", exact=False).first.wait_for()
    with expect_rerun(page):
        box.locator("summary").click()  # closed: its widgets go, the value stays
    wait_for_app_idle(page)
    assert box.locator("input").count() == 0
    assert page.locator(MAIN).get_by_text("Misassignment only", exact=False).count() >= 1
    open_view(page, "Summary")
    assert page.locator(MAIN).get_by_text("Misassignment only", exact=False).count() >= 1
    box = _box(page, "Thresholds of the diagnosis")
    if box.locator("input").count() == 0:
        with expect_rerun(page):
            box.locator("summary").click()
        wait_for_app_idle(page)
    assert box.get_by_role("spinbutton", name="piece / part share").input_value() == "0.60"
    assert_no_exception(page)
