"""Our chart element in chromium (dashboard/ui/chart_element.py): every chart drawn once, with
the plotly.js the dashboard serves, its "Full screen" button, and a click on a point reported to
the page (Sweep's click-to-pick; the Points lasso: test_points_browser.py)."""

from __future__ import annotations

import pytest

from .conftest import assert_no_exception, expect_rerun, wait_for_app_idle, wait_for_charts_drawn
from .test_dashboard_browser import MAIN, open_first_view, open_tab, open_view

pytestmark = pytest.mark.browser

#: Counts plotly_afterplot per chart (by its Streamlit key) from now on.
COUNT_DRAWS = """() => {
  window.__draws = {};
  const seen = new WeakSet();
  const keyOf = (gd) => {
    const box = gd.closest('[class*="st-key-"]');
    const m = box && box.className.match(/st-key-(\\S+)/);
    return m ? m[1] : '?';
  };
  const scan = () => document.querySelectorAll('.js-plotly-plot').forEach((gd) => {
    if (seen.has(gd) || !gd.on) return;
    seen.add(gd);
    gd.on('plotly_afterplot', () => {
      const k = keyOf(gd);
      window.__draws[k] = (window.__draws[k] || 0) + 1;
    });
  });
  new MutationObserver(scan).observe(document.body, {subtree: true, childList: true,
    attributes: true, attributeFilter: ['class']});
}"""


def test_every_chart_is_drawn_once_with_the_served_plotly(page, streamlit_server) -> None:
    open_first_view(page, streamlit_server.url)
    page.evaluate(COUNT_DRAWS)
    open_view(page, "Affinity")
    # the tabs below the plot: each tab's charts are built and drawn when it is opened
    open_tab(page, "Per point: SRE")
    open_tab(page, "Between classes: leakage")
    page.wait_for_timeout(1500)  # a second draw would have come by now
    assert_no_exception(page)
    draws = page.evaluate("() => window.__draws")
    assert set(draws) >= {"affinity_plot", "conn_bars", "sre_class", "sre_points", "leakage_matrix"}
    assert set(draws.values()) == {1}, draws
    open_tab(page, "Per class: CONN and SRE")  # the tab is kept for the next visit
    assert page.locator(f"{MAIN} [data-testid='stPlotlyChart']").count() == 0
    served = page.evaluate(
        "() => performance.getEntriesByType('resource').map(e => e.name)"
        ".filter(n => n.endsWith('/app/static/plotly.min.js')).length"
    )
    assert served == 1  # fetched once for the whole session
    assert not page.js_errors


def test_full_screen_and_back(page, streamlit_server) -> None:
    open_first_view(page, streamlit_server.url)
    open_view(page, "Affinity")
    chart = page.locator(".st-key-conn_bars .clustlens-chart")
    height = chart.bounding_box()["height"]
    chart.hover()
    button = page.locator(".st-key-conn_bars .modebar-btn[data-title='Full screen']")
    button.click()
    page.wait_for_function(
        "() => document.fullscreenElement"
        " && document.fullscreenElement.closest('.st-key-conn_bars')"
    )
    page.wait_for_function(
        "() => Math.abs(document.fullscreenElement.getBoundingClientRect().height"
        " - window.innerHeight) < 2 && document.fullscreenElement._fullLayout.height"
        " === window.innerHeight"
    )
    chart.hover()
    button.click()
    page.wait_for_function("() => !document.fullscreenElement")
    wait_for_charts_drawn(page, MAIN)
    page.wait_for_function(
        "(h) => Math.abs(document.querySelector('.st-key-conn_bars .clustlens-chart')"
        ".getBoundingClientRect().height - h) < 2",
        arg=height,
    )
    assert not page.js_errors


def test_clicking_a_sweep_marker_picks_its_setting(page, streamlit_server) -> None:
    """The click reaches the page as st.plotly_chart's selection would: "Setting" follows."""
    open_first_view(page, streamlit_server.url)
    open_view(page, "Sweep")
    setting = page.locator("[class*='st-key-sw_pick-'] input")
    before = setting.input_value()  # the best setting, picked by default
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


#: (width of the chart's drawing, width of its element) for the chart keyed ``key``.
WIDTHS = """(key) => {
  const gd = document.querySelector(`.st-key-${key} .clustlens-chart`);
  const svg = gd && gd.querySelector('.main-svg');
  return svg ? [svg.getBoundingClientRect().width, gd.getBoundingClientRect().width] : null;
}"""


