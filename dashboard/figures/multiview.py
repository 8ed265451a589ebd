"""Multi-view figures: per-view affinities on one colour scale, view weights, convergence.

Pure builders over the pooled displays of :func:`dashboard.compute.multiview.panel_display`
(``values`` B x B, ``edges``, ``bounds``, ``group_names``, ``n``, ``pooled``). View names may be
user file names, so they are escaped with :func:`_style.plain`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go

from dashboard.figures._memo import memoised
from dashboard.figures._style import (
    QUALITATIVE,
    axis_ref,
    figure,
    grid_lines,
    plain_all,
    subplot_grid,
    unique_names,
)
from dashboard.figures.affinity import (
    AFFINITY_SCALE,
    TICK_LIMIT,
    colour_limits,
    pooled_image_uri,
)

BOUNDARY = {"color": "#d62728", "width": 1}
#: The name of each panel's class-boundary trace (:func:`~dashboard.figures._style.grid_lines`).
BOUNDARY_NAME = "class boundaries"


def shared_limits(panels: Sequence[Mapping[str, Any]], log: bool) -> tuple[float, float]:
    """One colour range for all panels (log: in decades), from all their values together."""
    values = np.concatenate([np.asarray(p["values"], dtype=np.float64).ravel() for p in panels])
    return colour_limits(values, log)


def _colour_axis(lims: tuple[float, float], log: bool, title: str, **bar: Any) -> dict[str, Any]:
    """A colour axis on the affinity scale over ``lims`` (log: decades, ticks named 1eK)."""
    side = {"side": "top"} if bar.get("orientation") == "h" else {}
    colorbar: dict[str, Any] = {"title": {"text": title, **side}, "thickness": 14, **bar}
    if log:
        tv = np.arange(np.ceil(lims[0]), np.floor(lims[1]) + 1)
        colorbar.update(tickvals=tv.tolist(), ticktext=[f"1e{int(t)}" for t in tv])
    return {"colorscale": AFFINITY_SCALE, "cmin": lims[0], "cmax": lims[1], "colorbar": colorbar}


def _panel(
    p: Mapping[str, Any],
    title: str,
    x_name: str,
    y_name: str,
    log: bool,
    lims: tuple[float, float],
    *,
    shared: bool,
) -> tuple[list[Any], dict[str, Any], dict[str, Any]]:
    """One affinity panel on the axes ``x_name``/``y_name``: its picture on the colour range
    ``lims``, its class boundaries, and the two axes' settings (square, classes named at their
    centres).

    A pooled panel (block means) is sent as a PNG image, as the Affinity page sends its pooled
    plot: the browser shows it as it is, where a heatmap is coloured cell by cell in the
    browser (six of them were most of the Multi-view page's first drawing); its hover names the
    bins. A panel of single points stays a heatmap whose hover gives each value; with
    ``shared`` it is on the figure's colour axis, otherwise on ``lims`` without a colour bar.
    """
    on = {"xaxis": axis_ref(x_name), "yaxis": axis_ref(y_name)}
    values = np.asarray(p["values"], dtype=np.float64)
    name = plain_all([title])[0]
    if p.get("pooled"):
        # linear: a zero is the scale's low colour, as the heatmap drew it (the paper's look)
        uri = pooled_image_uri(values, log, lims, zeros_white=False)
        picture: Any = go.Image(
            source=uri, x0=0, y0=0, dx=1, dy=1, name=name,
            hovertemplate="row bin %{y}, column bin %{x}<extra>%{fullData.name}</extra>", **on,
        )  # fmt: skip
    else:
        with np.errstate(divide="ignore"):
            z = np.where(values > 0, np.log10(values), np.nan) if log else values
        trace: dict[str, Any] = {
            "z": z.astype(np.float32),
            "hovertemplate": "row bin %{y}, column bin %{x}<br>"
            + ("log10 value %{z:.2f}" if log else "value %{z:.3g}")
            + "<extra>%{fullData.name}</extra>",
            "name": name,
            **on,
        }
        if shared:
            trace["coloraxis"] = "coloraxis"
        else:
            trace.update(colorscale=AFFINITY_SCALE, zmin=lims[0], zmax=lims[1], showscale=False)
        picture = go.Heatmap(**trace)
    n_bins = values.shape[0]
    edges = np.asarray(p["edges"], dtype=np.int64)
    b_axis = np.searchsorted(edges, np.asarray(p["bounds"], dtype=np.int64))
    lines = grid_lines((b_axis[1:-1] - 0.5).tolist(), -0.5, n_bins - 0.5, BOUNDARY, BOUNDARY_NAME)
    names = unique_names(plain_all(p["group_names"]))
    centres = ((b_axis[:-1] + b_axis[1:]) / 2 - 0.5).tolist()
    ticks: dict[str, Any] = {"showticklabels": False, "ticks": ""}
    if len(names) <= TICK_LIMIT:
        ticks = {"tickmode": "array", "tickvals": centres, "ticktext": names}
    common = {"showgrid": False, "zeroline": False, "constrain": "domain",
              "tickfont": {"size": 10}, **ticks}  # fmt: skip
    x_axis = {"range": [-0.5, n_bins - 0.5], **common}
    y_axis = {"range": [n_bins - 0.5, -0.5], "scaleanchor": on["xaxis"], **common}
    return [picture, lines.update(**on)], x_axis, y_axis


def _colour_bar_only(lims: tuple[float, float], x_name: str, y_name: str) -> go.Scatter:
    """An invisible trace on the figure's colour axis: its colour bar shows for pictures sent
    as images (an image has no colour axis of its own)."""
    return go.Scatter(
        x=[None], y=[None], mode="markers", showlegend=False, hoverinfo="skip",
        marker={"color": [lims[0]], "coloraxis": "coloraxis"},
        xaxis=axis_ref(x_name), yaxis=axis_ref(y_name),
    )  # fmt: skip


@memoised
def affinity_panels(
    panels: Sequence[Mapping[str, Any]],
    titles: Sequence[str],
    *,
    log: bool = True,
    colour_title: str = "|Z|+|Z|ᵀ",
    title: str = "Per-view affinities",
    shared: bool = True,
    max_cols: int = 3,
) -> go.Figure:
    """Block-structured affinity panels side by side, points sorted by class (red lines).

    With ``shared=True`` every panel uses one colour axis (one colour bar, one range from all
    panels), so a view whose blocks look fainter really has smaller values — the point of the
    seed paper's Fig. 2. Panels are drawn from pooled bins, never across a class boundary.
    """
    n_panels = len(panels)
    ncols = max(1, min(max_cols, n_panels))
    nrows = max(1, math.ceil(n_panels / ncols))
    layout, cells = subplot_grid(
        nrows,
        ncols,
        plain_all(titles),
        horizontal_spacing=0.04,
        vertical_spacing=0.09 if nrows > 1 else 0.05,
    )
    lims = shared_limits(panels, log) if panels else (0.0, 1.0)
    # Panels of the same points sorted the same way name their classes on the outer axes only
    # (left column, bottom of each column), as a grid with shared axes does: the same labels
    # on twelve axes cost a third of the figure's drawing.
    same = all(
        list(q["group_names"]) == list(panels[0]["group_names"])
        and np.array_equal(q["bounds"], panels[0]["bounds"])
        and np.array_equal(q["edges"], panels[0]["edges"])
        for q in panels
    )
    bar_title = f"log10 {colour_title}" if log else colour_title
    traces: list[Any] = []
    for k, p in enumerate(panels):
        x_name, y_name = cells[k]
        own = lims if shared else colour_limits(np.asarray(p["values"], dtype=np.float64), log)
        drawn, x_axis, y_axis = _panel(p, titles[k], x_name, y_name, log, own, shared=shared)
        traces += drawn
        layout[x_name].update(x_axis)
        layout[y_name].update(y_axis)
        if same and k + ncols < n_panels:  # a panel below it names the classes
            layout[x_name]["showticklabels"] = False
        if same and k % ncols != 0:
            layout[y_name]["showticklabels"] = False
    layout["plot_bgcolor"] = "white"
    pooled = any(bool(p.get("pooled")) for p in panels)
    if shared:
        layout["coloraxis"] = _colour_axis(lims, log, bar_title)
        if pooled and panels:
            traces.append(_colour_bar_only(lims, *cells[0]))
    n = int(panels[0]["n"]) if panels else 0
    note = (
        f"{n:,} points sorted by class (class boundaries in red)"
        + ("; block means within classes" if pooled else "")
        + ("; one colour scale for all panels" if shared and n_panels > 1 else "")
    )
    height = 330 * nrows + 130 if n_panels > 1 else 480
    return figure(traces, layout, title, subtitle=note, height=height, above_plot_px=28,
                  after={"margin": {"l": 40, "b": 40}})  # fmt: skip


#: Where each part of :func:`ssf_overview` sits (paper coordinates): S on the left with its
#: colour bar lying under it, the weights above the convergence on the right. The bar lies
#: down because one standing between S and the right-hand plots has a fixed width in pixels
#: while the gap is a share of the figure: on a 1,024-pixel screen the bar's ticks and title ran
#: into the weights' and the objective's axes.
_S_DOMAIN = (0.0, 0.40)
_S_Y = (0.2, 1.0)
_S_BAR = {"orientation": "h", "x": sum(_S_DOMAIN) / 2, "xanchor": "center", "y": 0.0,
          "yanchor": "bottom", "len": 0.3, "thickness": 12}  # fmt: skip
_RIGHT_DOMAIN = (0.52, 1.0)
_WEIGHTS_Y = (0.64, 1.0)
_OBJECTIVE_Y = (0.0, 0.36)


@memoised
def ssf_overview(
    fused: Mapping[str, Any],
    names: Sequence[str],
    weights: Sequence[float],
    raw: Sequence[float],
    objective: Sequence[float],
    *,
    converged: bool | None = None,
    log: bool = False,
    colour_title: str = "S_ij",
) -> go.Figure:
    """SSF's outcome in one figure: the fused structure S (pooled, points sorted by class; its
    connected components are the labels), the learned view weights (normalised to sum 1, the raw
    ``w_v`` in the hover) and the objective per outer iteration (iteration 0 = the start).

    One chart rather than three: each chart costs the browser a mount on every visit of the
    page and a plot of its own on the first.
    """
    lims = shared_limits([fused], log)
    s_traces, s_x, s_y = _panel(fused, "fused S", "xaxis", "yaxis", log, lims, shared=True)
    if fused.get("pooled"):
        s_traces.append(_colour_bar_only(lims, "xaxis", "yaxis"))
    layout: dict[str, Any] = {
        "xaxis": {**s_x, "domain": list(_S_DOMAIN), "anchor": "y"},
        "yaxis": {**s_y, "domain": list(_S_Y), "anchor": "x"},
        "coloraxis": _colour_axis(
            lims, log, f"log10 {colour_title}" if log else colour_title, **_S_BAR
        ),
        "plot_bgcolor": "white",
        "showlegend": False,
    }
    labels = unique_names(plain_all(names))
    bars = go.Bar(
        x=labels,
        y=list(map(float, weights)),
        customdata=list(map(float, raw)),
        marker_color=[QUALITATIVE[i % len(QUALITATIVE)] for i in range(len(labels))],
        hovertemplate="%{x}: %{y:.3f} of the total<br>w = %{customdata:.4g}<extra></extra>",
        xaxis="x2",
        yaxis="y2",
    )
    y = np.asarray(objective, dtype=float)
    line = go.Scatter(
        x=list(range(len(y))),
        y=y,
        mode="lines+markers",
        marker={"size": 7},
        line={"color": QUALITATIVE[0], "width": 2},
        hovertemplate="iteration %{x}: J = %{y:.6g}<extra></extra>",
        xaxis="x3",
        yaxis="y3",
    )
    positive = y.size > 0 and bool(np.all(y > 0)) and y.max() / max(y.min(), 1e-300) > 20
    small = {"font": {"size": 12}}
    layout.update(
        xaxis2={"domain": list(_RIGHT_DOMAIN), "anchor": "y2", "type": "category",
                "title": {"text": "view", "standoff": 4, **small}},
        yaxis2={"domain": list(_WEIGHTS_Y), "anchor": "x2", "rangemode": "tozero",
                "title": {"text": "share of the sum", **small}},
        xaxis3={"domain": list(_RIGHT_DOMAIN), "anchor": "y3",
                "title": {"text": "outer iteration", "standoff": 4, **small},
                "dtick": 1 if len(y) <= 15 else None},
        yaxis3={"domain": list(_OBJECTIVE_Y), "anchor": "x3",
                "title": {"text": "objective J" + (" (log)" if positive else ""), **small}}
        | ({"type": "log"} if positive else {}),
    )  # fmt: skip
    state = "" if converged is None else ("converged" if converged else "stopped at max_iter")
    centre = sum(_RIGHT_DOMAIN) / 2
    # short headings (the plots are a third of the page wide); what they need said is in the
    # subtitle, which wraps
    heading = {"xref": "paper", "yref": "paper", "showarrow": False, "font": {"size": 13},
               "xanchor": "center", "yanchor": "bottom"}  # fmt: skip
    layout["annotations"] = [
        {**heading, "x": sum(_S_DOMAIN) / 2, "y": 1.0, "text": "fused S"},
        {**heading, "x": centre, "y": _WEIGHTS_Y[1], "text": "view weights w_v"},
        {**heading, "x": centre, "y": _OBJECTIVE_Y[1] + 0.02, "text": "objective J"},
    ]
    n = int(fused["n"])
    iterations = len(y) - 1
    note = (
        f"{n:,} points sorted by class (class boundaries in red)"
        + ("; block means within classes" if fused.get("pooled") else "")
        + "; w_v = 1 / (2‖S − γ F_v F_vᵀ‖), normalised to sum 1"
        + f"; {iterations} iteration{'s' if iterations != 1 else ''}"
        + (f", {state}" if state else "")
    )
    return figure(
        [*s_traces, bars, line],
        layout,
        "SSF's fused structure S (labels = its connected components), view weights, convergence",
        subtitle=note,
        height=560,  # S as tall as with the bar beside it
        above_plot_px=28,
        after={"margin": {"l": 40, "b": 50}},
    )
