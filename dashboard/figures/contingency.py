"""Contingency figures: the matched heatmap and the class → cluster flow (Sankey)."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.figures._style import QUALITATIVE, SEQ_COUNTS, plain_all, style, unique_names

#: Annotate every cell with its count up to this many cells.
ANNOTATE_LIMIT = 1_200
MODE_TITLES = {
    "counts": "counts",
    "row": "share of each class (rows sum to 1)",
    "column": "share of each cluster (columns sum to 1)",
}


def contingency_heatmap(
    table: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    mode: str = "counts",
    n_matched: int = 0,
    title: str | None = None,
) -> go.Figure:
    """Classes (rows) x clusters (columns) heatmap, in the given (matched) order.

    ``table`` holds counts; ``mode`` picks what the colour shows (``"counts"``, ``"row"``,
    ``"column"`` shares); the annotation always shows the count (and the share when normalised).
    The first ``n_matched`` diagonal cells (the optimal matching) are outlined.
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
    fig = go.Figure(heat)
    for d in range(min(n_matched, k, c)):
        fig.add_shape(
            type="rect",
            x0=d - 0.5,
            x1=d + 0.5,
            y0=d - 0.5,
            y1=d + 0.5,
            line={"color": "#111827", "width": 2},
        )
    fig.update_xaxes(
        type="category",
        title="predicted cluster (matched to the row on the diagonal first)",
        side="top",
        tickangle=-45 if c > 12 else 0,
    )
    fig.update_yaxes(type="category", title="true class", autorange="reversed")
    title = title or (
        f"Contingency table — {MODE_TITLES.get(mode, mode)}, ordered by optimal matching"
    )
    cell = 28 if k <= 30 else 14
    return style(fig, title, height=int(min(max(400, 200 + cell * k), 1100)), top_axis=True)


def sankey(
    table: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    *,
    sources: np.ndarray,
    targets: np.ndarray,
    values: np.ndarray,
    title: str = "Where each class goes: class → cluster flow",
) -> go.Figure:
    """Sankey diagram of the flows ``(sources[i] → targets[i], values[i])`` (row → column)."""
    k = len(rows)
    labels = [f"class {r}" for r in plain_all(rows)] + [f"cluster {c}" for c in plain_all(cols)]
    palette = list(QUALITATIVE)
    node_colors = [palette[i % len(palette)] for i in range(k)] + ["#9ca3af"] * len(cols)

    def rgba(hex_color: str, alpha: float) -> str:
        h = hex_color.lstrip("#")
        r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
        return f"rgba({r},{g},{b},{alpha})"

    link_colors = [rgba(palette[int(s) % len(palette)], 0.45) for s in sources]
    fig = go.Figure(
        go.Sankey(
            arrangement="snap",
            node={
                "label": labels,
                "color": node_colors,
                "pad": 12,
                "thickness": 16,
                "hovertemplate": "%{label}: %{value:,} points<extra></extra>",
            },
            link={
                "source": np.asarray(sources, dtype=np.int64).tolist(),
                "target": (np.asarray(targets, dtype=np.int64) + k).tolist(),
                "value": np.asarray(values, dtype=np.int64).tolist(),
                "color": link_colors,
                "hovertemplate": "%{source.label} → %{target.label}: %{value:,} points"
                "<extra></extra>",
            },
        )
    )
    height = int(min(max(380, 24 * max(k, len(cols))), 1200))
    return style(fig, title, height=height)
