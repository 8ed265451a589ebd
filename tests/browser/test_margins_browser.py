"""Every chart of every page is drawn once: the margins the figure asks for already hold its tick
labels and axis titles, so Plotly's automargin has nothing to push (a push draws the whole
figure a second time — the demo's affinity heatmap took 121 ms instead of 26). Colour bars and
legends may still push the right margin: Plotly places them before drawing the data, at no cost.
"""

from __future__ import annotations

import pytest

from .conftest import assert_no_exception, wait_for_charts_drawn
from .test_dashboard_browser import nav_titles, open_first_view, open_view

pytestmark = pytest.mark.browser

_MARGINS = """() => [...document.querySelectorAll('.clustlens-chart')].map((gd) => {
  const L = gd._fullLayout;
  return L ? [String((L.title && L.title.text) || '').slice(0, 50), L.margin.l, L._size.l,
              L.margin.b, L._size.b] : null;
}).filter((x) => x)"""


def test_no_chart_has_its_axis_margins_pushed(page, streamlit_server) -> None:
    open_first_view(page, streamlit_server.url)
    seen, pushed = 0, []
    for i, title in enumerate(nav_titles(page)):
        if i:
            open_view(page, title)
        wait_for_charts_drawn(page)
        for name, ask_l, got_l, ask_b, got_b in page.evaluate(_MARGINS):
            seen += 1
            if got_l > ask_l + 0.5 or got_b > ask_b + 0.5:
                pushed.append(f"{title}: '{name}' asked l={ask_l} b={ask_b}, took {got_l} {got_b}")
    assert_no_exception(page)
    assert seen >= 15, f"only {seen} charts found"
    assert not pushed, "\n".join(pushed)
