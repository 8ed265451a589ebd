"""Margins a figure will need, estimated before the browser draws it.

Plotly draws a figure, measures its tick labels, axis titles, colour bars and legend, and when
they need more room than the margins give (``automargin``) draws the whole figure again with
wider margins. That second draw doubled the time of most of our charts (the demo's affinity
heatmap: 121 ms against 26 ms in chromium). :func:`reserve` widens a figure's margins up front to
an estimate of what those parts need, generous on purpose: when the estimate covers them, Plotly
has nothing to push and draws once; when it falls short (unusually long labels), Plotly pushes as
before — automargin stays on, so nothing is ever cut. Only single-plot figures are estimated
(grids of panels keep their own margins).

The estimate counts characters: :data:`CHAR_EM` of the font size per character and
:data:`LINE_EM` per line cover the fonts the dashboard names (Inter, Source Sans, Segoe UI, Arial)
and their fallbacks with room to spare.
"""

from __future__ import annotations

import html
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np

#: Width of an average character, in font sizes (digits and lower case of our fonts: 0.5-0.58).
CHAR_EM = 0.57
#: Height of a line of text, in font sizes.
LINE_EM = 1.3
#: Font size Plotly uses where the figure names none (our template's).
DEFAULT_FONT = 14
#: Plotly's defaults: colour bar thickness and padding (px).
COLORBAR_THICKNESS = 30
COLORBAR_PAD = 10

_TAG = re.compile(r"<[^>]+>")


def _lines(text: object) -> list[str]:
    """A label's lines as shown (``<br>`` breaks, other tags and entities stripped)."""
    return [html.unescape(_TAG.sub("", p)) for p in re.split(r"<br\s*/?>", str(text))]


def text_px(texts: Iterable[object], size: float) -> float:
    """Width (px) of the widest of ``texts`` at font ``size``.

    Examples
    --------
    >>> round(text_px(["ab", "abcd<br>x"], 10), 1)
    22.8
    """
    widest = max((len(line) for t in texts for line in _lines(t)), default=0)
    return widest * CHAR_EM * size


def _n_lines(text: object) -> int:
    return len(_lines(text)) if text not in (None, "") else 0


def _size(font: Mapping[str, Any] | None, default: float) -> float:
    return float((font or {}).get("size") or default)


def _number_labels(lo: float, hi: float, log: bool, tickformat: str | None) -> list[str]:
    """Labels like the ones Plotly puts on a numeric axis from ``lo`` to ``hi``: its ticks are
    round steps, at most one digit finer than the span's own."""
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return ["0.00"]
    if log:
        return ["0.0001", "1e-5"]
    if tickformat and "%" in tickformat:
        return ["100%", "-50%"] if lo < 0 else ["100%"]
    span = abs(hi - lo) or abs(hi) or 1.0
    step_digits = max(0, -math.floor(math.log10(span)) + 2)
    return [f"{v:,.{step_digits}f}" for v in (lo, hi, (lo + hi) / 2)]


def _finite_range(values: Iterable[Any]) -> tuple[float, float] | None:
    lo, hi = math.inf, -math.inf
    for v in values:
        if v is None:
            continue
        a = np.asarray(v)
        if a.dtype.kind not in "iuf" or a.size == 0:
            continue
        a = a[np.isfinite(a)] if a.dtype.kind == "f" else a
        if a.size:
            lo, hi = min(lo, float(a.min())), max(hi, float(a.max()))
    return (lo, hi) if lo <= hi else None


def _is_text(values: Any) -> bool:
    if values is None:
        return False
    a = np.asarray(values)
    if a.dtype.kind in "biuf":  # numbers: no per-element look (a scatter of 1e5 points)
        return False
    return a.size > 0 and any(isinstance(v, str) for v in a.ravel()[:50])


def _tick_labels(axis: Mapping[str, Any], data: Sequence[Any]) -> list[str]:
    """What an axis will print as tick labels (its ``ticktext``, its categories, or numbers over
    its range or its data's)."""
    if axis.get("ticktext") is not None:
        return [str(t) for t in axis["ticktext"]]
    if axis.get("type") == "category" or any(_is_text(d) for d in data):
        return [str(v) for d in data if d is not None for v in np.asarray(d, dtype=object).ravel()]
    rng = axis.get("range")
    found = (float(rng[0]), float(rng[1])) if rng is not None else _finite_range(data)
    if found is None:
        return ["0.00"]
    log = axis.get("type") == "log"
    if log and rng is None:
        return _number_labels(*found, log=True, tickformat=None)
    return _number_labels(*found, log=False, tickformat=axis.get("tickformat"))


def _axis_px(axis: Mapping[str, Any], data: Sequence[Any], font: float, across: bool) -> float:
    """Room (px) an axis's tick labels and title take away from the plot; ``across``: the
    labels' length counts (a y axis, or a vertical x axis label) — else their height."""
    if axis.get("visible") is False:
        return 0.0
    size = _size(axis.get("tickfont"), font)
    need = 0.0
    if axis.get("showticklabels") is not False:
        labels = _tick_labels(axis, data)
        angle = axis.get("tickangle")
        vertical = angle is not None and abs(float(angle)) >= 60
        if across != vertical:  # labels' length
            need += text_px(labels, size) + 8
        else:  # labels' height (several lines when labels break)
            lines = max((_n_lines(t) for t in labels), default=1)
            need += LINE_EM * size * max(lines, 1) + 8
            if not across and angle is not None and not vertical and float(angle) != 0:
                need += text_px(labels, size) * abs(math.sin(math.radians(float(angle))))
    title = (axis.get("title") or {}).get("text")
    if title is not None:  # an empty title still gets its line
        lines = max(_n_lines(title), 1)
        need += LINE_EM * _size((axis.get("title") or {}).get("font"), font) * lines + 14
    return need