def test_charts_follow_the_main_area_when_the_sidebar_closes(page, streamlit_server) -> None:
    """Plotly's `responsive` follows the window only; closing the sidebar widens the main area."""
    open_first_view(page, streamlit_server.url)
    open_view(page, "Contingency")
    drawn, box = page.evaluate(WIDTHS, "contingency_heatmap")
    assert abs(drawn - box) < 2
    page.get_by_test_id("stSidebar").hover()
    page.get_by_test_id("stSidebarCollapseButton").locator("button").click()
    page.wait_for_function(
        """([key, before]) => {
          const gd = document.querySelector(`.st-key-${key} .clustlens-chart`);
          const svg = gd.querySelector('.main-svg'); const w = gd.getBoundingClientRect().width;
          return w > before + 50 && Math.abs(svg.getBoundingClientRect().width - w) < 2; }""",
        arg=["contingency_heatmap", box],
    )
    assert not page.js_errors


def test_a_page_visited_again_gets_its_drawn_charts_back(page, streamlit_server) -> None:
    """Leaving Affinity and coming back: the same figures, so the charts drawn on the first
    visit come back as they were: no draw, at their element's width."""
    open_first_view(page, streamlit_server.url)
    open_view(page, "Affinity")
    keys = ["affinity_plot", "conn_bars", "sre_class"]  # the plot and the first tab's charts
    page.evaluate(
        "(keys) => keys.forEach((k) => { document.querySelector(`.st-key-${k} .clustlens-chart`)"
        ".__firstVisit = true; })",
        keys,
    )
    open_view(page, "Contingency")
    page.evaluate(COUNT_DRAWS)
    open_view(page, "Affinity")
    page.wait_for_timeout(1000)  # a draw would have come by now
    assert_no_exception(page)
    back = page.evaluate(
        "(keys) => keys.map((k) => { const gd = document.querySelector("
        "`.st-key-${k} .clustlens-chart`); return gd && gd.__firstVisit === true"
        " && gd.dataset.drawn === '1'; })",
        keys,
    )
    assert all(back), dict(zip(keys, back, strict=True))
    draws = page.evaluate("() => window.__draws")
    assert not any(draws.get(k) for k in keys), draws
    for key in keys:
        drawn, box = page.evaluate(WIDTHS, key)
        assert abs(drawn - box) < 2, (key, drawn, box)
    assert not page.js_errors


def test_a_page_visited_again_later_gets_its_charts_data_from_the_browser(
    page, streamlit_server
) -> None:
    """Affinity again after four other pages: its charts' messages do not cross the websocket
    again (Streamlit's message cache keeps them for 50 runs, not 2: the server sends a reference
    to the browser's copy of every message of 10 kB or more — the heatmap's, 65 kB since its
    cells go as columns, was 1.2 MB before), and the chart drawn on the first visit comes back
    undrawn."""
    received: list[int] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived",
            lambda p: received.append(len(p) if isinstance(p, (bytes, bytearray)) else 0),
        ),
    )
    open_first_view(page, streamlit_server.url)
    received.clear()
    open_view(page, "Affinity")
    first = list(received)
    assert max(first) > 50_000, sorted(first)[-5:]  # the demo's 400 x 400 heatmap
    # its three charts: the plot and the first tab's two bar charts
    assert sum(1 for n in first if n >= 10_000) >= 3, sorted(first)[-6:]
    for title in ("Contingency", "Pair confusion", "Compare", "Points"):
        open_view(page, title)
    page.evaluate(COUNT_DRAWS)
    received.clear()
    open_view(page, "Affinity")
    page.wait_for_timeout(500)  # a late draw would have come by now
    assert_no_exception(page)
    assert max(received) < 10_000, (sorted(first)[-6:], sorted(received)[-6:])
    assert sum(received) < sum(first) / 4, (sum(first), sum(received))
    draws = page.evaluate("() => window.__draws")
    assert not draws.get("affinity_plot"), draws
    assert not page.js_errors


#: One small figure of each trace type the dashboard draws, drawn with the served plotly.js.
EVERY_TRACE_TYPE = """() => {
  const figs = {
    bar: [{type: 'bar', x: [1, 2], y: [3, 4]}],
    heatmap: [{type: 'heatmap', z: [[1, 2], [3, 4]]}],
    image: [{type: 'image', z: [[[255, 0, 0], [0, 255, 0]]]}],
    sankey: [{type: 'sankey', node: {label: ['a', 'b']},
              link: {source: [0], target: [1], value: [1]}}],
    scatter: [{type: 'scatter', x: [1, 2], y: [1, 2]}],
    scattergl: [{type: 'scattergl', x: [1, 2], y: [1, 2], mode: 'markers'}],
  };
  const drawn = {};
  return Promise.all(Object.entries(figs).map(([kind, data]) => {
    const gd = document.createElement('div');
    gd.style.width = '300px';
    document.body.appendChild(gd);
    return window.Plotly.newPlot(gd, data, {}).then(() => {
      drawn[kind] = [gd._fullData.map((t) => t.type).join(),
                     gd.querySelectorAll('.trace, .sankey, .gl-canvas, image').length];
      window.Plotly.purge(gd);
      gd.remove();
    });
  })).then(() => drawn);
}"""


