"""The Points page in chromium: the HW demo's images on a lasso selection, and 100,000 points."""

from __future__ import annotations

import io
import time

import numpy as np
import pytest
import scipy.sparse as sp

from .conftest import (
    assert_no_exception,
    expect_rerun,
    record_timing,
    save_full_page,
    wait_for_app_idle,
    wait_for_charts_drawn,
    wait_for_layout_stable,
)
from .test_dashboard_browser import MAIN, check_view, open_first_view, open_view, upload

pytestmark = pytest.mark.browser

N_BIG, K_BIG = 100_000, 20

#: Points drawn in a chart's scatter traces (WebGL above SVG_MAX_POINTS), summed over traces
#: (the figure data Plotly holds).
COUNT_POINTS = """(key) => {
  const el = document.querySelector(`.st-key-${key} .js-plotly-plot`);
  if (!el || !el._fullData) return -1;
  return el._fullData.filter(t => ['scattergl', 'scatter'].includes(t.type)
      && t.name !== undefined && !String(t.name).startsWith('opened'))
    .reduce((s, t) => s + (t.x ? t.x.length : 0), 0);
}"""


def big_inputs(seed: int = 0) -> tuple[bytes, bytes, bytes]:
    """Ground truth, a prediction (class 0 split, 3% scattered errors) and a sparse C (N x N,
    5 coefficients per row, one in ten outside the point's class), as file bytes."""
    rng = np.random.default_rng(seed)
    truth = np.repeat(np.arange(K_BIG), N_BIG // K_BIG)
    pred = truth.copy()
    pred[: N_BIG // K_BIG // 2] = K_BIG
    flip = rng.random(N_BIG) < 0.03
    pred[flip] = rng.integers(0, K_BIG, flip.sum())
    per = N_BIG // K_BIG
    rows = np.repeat(np.arange(N_BIG), 5)
    same = truth[rows] * per + rng.integers(0, per, rows.size)
    other = rng.integers(0, N_BIG, rows.size)
    cols = np.where(rng.random(rows.size) < 0.9, same, other)
    c = sp.csr_array((rng.random(rows.size) + 0.1, (rows, cols)), shape=(N_BIG, N_BIG))
    buf = io.BytesIO()
    sp.save_npz(buf, sp.csr_matrix(c), compressed=True)

    def text(v: np.ndarray) -> bytes:
        return ("\n".join(map(str, v)) + "\n").encode()

    return text(truth), text(pred), buf.getvalue()


def test_hw_demo_lasso_lists_points_and_draws_their_images(page, streamlit_server) -> None:
    open_first_view(page, streamlit_server.url)
    open_view(page, "Points")
    check_view(page, "Points")
    button = page.get_by_role("button", name="Load the handwritten-digits demo")
    with expect_rerun(page):
        button.click()
    page.locator(f"{MAIN}").get_by_text("2,000 handwritten digits").first.wait_for()
    wait_for_app_idle(page)
    # drawn for good (not Streamlit's hidden first draw): a lasso over a plot replaced under the
    # mouse selects nothing and reruns nothing
    wait_for_charts_drawn(page, MAIN)
    # and in place: a plot that still moves or resizes (the page growing below it) cancels the
    # drag (a clean-clone run once drew the lasso into a plot being resized: no selection)
    wait_for_layout_stable(page)
    assert page.evaluate(COUNT_POINTS, "points_plot_affinity_prediction") == 2000
    plot = page.locator(".st-key-points_plot_affinity_prediction .js-plotly-plot .nsewdrag")
    box = plot.first.bounding_box()
    assert box is not None
    # a lasso around the middle of the plot: some classes are pulled there
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    r = min(box["width"], box["height"]) * 0.45
    with expect_rerun(page):
        page.mouse.move(cx + r, cy)
        page.mouse.down()
        for t in np.linspace(0, 2 * np.pi, 40):
            page.mouse.move(cx + r * np.cos(t), cy + r * np.sin(t), steps=2)
        page.mouse.up()
    wait_for_app_idle(page)
    main = page.locator(MAIN)
    save_full_page(page, "points_hw_lasso")
    main.get_by_text("misassigned · mean SRE").first.wait_for()
    assert page.locator(f'{MAIN} [data-testid="stDataFrame"]').count() == 1
    page.locator(f'{MAIN} [data-testid="stImage"] img').first.wait_for()
    assert "images, in the table's order" in main.inner_text()
    assert_no_exception(page)
    save_full_page(page, "points_hw_lasso")
    # left and visited again: the page has no selection any more, and neither has the chart (a
    # chart with a selection on it is drawn anew, not given back as it was left)
    open_view(page, "Summary")
    open_view(page, "Points")
    wait_for_charts_drawn(page, MAIN)
    assert "images, in the table's order" not in main.inner_text()
    selected = page.evaluate(
        "() => document.querySelector('.st-key-points_plot_affinity_prediction .js-plotly-plot')"
        "._fullData.some((t) => Array.isArray(t.selectedpoints) && t.selectedpoints.length)"
    )
    assert selected is False
    assert page.evaluate(COUNT_POINTS, "points_plot_affinity_prediction") == 2000
    assert not page.js_errors, page.js_errors


def test_points_page_draws_100000_points(page, streamlit_server) -> None:
    truth, pred, coef = big_inputs()
    open_first_view(page, streamlit_server.url)
    upload(page, "Ground-truth labels", "truth_100k.txt", truth)
    upload(page, "Predicted labels (one or more files)", "pred_100k.txt", pred)
    upload(page, "Coefficient matrix C", "coef_100k.npz", coef)
    t0 = time.perf_counter()
    open_view(page, "Points")
    key = "points_plot_affinity_prediction"
    page.locator(f".st-key-{key} .js-plotly-plot .main-svg").first.wait_for(timeout=120_000)
    wait_for_charts_drawn(page, MAIN)
    record_timing("Points page, 100,000 points with a sparse C", time.perf_counter() - t0)
    assert_no_exception(page)
    assert page.evaluate(COUNT_POINTS, key) == N_BIG
    assert "100,000 points" in page.locator(MAIN).inner_text()
    save_full_page(page, "points_100k")
    assert not page.js_errors, page.js_errors
