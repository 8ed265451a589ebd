"""Contingency figures: the matched heatmap and the class → cluster flow (Sankey)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from dashboard.figures._memo import memoised
from dashboard.figures._style import (
    QUALITATIVE_LONG,
    SEQ_COUNTS,
    category_ticks,
    figure,
    focus_bands,
    plain_all,
    unique_names,
)

#: Annotate every cell with its count up to this many cells.
ANNOTATE_LIMIT = 1_200
MODE_TITLES = {
    "counts": "counts",
    "row": "share of each class (rows sum to 1)",
    "column": "share of each cluster (columns sum to 1)",
}


@memoised
def contingency_heatmap(
    table: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    mode: str = "counts",
    n_matched: int = 0,
    title: str | None = None,
    row_title: str = "true class",
    col_title: str = "predicted cluster (matched to the row on the diagonal first)",
    focus_rows: Sequence[int] = (),
    focus_cols: Sequence[int] = (),
) -> go.Figure:
    """Classes (rows) x clusters (columns) heatmap, in the given (matched) order.

    ``row_title``/``col_title`` name the axes (another pair of partitions, e.g. two
    predictions, keeps the same picture with its own words).

    ``table`` holds counts; ``mode`` picks what the colour shows (``"counts"``, ``"row"``,
    ``"column"`` shares); the annotation always shows the count (and the share when normalised).
    The first ``n_matched`` diagonal cells (the optimal matching) are outlined; the rows
    ``focus_rows`` and columns ``focus_cols`` (positions) are outlined in the focus colour.
    """
    counts = np.asarray(table, dtype=np.int64)
    k, c = counts.shape
    t = counts.astype(np.float64)
    if mode == "row":
        s = t.sum(axis=1, keepdims=True)
        z = np.divide(t, s, out=np.zeros_like(t), where=s > 0)
    elif mode == "column":
        s = t.sum(axis=0, keepdims=True)
        z = np.divide(t, s, out=np.zeros_like(t), where=s > 0)
    else:
        z = t
    y = unique_names(plain_all(rows))
    x = unique_names(plain_all(cols))
    if mode == "counts":
        text = counts.astype(str)
        hover = "class %{y}<br>cluster %{x}<br>%{z:,} points<extra></extra>"
        zmax = max(float(z.max()) if z.size else 1.0, 1.0)
    else:
        text = np.char.add(np.char.add(counts.astype(str), "<br>"), np.char.mod("%.0f%%", 100 * z))
        hover = "class %{y}<br>cluster %{x}<br>%{customdata:,} points (%{z:.1%})<extra></extra>"
        zmax = 1.0
    heat = go.Heatmap(
        z=z,
        x=x,
        y=y,
        customdata=counts,
        colorscale=SEQ_COUNTS,
        zmin=0,
        zmax=zmax,
        hovertemplate=hover,
        colorbar={"title": {"text": "points" if mode == "counts" else "share"}, "thickness": 14},
        xgap=1,
        ygap=1,
    )
    if k * c <= ANNOTATE_LIMIT:
        heat.update(text=text, texttemplate="%{text}", textfont={"size": 12 if k * c < 200 else 9})
    # the matched diagonal, then the focus: shapes in one list (an add_shape each is an update)
    shapes: list[dict[str, Any]] = [
        {
            "type": "rect",
            "x0": d - 0.5,
            "x1": d + 0.5,
            "y0": d - 0.5,
            "y1": d + 0.5,
            "line": {"color": "#111827", "width": 2},
        }
        for d in range(min(n_matched, k, c))
    ]
    shapes += focus_bands(
        [(i - 0.5, i + 0.5) for i in focus_rows],
        [(j - 0.5, j + 0.5) for j in focus_cols],
        (-0.5, c - 0.5),
        (-0.5, k - 0.5),
    )
    xt = category_ticks(x, c)
    vertical = xt["tickangle"] == -90
    top_px = int(max((len(t) for t in xt["ticktext"]), default=0) * 0.62 * 12) if vertical else 0
    cell = 28 if k <= 30 else 14
    height = int(min(max(400, 200 + cell * k), 1100))
    layout = {
        "shapes": shapes,
        "xaxis": {"type": "category", "title": {"text": col_title}, "side": "top", **xt},
        "yaxis": {"type": "category", "title": {"text": row_title}, "autorange": "reversed",
                  **category_ticks(y, k, max_chars=24, span_px=height - 260, horizontal=True)},
    }  # fmt: skip
    title = title or (
        f"Contingency table — {MODE_TITLES.get(mode, mode)}, ordered by optimal matching"
    )
    return figure([heat], layout, title, height=height + top_px, top_axis=True,
                  top_labels_px=top_px)  # fmt: skip


def _stack_centres(values: np.ndarray, scale: float, pad: float) -> np.ndarray:
    """Centres (0 = top, 1 = bottom) of nodes stacked in order with ``pad`` between them."""
    heights = values * scale
    tops = np.concatenate([[0.0], np.cumsum(heights[:-1] + pad)])
    return tops + heights / 2


@memoised
def sankey(
    table: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    sources: np.ndarray,
    targets: np.ndarray,
    values: np.ndarray,
    n_matched: int = 0,
    title: str = "Where each class goes: class → cluster flow",
    row_word: str = "class",
    col_word: str = "cluster",
    subtitle: str | None = None,
) -> go.Figure:
    """Sankey diagram of the flows ``(sources[i] → targets[i], values[i])`` (row → column).

    Nodes keep the order of ``rows`` and ``cols`` (the matched order of the contingency
    heatmap) top to bottom: their positions are set, else Plotly reorders them to reduce
    crossings. The first ``n_matched`` clusters are matched to the class of the same rank and
    take its colour; other clusters are grey. Labels are dark, for pale link bands.
    """
    k, c = len(rows), len(cols)
    src = np.asarray(sources, dtype=np.int64)
    dst = np.asarray(targets, dtype=np.int64)
    val = np.asarray(values, dtype=np.int64)
    labels = [f"{row_word} {r}" for r in plain_all(rows)] + [
        f"{col_word} {x}" for x in plain_all(cols)
    ]
    palette = list(QUALITATIVE_LONG)  # 50 classes: no colour repeats below 70
    n_m = min(int(n_matched), k, c)
    node_colors = [palette[i % len(palette)] for i in range(k)] + [
        palette[j % len(palette)] if j < n_m else "#9ca3af" for j in range(c)
    ]

    def rgba(hex_color: str, alpha: float) -> str:
        h = hex_color.lstrip("#")
        r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
        return f"rgba({r},{g},{b},{alpha})"

    link_colors = [rgba(palette[int(x) % len(palette)], 0.4) for x in src]
    height = int(min(max(380, 24 * max(k, c)), 1200))
    # Node positions in the given order: each side stacked top to bottom at Plotly's scale
    # (the fuller side fills the plot height), centres as fractions of the plot height.
    out_v = np.bincount(src, weights=val, minlength=k).astype(np.float64)
    in_v = np.bincount(dst, weights=val, minlength=c).astype(np.float64)
    pad = 12.0
    plot_h = max(height - 70.0, 100.0)
    total = max(float(val.sum()), 1.0)
    scale = min((plot_h - pad * (n - 1)) / total for n in (k, c) if n > 0) if k and c else 1.0
    scale = max(scale, 1e-9)
    ys = (
        np.concatenate([_stack_centres(out_v, scale, pad), _stack_centres(in_v, scale, pad)])
        / plot_h
    )
    xs = [0.001] * k + [0.999] * c
    flows = go.Sankey(
        arrangement="snap",
        textfont={"color": "#111827", "size": 13},
        node={
            "label": labels,
            "color": node_colors,
            "x": xs,
            "y": np.clip(ys, 0.001, 0.999).tolist(),
            "pad": pad,
            "thickness": 16,
            "line": {"color": "#ffffff", "width": 0.5},
            "hovertemplate": "%{label}: %{value:,} points<extra></extra>",
        },
        link={
            "source": src.tolist(),
            "target": (dst + k).tolist(),
            "value": val.tolist(),
            "color": link_colors,
            "hovertemplate": "%{source.label} → %{target.label}: %{value:,} points<extra></extra>",
        },
    )
    return figure(
        [flows],
        {},
        title,
        subtitle=subtitle
        or "classes and clusters in the heatmap's matched order; a matched cluster "
        "takes its class's colour, unmatched clusters are grey",
        height=height,
    )
