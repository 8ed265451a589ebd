"""Multi-view's "Run comparison" in a real browser: while it computes, its progress bar stands
where the table was, and nothing left from the table before is on the page; the click reruns
the comparison's part of the page alone, Stop brings the shipped table back at once, and a
comparison goes on across a visit of another page.

Streamlit fades the elements of the run before that a run has not sent again ("stale"), from
0.5 s on, over a second: left under the bar, the old table's elements kept the browser
re-rendering the whole page on every frame while the server computed (issue 14). The bar and
the new table go in a place of their own, and an empty element takes the old table's place.
"""

from __future__ import annotations

import re
import time

import pytest

from ._runs import SIDEBAR, record_deltas
from .conftest import assert_no_exception, expect_rerun, wait_for_app_idle
from .test_dashboard_browser import MAIN, open_first_view, open_view

pytestmark = pytest.mark.browser

#: Elements the run before left on the page that hold something (text or an image), and every
#: running CSS animation or transition except the progress bar's own and those the pointer
#: starts: the hover colour of the element under it or just left (a colour transition: the
#: "Recompute it" box's title fading back once the page moved from under the pointer), and a
#: chart's mode bar, which fades in and out as the pointer enters or leaves the chart (the page
#: moves under the pointer when the bar takes the table's place; all three were seen in CI, the
#: page unchanged). Stale elements fade by their opacity, which stays counted.
_LEFT_OVER_JS = """() => ({
  stale: [...document.querySelectorAll('[data-stale="true"]')]
    .filter((e) => (e.innerText || '').trim() || e.querySelector('img, svg, canvas, table'))
    .map((e) => (e.innerText || e.tagName).trim().slice(0, 60)),
  animated: document.getAnimations()
    .filter((a) => !(a.effect && a.effect.target
                     && (a.effect.target.closest('[data-testid="stProgress"]')
                         || a.effect.target.matches(':hover')
                         || /(^|-)color$/.test(a.transitionProperty || '')
                         || a.effect.target.closest('.modebar-container'))))
    .map((a) => (a.transitionProperty || a.animationName) + ' on '
                + (a.effect && a.effect.target ? a.effect.target.tagName : '?')
                + ' ' + a.constructor.name
                + (a.effect && a.effect.target
                   ? ' (' + (a.effect.target.innerText || '').trim().slice(0, 40) + ' | '
                     + (a.effect.target.className || '') + ')' : '')),
})"""

#: Comparison tables shown (not stale) after the "Method comparison" heading.
_TABLES_JS = """() => {
  const main = document.querySelector('[data-testid="stMain"]');
  const head = [...main.querySelectorAll('h3')].find(
    (h) => h.innerText.startsWith('Method comparison'));
  return [...main.querySelectorAll('table.cl-table')].filter((t) =>
    !t.closest('[data-stale="true"]')
    && (head.compareDocumentPosition(t) & Node.DOCUMENT_POSITION_FOLLOWING)).length;
}"""


def _running(page) -> bool:
    return (
        page.locator('[data-testid="stApp"]').get_attribute("data-test-script-state") == "running"
    )


def test_run_comparison_replaces_the_table_with_its_bar_and_leaves_nothing_stale(
    page, streamlit_server
) -> None:
    open_first_view(page, streamlit_server.url)
    open_view(page, "Multi-view")
    assert page.evaluate(_TABLES_JS) == 1  # the shipped comparison
    with expect_rerun(page):  # the controls' box is built when opened
        page.get_by_test_id("stExpander").filter(has_text="Recompute it").locator("summary").click()
    run = page.get_by_role("button", name="Run comparison")
    run.wait_for(timeout=30_000)
    # the pointer onto the button first, as a person's: leaving the box's title (clicked above)
    # fades its hover colour, which the check below once caught in CI
    run.hover()
    # the box's own opening animation over: any animation after the click is the run's
    page.wait_for_function("() => document.getAnimations().length === 0", timeout=10_000)
    run.click()
    bar = page.locator(f'{MAIN} [data-testid="stProgress"]').first
    bar.get_by_text(re.compile(r"\d+ of \d+ steps")).first.wait_for(timeout=60_000)
    looked = 0
    # at once, and past the 0.5 s after which Streamlit starts fading stale elements
    for pause in (0.0, 0.7):
        time.sleep(pause)
        seen = page.evaluate(_LEFT_OVER_JS)
        if not _running(page):
            break  # the run is over: what is on the page now is the next check's
        assert seen["stale"] == [], f"the run before's elements left under the bar: {seen}"
        assert seen["animated"] == [], f"animations while the server computes: {seen}"
        assert page.evaluate(_TABLES_JS) == 0  # the bar stands where the table was
        looked += 1
    assert looked >= 1, "the comparison ended before the page could be looked at"
    wait_for_app_idle(page, 180_000)
    assert_no_exception(page)
    assert page.get_by_text(re.compile(r"computed here in")).count() >= 1
    assert page.evaluate(_TABLES_JS) == 1  # the new table, once
    # a rerun of the page (a control of the form, which takes effect on the next Run) shows the
    # kept table, once: the run's own place is emptied
    with expect_rerun(page):
        page.locator(f'{MAIN} [data-testid="stRadio"]').filter(
            has_text="baseline settings chosen"
        ).get_by_test_id("stRadioOption").nth(1).click()
    wait_for_app_idle(page)
    assert page.evaluate(_TABLES_JS) == 1
    assert page.get_by_text(re.compile(r"computed here in")).count() >= 1
    with expect_rerun(page):
        page.get_by_role("button", name="Back to the precomputed table").click()
    wait_for_app_idle(page)
    assert page.evaluate(_TABLES_JS) == 1
    assert_no_exception(page)


