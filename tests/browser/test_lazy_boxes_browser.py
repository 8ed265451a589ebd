"""Boxes whose content is built only when opened (``st.expander(on_change="rerun")``), in
chromium: opening one reruns the page and shows its content; what was set in it stays when it
closes: the diagnosis thresholds. And Learn's step by step, one derivation picked at a time."""

from __future__ import annotations

import pytest

from .conftest import assert_no_exception, expect_rerun, wait_for_app_idle
from .test_dashboard_browser import MAIN, open_first_view, open_view

pytestmark = pytest.mark.browser


def _box(page, label: str):
    return page.locator(f"{MAIN} [data-testid='stExpander']").filter(
        has=page.locator("summary", has_text=label)
    )


def test_picking_a_step_shows_its_formula_and_derivation(page, streamlit_server) -> None:
    """Learn's step by step: one derivation at a time, picked from a list naming every metric
    with its value (ACC at first); the pick reruns the page with its formula and derivation."""
    open_first_view(page, streamlit_server.url)
    open_view(page, "Learn")
    main = page.locator(MAIN)
    assert main.locator(".katex").count() >= 1
    assert "ACC = (44 + 44) / 100" in main.locator("pre.cl-pre").first.inner_text()
    pick = main.get_by_test_id("stSelectbox").filter(has_text="How this value is computed")
    box = pick.locator("input").first
    box.click()
    box.fill("adjusted Rand")  # the list filters as one types (ArrowDown opens it whole)
    option = page.locator("[role='option']").filter(has_text="adjusted Rand index = 0.6526")
    with expect_rerun(page):
        option.first.click()
    wait_for_app_idle(page)
    main.get_by_text("0.6526", exact=False).first.wait_for(timeout=30_000)
    text = main.locator("pre.cl-pre").first.inner_text()
    assert "ARI" in text and "ACC = (44 + 44) / 100" not in text
    assert main.locator(".katex").count() >= 1
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


def test_multiview_per_view_panels_come_when_their_box_opens(page, streamlit_server) -> None:
    """Multi-view's first drawing is SSF's overview; the six per-view panels are built and drawn
    when their box is opened (six images on one colour scale)."""
    open_first_view(page, streamlit_server.url)
    open_view(page, "Multi-view")
    assert page.locator(".st-key-mv_overview .clustlens-chart[data-drawn='1']").count() == 1
    assert page.locator(".st-key-mv_views").count() == 0
    box = _box(page, "Per-view self-representations")
    with expect_rerun(page):
        box.locator("summary").click()
    wait_for_app_idle(page)
    chart = page.locator(".st-key-mv_views .clustlens-chart[data-drawn='1']")
    chart.wait_for(timeout=30_000)
    assert chart.locator("g.imagelayer image").count() == 6
    assert_no_exception(page)
    assert not page.js_errors
