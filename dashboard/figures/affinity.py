"""Affinity figures: the block-structured |C| + |C|ᵀ plot, per-class CONN and SRE, leakage."""

from __future__ import annotations

import base64
import io
import itertools
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale, sample_colorscale

from dashboard.figures._memo import memoised
from dashboard.figures._style import (
    BAD,
    KEPT,
    NEUTRAL,
    QUALITATIVE,
    SEQ_AFFINITY_NONZERO,
    SEQ_LEAK,
    category_ticks,
    figure,
    focus_bands,
    focus_marker_lines,
    grid_lines,
    pct,
    plain_all,
    scatter_class,
    style_layout,
    unique_names,
)

#: Zero is drawn white (no colour at all); the scale starts at a visible light colour, so the
#: weakest non-zero coefficient never looks like a zero.
AFFINITY_SCALE = SEQ_AFFINITY_NONZERO
#: In log colour, values below max / LOG_RANGE share the lowest colour.
LOG_RANGE = 1e4
#: Class names are written on the axes up to this many groups.
TICK_LIMIT = 40


def _lut(scale: Any) -> np.ndarray:
    """256 x 3 uint8 colour lookup table of a Plotly colour scale (a name or (pos, colour)s)."""
    key = scale if isinstance(scale, str) else tuple((float(p), str(c)) for p, c in scale)
    return _lut_cached(key)


@lru_cache(maxsize=8)
def _lut_cached(scale: str | tuple) -> np.ndarray:
    named = isinstance(scale, str)
    stops = get_colorscale(scale) if named else [list(x) for x in scale]
    cols = sample_colorscale(stops, list(np.linspace(0, 1, 256)), colortype="rgb")
    out = np.empty((256, 3), dtype=np.uint8)
    for i, c in enumerate(cols):
        out[i] = [int(float(v)) for v in c[c.index("(") + 1 : -1].split(",")]
    return out


def colour_limits(values: np.ndarray, log: bool) -> tuple[float, float]:
    """Colour range: linear 0..(99.5th percentile of the non-zeros); log spans 4 decades."""
    pos = values[values > 0]
    if pos.size == 0:
        return (0.0, 1.0) if not log else (-1.0, 0.0)
    hi = float(np.percentile(pos, 99.5)) if pos.size > 100 else float(pos.max())
    hi = hi if hi > 0 else float(pos.max())
    if log:
        lo = max(float(pos.min()), hi / LOG_RANGE)
        return float(np.log10(lo)), float(np.log10(hi))
    return 0.0, hi


def _scaled(values: np.ndarray, log: bool, lims: tuple[float, float]) -> np.ndarray:
    """Values mapped to [0, 1] for the colour scale (NaN where zero in log mode)."""
    lo, hi = lims
    with np.errstate(divide="ignore", invalid="ignore"):
        v = np.where(values > 0, np.log10(values), np.nan) if log else values.astype(np.float64)
    span = hi - lo if hi > lo else 1.0
    return np.clip((v - lo) / span, 0.0, 1.0)


def pooled_image_uri(
    values: np.ndarray,
    log: bool,
    lims: tuple[float, float],
    scale: Any = AFFINITY_SCALE,
    *,
    zeros_white: bool = True,
) -> str:
    """A pooled display's values coloured on ``lims`` of ``scale`` (log: in decades), as a PNG
    data URI; ``zeros_white``: a cell without any coefficient is white (in log mode it always
    is: zero has no logarithm), otherwise the scale's low colour, as a heatmap shows it."""
    idx = np.round(_scaled(values, log, lims) * 255)
    rgb = _lut(scale)[np.nan_to_num(idx, nan=0).astype(np.intp)]
    if zeros_white or log:
        rgb[~(values > 0)] = 255
    return to_png_uri(rgb)


