"""Text contrast ≥ 4.5:1 on every view, measured on the rendered page in chromium: the normal
(light) page, and presentation mode in its light and dark themes (issue 13, item 3).

Every visible text node is checked against the colour actually behind it (the backgrounds of its
ancestors composited, with the opacity of the chain applied to the text), and every Plotly text
outside the data area (titles, tick labels, axis titles, legends, colour bars) against the
figure's paper colour. The widgets' help icons (a "?" with no text node) are graphics: ≥ 3:1
(WCAG 1.4.11). Disabled controls are exempt (WCAG 1.4.3), as is text inside a chart's
data area (Plotly picks cell-text colours against each cell) and the data grid (a canvas).
Screenshots of each view in each mode go to ``tests/artifacts``.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from .conftest import (
    ARTIFACTS,
    assert_no_exception,
    expect_rerun,
    full_height,
    slug,
    wait_for_charts_drawn,
)
from .test_dashboard_browser import KNOWN_VIEWS, MAIN, open_first_view, open_view

pytestmark = pytest.mark.browser

MIN_RATIO = 4.5

_CONTRAST_JS = """(minRatio) => {
  const parse = (c) => {
    const m = /rgba?\\(([^)]+)\\)/.exec(c || '');
    if (!m) return null;
    const p = m[1].split(/[\\s,\\/]+/).filter(Boolean).map(Number);
    return [p[0], p[1], p[2], p.length > 3 ? p[3] : 1];
  };
  const lin = (v) => { v /= 255; return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4; };
  const lum = (c) => 0.2126 * lin(c[0]) + 0.7152 * lin(c[1]) + 0.0722 * lin(c[2]);
  const over = (top, bottom) => {
    const a = top[3];
    return [0, 1, 2].map((i) => top[i] * a + bottom[i] * (1 - a)).concat([1]);
  };
  const ratio = (fg, bg) => {
    const [l1, l2] = [lum(fg), lum(bg)].sort((x, y) => y - x);
    return (l1 + 0.05) / (l2 + 0.05);
  };
  const hex = (c) => '#' + c.slice(0, 3)
    .map((v) => Math.round(v).toString(16).padStart(2, '0')).join('');
  // the colour behind an element: what is painted under the middle of its box (positioned
  // labels sit outside their parents), else its ancestors; composited; null over an image
  const behind = (el) => {
    const layers = [];
    behind.from = '';
    const box = el.getBoundingClientRect();
    const stack = document.elementsFromPoint(box.left + box.width / 2, box.top + box.height / 2);
    const at = stack.indexOf(el);
    const chain = at >= 0 ? stack.slice(at) : [];
    // then the ancestors (hit-testing skips elements with pointer-events: none)
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      if (!chain.includes(e)) chain.push(e);
    }
    for (const e of chain) {
      const cs = getComputedStyle(e);
      if (cs.backgroundImage && cs.backgroundImage !== 'none') return null;
      const c = parse(cs.backgroundColor);
      if (c && c[3] > 0) {
        layers.push(c);
        if (c[3] >= 1) {
          const cls = typeof e.className === 'string' ? e.className.split(' ')[0] : '';
          behind.from = (e.getAttribute('data-testid') || e.tagName.toLowerCase())
            + (cls ? '.' + cls : '');
          break;
        }
      }
    }
    let bg = [255, 255, 255, 1];
    for (let i = layers.length - 1; i >= 0; i--) bg = over(layers[i], bg);
    return bg;
  };
  const opacity = (el) => {
    let o = 1;
    for (let e = el; e && e.nodeType === 1; e = e.parentElement) {
      o *= Number(getComputedStyle(e).opacity);
    }
    return o;
  };
  const ICON_RATIO = 3;
  const bad = [];
  const seen = new Set();
  const report = (el, text, fg, bg, r) => {
    const key = text + '|' + hex(fg) + '|' + hex(bg);
    if (seen.has(key)) return;
    seen.add(key);
    const where = el.closest('[data-testid]');
    bad.push({text: text.slice(0, 60), fg: hex(fg), bg: hex(bg), ratio: Math.round(r * 100) / 100,
              where: where ? where.getAttribute('data-testid') : el.tagName,
              bgFrom: behind.from || 'page'});
  };
  // HTML text
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const text = n.nodeValue.trim();
    if (!text) continue;
    const el = n.parentElement;
    if (!el || el.closest('svg, canvas, script, style, noscript, [aria-hidden="true"]')) continue;
    if (el.closest('[disabled], [aria-disabled="true"], .stDisabled')) continue;
    if (el.closest('details:not([open]) > :not(summary)')) continue;
    const rects = el.getClientRects();
    if (!rects.length || rects[0].width === 0 || rects[0].height === 0) continue;
    const cs = getComputedStyle(el);
    if (cs.visibility !== 'visible' || cs.display === 'none') continue;
    const bg = behind(el);
    const fg = parse(cs.color);
    if (!bg || !fg) continue;
    fg[3] *= opacity(el);
    const r = ratio(over(fg, bg), bg);
    // text in its own background colour is hidden on purpose (a slider's end values until
    // hovered), not unreadable
    if (r < minRatio && r > 1.0001) report(el, text, over(fg, bg), bg, r);
  }
  // widgets' help icons (a "?" with no text node): graphics, 3:1 (WCAG 1.4.11)
  for (const icon of document.querySelectorAll('[data-testid="stTooltipIcon"] svg')) {
    if (!icon.getClientRects().length) continue;
    const bg = behind(icon);
    const cs = getComputedStyle(icon);
    // Streamlit strokes the icon with a colour of its own, not the text colour around it
    const fg = parse(cs.stroke) || parse(cs.color);
    if (!bg || !fg) continue;
    fg[3] *= Number(cs.strokeOpacity || 1) * opacity(icon);
    const r = ratio(over(fg, bg), bg);
    if (r < ICON_RATIO) {
      const label = icon.closest('button');
      report(icon, (label && label.getAttribute('aria-label')) || 'help icon', over(fg, bg), bg, r);
    }
  }
  // Plotly text outside the data area, against the paper colour
  for (const plot of document.querySelectorAll('.js-plotly-plot')) {
    if (!plot.getClientRects().length) continue;
    const svg = plot.querySelector('.main-svg');
    if (!svg) continue;
    let paper = parse(svg.style.background || getComputedStyle(svg).backgroundColor);
    const page = behind(plot) || [255, 255, 255, 1];
    paper = paper && paper[3] > 0 ? over(paper, page) : page;
    const sel = '.xtick text, .ytick text, .g-xtitle text, .g-ytitle text, .gtitle, '
      + '.legendtext, .cbaxis text, .cbtitle text';
    for (const t of plot.querySelectorAll(sel)) {
      const text = (t.textContent || '').trim();
      if (!text || !t.getClientRects().length) continue;
      const cs = getComputedStyle(t);
      const fg = parse(cs.fill);
      if (!fg) continue;
      fg[3] *= Number(cs.fillOpacity || 1) * opacity(t);
      const r = ratio(over(fg, paper), paper);
      if (r < minRatio && r > 1.0001) report(t, text, over(fg, paper), paper, r);
    }
  }
  return bad;
}"""


def low_contrast(page) -> list[dict]:
    """Every distinct (text, colour, background) below :data:`MIN_RATIO` on the page."""
    return page.evaluate(_CONTRAST_JS, MIN_RATIO)


def _explain(found: list[dict], where: str) -> str:
    lines = [f"{len(found)} text(s) below {MIN_RATIO}:1 or help icon(s) below 3:1 on {where}:"]
    lines += [
        f"  {f['ratio']:.2f}:1  {f['fg']} on {f['bg']} (of {f['bgFrom']})  [{f['where']}]  "
        f"{f['text']!r}"
        for f in found[:40]
    ]
    return "\n".join(lines)


def _choose_dark_theme(page) -> None:
    """Pick "dark" in the sidebar's Theme radio (light is the default)."""
    radio = page.get_by_test_id("stSidebar").get_by_test_id("stRadio").filter(has_text="Theme")
    with expect_rerun(page):
        radio.get_by_text("dark", exact=True).click()


