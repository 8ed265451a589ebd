"""The Sweep page's actions in chromium: "Run sweep" rebuilds the results part of the page
alone (a fragment), opening a setting rebuilds the whole page (the sidebar names it), and a
sweep that takes a while shows its Stop button, which stops it."""

from __future__ import annotations

import pytest

from ._runs import SIDEBAR, record_deltas
from .conftest import (
    assert_no_exception,
    expect_rerun,
    wait_for_app_idle,
    wait_for_charts_drawn,
)
from .test_dashboard_browser import MAIN, open_first_view, open_view

pytestmark = pytest.mark.browser

RUN_MS = 60_000
#: The lowest opacity of the main area's elements that show something: Streamlit fades the
#: elements a run has not sent again ("stale") to a third, from 0.5 s on, over a second.
_FADED_JS = """() => Math.min(1, ...[...document.querySelectorAll(
  '[data-testid="stMain"] [data-testid="stElementContainer"]')]
  .filter((e) => (e.innerText || '').trim() || e.querySelector('svg, canvas, img, table'))
  .map((e) => parseFloat(getComputedStyle(e).opacity)))"""


def _open_setup(page) -> None:
    box = page.locator(f"{MAIN} [data-testid='stExpander']").filter(has_text="Data and model")
    if not box.locator("details[open]").count():
        box.locator("summary").first.click()
    button = page.locator(".st-key-sw_run button")
    button.wait_for(timeout=RUN_MS)
    wait_for_app_idle(page)
    # A click within tens of milliseconds of the box opening was lost now and then (no rerun:
    # CI timed out waiting for the sweep; the benchmark saw it too, bench_browser.run_sweep);
    # a person reads the form first. Click once the button stands still and the box has settled.
    button.element_handle().wait_for_element_state("stable")
    page.wait_for_timeout(300)


def _finished(page):
    return page.locator(MAIN).get_by_text("settings finished in", exact=False).first


def test_run_sweep_rebuilds_the_results_alone(page, streamlit_server) -> None:
    """One click, one script run: neither the sidebar nor the form is sent again by the run
    "Run sweep" starts (they did not change), and no other run precedes it (issue 14: the
    click's cost is the sweep and its results)."""
    paths = record_deltas(page)
    open_first_view(page, streamlit_server.url)
    open_view(page, "Sweep")
    _open_setup(page)
    before = len(paths)
    page.locator(".st-key-sw_run button").click()
    _finished(page).wait_for(timeout=RUN_MS)
    wait_for_app_idle(page)
    wait_for_charts_drawn(page, MAIN)
    runs = paths[before:].count(None)
    sent = [p for p in paths[before:] if p is not None]
    assert runs == 1, f"{runs} script runs for one click"
    assert sent, "the run sent nothing"
    assert not [p for p in sent if p and p[0] == SIDEBAR], "the sidebar was sent again"
    # the run's elements all sit in one block of the main area (the results part)
    assert len({tuple(p[:2]) for p in sent}) == 1, sorted({tuple(p[:2]) for p in sent})
    assert page.locator(".st-key-sw_run button").is_visible()  # the form is still there
    assert page.locator(".st-key-sweep_tradeoff .clustlens-chart[data-drawn='1']").count() == 1
    assert_no_exception(page)
    assert not page.js_errors


def test_a_marker_of_the_new_sweep_picks_its_setting(page, streamlit_server) -> None:
    """After "Run sweep" the trade-off chart has a new figure, drawn anew (Plotly.newPlot drops
    the chart's listeners): a click on one of its markers still picks that setting of the new
    sweep."""
    open_first_view(page, streamlit_server.url)
    open_view(page, "Sweep")
    _open_setup(page)
    page.locator(".st-key-sw_run button").click()
    _finished(page).wait_for(timeout=RUN_MS)
    wait_for_app_idle(page)
    wait_for_charts_drawn(page, MAIN)
    setting = page.locator("[class*='st-key-sw_pick-'] input")
    before = setting.input_value()  # the new sweep's best setting
    markers = page.locator(".st-key-sweep_tradeoff .scatterlayer .points path.point")
    assert markers.count() >= 3
    for i in range(2):  # one of the first two markers is not the best setting
        with expect_rerun(page):
            markers.nth(i).click(force=True)
        wait_for_app_idle(page)
        wait_for_charts_drawn(page, MAIN)
        if setting.input_value() != before:
            break
    after = setting.input_value()
    assert after != before and "·" in after, (before, after)
    assert_no_exception(page)
    assert not page.js_errors


def test_opening_a_setting_shows_it_in_the_sidebar(page, streamlit_server) -> None:
    """The Open button sits in the results part, but what it changes is shown by the sidebar:
    its click rebuilds the whole page."""
    open_first_view(page, streamlit_server.url)
    open_view(page, "Sweep")
    page.locator(".st-key-sw_open button").click()
    page.locator(MAIN).get_by_text("is now the prediction in every view").wait_for(timeout=RUN_MS)
    wait_for_app_idle(page)
    shown = page.get_by_test_id("stSidebar").get_by_test_id("stSelectbox")
    shown = shown.filter(has_text="Prediction shown").locator("input").first
    page.wait_for_function(
        "(el) => el.value.startsWith('sweep: lsr')", arg=shown.element_handle(), timeout=RUN_MS
    )
    assert_no_exception(page)
    assert not page.js_errors


def test_a_long_sweep_shows_stop_and_stops(page, streamlit_server) -> None:
    """A sweep not done within a fraction of a second goes on in runs of the whole page with a
    progress bar and a Stop button above the results; Stop ends it, keeping what finished."""
    open_first_view(page, streamlit_server.url)
    open_view(page, "Sweep")
    _open_setup(page)
    # 2,500 points: each LSR setting solves a 2,500 x 2,500 system and clusters it
    points = page.locator(".st-key-sw_pps input")
    points.fill("500")
    points.press("Enter")
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=\"stCaptionContainer\"]')]"
        ".some((e) => e.textContent.includes('500 points each'))",
        timeout=RUN_MS,
    )
    wait_for_app_idle(page)
    page.locator(".st-key-sw_run button").click()
    stop = page.locator(".st-key-sw_stop button")
    stop.wait_for(timeout=RUN_MS)
    # the bar is sent right after Stop, in the same run: it may be drawn a moment later
    page.get_by_test_id("stProgress").wait_for(timeout=RUN_MS)
    assert page.get_by_test_id("stProgress").count() == 1
    # Chunk after chunk (each a run of the whole page), the results stay as they are: a chunk
    # computes once they are sent again, so none of them is stale, faded, meanwhile (they were
    # faded to a third through every chunk when it computed first; the demo's last elements,
    # with none in their places, through the whole sweep)
    lowest = 1.0
    for _ in range(12):  # over more than a second
        lowest = min(lowest, page.evaluate(_FADED_JS))
        page.wait_for_timeout(100)
    assert lowest > 0.9, f"the results faded while the sweep computed (opacity {lowest:.2f})"
    stop.click()
    warning = page.locator(MAIN).get_by_text("Stopped after", exact=False).first
    warning.wait_for(timeout=RUN_MS)
    wait_for_app_idle(page)
    text = warning.inner_text()
    done, total = [int(w) for w in text.split("after ")[1].split(" settings")[0].split(" of ")]
    assert 1 <= done < total == 11, text
    assert stop.count() == 0
    wait_for_charts_drawn(page, MAIN)
    assert page.locator(".st-key-sweep_tradeoff .clustlens-chart[data-drawn='1']").count() == 1
    assert_no_exception(page)
    assert not page.js_errors