def to_png_uri(rgb: np.ndarray) -> str:
    """PNG data URI of an (H, W, 3) uint8 image."""
    from PIL import Image

    buf = io.BytesIO()
    Image.fromarray(rgb, mode="RGB").save(buf, format="PNG", optimize=False, compress_level=1)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def heatmap_cells(z: np.ndarray) -> dict[str, np.ndarray]:
    """A square heatmap's ``z`` (gaps as NaN) as the Heatmap arguments that send the fewest bytes.

    Mostly gaps (a sparse C: the demo's 400 x 400 W has 5,180 non-zero cells), the cells that
    have a value as columns: ``x`` (column position), ``y`` (row position) and ``z``, from which
    Plotly builds the very same grid (Plotly's column form: one cell per distinct (x, y)); a
    gap on the diagonal wherever W_ii has none, so that every position 0..n−1 is given as an x
    and as a y and no row or column of the grid goes missing. The demo's plot: 1.13 MB of JSON
    → 62 kB, drawn pixel for pixel the same (browser test). With values in half the cells or
    more (a dense C), or a grid that is not square, ``z`` stays the grid itself: 4 bytes a cell
    there beat 8 a cell with a value.

    Examples
    --------
    >>> z = np.full((3, 3), np.nan)
    >>> z[0, 2] = 1.5
    >>> cells = heatmap_cells(z)
    >>> cells["x"].tolist(), cells["y"].tolist(), cells["z"].tolist()
    ([2, 0, 1, 2], [0, 0, 1, 2], [1.5, nan, nan, nan])
    >>> sorted(heatmap_cells(np.ones((3, 3))))
    ['z']
    """
    z = np.asarray(z, dtype=np.float32)
    n = z.shape[0]
    if z.ndim != 2 or z.shape[1] != n or n > np.iinfo(np.int16).max:
        return {"z": z}
    rows, cols = np.nonzero(np.isfinite(z))
    if rows.size * 8 >= z.size * 4:
        return {"z": z}
    has_diagonal = np.zeros(n, dtype=bool)
    has_diagonal[rows[rows == cols]] = True
    frame = np.flatnonzero(~has_diagonal)
    return {
        "x": np.concatenate([cols, frame]).astype(np.int16),
        "y": np.concatenate([rows, frame]).astype(np.int16),
        "z": np.concatenate([z[rows, cols], np.full(frame.size, np.nan, np.float32)]),
    }


def heatmap_grid(trace: Any, n: int) -> np.ndarray:
    """The n x n grid a Heatmap trace built by :func:`heatmap_cells` draws (gaps NaN): what
    Plotly makes of its column form, for tests and for anyone reading the figure back."""
    z = np.asarray(trace.z, dtype=np.float64)
    if z.ndim == 2:
        return z
    grid = np.full((n, n), np.nan)
    grid[np.asarray(trace.y, dtype=np.intp), np.asarray(trace.x, dtype=np.intp)] = z
    return grid


def _colorbar(title: str) -> dict[str, Any]:
    """A horizontal colour bar just above the square plot.

    A vertical bar sits at the paper's right edge, far from a square plot on a wide page; one
    below the plot collides with long rotated class names.
    """
    return {
        "title": {"text": title, "side": "right"},
        "orientation": "h",
        "thickness": 12,
        "len": 0.45,
        "x": 0.5,
        "xanchor": "center",
        "y": 1.01,
        "yanchor": "bottom",
    }


def _colorbar_trace(lims: tuple[float, float], log: bool, scale: str) -> go.Scatter:
    """An invisible trace that only draws the colour bar (images have none)."""
    lo, hi = lims
    bar = _colorbar("|C|+|C|ᵀ")
    if log:
        ticks = np.arange(np.ceil(lo), np.floor(hi) + 1)
        bar.update(tickvals=ticks.tolist(), ticktext=[f"1e{int(t)}" for t in ticks])
    return go.Scatter(
        x=[None],
        y=[None],
        mode="markers",
        showlegend=False,
        hoverinfo="skip",
        marker={
            "colorscale": scale,
            "cmin": lo,
            "cmax": hi,
            "color": [lo],
            "showscale": True,
            "colorbar": bar,
        },
    )


