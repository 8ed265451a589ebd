"""The self-contained HTML report opened offline in a real browser.

The report (``dashboard/report.py``) is built from the demo-like data of these tests (N = 1,200,
so the affinity plot is the pooled image), written to a temporary file and opened as
``file://`` with every network request aborted and recorded: every figure must draw and not a
single http(s) request may be attempted. Screenshot: ``tests/artifacts/report.png``.
"""

from __future__ import annotations

import hashlib
import time

import pytest

from ._data import CLASS_NAMES, make_dataset
from .conftest import ARTIFACTS, DRAW_TIMEOUT_MS, offline_context, record_timing

pytestmark = pytest.mark.browser

HOSTILE_TITLE = "<script>window.__pwned = 1</script> report *of* [runs]"


def _build_report(tmp_path) -> tuple[str, int, str]:
    """Write the report; return its file:// URL, its number of figures, the truth's SHA-256."""
    from dashboard.analysis.conventions import Conventions
    from dashboard.analysis.objects import analyse
    from dashboard.figures.panels import report_figures
    from dashboard.outputs import report

    ds = make_dataset()
    truth_bytes = "\n".join(ds.labels_true).encode()
    analysis = analyse(
        ds.labels_true, {"spectral_pred.npy": ds.labels_pred}, ds.coef, Conventions()
    )
    figures = report_figures(analysis)
    inputs = [
        report.input_info("ground truth", "activity_truth.txt", truth_bytes),
        report.input_info("prediction", "spectral_pred.npy", ds.labels_pred.tobytes()),
    ]
    text = report.analysis_report(analysis, inputs=inputs, title=HOSTILE_TITLE)
    path = tmp_path / "report.html"
    path.write_text(text, encoding="utf-8")
    return path.as_uri(), len(figures), hashlib.sha256(truth_bytes).hexdigest()


def test_report_opens_offline_with_every_figure_drawn(browser, tmp_path) -> None:
    t0 = time.perf_counter()
    url, n_figures, truth_sha = _build_report(tmp_path)
    record_timing(f"report built ({n_figures} figures, N = 1,200)", time.perf_counter() - t0)
    assert n_figures >= 4, "expected contingency, flow, pair confusion and affinity figures"

    context, requests = offline_context(browser, allow_prefix=url)
    page = context.new_page()
    errors: list[str] = []
    csp: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.on(
        "console",
        lambda m: csp.append(m.text) if "Content Security Policy" in m.text else None,
    )
    try:
        t0 = time.perf_counter()
        page.goto(url)
        # every figure container drew its SVG (a Plotly figure has several .main-svg layers,
        # so count the figures that have at least one)
        page.wait_for_function(
            """(n) => {
              const plots = [...document.querySelectorAll('.js-plotly-plot')];
              return plots.length === n && plots.every(p => p.querySelector('.main-svg'));
            }""",
            arg=n_figures,
            timeout=DRAW_TIMEOUT_MS,
            polling=100,
        )
        record_timing("report opened offline, every figure drawn", time.perf_counter() - t0)

        drawn = page.locator(".js-plotly-plot").count()
        assert drawn == n_figures, f"{drawn} Plotly figures on the page, {n_figures} built"
        # the pooled affinity plot is an image inside the SVG (a data: URI, no request)
        assert page.locator(".js-plotly-plot image").count() >= 1
        net = [u for u in requests if u.startswith(("http:", "https:", "ws:", "wss:"))]
        assert net == [], f"the report tried to load from the network: {net}"
        assert not errors, f"uncaught errors in the report: {errors}"
        assert not csp, f"Content-Security-Policy violations: {csp}"

        # user strings are shown literally and never run
        assert page.evaluate("() => window.__pwned") is None
        assert page.locator("h1").inner_text().strip() == HOSTILE_TITLE
        assert (
            page.get_by_text(CLASS_NAMES[4]).count()
            + page.locator("svg text", has_text=CLASS_NAMES[4]).count()
            >= 1
        ), "the class name with HTML in it is not shown literally"
        assert page.locator('img[src="x"]').count() == 0

        # inputs are named with their SHA-256
        assert truth_sha in page.locator("body").inner_text()

        ARTIFACTS.mkdir(parents=True, exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / "report.png"), full_page=True)
    finally:
        context.close()
