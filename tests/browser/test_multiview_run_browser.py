"""Multi-view's "Run comparison" in a real browser: while it computes, its progress bar stands
where the table was, and nothing left from the table before is on the page.

Streamlit fades the elements of the run before that a run has not sent again ("stale"), from
0.5 s on, over a second: left under the bar, the old table's elements kept the browser
re-rendering the whole page on every frame while the server computed (issue 14). The bar and
the new table go in a place of their own, and an empty element takes the old table's place.
"""

from __future__ import annotations

import re
import time

import pytest

from .conftest import assert_no_exception, expect_rerun, wait_for_app_idle
from .test_dashboard_browser import MAIN, open_first_view, open_view

pytestmark = pytest.mark.browser

#: Elements the run before left on the page that hold something (text or an image), and every
#: running CSS animation or transition except the progress bar's own.
_LEFT_OVER_JS = """() => ({
  stale: [...document.querySelectorAll('[data-stale="true"]')]
    .filter((e) => (e.innerText || '').trim() || e.querySelector('img, svg, canvas, table'))
    .map((e) => (e.innerText || e.tagName).trim().slice(0, 60)),
  animated: document.getAnimations()
    .filter((a) => !(a.effect && a.effect.target
                     && a.effect.target.closest('[data-testid="stProgress"]')))
    .map((a) => (a.transitionProperty || a.animationName) + ' on '
                + (a.effect && a.effect.target ? a.effect.target.tagName : '?')
                + ' ' + a.constructor.name),
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
