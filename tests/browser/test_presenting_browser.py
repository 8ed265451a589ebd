"""Layout in chromium at 1,024 and 1,920 px, on the normal page and in presentation mode (light
and dark): every view draws, nothing is wider than the window (no sideways scrolling, no chart
cut at the right edge; a table too wide for the page scrolls in its own box), no number in a
table is broken across lines, and presentation mode keeps the pages reachable from the top bar
with the sidebar gone. Screenshots of every view in every mode go to
``tests/artifacts/layout_*.png``.
"""

from __future__ import annotations

import pytest

from .conftest import (
    ARTIFACTS,
    assert_no_exception,
    expect_rerun,
    full_height,
    slug,
    wait_for_charts_drawn,
)
from .test_contrast_browser import each_view
from .test_dashboard_browser import MAIN, open_first_view

pytestmark = pytest.mark.browser

WIDTHS = [1024, 1920]
MODES = ["normal", "presenting-light", "presenting-dark"]

#: What sticks out: the main area's own sideways scroll, every chart, table box, image or block
#: whose right edge passes the main area's, every figure text past its figure's edge (2 px of
#: rounding), and every number of a static table that is not on one line (squeezed to fit
#: 1,024 px, the Sweep table had shown "0.0830" as "0.0", "83" and "0" on three lines). A table
#: wider than its box is fine: the box scrolls.
_OVERFLOW_JS = r"""(main) => {
  const m = document.querySelector(main);
  if (!m) return ['no main area'];
  const out = [];
  if (m.scrollWidth > m.clientWidth + 2)
    out.push(`main area scrolls sideways: ${m.scrollWidth} > ${m.clientWidth} px`);
  const right = Math.min(m.getBoundingClientRect().right, window.innerWidth) + 2;
  const sel = ['[data-testid="stPlotlyChart"]', '.clustlens-chart', '.js-plotly-plot .main-svg',
    '[data-testid="stDataFrame"]', '[data-testid="stTable"]', 'table.cl-table', '.cl-table-box',
    '[data-testid="stImage"]', '[data-testid="stHorizontalBlock"]', '[data-testid="stMetric"]',
    '.cl-metric', 'pre.cl-pre', 'button',
    'h1', 'h2', 'h3'].join(',');
  for (const e of m.querySelectorAll(sel)) {
    if (!e.getClientRects().length || e.closest('details:not([open])')) continue;
    if (e.matches('table') && e.parentElement.matches('.cl-table-box')) continue;  // it scrolls
    const r = e.getBoundingClientRect();
    if (r.width && r.right > right) {
      const id = e.getAttribute('data-testid') || e.getAttribute('class') || e.tagName;
      out.push(`${id} ends at ${Math.round(r.right)} px, window area ends at ${Math.round(right)}`);
    }
  }
  // every number of a static table on one line (a cell may hold a few, broken at spaces)
  const number = /^[-+\u2212]?(\d[\d,]*(\.\d*)?|\.\d+)([eE][-+\u2212]?\d+)?%?$/;
  for (const td of m.querySelectorAll('table.cl-table td')) {
    if (!td.getClientRects().length || td.closest('details:not([open])')) continue;
    const text = td.textContent.replace(/\u00a0/g, ' ');
    // numbers only, with the marks that stand between them (widgets.is_number_text)
    const words = text.split(' ').filter((w) => w);
    if (!words.some((w) => number.test(w))
        || !words.every((w) => number.test(w) || '±★–—/×'.includes(w))) continue;
    const range = document.createRange();
    const node = td.firstChild;
    if (!node) continue;
    let at = 0;
    for (const word of text.split(' ')) {
      const start = text.indexOf(word, at);
      at = start + word.length;
      if (!/\d/.test(word)) continue;
      range.setStart(node, start);
      range.setEnd(node, at);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      if (tops.size > 1)
        out.push(`table number "${word}" broken over ${tops.size} lines`);
    }
  }
  // every button's and link's label whole: Streamlit ends a label too long for its column with
  // "…" (at 1,024 px "Run comparison" read "Run co…", the Multi-view downloads "Download tab…")
  for (const b of m.querySelectorAll('button, a')) {
    if (!b.getClientRects().length || b.closest('details:not([open])')) continue;
    if (b.matches('button') && b.scrollWidth > b.clientWidth + 1)
      out.push(`label "${b.innerText.trim().slice(0, 40)}" wider than its button`);
    for (const e of b.querySelectorAll('*')) {
      if (e.scrollWidth > e.clientWidth + 1 && getComputedStyle(e).textOverflow === 'ellipsis')
        out.push(`label "${b.innerText.trim().slice(0, 40)}" cut short`);
    }
  }
  // every text of a figure (titles, subtitles, axis titles, tick labels, colour bars, legend)
  // inside its own picture: a text past the SVG's edge is cut
  for (const plot of m.querySelectorAll('.js-plotly-plot')) {
    const svg = plot.querySelector('.main-svg');
    if (!svg || !svg.getClientRects().length || plot.closest('details:not([open])')) continue;
    const b = svg.getBoundingClientRect();
    const name = (plot.querySelector('.gtitle') || {}).textContent || 'untitled figure';
    for (const t of plot.querySelectorAll('.infolayer text, .xtick text, .ytick text')) {
      const r = t.getBoundingClientRect();
      const text = (t.textContent || '').trim();
      if (!text || !r.width) continue;
      if (r.top < b.top - 2 || r.bottom > b.bottom + 2 || r.left < b.left - 2
          || r.right > b.right + 2)
        out.push(`"${text.slice(0, 40)}" cut at the edge of "${name.slice(0, 40)}"`);
    }
  }
  // a colour bar clear of every axis of its figure: none of its texts overprints a tick label
  // or an axis title (Multi-view's fused S at 1,024 px: a bar standing between S and the plots
  // to its right ran into their ticks and titles)
  const part = (re) => (t) => [...t.parentElement.classList].some((c) => re.test(c));
  const isTick = part(/^[xy]\d*tick$/), isTitle = part(/^g-[xy]\d*title$/);
  for (const plot of m.querySelectorAll('.js-plotly-plot')) {
    if (!plot.getClientRects().length || plot.closest('details:not([open])')) continue;
    const boxes = (ts) => ts.map((t) => [t, t.getBoundingClientRect()])
      .filter(([t, r]) => r.width && (t.textContent || '').trim());
    const bars = boxes([...plot.querySelectorAll('.colorbar text')]);
    const axes = boxes([...plot.querySelectorAll('text')].filter((t) => isTick(t) || isTitle(t)));
    const name = (plot.querySelector('.gtitle') || {}).textContent || 'untitled figure';
    for (const [bt, b] of bars) for (const [at, a] of axes) {
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
      const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1)
        out.push(`colour bar's "${bt.textContent.trim().slice(0, 20)}" overprints `
                 + `"${at.textContent.trim().slice(0, 20)}" in "${name.slice(0, 40)}"`);
    }
  }
  return [...new Set(out)];
}"""