def _colorbar_px(bar: Mapping[str, Any], lo: float, hi: float, font: float) -> float:
    """Width (px) of a vertical colour bar with its tick labels and (top) title."""
    size = _size(bar.get("tickfont"), font)
    labels = bar.get("ticktext") or _number_labels(lo, hi, False, bar.get("tickformat"))
    width = float(bar.get("thickness") or COLORBAR_THICKNESS) + 2 * COLORBAR_PAD
    width += text_px(labels, size) + 8
    title = bar.get("title") or {}
    if title.get("text") and title.get("side", "top") == "top":
        width = max(width, text_px([title["text"]], _size(title.get("font"), font)) + 8)
    return width + 24  # the bar stands a little right of the plot (x = 1.02)


def needs(fig: Any) -> dict[str, float] | None:
    """Estimated room (px) for each side — ``l``, ``r``, ``b`` — of a single-plot figure, or
    None for a grid of panels, a figure with no axes, or a colour bar or legend placed by hand."""
    layout = fig.layout.to_plotly_json()
    layout.pop("template", None)
    if any(re.fullmatch(r"[xy]axis\d+", k) for k in layout):
        return None
    font = _size(layout.get("font"), DEFAULT_FONT)
    xs, ys, bars = [], [], []
    legend_names: list[str] = []
    explicit = False  # Plotly shows a legend of one entry only when a trace asks for it
    for t in fig.data:
        kind = t.type
        if kind in ("sankey", "pie", "image"):
            return None
        xs.append(t.x)
        ys.append(t.y)
        if kind == "heatmap":
            if t.coloraxis is None and t.showscale is not False:
                z = t.z if t.zmin is None or t.zmax is None else [t.zmin, t.zmax]
                bars.append((t.colorbar.to_plotly_json(), _finite_range([z])))
        elif kind in ("scatter", "scattergl") and t.marker.showscale:
            c = t.marker.color
            lims = (t.marker.cmin, t.marker.cmax)
            rng = lims if None not in lims else _finite_range([c])
            bars.append((t.marker.colorbar.to_plotly_json(), rng))
        default_shown = kind in ("scatter", "scattergl", "bar")
        if t.showlegend or (t.showlegend is None and default_shown):
            legend_names.append(t.name or "trace")
        explicit = explicit or bool(t.showlegend)
    coloraxis = layout.get("coloraxis")
    if coloraxis and coloraxis.get("showscale") is not False:
        lims = (coloraxis.get("cmin"), coloraxis.get("cmax"))
        bars.append((coloraxis.get("colorbar") or {}, lims))
    x_axis, y_axis = layout.get("xaxis") or {}, layout.get("yaxis") or {}
    out = {"l": 0.0, "r": 0.0, "b": 0.0}
    y_px = _axis_px(y_axis, ys, font, across=True)
    out["r" if y_axis.get("side") == "right" else "l"] = y_px
    if x_axis.get("side") != "top":
        out["b"] = _axis_px(x_axis, xs, font, across=False)
    for bar, rng in bars:
        if bar.get("orientation") == "h" and float(bar.get("y") or 0) > 1:
            continue  # a horizontal bar above the plot: the title's pad holds it
        if (bar.get("orientation") or "v") != "v" or bar.get("x") is not None:
            return None
        lo, hi = rng if rng is not None and None not in rng else (0.0, 1.0)
        out["r"] = max(out["r"], _colorbar_px(bar, float(lo), float(hi), font))
    legend = layout.get("legend") or {}
    shown = layout.get("showlegend")
    if shown or (shown is None and (len(legend_names) > 1 or explicit)):
        size = _size(legend.get("font"), font)
        if legend.get("orientation") == "h":
            y = legend.get("y")
            if y is None or float(y) >= 0:
                return None
            plot_h = (
                float(layout.get("height") or 450)
                - float((layout.get("margin") or {}).get("t") or 100)
                - out["b"]
            )
            rows = 1 + int(text_px(legend_names, size) * len(legend_names) // 500)
            out["b"] = max(out["b"], -float(y) * plot_h + rows * (LINE_EM * size + 10) + 10)
        elif legend.get("x") is None:
            title = (legend.get("title") or {}).get("text") or ""
            out["r"] = max(out["r"], 60 + text_px([*legend_names, title], size))
        else:
            return None
    return out


def at_least(fig: Any, **sides: float) -> Any:
    """Widen ``fig``'s margins to at least ``sides`` (``l=70, b=60``; px), keeping wider ones."""
    margin = fig.layout.margin
    new = {k: math.ceil(v) for k, v in sides.items() if v > (getattr(margin, k) or 0)}
    if new:
        fig.update_layout(margin=new)
    return fig


def reserve(fig: Any) -> Any:
    """Widen ``fig``'s left, right and bottom margins to at least :func:`needs`' estimate (in
    place; returns ``fig``). Margins already wider stay."""
    want = needs(fig)
    return at_least(fig, **want) if want else fig
