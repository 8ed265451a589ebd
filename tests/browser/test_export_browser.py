"""Exports that survive real names: each figure kind with long labels and 50 classes is exported
(SVG, through the same kaleido path as the download buttons), drawn in chromium, and every tick
label, axis title and figure title is checked to lie inside the image and not to overprint
another label of its axis. PDF and PNG scale are checked too."""

from __future__ import annotations

import numpy as np
import pytest

from dashboard.figures.affinity import conn_bars, leakage_heatmap, sre_class_bars
from dashboard.figures.contingency import contingency_heatmap, sankey
from dashboard.outputs.export import IMAGE_TITLE_PAD_PX, figure_bytes, static_export_status

pytestmark = pytest.mark.browser

K = 50
CLASSES = [f"activity class number {i} (walking, running or other)" for i in range(K)]
CLUSTERS = [f"k-means cluster number {i}" for i in range(K)]

BOXES = """() => {
  const svg = document.querySelector('svg');
  const root = svg.getBoundingClientRect();
  const grab = sel => [...document.querySelectorAll(sel)]
      .filter(t => (t.textContent || '').trim().length)
      .map(t => { const r = t.getBoundingClientRect();
                  return {text: t.textContent, x0: r.left - root.left, y0: r.top - root.top,
                          x1: r.right - root.left, y1: r.bottom - root.top}; });
  return {width: root.width, height: root.height,
          xticks: grab('g.xtick text'), yticks: grab('g.ytick text'),
          titles: grab('.g-gtitle text, .g-xtitle text, .g-ytitle text'),
          heading: grab('.g-gtitle text')};
}"""


def figures():
    rng = np.random.default_rng(0)
    table = rng.integers(0, 30, (K, K)) + np.diag(np.full(K, 200))
    src, dst = np.nonzero(table > 20)
    yield "contingency", contingency_heatmap(table, CLASSES, CLUSTERS, n_matched=K)
    yield "leakage", leakage_heatmap(rng.random((K, K)) + np.eye(K) * 20, CLASSES)
    yield "conn", conn_bars(CLASSES, rng.random(K))
    yield "sre", sre_class_bars(CLASSES, rng.random(K))
    yield "sankey", sankey(table, CLASSES, CLUSTERS, sources=src, targets=dst,
                           values=table[src, dst], n_matched=K)  # fmt: skip


def overlaps(boxes: list[dict], tol: float = 1.0) -> list[tuple[str, str]]:
    out = []
    for i, a in enumerate(boxes):
        for b in boxes[i + 1 :]:
            w = min(a["x1"], b["x1"]) - max(a["x0"], b["x0"])
            h = min(a["y1"], b["y1"]) - max(a["y0"], b["y0"])
            if w > tol and h > tol:
                out.append((a["text"], b["text"]))
    return out


@pytest.fixture(scope="module")
def svg_page(browser):
    if not static_export_status()[0]:
        pytest.skip("no browser for static export")
    page = browser.new_page()
    yield page
    page.close()


@pytest.mark.parametrize("kind", ["contingency", "leakage", "conn", "sre", "sankey"])
def test_long_names_never_overprint_or_get_cut(svg_page, kind) -> None:
    fig = dict(figures())[kind]
    svg = figure_bytes(fig, "svg", width=1000).decode()
    svg_page.set_content(f"<html><body style='margin:0'>{svg}</body></html>")
    got = svg_page.evaluate(BOXES)
    w, h = got["width"], got["height"]
    labels = got["xticks"] + got["yticks"] + got["titles"]
    assert labels or kind == "sankey"
    for b in labels:
        assert b["x0"] >= -1 and b["y0"] >= -1, (kind, b)
        assert b["x1"] <= w + 1 and b["y1"] <= h + 1, (kind, b)
    for axis in ("xticks", "yticks"):
        assert not overlaps(got[axis]), (kind, axis, overlaps(got[axis])[:3])
        shown = [t["text"].replace("\u200b", "") for t in got[axis]]
        assert len(set(shown)) == len(shown), (kind, axis, "labels must tell names apart")
    # the title (and its subtitle) clear of the image's left edge, as on the page beside it
    for b in got["heading"]:
        assert b["x0"] >= IMAGE_TITLE_PAD_PX - 1, (kind, b)
    for title in got["titles"]:  # no title runs into a tick label
        assert not overlaps([title, *got["xticks"], *got["yticks"]])[:1] or not [
            o for o in overlaps([title, *got["xticks"], *got["yticks"]]) if title["text"] in o
        ], (kind, title["text"])
    # long names are cut in the middle (start and end kept); the hover keeps the full name
    if kind in ("contingency", "leakage"):
        assert any("…" in t["text"] for t in got["xticks"] + got["yticks"])


def test_pdf_and_png_scale() -> None:
    if not static_export_status()[0]:
        pytest.skip("no browser for static export")
    fig = dict(figures())["conn"]
    assert figure_bytes(fig, "pdf").startswith(b"%PDF")
    small = figure_bytes(fig, "png", width=600, height=400, scale=1)
    big = figure_bytes(fig, "png", width=600, height=400, scale=3)
    size = lambda b: (int.from_bytes(b[16:20], "big"), int.from_bytes(b[20:24], "big"))  # noqa: E731
    assert size(small) == (600, 400) and size(big) == (1800, 1200)
