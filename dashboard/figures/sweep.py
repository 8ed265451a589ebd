"""Sweep figures: the SRE–CONN trade-off, metrics against parameters, two-parameter heatmaps.

Pure builders: they take the sweep table (a list of flat row dicts, as
:func:`metrics_core.sweep.run_sweep` produces) and return ``go.Figure``. Parameter values may
come from an uploaded manifest, so every value shown is escaped with :func:`_style.plain`.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
from plotly.colors import get_colorscale

from dashboard.figures import _margins as margins
from dashboard.figures._memo import memoised
from dashboard.figures._style import (
    NEUTRAL,
    QUALITATIVE,
    axis_ref,
    figure,
    plain,
    subplot_grid,
)

METRIC_SCALE = "Viridis"
BEST_COLOUR = "#d62728"


def _scatter(**kw: Any) -> dict[str, Any]:
    """A scatter trace as a plain dict (:func:`~dashboard.figures._style.figure` takes it as
    written): the trade-off and metric charts are redrawn on every "Run sweep", and plotly.py's
    checks took most of their building (~7 ms a figure). Values are given as plotly.js
    reads them (``title`` as ``{"text": ...}``, a colour scale as its list of stops)."""
    return {"type": "scatter", **kw}


def _num(v: Any) -> float:
    try:
        f = float(v)
    except (TypeError, ValueError):
        return float("nan")
    return f


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.4g}"
    return str(v)


def is_numeric(values: Sequence[Any]) -> bool:
    """All values are finite numbers (else the parameter is drawn as categories)."""
    return bool(values) and all(
        isinstance(v, (int, float, np.integer, np.floating))
        and not isinstance(v, bool)
        and math.isfinite(float(v))
        for v in values
    )


def is_log_grid(values: Sequence[Any]) -> bool:
    """Positive values evenly spaced in log spanning at least a factor 50 (then use a log axis).

    Examples
    --------
    >>> is_log_grid([0.001, 0.01, 0.1, 1.0]), is_log_grid([0.1, 0.2, 0.3])
    (True, False)
    """
    if not is_numeric(values):
        return False
    v = np.unique(np.asarray(values, dtype=float))
    if v.size < 3 or v[0] <= 0:
        return False
    steps = np.diff(np.log(v))
    return bool(np.allclose(steps, steps[0], rtol=0.05) and v[-1] / v[0] >= 50)


def _hover(row: Mapping[str, Any], params: Sequence[str], metrics: Mapping[str, str]) -> str:
    """Hover text of one setting: its parameters then its metrics (all escaped)."""
    lines = [f"<b>{plain(p)} = {plain(_fmt(row.get(p)))}</b>" for p in params]
    for k, label in metrics.items():
        if k in row and math.isfinite(_num(row.get(k))):
            lines.append(f"{plain(label)}: {_num(row[k]):.4g}")
    if row.get("entry") not in (None, ""):
        lines.append(f"entry: {plain(row['entry'])}")
    return "<br>".join(lines)


def _line_groups(rows: Sequence[Mapping[str, Any]], params: Sequence[str]) -> list[list[int]]:
    """Row positions joined by one line: along the first parameter, one line per value of the
    others, each in the first parameter's order (numeric when possible)."""
    if not params:
        return [list(range(len(rows)))]
    first, rest = params[0], list(params[1:])
    groups: dict[tuple, list[int]] = {}
    for i, r in enumerate(rows):
        groups.setdefault(tuple(str(r.get(p)) for p in rest), []).append(i)
    firsts = [rows[i].get(first) for i in range(len(rows))]
    numeric = is_numeric(firsts)
    out = []
    for members in groups.values():
        if numeric:
            members = sorted(members, key=lambda i: float(rows[i].get(first)))
        out.append(members)
    return out