_BAR_STEPS = re.compile(r"(\d+) of (\d+) steps")


def _open_recompute(page) -> None:
    with expect_rerun(page):  # the controls' box is built when opened
        page.get_by_test_id("stExpander").filter(has_text="Recompute it").locator("summary").click()
    page.get_by_role("button", name="Run comparison").wait_for(timeout=30_000)
    page.wait_for_function("() => document.getAnimations().length === 0", timeout=10_000)


def _steps_shown(page) -> int | None:
    """The steps the comparison's bar says are done (None without a bar)."""
    bars = page.locator(f'{MAIN} [data-testid="stProgress"]')
    if not bars.count():
        return None
    found = _BAR_STEPS.search(bars.first.inner_text())
    return int(found.group(1)) if found else None


def test_run_comparison_reruns_its_part_alone_and_stop_brings_the_shipped_table_back(
    page, streamlit_server
) -> None:
    """Run, then Stop while it computes: neither click rebuilds the page above the comparison
    (its title, SSF's figures) nor the sidebar, and Stop is seen at once — the comparison
    computes on a thread of its own while the part's run waits for it a little at a time."""
    paths = record_deltas(page)
    open_first_view(page, streamlit_server.url)
    open_view(page, "Multi-view")
    _open_recompute(page)
    runs = page.locator(".st-key-mv_runs input")
    runs.fill("10")  # several seconds of computing: Stop comes well before its end
    runs.press("Enter")
    wait_for_app_idle(page)
    before = len(paths)
    page.get_by_role("button", name="Run comparison").click()
    stop = page.get_by_role("button", name="Stop")
    stop.wait_for(timeout=60_000)
    page.locator(f'{MAIN} [data-testid="stProgress"]').first.wait_for(timeout=60_000)
    t0 = time.perf_counter()
    stop.click()
    page.get_by_text("Shown at once: the comparison precomputed").wait_for(timeout=10_000)
    seen_in = time.perf_counter() - t0
    wait_for_app_idle(page)
    assert seen_in < 2.0, f"Stop took {seen_in:.2f} s to bring the shipped table back"
    assert stop.count() == 0 and page.evaluate(_TABLES_JS) == 1
    assert page.get_by_text(re.compile(r"computed here in")).count() == 0
    sent = [p for p in paths[before:] if p is not None]
    assert sent, "the clicks sent nothing"
    assert not [p for p in sent if p[0] == SIDEBAR], "the sidebar was sent again"
    assert not [p for p in sent if p[:2] == [0, 0]], "the page's title was sent again"
    assert_no_exception(page)


def test_a_comparison_goes_on_across_a_visit_of_another_page(page, streamlit_server) -> None:
    """Away on another page and back, the comparison is where it was (its bar does not start
    again from 0), and it finishes with its table."""
    open_first_view(page, streamlit_server.url)
    open_view(page, "Multi-view")
    _open_recompute(page)
    runs = page.locator(".st-key-mv_runs input")
    runs.fill("10")
    runs.press("Enter")
    wait_for_app_idle(page)
    page.get_by_role("button", name="Run comparison").click()
    deadline = time.monotonic() + 60
    while (_steps_shown(page) or 0) < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    left_at = _steps_shown(page)
    assert left_at is not None and left_at >= 2, left_at
    open_view(page, "Summary")
    page.wait_for_timeout(1000)
    page.get_by_test_id("stSidebarNavLink").filter(has_text="Multi-view").click()
    page.locator(f"{MAIN} h1").filter(has_text="Multi-view").wait_for(timeout=60_000)
    back_at = None
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        back_at = _steps_shown(page)
        if back_at is not None or page.get_by_text(re.compile(r"computed here in")).count():
            break
        page.wait_for_timeout(20)
    if back_at is not None:  # still computing: from where it was, not from 0
        assert back_at >= left_at, (left_at, back_at)
    wait_for_app_idle(page, 180_000)
    assert page.get_by_text(re.compile(r"computed here in")).count() >= 1
    assert page.evaluate(_TABLES_JS) == 1
    assert_no_exception(page)
