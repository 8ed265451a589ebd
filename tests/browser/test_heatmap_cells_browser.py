"""The affinity plot of a sparse C is sent as its non-zero cells (``heatmap_cells``: x, y, z
columns, 62 kB for the demo instead of 1.13 MB of grid): in chromium, with the plotly.js the
dashboard serves, it is drawn pixel for pixel as the full grid is, and hovers the same values
at the same cells (and nothing over a cell without a coefficient)."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest

from dashboard.analysis.objects import affinity_display
from dashboard.figures.affinity import affinity_figure, heatmap_grid
from dashboard.inputs import load_demo
from dashboard.ui.chart_element import _plotly_js_source

from .conftest import new_page, offline_context

pytestmark = pytest.mark.browser

# draws a figure into a fresh 900 px wide div; returns its PNG (as data URI)
_DRAW = """async ([spec, id]) => {
  const f = JSON.parse(spec);
  const el = document.createElement('div');
  el.id = id;
  el.style.width = '900px';
  document.body.appendChild(el);
  await Plotly.newPlot(el, f.data, f.layout, {displaylogo: false});
  return Plotly.toImage(el, {format: 'png', width: 900, height: 760});
}"""
# hovers the cell (x, y) of the chart ``id``; returns the hover label's text ('' if none)
_HOVER = """([id, x, y]) => {
  const gd = document.getElementById(id);
  Plotly.Fx.unhover(gd);
  Plotly.Fx.hover(gd, {xval: x, yval: y}, 'xy');
  const label = gd.querySelector('.hoverlayer .hovertext');
  return label ? label.textContent : '';
}"""


@pytest.fixture(scope="module")
def demo_figures() -> tuple[go.Figure, go.Figure, np.ndarray]:
    """The demo's affinity plot as sent (cells as columns) and with its full grid instead."""
    truth, preds, coef = load_demo()
    disp = affinity_display(truth.value, preds[0].value, coef.value, "ground truth")
    sent = affinity_figure(disp, log=True)
    values = np.asarray(disp["values"], dtype=np.float64)
    with np.errstate(divide="ignore"):
        grid = np.where(values > 0, np.log10(values), np.nan)  # the per-cell grid, log colour
    assert np.asarray(sent.data[0].z).ndim == 1, "the demo's plot is expected in column form"
    np.testing.assert_array_equal(heatmap_grid(sent.data[0], len(values)), grid.astype(np.float32))
    full = go.Figure(sent)
    full.data[0].update(x=None, y=None, z=grid.astype(np.float32))
    return sent, full, grid


def test_cells_as_columns_draw_and_hover_as_the_full_grid(browser, demo_figures) -> None:
    sent, full, grid = demo_figures
    context, blocked = offline_context(browser)
    try:
        page = new_page(context, blocked)
        page.set_content("<html><body style='margin:0'></body></html>")
        page.add_script_tag(path=str(_plotly_js_source()))
        png_sent = page.evaluate(_DRAW, [sent.to_json(), "sent"])
        png_full = page.evaluate(_DRAW, [full.to_json(), "full"])
        assert png_sent == png_full, "the column form is drawn differently from the grid"
        rows, cols = np.nonzero(np.isfinite(grid))
        empty_r, empty_c = np.nonzero(~np.isfinite(grid))
        rng = np.random.default_rng(0)
        picks = [(int(cols[i]), int(rows[i])) for i in rng.choice(rows.size, 6, replace=False)]
        picks += [(int(cols[-1]), int(rows[-1]))]  # the last row's last cell
        for x, y in picks:
            got = page.evaluate(_HOVER, ["sent", x, y])
            assert got == page.evaluate(_HOVER, ["full", x, y]) and got, (x, y, got)
            assert f"position {y}" in got and f"position {x}" in got
            assert f"= {grid[y, x]:.2f}" in got, (x, y, got, grid[y, x])
        for i in rng.choice(empty_r.size, 3, replace=False):
            x, y = int(empty_c[i]), int(empty_r[i])
            assert page.evaluate(_HOVER, ["sent", x, y]) == "", (x, y)  # a gap: no value
        assert not page.js_errors, page.js_errors
    finally:
        context.close()
    assert len(sent.to_json()) < 100_000 < 1_000_000 < len(full.to_json())
    assert json.loads(sent.to_json())["data"][0]["type"] == "heatmap"
