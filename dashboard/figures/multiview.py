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

from dashboard.figures import _margins as margins
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
from dashboard.figures.affinity import AFFINITY_SCALE, TICK_LIMIT, colour_limits

BOUNDARY = {"color": "#d62728", "width": 1}
#: The name of each panel's class-boundary trace (:func:`~dashboard.figures._style.grid_lines`).
BOUNDARY_NAME = "class boundaries"


def shared_limits(panels: Sequence[Mapping[str, Any]], log: bool) -> tuple[float, float]:
    """One colour range for all panels (log: in decades), from all their values together."""
    values = np.concatenate([np.asarray(p["values"], dtype=np.float64).ravel() for p in panels])
    return colour_limits(values, log)


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
        on = {"xaxis": axis_ref(x_name), "yaxis": axis_ref(y_name)}
        values = np.asarray(p["values"], dtype=np.float64)
        with np.errstate(divide="ignore"):
            z = np.where(values > 0, np.log10(values), np.nan) if log else values
        own = lims if shared else colour_limits(values, log)
        trace: dict[str, Any] = {
            "z": z.astype(np.float32),
            "hovertemplate": "row bin %{y}, column bin %{x}<br>"
            + ("log10 value %{z:.2f}" if log else "value %{z:.3g}")
            + "<extra>%{fullData.name}</extra>",
            "name": plain_all([titles[k]])[0],
            **on,
        }
        if shared:
            trace["coloraxis"] = "coloraxis"
        else:
            trace.update(colorscale=AFFINITY_SCALE, zmin=own[0], zmax=own[1], showscale=False)
        traces.append(go.Heatmap(**trace))
        n_bins = values.shape[0]
        edges = np.asarray(p["edges"], dtype=np.int64)
        b_axis = np.searchsorted(edges, np.asarray(p["bounds"], dtype=np.int64))
        lines = grid_lines(
            (b_axis[1:-1] - 0.5).tolist(), -0.5, n_bins - 0.5, BOUNDARY, BOUNDARY_NAME
        )
        traces.append(lines.update(**on))
        names = unique_names(plain_all(p["group_names"]))
        centres = ((b_axis[:-1] + b_axis[1:]) / 2 - 0.5).tolist()
        ticks: dict[str, Any] = {"showticklabels": False, "ticks": ""}
        if len(names) <= TICK_LIMIT:
            ticks = {"tickmode": "array", "tickvals": centres, "ticktext": names}
        common = {"showgrid": False, "zeroline": False, "constrain": "domain",
                  "tickfont": {"size": 10}, **ticks}  # fmt: skip
        inner_x = same and k + ncols < n_panels  # a panel below it names the classes
        inner_y = same and k % ncols != 0
        layout[x_name].update(range=[-0.5, n_bins - 0.5], **common)
        layout[y_name].update(range=[n_bins - 0.5, -0.5], scaleanchor=on["xaxis"], **common)
        if inner_x:
            layout[x_name]["showticklabels"] = False
        if inner_y:
            layout[y_name]["showticklabels"] = False
    layout["plot_bgcolor"] = "white"
    if shared:
        bar: dict[str, Any] = {"title": {"text": bar_title}, "thickness": 14}
        if log:
            tv = np.arange(np.ceil(lims[0]), np.floor(lims[1]) + 1)
            bar.update(tickvals=tv.tolist(), ticktext=[f"1e{int(t)}" for t in tv])
        layout["coloraxis"] = {
            "colorscale": AFFINITY_SCALE,
            "cmin": lims[0],
            "cmax": lims[1],
            "colorbar": bar,
        }
    pooled = any(bool(p.get("pooled")) for p in panels)
    n = int(panels[0]["n"]) if panels else 0
    note = (
        f"{n:,} points sorted by class (class boundaries in red)"
        + ("; block means within classes" if pooled else "")
        + ("; one colour scale for all panels" if shared and n_panels > 1 else "")
    )
    height = 330 * nrows + 130 if n_panels > 1 else 480
    return figure(traces, layout, title, subtitle=note, height=height, above_plot_px=28,
                  after={"margin": {"l": 40, "b": 40}})  # fmt: skip


@memoised
def weights_bar(names: Sequence[str], weights: Sequence[float], raw: Sequence[float]) -> go.Figure:
    """Learned view weights (normalised to sum 1; the raw ``w_v`` in the hover)."""
    labels = unique_names(plain_all(names))
    bars = go.Bar(
        x=labels,
        y=list(map(float, weights)),
        customdata=list(map(float, raw)),
        marker_color=[QUALITATIVE[i % len(QUALITATIVE)] for i in range(len(labels))],
        hovertemplate="%{x}: %{y:.3f} of the total<br>w = %{customdata:.4g}<extra></extra>",
    )
    layout = {
        "xaxis": {"type": "category", "title": {"text": "view"}},
        "yaxis": {"title": {"text": "weight (share of the sum)"}, "rangemode": "tozero"},
    }
    fig = figure(
        [bars],
        layout,
        "View weights w_v = 1 / (2‖S − γ F_v F_vᵀ‖)",
        subtitle="normalised to sum 1",
        height=360,
    )
    return margins.at_least(fig, l=70, b=60)


@memoised
def convergence_figure(objective: Sequence[float], *, converged: bool | None = None) -> go.Figure:
    """The SSF objective per outer iteration (iteration 0 = the initialisation)."""
    y = np.asarray(objective, dtype=float)
    line = go.Scatter(
        x=list(range(len(y))),
        y=y,
        mode="lines+markers",
        marker={"size": 7},
        line={"color": QUALITATIVE[0], "width": 2},
        hovertemplate="iteration %{x}: J = %{y:.6g}<extra></extra>",
    )
    positive = y.size > 0 and bool(np.all(y > 0)) and y.max() / max(y.min(), 1e-300) > 20
    layout = {
        "xaxis": {"title": {"text": "outer iteration"}, "dtick": 1 if len(y) <= 15 else None},
        "yaxis": {"title": {"text": "objective J" + (" (log)" if positive else "")}}
        | ({"type": "log"} if positive else {}),
    }
    state = "" if converged is None else (" · converged" if converged else " · hit max_iter")
    fig = figure(
        [line],
        layout,
        "Convergence: objective per iteration",
        subtitle=f"{len(y) - 1} iterations{state}",
        height=360,
    )
    return margins.at_least(fig, l=70, b=60)