@memoised
def affinity_figure(
    display: dict[str, Any],
    *,
    log: bool = True,
    scale: str = AFFINITY_SCALE,
    focus_groups: Sequence[int] = (),
) -> go.Figure:
    """The block-structured plot of W = |C| + |C|ᵀ from ``compute.affinity_display`` output.

    ``display`` holds ``values`` (B x B), ``edges`` (B + 1 positions), ``bounds`` (group starts
    plus N), ``group_names``, ``group_kind`` ("class" or "cluster"), ``pooled``, ``n``,
    ``sort_mode``. Small matrices are a per-cell heatmap with hover; pooled ones are sent as a
    PNG image (a few hundred KB at any N), which the title says. The groups at positions
    ``focus_groups`` are outlined (their rows and columns of W) in the focus colour.
    """
    values = np.asarray(display["values"], dtype=np.float64)
    edges = np.asarray(display["edges"], dtype=np.int64)
    bounds = np.asarray(display["bounds"], dtype=np.int64)
    names = unique_names(plain_all(display["group_names"]))
    n = int(display["n"])
    n_bins = len(edges) - 1
    pooled = bool(display["pooled"])
    lims = colour_limits(values, log)
    # group boundaries in axis units (bins; with no pooling a bin is a point)
    b_axis = np.searchsorted(edges, bounds)
    centres = (b_axis[:-1] + b_axis[1:]) / 2 - 0.5
    if pooled:
        traces: list[Any] = [
            go.Image(
                # no coefficient at all: white (the scale starts coloured)
                source=pooled_image_uri(values, log, lims, scale),
                x0=0,
                y0=0,
                dx=1,
                dy=1,
                hovertemplate="row bin %{y}, column bin %{x}<extra></extra>",
            ),
            _colorbar_trace(lims, log, scale),
        ]
        sizes = np.diff(edges)
        note = (
            f"pooled for display: {n:,} points → {n_bins} x {n_bins} bins of "
            f"{sizes.min()}–{sizes.max()} points, mean per block; bins never cross a "
            f"{display['group_kind']} boundary"
        )
    else:
        # zeros are gaps (white background), so the scale's low end is the smallest non-zero
        with np.errstate(divide="ignore"):
            z = np.where(values > 0, np.log10(values) if log else values, np.nan)
        hover = (
            "row point at position %{y}<br>column point at position %{x}<br>"
            + ("log10 |C|+|C|ᵀ = %{z:.2f}" if log else "|C|+|C|ᵀ = %{z:.3g}")
            + "<extra></extra>"
        )
        traces = [
            go.Heatmap(
                **heatmap_cells(z),
                colorscale=scale,
                zmin=lims[0],
                zmax=lims[1],
                hovertemplate=hover,
                hoverongaps=False,
                colorbar=_colorbar("log10 |C|+|C|ᵀ" if log else "|C|+|C|ᵀ"),
            )
        ]
        note = f"all {n:,} x {n:,} cells; hover for values"
    traces.append(
        grid_lines(
            (b_axis[1:-1] - 0.5).tolist(),
            -0.5,
            n_bins - 0.5,
            {"color": "#d62728", "width": 1.2},
            f"{display['group_kind']} boundaries",
        )
    )
    spans = [(b_axis[g] - 0.5, b_axis[g + 1] - 0.5) for g in focus_groups]
    ticks: dict[str, Any] = {"showticklabels": False, "ticks": ""}
    if len(names) <= TICK_LIMIT:
        ticks = {"tickmode": "array", "tickvals": centres.tolist(), "ticktext": names}
    layout = {
        "shapes": focus_bands(spans, spans, (-0.5, n_bins - 0.5), (-0.5, n_bins - 0.5)),
        "xaxis": {
            "range": [-0.5, n_bins - 0.5],
            "showgrid": False,
            "zeroline": False,
            "constrain": "domain",
            "title": {
                "text": f"points sorted by {display['sort_mode']} "
                f"({display['group_kind']} boundaries in red)"
            },
            **ticks,
        },
        "yaxis": {
            "range": [n_bins - 0.5, -0.5],
            "showgrid": False,
            "zeroline": False,
            "scaleanchor": "x",
            "constrain": "domain",
            **ticks,
        },
        "plot_bgcolor": "white",
    }
    title = f"Affinity |C| + |C|ᵀ ({'log' if log else 'linear'} colour)"
    styled = {"height": 760, "subtitle": f"{note}; white = no coefficient (exactly 0)",
              "block_on_pad": True}  # fmt: skip
    head = style_layout(title, **styled)
    # room between the subtitle and the plot for the horizontal colour bar (enough that the
    # bar needs no margin push: the title would not follow it)
    bar = 75
    after = {"margin": {"t": head["margin"]["t"] + bar},
             "title": {"pad": {"b": head["title"]["pad"]["b"] + bar}}}  # fmt: skip
    return figure(traces, layout, title, after=after, **styled)