def overflow(page) -> list[str]:
    return page.evaluate(_OVERFLOW_JS, MAIN)


def _open_from_top_bar(page, title: str) -> None:
    """In presentation mode: open ``title`` from the top bar's "Evaluate" menu."""
    nav = page.get_by_test_id("stTopNav")
    nav.wait_for()
    assert "Evaluate" in nav.inner_text() and "Teach" in nav.inner_text()
    nav.get_by_text("Evaluate").click()
    link = page.get_by_test_id("stTopNavLink").filter(has_text=title)
    if not link.count():  # older layouts: the section lists its pages as plain links
        link = page.locator("a").filter(has_text=title)
    with expect_rerun(page):
        link.first.click()
    page.locator(f"{MAIN} h1").filter(has_text=title).wait_for()
    wait_for_charts_drawn(page, MAIN)


@pytest.mark.parametrize("width", WIDTHS)
def test_presentation_mode_keeps_the_navigation(page, streamlit_server, width) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    open_first_view(page, streamlit_server.url)
    with expect_rerun(page):
        page.get_by_text("Presentation mode").click()
    page.get_by_role("button", name="Exit presentation").wait_for()
    assert not page.get_by_test_id("stSidebar").is_visible()
    _open_from_top_bar(page, "Contingency")
    assert_no_exception(page)
    assert not overflow(page)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("width", WIDTHS)
def test_every_view_fits_the_window(page, streamlit_server, width, mode) -> None:
    page.set_viewport_size({"width": width, "height": 900})
    failures = []
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    for title in each_view(page, streamlit_server.url, mode):
        if title == "Multi-view":  # its Run button is built in a box, when opened
            box = page.get_by_test_id("stExpander").filter(has_text="Recompute it")
            with expect_rerun(page):
                box.locator("summary").first.click()
            box.get_by_role("button", name="Run comparison").wait_for()
        found = overflow(page)
        if title == "Multi-view" and mode == "normal":
            # the comparison's columns all in view at 1,024 px with the sidebar open (its
            # "setting" and "chosen" had sat under the scroll shade)
            box = page.locator(f"{MAIN} .cl-table-box").first
            wide = box.evaluate("(b) => [b.scrollWidth, b.clientWidth]")
            if wide[0] > wide[1] + 1:
                found.append(f"the comparison table scrolls: {wide[0]} > {wide[1]} px")
        if found:
            failures.append(f"{title} ({mode}, {width} px): " + "; ".join(found[:8]))
        with full_height(page):
            page.screenshot(path=str(ARTIFACTS / f"layout_{width}_{mode}_{slug(title)}.png"))
    assert not failures, "\n".join(failures)