@memoised
def tradeoff_figure(
    rows: Sequence[Mapping[str, Any]],
    params: Sequence[str],
    *,
    color_by: str = "acc",
    conn_key: str = "conn_min",
    labels: Mapping[str, str] | None = None,
    best: int | None = None,
    best_metric: str | None = None,
    title: str = "",
) -> go.Figure:
    """SRE (x) against CONN (y): one marker per setting, joined in parameter order, coloured by
    ``color_by``; ``best`` (a position in ``rows``) is ringed and named.

    Lower SRE (fewer coefficients across subspaces) and higher CONN (better connected classes)
    are both good: the best region is the top left.
    """
    labels = dict(labels or {})
    name = labels.get(conn_key, conn_key)
    traces: list[dict[str, Any]] = []
    x = np.array([_num(r.get("sre")) for r in rows])
    y = np.array([_num(r.get(conn_key)) for r in rows])
    ok = np.isfinite(x) & np.isfinite(y)
    if not ok.any():
        note = {
            "text": "This sweep has no SRE / CONN values (results without coefficient matrices "
            "and without these columns).",
            "showarrow": False,
            "x": 0.5,
            "y": 0.5,
            "xref": "paper",
            "yref": "paper",
        }
        return figure([], {"annotations": [note]}, title or "SRE against CONN", height=480)
    multi = len(params) > 1
    for g, members in enumerate(_line_groups(rows, params)):
        members = [i for i in members if ok[i]]
        if len(members) < 2:
            continue
        rest = ", ".join(f"{p}={_fmt(rows[members[0]].get(p))}" for p in params[1:])
        traces.append(
            _scatter(
                x=x[members],
                y=y[members],
                mode="lines",
                line={
                    "color": QUALITATIVE[g % len(QUALITATIVE)] if multi else NEUTRAL,
                    "width": 1.5,
                },
                name=plain(rest) if multi else "parameter order",
                hoverinfo="skip",
                showlegend=multi,
            )
        )
    hover_metrics = {k: labels.get(k, k) for k in ("acc", "nmi", "ari", "sre", conn_key)}
    hover_metrics[color_by] = labels.get(color_by, color_by)
    idx = np.flatnonzero(ok)
    colour = np.array([_num(rows[i].get(color_by)) for i in idx])
    marker: dict[str, Any] = {"size": 11, "line": {"color": "white", "width": 1}}
    if np.isfinite(colour).any():
        marker.update(
            color=np.where(np.isfinite(colour), colour, np.nan),
            colorscale=get_colorscale(METRIC_SCALE),
            showscale=True,
            colorbar={"title": {"text": plain(labels.get(color_by, color_by))}, "thickness": 14},
        )
    else:
        marker["color"] = NEUTRAL
    traces.append(
        _scatter(
            x=x[idx],
            y=y[idx],
            mode="markers",
            marker=marker,
            text=[_hover(rows[i], params, hover_metrics) for i in idx],
            customdata=idx.tolist(),  # row positions: a selected point names its setting
            hovertemplate="%{text}<extra></extra>",
            name="settings",
            showlegend=False,
        )
    )
    if best is not None and 0 <= best < len(rows) and ok[best]:
        what = labels.get(best_metric or color_by, best_metric or color_by)
        setting = ", ".join(f"{p}={_fmt(rows[best].get(p))}" for p in params)
        traces.append(
            _scatter(
                x=[x[best]],
                y=[y[best]],
                mode="markers",
                marker={
                    "symbol": "star",
                    "size": 20,
                    "color": "rgba(0,0,0,0)",
                    "line": {"color": BEST_COLOUR, "width": 2},
                },
                name=plain(f"best {what}: {setting}"),
                hoverinfo="skip",
                showlegend=True,
            )
        )
    grid = {"showgrid": True, "gridcolor": "#eee", "zeroline": False}
    layout = {
        "xaxis": {"title": {"text": "SRE (lower: fewer coefficients across subspaces)"}, **grid},
        # two lines: on one, the title was longer than the plot is tall and reached the subtitle
        "yaxis": {
            "title": {"text": f"{plain(name)}<br>(higher: better connected classes)"},
            **grid,
        },
        "legend": {"orientation": "h", "y": -0.18, "x": 0},
        "plot_bgcolor": "white",
    }
    head = title or "SRE–CONN trade-off"
    sub = (
        f"one marker per setting, joined in parameter order, colour = "
        f"{plain(labels.get(color_by, color_by))}; top left is best"
    )
    return _fit_margins(figure(traces, layout, head, subtitle=sub, height=520))


