"""A finding's links in chromium: from Summary, "→ Contingency" on the merge opens Contingency
with the merged cluster's column outlined and spelled out, "→ Affinity" opens Affinity on the
merged classes; the session's address (``?sid=``) travels with the link."""

from __future__ import annotations

import pytest

from .conftest import assert_no_exception, expect_rerun, save_full_page, wait_for_charts_drawn
from .test_dashboard_browser import MAIN, open_first_view, open_tab, open_view

pytestmark = pytest.mark.browser

#: Shapes drawn in the focus colour in the chart with key ``key`` (the figure Plotly holds).
FOCUS_SHAPES = """(key) => {
  const el = document.querySelector(`.st-key-${key} .js-plotly-plot`);
  if (!el || !el._fullLayout) return -1;
  return (el._fullLayout.shapes || []).filter(s => s.line && s.line.color === '#c026d3').length;
}"""


def _follow(page, label: str, index: int = 0) -> None:
    link = page.locator(MAIN).get_by_role("link", name=label).nth(index)
    with expect_rerun(page):
        link.click()
    wait_for_charts_drawn(page, MAIN)
    assert_no_exception(page)


def test_finding_links_open_pages_on_the_finding(page, streamlit_server) -> None:
    open_first_view(page, streamlit_server.url)
    sid = page.url.split("sid=")[-1][:32]
    # the first finding on the demo is the merge of classes 4 and 5 into cluster 4
    _follow(page, "→ Contingency")
    page.locator(f"{MAIN} h1").filter(has_text="Contingency").wait_for()
    assert "cluster=4" in page.url and f"sid={sid}" in page.url
    box = page.get_by_test_id("stAlertContentInfo").filter(has_text="Opened on cluster 4")
    assert "cluster 4: 155 points ← class 4 78 (50%), class 5 76 (49%)" in box.inner_text()
    assert page.evaluate(FOCUS_SHAPES, "contingency_heatmap") == 1
    save_full_page(page, "focus_contingency_cluster_4")

    page.goto(page.url.split("?")[0].rsplit("/", 1)[0] + f"/?sid={sid}")
    page.locator(f"{MAIN} h1").filter(has_text="Summary").wait_for()
    wait_for_charts_drawn(page, MAIN)
    _follow(page, "→ Affinity")
    page.locator(f"{MAIN} h1").filter(has_text="Affinity").wait_for()
    assert "class=4&class=5" in page.url
    text = page.get_by_test_id("stAlertContentInfo").filter(has_text="Opened on").inner_text()
    assert "classes 4 and 5" in text and "class 4: CONN λ₂" in text and "class 5: CONN λ₂" in text
    assert page.evaluate(FOCUS_SHAPES, "affinity_plot") == 4
    save_full_page(page, "focus_affinity_classes_4_5")
    open_tab(page, "Between classes: leakage")  # the leaks, outlined in their tab
    assert "class=4&class=5" in page.url
    assert page.evaluate(FOCUS_SHAPES, "leakage_matrix") == 4
    open_tab(page, "Per class: CONN and SRE")  # the tab is kept for the next visit


def test_outline_it_here_reruns_the_page_on_the_finding(page, streamlit_server) -> None:
    """On Contingency, a finding's "outline it here" reopens the page itself on the finding
    (the address carries it); a middle click would open the same address in a new tab."""
    open_first_view(page, streamlit_server.url)
    open_view(page, "Contingency")
    here = page.locator(MAIN).get_by_role("link", name="outline it here")
    assert here.count() >= 2
    href = here.nth(1).get_attribute("href")  # the split of class 1
    assert href.split("&sid=")[0] == "contingency?class=1"
    _follow(page, "outline it here", 1)
    page.wait_for_function("() => location.search.includes('class=1')")
    box = page.get_by_test_id("stAlertContentInfo").filter(has_text="Opened on class 1")
    box.wait_for()
    assert page.evaluate(FOCUS_SHAPES, "contingency_heatmap") == 1
