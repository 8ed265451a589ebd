"""Fault: the page is reloaded while the server is computing for it.

The Multi-view method comparison runs inside the script run (seconds on the demo); the browser
reloads in the middle. The reloaded page must come back (no exception, its views drawn), the
next computation must run, and the server must stay healthy.
"""

from __future__ import annotations

import re
import time

import pytest

from .conftest import assert_no_exception, wait_for_app_idle, wait_for_charts_drawn
from .test_dashboard_browser import MAIN, check_view, open_first_view, open_view

pytestmark = pytest.mark.browser


def test_reload_mid_computation_leaves_the_session_usable(page, streamlit_server) -> None:
    open_first_view(page, streamlit_server.url)
    open_view(page, "Multi-view")
    # the comparison's controls are in a box built when opened (a rerun)
    page.get_by_test_id("stExpander").filter(has_text="Recompute it").locator("summary").click()
    run = page.get_by_role("button", name="Run comparison")
    run.wait_for(timeout=30_000)
    wait_for_app_idle(page)
    run.click()
    # the comparison is running: the app says so
    page.wait_for_function(
        """() => document.querySelector('[data-testid="stApp"]')
             .getAttribute('data-test-script-state') === 'running'""",
        timeout=30_000,
    )
    # its progress bar counts the steps done ("5 of 15 steps — SC_mfeat-fou: ..."), redrawn
    # every half second: the demo's comparison (~1.6 s here) is then still running
    bar = page.locator(f'{MAIN} [data-testid="stProgress"]').first
    bar.get_by_text(re.compile(r"[1-9]\d* of \d+ steps")).first.wait_for(timeout=60_000)
    time.sleep(0.2)
    page.reload()
    page.locator(f"{MAIN} h1").first.wait_for(timeout=60_000)
    wait_for_app_idle(page, 120_000)
    wait_for_charts_drawn(page, MAIN)
    assert_no_exception(page)
    assert "Multi-view" in page.locator(f"{MAIN} h1").first.inner_text()
    # the session computes again: another view draws from scratch
    open_view(page, "Contingency")
    check_view(page, "Contingency")
    assert_no_exception(page)
    assert streamlit_server.health().strip() == "ok"
    assert streamlit_server.alive()
