"""A counts table from an engine, uploaded through the real sidebar in chromium."""

from __future__ import annotations

import pytest

from .conftest import assert_no_exception, save_full_page
from .test_dashboard_browser import (
    MAIN,
    check_view,
    open_first_view,
    open_view,
    sidebar_message,
    upload,
)

pytestmark = pytest.mark.browser

COUNTS = b"class,cluster,count\ncat,0,300\ncat,1,40\ndog,1,250\ndog,2,30\nemu,2,180\n"
EXPANDER = "Only counts? Upload a (class, cluster, count) table"


def test_counts_table_drives_contingency_and_affinity_says_why(page, streamlit_server):
    open_first_view(page, streamlit_server.url)
    page.get_by_test_id("stSidebar").get_by_text(EXPANDER).click()
    upload(page, "Counts table (class, cluster, count)", "counts.csv", COUNTS)
    sidebar_message(page, "Success", "loaded counts.csv as a counts table").wait_for()
    assert_no_exception(page)
    assert "800 points" in page.get_by_test_id("stSidebar").inner_text()
    save_full_page(page, "counts_summary")

    open_view(page, "Contingency")
    check_view(page, "Contingency")
    heatmap = page.locator(".st-key-contingency_heatmap .js-plotly-plot")
    heatmap.locator("text", has_text="emu").first.wait_for(state="attached")
    save_full_page(page, "counts_contingency")

    open_view(page, "Affinity")
    assert_no_exception(page)
    text = page.locator(MAIN).inner_text()
    assert "unavailable" in text and "counts table" in text, text
    save_full_page(page, "counts_affinity_unavailable")
    assert not page.external_requests, page.external_requests
