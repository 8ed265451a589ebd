"""The Points figure: every point on the layout of :mod:`dashboard.analysis.points` (WebGL).

One trace per colour group (class, cluster, correct / misassigned) or one trace with a
continuous SRE scale; each trace's points are listed by :func:`trace_members`, so a selection
event's ``(curve_number, point_index)`` maps back to the point's index with the same function.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import plotly.graph_objects as go

from dashboard.analysis.points import PointsAnalysis
from dashboard.figures._memo import memoised
from dashboard.figures._style import (
    BAD,
    GOOD,
    NEUTRAL,
    QUALITATIVE_LONG,
    figure,
    plain,
    scatter_class,
)

#: What the points can be coloured by (the page's radio offers those the inputs allow).
COLOUR_BY = ("prediction", "ground truth", "correct / misassigned", "SRE")
#: Enough distinct colours for 70 groups; beyond that the legend names each group's colour.
PALETTE = QUALITATIVE_LONG
HIGHLIGHT = "rgba(17, 24, 39, 0.45)"


def colour_options(pa: PointsAnalysis) -> list[str]:
    """The colourings the inputs allow (no prediction: no cluster colours; no C: no SRE)."""
    out = []
    if pa.pred is not None:
        out += ["prediction", "correct / misassigned"]
    out.insert(1 if out else 0, "ground truth")
    if pa.sre is not None:
        out.append("SRE")
    return out


def _groups(pa: PointsAnalysis, colour_by: str) -> tuple[np.ndarray, list[str], list[str]]:
    """(group code per point, group names, colours) of a categorical colouring."""
    if colour_by == "prediction" and pa.pred is not None:
        names = [f"cluster {plain(n)}" for n in pa.pred_names]
        # a matched cluster takes its class's colour, as on the Contingency page
        k = len(pa.truth_names)
        colours = [
            PALETTE[int(m) % len(PALETTE)] if m >= 0 else PALETTE[(k + j) % len(PALETTE)]
            for j, m in enumerate(pa.matched)
        ]
        return pa.pred, names, colours
    if colour_by == "correct / misassigned" and pa.correct is not None:
        return (~pa.correct).astype(np.int64), ["correct", "misassigned"], [GOOD, BAD]
    names = [f"class {plain(n)}" for n in pa.truth_names]
    return pa.truth, names, [PALETTE[i % len(PALETTE)] for i in range(len(names))]


def trace_members(pa: PointsAnalysis, colour_by: str) -> list[np.ndarray]:
    """Point indices of each trace, in trace order (the drawn points only)."""
    if colour_by == "SRE" and pa.sre is not None:
        return [pa.drawn]
    codes, names, _ = _groups(pa, colour_by)
    d = pa.drawn
    return [d[codes[d] == g] for g in range(len(names))]


def selected_points(pa: PointsAnalysis, colour_by: str, event_points: list[dict]) -> np.ndarray:
    """Point indices of a Plotly selection (``curve_number`` and ``point_index`` per point)."""
    members = trace_members(pa, colour_by)
    out = []
    for p in event_points:
        c, i = p.get("curve_number"), p.get("point_index")
        if c is None or i is None or not 0 <= int(c) < len(members):
            continue
        m = members[int(c)]
        if 0 <= int(i) < len(m):
            out.append(int(m[int(i)]))
    return np.unique(np.asarray(out, dtype=np.int64))


def _custom(pa: PointsAnalysis, idx: np.ndarray) -> tuple[np.ndarray, str]:
    cols = [idx.astype(object), np.asarray(pa.truth_names, dtype=object)[pa.truth[idx]]]
    tpl = "point %{customdata[0]}<br>class %{customdata[1]}"
    if pa.pred is not None:
        cols.append(np.asarray(pa.pred_names, dtype=object)[pa.pred[idx]])
        tpl += "<br>cluster %{customdata[2]}"
    if pa.sre is not None:
        cols.append(np.round(pa.sre[idx], 3).astype(object))
        tpl += f"<br>SRE %{{customdata[{len(cols) - 1}]}}"
    return np.column_stack(cols), tpl + "<extra></extra>"


@memoised
def points_figure(
    pa: PointsAnalysis,
    colour_by: str = "prediction",
    *,
    highlight: np.ndarray | None = None,
    height: int = 640,
) -> go.Figure:
    """Every drawn point at its layout position, coloured by ``colour_by``.

    ``highlight``: point indices to ring (a finding's class or cluster opened from Summary).
    """
    lay = pa.layout
    n_drawn = len(pa.drawn)
    size = 7 if n_drawn <= 2_000 else 5 if n_drawn <= 20_000 else 3
    scatter = scatter_class(n_drawn)
    traces: list[Any] = []
    if colour_by == "SRE" and pa.sre is not None:
        idx = pa.drawn
        custom, tpl = _custom(pa, idx)
        traces.append(
            scatter(
                x=lay.x[idx], y=lay.y[idx], mode="markers", name="SRE", customdata=custom,
                hovertemplate=tpl, showlegend=False,
                marker={"size": size, "color": pa.sre[idx], "cmin": 0.0, "cmax": 1.0,
                        "colorscale": "Viridis", "reversescale": True,
                        "colorbar": {"title": {"text": "SRE<br>(0–1)"}, "thickness": 14}},
            )
        )  # fmt: skip
    else:
        _, names, colours = _groups(pa, colour_by)
        for g, idx in enumerate(trace_members(pa, colour_by)):
            custom, tpl = _custom(pa, idx)
            traces.append(
                scatter(
                    x=lay.x[idx], y=lay.y[idx], mode="markers",
                    name=f"{names[g]} ({len(idx):,})", customdata=custom, hovertemplate=tpl,
                    marker={"size": size, "color": colours[g], "opacity": 0.85},
                    visible=True if len(idx) else "legendonly",
                )
            )  # fmt: skip
    if highlight is not None and len(highlight):
        h = np.intersect1d(np.asarray(highlight, dtype=np.int64), pa.drawn)
        traces.append(
            scatter(
                x=lay.x[h], y=lay.y[h], mode="markers", name=f"opened ({len(h):,})",
                hoverinfo="skip",
                marker={"size": size + 5, "color": "rgba(0,0,0,0)",
                        "line": {"color": HIGHLIGHT, "width": 1}},
            )
        )  # fmt: skip
    axis = {"showgrid": False, "zeroline": False, "showticklabels": lay.kind == "data"}
    if colour_by == "SRE" and pa.sre is not None:  # the colour bar sits where a legend would
        legend = {"orientation": "h", "yanchor": "top", "y": -0.02, "x": 0}
    else:
        legend = {"title": {"text": colour_by}}
    layout = {
        # an empty title would still take a line of the margin
        "xaxis": {"title": {"text": lay.x_title} if lay.x_title else None, **axis},
        "yaxis": {"title": {"text": lay.y_title} if lay.y_title else None, "scaleanchor": "x",
                  "scaleratio": 1, **axis},
        "dragmode": "lasso",
        "legend": {"itemsizing": "constant", **legend},
        "showlegend": True,
        "height": height,
    }  # fmt: skip
    if lay.kind in ("affinity", "classes"):
        layout["annotations"] = _class_labels(pa)
    subtitle = f"{pa.n:,} points" + (f"; {n_drawn:,} drawn" if n_drawn < pa.n else "")
    return figure(traces, layout, lay.title, subtitle=subtitle)


def _class_labels(pa: PointsAnalysis) -> list[dict[str, Any]]:
    """Each class's label at its place (the median of its points), on top of the points."""
    k = len(pa.truth_names)
    if k > 60:
        return []  # too many to read; the hover names each point's class
    lay = pa.layout
    labels = []
    for c in range(k):
        m = pa.truth == c
        if not m.any():
            continue
        if lay.kind == "classes":
            x, y = float(lay.x[m].min()), float(lay.y[m].max()) + 1.2
            anchor = "left"
        else:
            x, y = float(np.median(lay.x[m])), float(np.median(lay.y[m]))
            anchor = "center"
        labels.append({
            "x": x, "y": y, "text": f"<b>{plain(pa.truth_names[c])}</b>", "showarrow": False,
            "xanchor": anchor, "font": {"size": 15, "color": NEUTRAL},
            "bgcolor": "rgba(255,255,255,0.75)", "borderpad": 2,
        })  # fmt: skip
    return labels
