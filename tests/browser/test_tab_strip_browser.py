"""Our tab strip in chromium (dashboard/ui/tab_strip.py): a tablist whose click opens a tab
(a rerun: only the open tab is built, below the strip), reachable and usable from the keyboard
(the focus stays on the strip across the rerun), and the tab opened kept for the next visit."""

from __future__ import annotations

import pytest

from .conftest import assert_no_exception, expect_rerun, save_full_page, wait_for_app_idle
from .test_dashboard_browser import MAIN, open_first_view, open_view

pytestmark = pytest.mark.browser

_OPEN_JS = """() => [...document.querySelectorAll('[role="tab"][aria-selected="true"]')]
    .map((t) => t.textContent)"""


def _strip(page):
    return page.locator(f'{MAIN} [role="tablist"]').first


def test_tabs_open_by_click_and_keyboard_and_are_kept(page, streamlit_server) -> None:
    open_first_view(page, streamlit_server.url)
    open_view(page, "Learn")
    strip = _strip(page)
    assert strip.get_attribute("aria-label") == "Learn: sections"
    assert page.locator(f'{MAIN} [data-testid="stTabs"]').count() == 0  # not Streamlit's
    tabs = strip.get_by_role("tab")
    assert tabs.all_inner_texts()[0] == "Contingency table"
    assert page.evaluate(_OPEN_JS) == ["Contingency table"]
    # only the open tab is focusable from outside (one Tab stop for the strip)
    assert [t.get_attribute("tabindex") for t in tabs.all()] == ["0", "-1", "-1", "-1", "-1"]

    with expect_rerun(page):
        strip.get_by_role("tab", name="Random labels", exact=True).click()
    wait_for_app_idle(page)
    assert page.evaluate(_OPEN_JS) == ["Random labels"]
    assert page.locator(f"{MAIN} .st-key-learn_null_n").count() == 1  # its slider, below
    assert page.evaluate("() => document.activeElement.textContent") == "Random labels"

    # arrows move the focus without opening; Enter opens the tab focused
    page.keyboard.press("ArrowRight")
    assert page.evaluate("() => document.activeElement.textContent") == "SRE / CONN"
    assert page.evaluate(_OPEN_JS) == ["Random labels"]
    with expect_rerun(page):
        page.keyboard.press("Enter")
    wait_for_app_idle(page)
    assert page.evaluate(_OPEN_JS) == ["SRE / CONN"]
    assert page.locator(f"{MAIN} .st-key-learn_leak").count() == 1
    page.keyboard.press("End")
    assert page.evaluate("() => document.activeElement.textContent") == "Questions"
    page.keyboard.press("ArrowRight")  # wraps around
    assert page.evaluate("() => document.activeElement.textContent") == "Contingency table"
    assert_no_exception(page)
    save_full_page(page, "learn_tab_strip")

    open_view(page, "Summary")
    open_view(page, "Learn")
    assert page.evaluate(_OPEN_JS) == ["SRE / CONN"]  # kept for the session
