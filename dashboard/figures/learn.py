"""Figures of the Learn page: permutation-null bands, the editable scatter, a small C, SRE/CONN.

Pure builders: arrays in, ``go.Figure`` out, no ``st.*``. Names that may come from users go
through :func:`dashboard.figures._style.plain` so Plotly prints them literally.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from dashboard.figures._memo import memoised
from dashboard.figures._style import (
    BAD,
    GOOD,
    NEUTRAL,
    QUALITATIVE,
    SEQ_AFFINITY_NONZERO,
    plain,
    plain_all,
    style,
)
from metrics_core.evaluation import column_label

METRIC_COLOURS = {"nmi": "#E45756", "ari": "#4C78A8", "ami": "#54A24B"}
CLASS_SYMBOLS = ("circle", "square", "diamond", "triangle-up", "x", "star", "cross", "hexagon")


def _rgba(hex_colour: str, alpha: float) -> str:
    h = hex_colour.lstrip("#")
    r, g, b = (int(h[i : i + 2], 16) for i in (0, 2, 4))
    return f"rgba({r},{g},{b},{alpha})"


@memoised
def null_band_figure(
    ks: Sequence[int],
    exact_mean: Mapping[str, Sequence[float]],
    lo: Mapping[str, Sequence[float]],
    hi: Mapping[str, Sequence[float]],
    *,
    observed: Mapping[str, Sequence[float]] | None = None,
    observed_ks: Sequence[int] | None = None,
    metrics: Sequence[str] = ("nmi", "ari", "ami"),
    band_label: str = "95% of random labellings",
    title: str = "Random labels: NMI rises with the number of clusters, ARI and AMI stay ≈ 0",
) -> go.Figure:
    """Shaded band (quantiles) and exact expectation per metric; optional observed markers."""
    x = [int(k) for k in ks]
    fig = go.Figure()
    for m in metrics:
        colour = METRIC_COLOURS.get(m, "#6b7280")
        name = column_label(m)
        fig.add_trace(
            go.Scatter(
                x=x + x[::-1],
                y=list(np.asarray(hi[m], dtype=float)) + list(np.asarray(lo[m], dtype=float)[::-1]),
                fill="toself",
                fillcolor=_rgba(colour, 0.18),
                line={"width": 0},
                hoverinfo="skip",
                name=f"{name}: {band_label}",
                legendgroup=m,
            )
        )
        fig.add_trace(
            go.Scatter(
                x=x,
                y=np.asarray(exact_mean[m], dtype=float),
                mode="lines",
                line={"color": colour, "dash": "dash", "width": 2},
                name=f"{name}: expected under the null",
                legendgroup=m,
                hovertemplate=f"{name} expected<br>k = %{{x}}<br>%{{y:.3f}}<extra></extra>",
            )
        )
        if observed is not None and m in observed:
            fig.add_trace(
                go.Scatter(
                    x=[int(k) for k in (observed_ks if observed_ks is not None else ks)],
                    y=np.asarray(observed[m], dtype=float),
                    mode="lines+markers",
                    marker={"color": colour, "size": 9, "line": {"color": "white", "width": 1}},
                    line={"color": colour, "width": 1.5},
                    name=f"{name}: one random labelling",
                    legendgroup=m,
                    hovertemplate=f"{name}<br>k = %{{x}}<br>%{{y:.3f}}<extra></extra>",
                )
            )
    fig.add_hline(y=0, line={"color": "#9ca3af", "width": 1})
    fig.update_xaxes(title="number of clusters k", type="log", tickvals=x)
    fig.update_yaxes(title="score", zeroline=False)
    fig.update_layout(legend={"orientation": "h", "y": -0.25, "x": 0})
    return style(fig, title, height=470)


@memoised
def scatter_figure(
    xy: np.ndarray,
    clusters: Sequence[int],
    classes: Sequence[int],
    *,
    cluster_names: Sequence[str] | None = None,
    class_names: Sequence[str] | None = None,
    title: str = "Points coloured by cluster, shaped by class — select with box or lasso",
) -> go.Figure:
    """2-D scatter: colour = predicted cluster, symbol = true class; customdata = point index.

    One trace per cluster (a legend entry each, a colour swatch), then one legend entry per
    true class (its marker shape); ``customdata[0]`` of every point is its global index, so a
    selection event maps back to points whatever trace they are in.
    """
    xy = np.asarray(xy, dtype=float)
    cl = np.asarray(clusters, dtype=np.int64)
    ca = np.asarray(classes, dtype=np.int64)
    n_cl = int(cl.max()) + 1 if cl.size else 0
    cnames = (
        plain_all(cluster_names)
        if cluster_names is not None
        else [f"cluster {j + 1}" for j in range(n_cl)]
    )
    knames = (
        plain_all(class_names)
        if class_names is not None
        else [f"class {chr(65 + i)}" for i in range(int(ca.max()) + 1 if ca.size else 0)]
    )
    fig = go.Figure()
    for j in range(n_cl):
        idx = np.flatnonzero(cl == j)
        if idx.size == 0:
            continue
        # The cluster's legend entry is a colour swatch (a line): a marker there would take
        # the shape of the trace's first point, which reads as a class.
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="lines",
                name=cnames[j],
                legendgroup=f"cluster {j}",
                line={"color": QUALITATIVE[j % len(QUALITATIVE)], "width": 8},
                hoverinfo="skip",
            )
        )
        fig.add_trace(
            go.Scatter(
                x=xy[idx, 0],
                y=xy[idx, 1],
                mode="markers",
                name=cnames[j],
                legendgroup=f"cluster {j}",
                showlegend=False,
                customdata=np.column_stack([idx, ca[idx]]),
                text=[knames[c] for c in ca[idx]],
                marker={
                    "color": QUALITATIVE[j % len(QUALITATIVE)],
                    "symbol": [CLASS_SYMBOLS[c % len(CLASS_SYMBOLS)] for c in ca[idx]],
                    "size": 13,
                    "line": {"color": "#1f2937", "width": 1},
                },
                hovertemplate=(
                    f"point %{{customdata[0]}}<br>{cnames[j]}<br>%{{text}}<extra></extra>"
                ),
            )
        )
    # The shape of a marker is the true class: a legend group of its own says so. These
    # entries draw no points (so a selection never hits them).
    present = sorted({int(c) for c in ca.tolist()})
    for n, c in enumerate(present):
        fig.add_trace(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                name=knames[c] if c < len(knames) else f"class {c}",
                legendgroup="true class",
                legendgrouptitle=(
                    {"text": "shape = true class", "font": {"size": 13}} if n == 0 else None
                ),
                marker={
                    "color": "white",
                    "symbol": CLASS_SYMBOLS[c % len(CLASS_SYMBOLS)],
                    "size": 12,
                    "line": {"color": "#1f2937", "width": 1.5},
                },
                hoverinfo="skip",
            )
        )
    fig.update_xaxes(showticklabels=False, title=None, zeroline=False)
    fig.update_yaxes(showticklabels=False, title=None, zeroline=False, scaleanchor="x")
    fig.update_layout(
        dragmode="lasso",
        legend={"title": {"text": "colour = cluster", "font": {"size": 13}}, "tracegroupgap": 0},
    )
    return style(fig, title, height=440)


@memoised
def coef_heatmap(coef: np.ndarray, labels: Sequence[int], *, title: str | None = None) -> go.Figure:
    """|C| of a small matrix, points sorted by class, class boundaries drawn."""
    c = np.abs(np.asarray(coef, dtype=float))
    lab = np.asarray(labels)
    order = np.argsort(lab, kind="stable")
    c = c[np.ix_(order, order)]
    lab = lab[order]
    n = lab.size
    # The Affinity view's scale: zero is white (a gap on a white background), the smallest
    # non-zero already clearly coloured, large values dark.
    z = np.where(c > 0, c, np.nan)
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(range(n)),
            y=list(range(n)),
            colorscale=SEQ_AFFINITY_NONZERO,
            zmin=0,
            zmax=float(c.max()) if c.size and c.max() > 0 else 1.0,
            colorbar={"title": {"text": "|C_ij|"}, "thickness": 14},
            hovertemplate="row %{y} → col %{x}<br>|C| = %{z:.3f}<extra></extra>",
            hoverongaps=False,
            xgap=1,
            ygap=1,
        )
    )
    cuts = np.flatnonzero(np.diff(lab)) + 0.5
    line = {"color": "#d62728", "width": 1.5}
    for b in cuts:
        fig.add_shape(type="line", x0=b, x1=b, y0=-0.5, y1=n - 0.5, line=line)
        fig.add_shape(type="line", y0=b, y1=b, x0=-0.5, x1=n - 0.5, line=line)
    fig.update_xaxes(
        title="represented by point j", showticklabels=False, showgrid=False, zeroline=False,
        range=[-0.5, n - 0.5], constrain="domain", linecolor=NEUTRAL, mirror=True,
    )  # fmt: skip
    fig.update_yaxes(
        title="point i", autorange="reversed", showticklabels=False, scaleanchor="x",
        showgrid=False, zeroline=False, constrain="domain", linecolor=NEUTRAL, mirror=True,
    )  # fmt: skip
    fig.update_layout(plot_bgcolor="white")
    return style(
        fig,
        title or "|C|, points sorted by class",
        subtitle="white = exactly 0; red lines: class boundaries",
        height=450,
    )


@memoised
def tradeoff_figure(
    x: Sequence[float],
    sre: Sequence[float],
    conn: Sequence[float],
    *,
    current: tuple[float, float, float] | None = None,
    x_title: str = "density within classes",
    title: str = "SRE (lower is better) and CONN (higher is better) as C gets denser",
) -> go.Figure:
    """SRE and CONN along a path of C matrices; the current setting marked."""
    fig = go.Figure()
    fig.add_trace(
        go.Scatter(
            x=list(x),
            y=list(sre),
            mode="lines+markers",
            name="SRE",
            line={"color": BAD, "width": 2},
        )
    )
    fig.add_trace(
        go.Scatter(
            x=list(x),
            y=list(conn),
            mode="lines+markers",
            name="CONN (min λ2)",
            line={"color": GOOD, "width": 2},
        )
    )
    if current is not None:
        cx, cs, cc = current
        fig.add_trace(
            go.Scatter(
                x=[cx, cx],
                y=[cs, cc],
                mode="markers",
                name="current C",
                marker={
                    "size": 15,
                    "symbol": "circle-open",
                    "color": "#111827",
                    "line": {"width": 3},
                },
            )
        )
    fig.update_xaxes(title=x_title)
    fig.update_yaxes(title="value", rangemode="tozero")
    fig.update_layout(legend={"orientation": "h", "y": -0.25, "x": 0})
    return style(fig, title, height=400)


@memoised
def class_bars(values: Mapping[str, float], *, title: str, higher_is_better: bool) -> go.Figure:
    """Bars of a per-class quantity (our own short names as keys)."""
    names = [plain(k) for k in values]
    v = np.asarray(list(values.values()), dtype=float)
    colour = GOOD if higher_is_better else BAD
    fig = go.Figure(
        go.Bar(
            x=names, y=v, marker_color=colour, text=[f"{x:.3f}" for x in v], textposition="outside"
        )
    )
    fig.update_xaxes(type="category")
    return style(fig, title, height=320)