def _present(page, on: bool) -> None:
    with expect_rerun(page):
        if on:
            page.get_by_test_id("stSidebar").get_by_text("Presentation mode").click()
        else:
            page.get_by_role("button", name="Exit presentation").click()
    wait_for_charts_drawn(page, MAIN)


def each_view(page, url: str, mode: str) -> Iterator[str]:
    """Open every view in ``mode`` ("light" or "normal": the normal page; "presenting-light",
    "presenting-dark"): yields each view's title with the view drawn and checked for
    exceptions; the caller measures it before the next one opens."""
    open_first_view(page, url)
    if mode == "presenting-dark":
        _choose_dark_theme(page)
    presenting = mode.startswith("presenting")
    for title in KNOWN_VIEWS:
        open_view(page, title)
        if presenting:
            _present(page, True)
            assert not page.get_by_test_id("stSidebar").is_visible()
        assert_no_exception(page)
        yield title
        if presenting:
            _present(page, False)


@pytest.mark.parametrize("mode", ["light", "presenting-light", "presenting-dark"])
def test_text_contrast_on_every_view(page, streamlit_server, mode) -> None:
    failures = []
    for title in each_view(page, streamlit_server.url, mode):
        with full_height(page):  # everything on screen: hit-testable, and in the shot
            found = low_contrast(page)
            page.screenshot(path=str(ARTIFACTS / f"contrast_{mode}_{slug(title)}.png"))
        if found:
            failures.append(_explain(found, f"{title} ({mode})"))
    assert not failures, "\n".join(failures)
