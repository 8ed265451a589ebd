"""The Affinity page's choices in chromium: the plot's sort and colour rerun the plot alone, a
tab below it or the leakage scale that part alone (fragments); the sidebar is not sent again."""

from __future__ import annotations

import pytest

from ._runs import SIDEBAR, record_deltas
from .conftest import assert_no_exception, expect_rerun, wait_for_charts_drawn
from .test_dashboard_browser import MAIN, open_first_view, open_tab, open_view

pytestmark = pytest.mark.browser

RUN_MS = 60_000


def _choose(page, label: str, option: str) -> None:
    group = page.locator(f"{MAIN} [data-testid='stRadio']").filter(
        has=page.get_by_test_id("stWidgetLabel").get_by_text(label, exact=True)
    )
    group.get_by_test_id("stRadioOption").filter(has_text=option).first.click()


@pytest.mark.parametrize(
    ("label", "option", "shown"),
    [
        ("Colour", "linear", "(linear colour)"),
        ("Sort points by", "prediction", "sorted by prediction"),
    ],
)
def test_a_plot_choice_reruns_the_plot_alone(page, streamlit_server, label, option, shown):
    paths = record_deltas(page)
    open_first_view(page, streamlit_server.url)
    open_view(page, "Affinity")
    plot = ".st-key-affinity_plot .main-svg"
    page.locator(plot).first.wait_for(timeout=RUN_MS)
    assert shown not in page.locator(plot).first.text_content()
    conn = page.locator(".st-key-conn_bars .clustlens-chart").first.element_handle()
    before = len(paths)
    with expect_rerun(page):
        _choose(page, label, option)
    page.wait_for_function(
        "([sel, text]) => [...document.querySelectorAll(sel)]"
        "  .some((e) => e.textContent.includes(text))",
        arg=[plot, shown],
        timeout=RUN_MS,
    )
    wait_for_charts_drawn(page, MAIN)
    runs = paths[before:].count(None)
    sent = [p for p in paths[before:] if p is not None]
    assert runs == 1, f"{runs} script runs for one choice"
    assert sent, "the run sent nothing"
    assert not [p for p in sent if p and p[0] == SIDEBAR], "the sidebar was sent again"
    # everything the run sent sits in the fragment's block, above the per-class charts
    assert len({tuple(p[:2]) for p in sent}) == 1, sorted({tuple(p[:2]) for p in sent})
    # the CONN bars are the same element, not drawn again
    assert conn.evaluate("e => e.isConnected && e.dataset.drawn === '1'")
    assert_no_exception(page)
    assert not page.js_errors


def test_a_tab_and_the_leakage_scale_rerun_the_part_below_the_plot_alone(page, streamlit_server):
    """The tabs below the plot (per class, per point, between classes) are built when opened:
    a tab, and the leakage tab's colour scale, rerun that part of the page alone (the sidebar
    and the plot are not sent again; the plot is not drawn again)."""
    paths = record_deltas(page)
    open_first_view(page, streamlit_server.url)
    open_view(page, "Affinity")
    plot = page.locator(".st-key-affinity_plot .clustlens-chart").first.element_handle()
    assert page.locator(".st-key-leakage_matrix").count() == 0  # its tab is not open
    for step in ("tab", "scale"):
        before = len(paths)
        if step == "tab":
            open_tab(page, "Between classes: leakage")
        else:
            with expect_rerun(page):
                _choose(page, "Leakage colour scale", "stretched to the largest leak")
            page.wait_for_function(
                "() => [...document.querySelectorAll('.st-key-leakage_matrix .main-svg')]"
                "  .some((e) => e.textContent.includes('scale up to the largest leak'))",
                timeout=RUN_MS,
            )
        wait_for_charts_drawn(page, MAIN)
        runs = paths[before:].count(None)
        sent = [p for p in paths[before:] if p is not None]
        assert runs == 1, f"{step}: {runs} script runs for one click"
        assert not [p for p in sent if p and p[0] == SIDEBAR], f"{step}: the sidebar was sent"
        assert len({tuple(p[:2]) for p in sent}) == 1, (step, sorted({tuple(p[:2]) for p in sent}))
        assert (
            page.locator(".st-key-leakage_matrix .clustlens-chart").first.get_attribute(
                "data-drawn"
            )
            == "1"
        )
        assert plot.evaluate("e => e.isConnected && e.dataset.drawn === '1'"), step
    assert page.locator(".st-key-conn_bars").count() == 0  # the first tab's charts are gone
    _choose(page, "Leakage colour scale", "absolute (shares 0–1)")
    wait_for_charts_drawn(page, MAIN)
    open_tab(page, "Per class: CONN and SRE")  # the tab is kept for the next visit
    assert_no_exception(page)
    assert not page.js_errors