def test_the_served_plotly_js_draws_every_trace_type_we_use(page, streamlit_server) -> None:
    """The served plotly.js (our bundle: only the trace types the dashboard draws) draws each."""
    from dashboard.ui import chart_element

    open_first_view(page, streamlit_server.url)
    wait_for_charts_drawn(page, MAIN)
    warnings = []
    page.on("console", lambda m: warnings.append(m.text) if m.type in ("warning", "error") else 0)
    head = page.evaluate(
        "() => fetch('app/static/plotly.min.js').then((r) => r.text()).then((t) => t.slice(0, 200))"
    )
    if chart_element._plotly_js_source() == chart_element.BUNDLE:
        assert "clustlens bundle" in head, head
    drawn = page.evaluate(EVERY_TRACE_TYPE)
    assert {k: v[0] for k, v in drawn.items()} == {k: k for k in drawn}, drawn
    assert all(n >= 1 for _, n in drawn.values()), drawn
    assert len(drawn) == 6
    assert not [w for w in warnings if "trace type" in w.lower()], warnings
    assert not page.js_errors


def test_later_pages_element_scripts_come_with_the_first_page(page, streamlit_server) -> None:
    """The data grid's script (and the multiselect's, the formulas') is fetched while the first
    page loads, once: the first page with a data grid does not wait for it, and opening it
    fetches no script again."""
    from dashboard.ui.chart_element import later_modules

    def fetched() -> list[str]:
        return page.evaluate(
            "() => performance.getEntriesByType('resource').map(e => e.name)"
            ".filter(n => n.includes('/static/js/'))"
        )

    open_first_view(page, streamlit_server.url)
    wanted = [m.rsplit("/", 1)[1] for m in later_modules()]
    assert wanted and wanted[0].startswith("DataFrame.")
    page.wait_for_function(
        "(names) => names.every(n => performance.getEntriesByType('resource')"
        ".some(e => e.name.endsWith('/static/js/' + n)))",
        arg=wanted,
        timeout=30_000,
    )
    before = fetched()
    # the demo's one data grid: Points opened on a Summary finding lists the finding's points
    # (the demo's other tables are static: up to ui.STATIC_MAX_ROWS rows)
    with expect_rerun(page):
        page.locator(MAIN).get_by_role("link", name="→ Points").first.click()
    page.locator(f"{MAIN} [data-testid='stDataFrame'] canvas").first.wait_for(timeout=30_000)
    again = [n for n in fetched()[len(before) :] if n.rsplit("/", 1)[1] in wanted]
    assert not again, again
    assert_no_exception(page)
    assert not page.js_errors


def test_later_pages_fonts_are_loaded_while_the_first_page_is_idle(page, streamlit_server) -> None:
    """Learn's formula and derivation fonts are loaded once the first page is idle: Learn's
    first visit fetches none of them."""
    from dashboard.ui.chart_element import LATER_FONTS

    fonts_js = (
        "() => performance.getEntriesByType('resource').map(e => e.name)"
        ".filter(n => n.includes('/static/media/') && n.endsWith('.woff2'))"
    )
    open_first_view(page, streamlit_server.url)
    page.wait_for_function(
        "(fonts) => fonts.every(f => document.fonts.check(f))", arg=list(LATER_FONTS),
        timeout=30_000,
    )  # fmt: skip
    before = page.evaluate(fonts_js)
    open_view(page, "Learn")
    page.locator(f"{MAIN} .katex").first.wait_for(timeout=30_000)
    page.locator(f"{MAIN} pre").first.wait_for(timeout=30_000)
    again = [n.rsplit("/", 1)[1] for n in page.evaluate(fonts_js)[len(before) :]]
    assert not [n for n in again if n.startswith(("KaTeX_Main-Regular", "KaTeX_Math-Italic",
                                                  "SourceCodeVF-Upright"))], again  # fmt: skip
    assert_no_exception(page)
    assert not page.js_errors
