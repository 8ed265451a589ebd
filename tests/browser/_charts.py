"""When a page's charts and tables are drawn: one predicate for the browser tests, the load
test and the browser benchmark (``tests/benchmarks/bench_browser.py``)."""

from __future__ import annotations

#: ``(scope) => bool``: in ``scope`` (a CSS selector, or the whole document), nothing is a loading
#: skeleton, every shown chart is drawn and every shown dataframe has its canvas.
CHARTS_DRAWN_JS = """(scope) => {
  const root = scope ? document.querySelector(scope) : document;
  if (!root) return false;
  if (root.querySelector('[data-testid="stSkeleton"]')) return false;  // lazy element loading
  // elements in a collapsed expander or an inactive tab are not drawn until shown
  const shown = (e) => e.getClientRects().length > 0 && !e.closest('details:not([open])');
  // our chart element (dashboard/ui/chart_element.py) marks a finished draw
  for (const c of root.querySelectorAll('.clustlens-chart'))
    if (shown(c) && c.dataset.drawn !== '1') return false;
  // Streamlit's chart element (our fallback; the minimal app's) draws twice: first hidden,
  // before it knows its width (the figure's layout has none yet), then at that width. Only the
  // second is the chart one sees, and the one a click or a lasso lands on.
  for (const c of root.querySelectorAll('[data-testid="stPlotlyChart"]')) {
    if (!shown(c)) continue;
    const gd = c.querySelector('.js-plotly-plot');
    if (!gd || !gd.querySelector('.main-svg') || !gd.layout || gd.layout.width === undefined
        || getComputedStyle(gd).visibility === 'hidden') return false;
  }
  for (const d of root.querySelectorAll('[data-testid="stDataFrame"]'))
    if (shown(d) && !d.querySelector('canvas')) return false;
  return true;
}"""