def extreme_mask(values: np.ndarray, which: str, rtol: float = 1e-9) -> np.ndarray:
    """Which finite values equal the minimum (``"min"``) or maximum (to ``rtol``): a tie marks
    every tied bar, so the words never single out one of equals.

    Examples
    --------
    >>> extreme_mask(np.array([0.2, 0.1, 0.1, np.nan]), "min").tolist()
    [False, True, True, False]
    """
    v = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(v)
    if not finite.any():
        return np.zeros(v.shape, dtype=bool)
    ref = np.min(v[finite]) if which == "min" else np.max(v[finite])
    return finite & np.isclose(v, ref, rtol=rtol, atol=1e-15)


@memoised
def conn_bars(
    class_names: Sequence[Any],
    values: Sequence[float],
    *,
    title: str | None = None,
    focus: Sequence[int] = (),
) -> go.Figure:
    """Per-class connectivity λ₂ bars; the weakest class is red and labelled "weakest" (every
    tied class "tied weakest (n)"); the bars at positions ``focus`` are outlined.

    The x axis is categorical and the label is the bar's own text, not an annotation placed
    by x value: Plotly reads a numeric-looking category ("1") in an annotation as a position,
    which put the label on the wrong bar.
    """
    vals = np.asarray(values, dtype=np.float64)
    x = unique_names(plain_all(class_names))
    finite = np.isfinite(vals)
    low = extreme_mask(vals, "min")
    word = "weakest" if low.sum() == 1 else f"tied weakest ({int(low.sum())})"
    colors = [BAD if low[i] else QUALITATIVE[0] for i in range(len(vals))]
    bars = go.Bar(
        x=x,
        y=np.where(finite, vals, 0.0),
        marker={"color": colors, "line": focus_marker_lines(len(vals), focus)},
        text=[word if low[i] else "" for i in range(len(vals))],
        textposition="outside",
        textfont={"color": BAD, "size": 13},
        cliponaxis=False,
        hovertemplate="class %{x}<br>λ₂ = %{y:.4f}<extra></extra>",
    )
    top = float(np.nanmax(vals[finite])) if finite.any() else 1.0
    layout = {
        "xaxis": {"type": "category", "categoryorder": "array", "categoryarray": x,
                  "title": {"text": "true class"}, **category_ticks(x, len(x))},
        "yaxis": {"title": {"text": "λ₂ (CONN)"}, "range": [0, 1.15 * top if top > 0 else 1.0]},
    }  # fmt: skip
    return figure(
        [bars],
        layout,
        title or "Connectivity (CONN) per class",
        subtitle="higher = better connected; 0 = the class falls apart",
        height=380,
    )


