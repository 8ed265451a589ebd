"""Every chart of every page is drawn once: the margins the figure asks for already hold its tick
labels and axis titles, so Plotly's automargin has nothing to push (a push draws the whole
figure a second time — the demo's affinity heatmap took 121 ms instead of 26). Colour bars and
legends may still push the right margin: Plotly places them before drawing the data, at no cost.

And every chart's title stands at the top of the chart: neither cut above it nor under a band
of white (the top margin once held each subtitle line twice: 57 px of white above Multi-view's
title, 19-38 px above nine others).
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


# per chart: its title, how far the top of the title's first line and the bottom of its
# subtitle (or of the title) stand below the top of the chart, and where the first plot starts
_TITLES = """() => [...document.querySelectorAll('[data-testid="stMain"] .clustlens-chart')]
  .filter((gd) => gd._fullLayout && gd.querySelector('.gtitle'))
  .map((gd) => {
    const top = gd.querySelector('.main-svg').getBoundingClientRect().top;
    const title = gd.querySelector('.gtitle').getBoundingClientRect();
    const sub = gd.querySelector('.gtitle-subtitle');
    const last = sub ? sub.getBoundingClientRect() : title;
    return [String(gd._fullLayout.title.text).slice(0, 50), title.top - top, last.bottom - top];
  })"""
#: The top of a title's first line below the top of its chart (px): the 14 px of our margin above
#: the line's cap height, give or take a font's ascent.
TITLE_TOP_PX = (4, 28)


def test_every_title_stands_at_the_top_of_its_chart(page, streamlit_server) -> None:
    open_first_view(page, streamlit_server.url)
    seen, off = 0, []
    for i, title in enumerate(nav_titles(page)):
        if i:
            open_view(page, title)
        wait_for_charts_drawn(page)
        for name, top, bottom in page.evaluate(_TITLES):
            seen += 1
            if not TITLE_TOP_PX[0] <= top <= TITLE_TOP_PX[1] or bottom <= top:
                off.append(f"{title}: '{name}' title from {top:.0f} to {bottom:.0f} px")
    assert_no_exception(page)
    assert seen >= 15, f"only {seen} titled charts found"
    assert not off, "\n".join(off)
