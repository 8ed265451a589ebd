"""Presentation mode in chromium at 1,024 and 1,920 px: the pages stay reachable from the top
bar, the sidebar is gone, and every view still draws (screenshots in tests/artifacts)."""

from __future__ import annotations

import pytest

from .conftest import assert_no_exception, expect_rerun, save_full_page, wait_for_charts_drawn
from .test_dashboard_browser import MAIN, open_first_view

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("width", [1024, 1920])
def test_presentation_mode_keeps_the_navigation(page, streamlit_server, width) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    open_first_view(page, streamlit_server.url)
    with expect_rerun(page):
        page.get_by_text("Presentation mode").click()
    page.get_by_role("button", name="Exit presentation").wait_for()
    assert not page.get_by_test_id("stSidebar").is_visible()
    nav = page.get_by_test_id("stTopNav")
    nav.wait_for()
    assert "Evaluate" in nav.inner_text() and "Teach" in nav.inner_text()
    # open Contingency from the top bar's "Evaluate" menu
    nav.get_by_text("Evaluate").click()
    link = page.get_by_test_id("stTopNavLink").filter(has_text="Contingency")
    if not link.count():  # older layouts: the section lists its pages as plain links
        link = page.locator("a").filter(has_text="Contingency")
    with expect_rerun(page):
        link.first.click()
    page.locator(f"{MAIN} h1").filter(has_text="Contingency").wait_for()
    wait_for_charts_drawn(page, MAIN)
    assert_no_exception(page)
    save_full_page(page, f"presenting_contingency_{width}")
    assert not page.js_errors, page.js_errors