@memoised
def sre_class_bars(
    class_names: Sequence[Any], values: Sequence[float], *, focus: Sequence[int] = ()
) -> go.Figure:
    """Mean SRE of the points of each class (lower is better); the worst is red, labelled; the
    bars at positions ``focus`` are outlined."""
    vals = np.asarray(values, dtype=np.float64)
    x = unique_names(plain_all(class_names))
    high = extreme_mask(vals, "max") & (np.nan_to_num(vals) > 0)
    word = "worst" if high.sum() == 1 else f"tied worst ({int(high.sum())})"
    bars = go.Bar(
        x=x,
        y=vals,
        marker={
            "color": [BAD if high[i] else QUALITATIVE[1] for i in range(len(vals))],
            "line": focus_marker_lines(len(vals), focus),
        },
        text=[word if high[i] else "" for i in range(len(vals))],
        textposition="outside",
        textfont={"color": BAD, "size": 13},
        cliponaxis=False,
        hovertemplate="class %{x}<br>SRE = %{y:.4f}<extra></extra>",
    )
    layout = {
        "xaxis": {"type": "category", "categoryorder": "array", "categoryarray": x,
                  "title": {"text": "true class"}, **category_ticks(x, len(x))},
        "yaxis": {"title": {"text": "SRE (share outside)"}, "range": [0, 1]},
    }  # fmt: skip
    return figure(
        [bars],
        layout,
        "Subspace-preserving error (SRE) per class",
        subtitle="share of each point's |coefficients| outside its class; lower = better",
        height=380,
    )


@memoised
def sre_points(
    values_in_order: np.ndarray,
    group_of_position: np.ndarray,
    bounds: np.ndarray,
    group_names: Sequence[Any],
    *,
    point_index: np.ndarray | None = None,
) -> go.Figure:
    """Per-point SRE along the ground-truth order, one colour per class, boundaries drawn."""
    v = np.asarray(values_in_order, dtype=np.float32)
    g = np.asarray(group_of_position, dtype=np.int64)
    bounds = np.asarray(bounds, dtype=np.int64)
    names = plain_all(group_names)
    pos = np.arange(v.size, dtype=np.int32)
    idx = None if point_index is None else np.asarray(point_index, dtype=np.int32)
    hover = (
        "position %{x}"
        + ("<br>point #%{customdata}" if idx is not None else "")
        + "<br>SRE = %{y:.3f}<extra>%{fullData.name}</extra>"
    )
    size = 4 if v.size < 5000 else 2
    scatter = scatter_class(v.size)
    runs = list(itertools.pairwise(bounds.tolist()))
    if len(runs) <= TICK_LIMIT:
        # One trace per class, numpy slices sent as binary; a per-point list of colour strings
        # would be validated point by point (seconds at N = 50,000).
        traces = [
            scatter(
                x=pos[lo:hi],
                y=v[lo:hi],
                mode="markers",
                name=f"class {names[k]}",
                marker={"size": size, "color": QUALITATIVE[k % len(QUALITATIVE)]},
                customdata=None if idx is None else idx[lo:hi],
                hovertemplate=hover,
                showlegend=False,
            )
            for k, (lo, hi) in enumerate(runs)
        ]
    else:
        scale = [[i / (len(QUALITATIVE) - 1), c] for i, c in enumerate(QUALITATIVE)]
        traces = [
            scatter(
                x=pos,
                y=v,
                mode="markers",
                name="points",
                customdata=idx,
                hovertemplate=hover,
                marker={
                    "size": size,
                    "color": (g % len(QUALITATIVE)).astype(np.int8),
                    "colorscale": scale,
                    "cmin": 0,
                    "cmax": len(QUALITATIVE) - 1,
                },
            )
        ]
    xaxis: dict[str, Any] = {"title": {"text": "points sorted by ground truth"}}
    if len(names) <= TICK_LIMIT:
        centres = (np.asarray(bounds)[:-1] + np.asarray(bounds)[1:]) / 2
        xaxis.update(tickmode="array", tickvals=centres.tolist(), ticktext=names)
    layout = {
        "shapes": [
            {
                "type": "line",
                "xref": "x",
                "yref": "paper",
                "x0": float(b) - 0.5,
                "x1": float(b) - 0.5,
                "y0": 0,
                "y1": 1,
                "line": {"color": NEUTRAL, "width": 1, "dash": "dot"},
            }
            for b in bounds[1:-1]
        ],
        "xaxis": xaxis,
        "yaxis": {"title": {"text": "SRE of the point"}, "range": [-0.02, 1.02]},
    }
    return figure(traces, layout, "Subspace-preserving error per point", height=360)


