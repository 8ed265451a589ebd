"""Learn's table editor in chromium: a grid of number fields (not the canvas data grid), whose
edit reruns the page with every metric recomputed, keeps the focus in the grid, cleans what is
typed, unselects the scenario and is still there after a visit of another page."""

from __future__ import annotations

import pytest

from .conftest import assert_no_exception, expect_rerun, save_full_page, wait_for_app_idle
from .test_dashboard_browser import MAIN, open_first_view, open_view

pytestmark = pytest.mark.browser


def _card(page, label: str) -> str:
    card = page.locator(f"{MAIN} .cl-metric").filter(
        has=page.locator(".cl-metric-label", has_text=label)
    )
    return card.first.locator(".cl-metric-value").inner_text().strip()


def _wait_card(page, label: str, value: str) -> None:
    page.wait_for_function(
        """([label, value]) => [...document.querySelectorAll('.cl-metric')].some((c) =>
          c.querySelector('.cl-metric-label')?.innerText.trim() === label
          && c.querySelector('.cl-metric-value')?.innerText.trim() === value)""",
        arg=[label, value],
        timeout=30_000,
    )


def test_editing_a_count_recomputes_the_metrics(page, streamlit_server) -> None:
    open_first_view(page, streamlit_server.url)
    open_view(page, "Learn")
    main = page.locator(MAIN)
    grid = main.locator(".cl-editor")
    assert grid.locator("input").count() == 6  # the seed example: 2 classes x 3 clusters
    assert main.get_by_test_id("stDataFrame").count() == 0
    cell = grid.get_by_role("spinbutton", name="class A, cluster 1")
    assert cell.input_value() == "3" and _card(page, "ACC") == "0.8800"
    with expect_rerun(page):
        cell.fill("0")
        cell.press("Tab")  # the change is sent when the cell is left
    wait_for_app_idle(page)
    _wait_card(page, "ACC", f"{88 / 97:.4f}")  # [[0, 44, 3], [2, 4, 44]]: 88 of 97 matched
    focused = page.evaluate("() => document.activeElement.getAttribute('aria-label')")
    assert focused == "class A, cluster 2"  # the rerun left the cells (and the focus) in place
    assert main.locator("[data-testid='stAlertContentInfo']").count() == 0  # no scenario now
    # typed values are cleaned by the script: negatives are 0, decimals rounded
    other = grid.get_by_role("spinbutton", name="class B, cluster 1")
    with expect_rerun(page):
        other.fill("-5")
        other.press("Enter")
    wait_for_app_idle(page)
    page.wait_for_function(
        "() => document.querySelector('.cl-editor input[aria-label=\"class B, cluster 1\"]')"
        ".value === '0'",
        timeout=30_000,
    )
    _wait_card(page, "ACC", f"{88 / 95:.4f}")
    save_full_page(page, "learn_table_edited")
    # the edited table is the page's table: still there after another page
    open_view(page, "Summary")
    open_view(page, "Learn")
    cell = (
        page.locator(MAIN)
        .locator(".cl-editor")
        .get_by_role("spinbutton", name="class A, cluster 1")
    )
    assert cell.input_value() == "0"
    _wait_card(page, "ACC", f"{88 / 95:.4f}")
    assert_no_exception(page)