@memoised
def metrics_vs_param(
    rows: Sequence[Mapping[str, Any]],
    param: str,
    metrics: Sequence[str],
    *,
    others: Sequence[str] = (),
    log_x: bool = False,
    labels: Mapping[str, str] | None = None,
    best: int | None = None,
) -> go.Figure:
    """One small panel per metric against ``param`` (log x axis when ``log_x``); with other swept
    parameters, one line per value of them. ``best`` (a row position) is ringed in every panel."""
    labels = dict(labels or {})
    metrics = list(metrics)
    ncols = min(3, max(1, len(metrics)))
    nrows = max(1, math.ceil(len(metrics) / ncols))
    layout, cells = subplot_grid(
        nrows,
        ncols,
        [plain(labels.get(m, m)) for m in metrics],
        horizontal_spacing=0.07,
        vertical_spacing=0.14 if nrows > 1 else 0.1,
    )
    xs_all = [rows[i].get(param) for i in range(len(rows))]
    numeric = is_numeric(xs_all)
    groups = _line_groups(rows, [param, *others])
    traces: list[dict[str, Any]] = []
    x_type = "log" if (log_x and numeric) else ("linear" if numeric else "category")
    x_title = plain(param) + (" (log scale)" if log_x and numeric else "")
    for k, m in enumerate(metrics):
        x_name, y_name = cells[k]
        on = {"xaxis": axis_ref(x_name), "yaxis": axis_ref(y_name)}
        for g, members in enumerate(groups):
            ys = [_num(rows[i].get(m)) for i in members]
            xs = [rows[i].get(param) if numeric else plain(rows[i].get(param)) for i in members]
            rest = ", ".join(f"{p}={_fmt(rows[members[0]].get(p))}" for p in others)
            traces.append(
                _scatter(
                    x=xs,
                    y=ys,
                    mode="lines+markers",
                    line={"color": QUALITATIVE[g % len(QUALITATIVE)], "width": 1.8},
                    marker={"size": 6},
                    name=plain(rest) if others else plain(labels.get(m, m)),
                    legendgroup=str(g),
                    showlegend=bool(others) and k == 0,
                    hovertemplate=f"{plain(param)}=%{{x}}<br>{plain(labels.get(m, m))}"
                    "=%{y:.4g}<extra></extra>",
                    **on,
                )
            )
        if best is not None and 0 <= best < len(rows):
            bx = rows[best].get(param)
            traces.append(
                _scatter(
                    x=[bx if numeric else plain(bx)],
                    y=[_num(rows[best].get(m))],
                    mode="markers",
                    marker={
                        "symbol": "star",
                        "size": 14,
                        "color": "rgba(0,0,0,0)",
                        "line": {"color": BEST_COLOUR, "width": 2},
                    },
                    showlegend=False,
                    hoverinfo="skip",
                    **on,
                )
            )
        last_row = k + ncols >= len(metrics)  # x titles only under the lowest panels
        layout[x_name]["type"] = x_type
        if last_row:
            layout[x_name]["title"] = {"text": x_title}
    grid = {"showgrid": True, "gridcolor": "#eee"}
    for x_name, y_name in cells:
        layout[x_name].update(grid)
        layout[y_name].update(grid)
    layout.update(legend={"orientation": "h", "y": -0.12, "x": 0}, plot_bgcolor="white")
    return _fit_margins(
        figure(
            traces,
            layout,
            f"Each metric against {plain(param)}",
            subtitle="★ the best setting" if best is not None else None,
            height=300 * nrows + 120,
            above_plot_px=28,
        )
    )


@memoised
def param_heatmap(
    rows: Sequence[Mapping[str, Any]],
    p_x: str,
    p_y: str,
    metric: str,
    *,
    labels: Mapping[str, str] | None = None,
) -> go.Figure:
    """``metric`` over a two-parameter grid (a parameter-sensitivity figure): ``p_x`` across,
    ``p_y`` down, cell text the value. Parameter values are categories (a log grid reads evenly);
    missing settings are blank."""
    labels = dict(labels or {})
    xs = _ordered([r.get(p_x) for r in rows])
    ys = _ordered([r.get(p_y) for r in rows])
    z = np.full((len(ys), len(xs)), np.nan)
    xi = {str(v): i for i, v in enumerate(xs)}
    yi = {str(v): i for i, v in enumerate(ys)}
    for r in rows:
        z[yi[str(r.get(p_y))], xi[str(r.get(p_x))]] = _num(r.get(metric))
    name = labels.get(metric, metric)
    xt = [plain(_fmt(v)) for v in xs]
    yt = [plain(_fmt(v)) for v in ys]
    heat = go.Heatmap(
        z=z,
        x=xt,
        y=yt,
        colorscale=METRIC_SCALE,
        texttemplate="%{z:.3f}",
        hovertemplate=f"{plain(p_x)}=%{{x}}<br>{plain(p_y)}=%{{y}}<br>"
        f"{plain(name)}=%{{z:.4f}}<extra></extra>",
        colorbar={"title": {"text": plain(name)}, "thickness": 12},
    )
    layout = {
        "xaxis": {"type": "category", "title": {"text": plain(p_x)}},
        "yaxis": {"type": "category", "title": {"text": plain(p_y)}, "autorange": "reversed"},
    }
    head = f"{plain(name)} over {plain(p_x)} × {plain(p_y)}"
    return _fit_margins(figure([heat], layout, head, height=360))


def _fit_margins(fig: go.Figure) -> go.Figure:
    """Margins with a floor that holds tick labels and axis titles in static exports too (the
    shared style keeps them tight; the template's axes grow them to fit)."""
    return margins.at_least(fig, l=70, b=60)


def _ordered(values: Sequence[Any]) -> list[Any]:
    """Distinct values, numerically sorted when all numeric, else in first-seen order."""
    seen: dict[str, Any] = {}
    for v in values:
        seen.setdefault(str(v), v)
    out = list(seen.values())
    if is_numeric(out):
        out.sort(key=float)
    return out