@memoised
def leakage_heatmap(
    matrix: np.ndarray,
    class_names: Sequence[Any],
    *,
    absolute: bool = True,
    focus: Sequence[int] = (),
) -> go.Figure:
    """K x K coefficient mass from class a (row) onto class b (column), as shares of the row.

    ``absolute``: the colour scale runs over shares 0–1, so one colour means one share in every
    figure (the default); otherwise it is stretched to the largest leak (small leaks stand
    out, but colours of two figures cannot be compared). The share is written in each cell.
    The rows and columns of the classes at positions ``focus`` are outlined.

    The diagonal (mass kept inside the class, usually most of it) is drawn in one neutral
    colour with its share written in, so the colour scale belongs to the off-diagonal leakage
    alone and a 2% leak is visible next to a 98% diagonal. Shares print with one decimal
    (:func:`~dashboard.figures._style.pct`): a real leak never reads "0%".
    """
    m = np.asarray(matrix, dtype=np.float64)
    s = m.sum(axis=1, keepdims=True)
    share = np.divide(m, s, out=np.zeros_like(m), where=s > 0)
    k = m.shape[0]
    names = unique_names(plain_all(class_names))
    diag = np.eye(k, dtype=bool)
    off = np.where(diag, np.nan, share)
    kept = np.where(diag, share, np.nan)
    top = float(np.nanmax(off)) if k > 1 and np.isfinite(off).any() else 0.0
    zmax = 1.0 if absolute or not top > 0 else top
    text = np.vectorize(pct, otypes=[object])(share) if k else np.empty((0, 0), dtype=object)
    show_text = k <= 25
    common: dict[str, Any] = {
        "x": names,
        "y": names,
        "customdata": m,
        "xgap": 1,
        "ygap": 1,
        "hoverongaps": False,
    }
    leak_text = np.where(diag, "", text)
    kept_text = np.where(diag, np.char.add("kept ", text.astype(str)) if k else text, "")
    leak = go.Heatmap(
        z=off,
        colorscale=SEQ_LEAK,
        zmin=0,
        zmax=zmax,
        hovertemplate="from class %{y} onto class %{x}<br>%{z:.2%} of the row's |C| mass leaks "
        "here<br>mass %{customdata:.4g}<extra></extra>",
        colorbar={
            "title": {
                "text": "leaked share<br>of the row"
                + ("" if absolute else "<br>(scale to the<br>largest leak)")
            },
            "thickness": 14,
            "tickformat": ".1%" if zmax < 0.1 else ".0%",
        },
        textfont={"size": 11},
        **({"text": leak_text, "texttemplate": "%{text}"} if show_text else {}),
        **common,
    )
    inside = go.Heatmap(
        z=kept,
        colorscale=[[0, KEPT], [1, KEPT]],
        zmin=0,
        zmax=1,
        showscale=False,
        hovertemplate="class %{y}: %{z:.2%} of its |C| mass stays inside"
        "<br>mass %{customdata:.4g}<extra></extra>",
        textfont={"size": 11, "color": "#111827"},
        **({"text": kept_text, "texttemplate": "%{text}"} if show_text else {}),
        **common,
    )
    spans = [(i - 0.5, i + 0.5) for i in focus]
    layout = {
        "shapes": focus_bands(spans, spans, (-0.5, k - 0.5), (-0.5, k - 0.5)),
        "xaxis": {
            "type": "category",
            "categoryorder": "array",
            "categoryarray": names,
            "title": {"text": "onto class b"},
            "side": "bottom",
            **category_ticks(names, k),
        },
        "yaxis": {
            "type": "category",
            "categoryorder": "array",
            "categoryarray": names,
            "title": {"text": "from class a"},
            "autorange": "reversed",
            **category_ticks(names, k, max_chars=24, span_px=400, horizontal=True),
        },
        "plot_bgcolor": "white",
    }
    return figure(
        [leak, inside],
        layout,
        "Leakage: share of each class's |C| mass landing on another class",
        subtitle="rows sum to 100%; grey diagonal = kept inside the class; colour = leak "
        + ("(absolute scale, 0–100%" if absolute else "(scale up to the largest leak")
        + f"; largest leak {pct(top)})",
        height=int(min(max(440, 220 + 30 * k), 900)),
    )
