"""Shared look and the one escaping rule for text that reaches Plotly."""

from __future__ import annotations

import base64
import html
import json
import math
import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio
from plotly.basedatatypes import BaseTraceType
from plotly.colors import get_colorscale, qualitative, sample_colorscale

from dashboard.analysis.shares import pct  # noqa: F401  (figures take it from here)
from dashboard.figures import _margins as margins

FONT = {"family": "Inter, 'Source Sans Pro', 'Segoe UI', Arial, sans-serif", "size": 14}
#: Sequential scales for non-negative quantities (counts, affinities, shares).
SEQ_COUNTS = "Blues"
SEQ_AFFINITY = "Viridis"
SEQ_LEAK = "OrRd"
#: Qualitative palette for classes.
QUALITATIVE = (
    "#4C78A8",
    "#F58518",
    "#54A24B",
    "#E45756",
    "#72B7B2",
    "#EECA3B",
    "#B279A2",
    "#FF9DA6",
    "#9D755D",
    "#BAB0AC",
)
#: 70 distinct colours for many classes (ours first, then Plotly's Dark24 and Light24).
QUALITATIVE_LONG = QUALITATIVE + tuple(qualitative.Dark24) + tuple(qualitative.Light24)
#: Affinity magnitudes (|C|, |C| + |C|ᵀ): YlGnBu without its near-white low end, so the smallest
#: non-zero coefficient is still clearly coloured; exact zeros are left white (no colour at all).
SEQ_AFFINITY_NONZERO = tuple(
    (i / 8, c)
    for i, c in enumerate(
        sample_colorscale(get_colorscale("YlGnBu"), [0.3 + 0.7 * i / 8 for i in range(9)])
    )
)
#: Diagonal cells of a leakage matrix (mass kept inside the class): one neutral colour.
KEPT = "#d1d5db"
GOOD = "#2f7d32"
BAD = "#c62828"
NEUTRAL = "#6b7280"
#: Outline of what a finding opened the page on (rows, columns, blocks, bars): magenta, a hue
#: none of the colour scales (Blues, YlGnBu, OrRd) and no "worst" red uses
FOCUS = "#c026d3"
#: text colour of every figure: 14.7:1 on white (plotly_white's default grey-blue and
#: Streamlit's chart grey, 3.7:1, fall below the 4.5:1 readable minimum)
INK = "#1f2937"


#: The trace types our figures draw (Sankey and Image have no defaults in plotly_white).
TRACE_TYPES = ("bar", "heatmap", "scatter", "scattergl")
#: Most markers a figure draws as SVG (``scatter``); above it, WebGL (``scattergl``). Creating a
#: WebGL context costs the browser 0.1–0.15 s without a GPU (software rendering: headless,
#: remote desktops, many laptops' browsers in power-saving mode), more than SVG needs for a few
#: thousand markers, while WebGL stays fluid where SVG would stall (tens of thousands).
SVG_MAX_POINTS = 3_000


def grid_lines(
    positions: Sequence[float], lo: float, hi: float, line: Mapping[str, Any], name: str
) -> go.Scatter:
    """A vertical and a horizontal line at each of ``positions``, spanning ``lo``..``hi`` on the
    other axis, as one line trace (one SVG path, never hovered).

    Layout shapes cost the browser a DOM element and a layout pass each, on every draw: the
    Multi-view page's six panels carried 108 of them. The trace's ``name`` says what the lines
    are (tests and readers of the figure's JSON find them by it).
    """
    xs: list[float | None] = []
    ys: list[float | None] = []
    for b in positions:
        xs += [b, b, None, lo, hi, None]
        ys += [lo, hi, None, b, b, None]
    return go.Scatter(
        x=xs, y=ys, mode="lines", line=dict(line), name=name, hoverinfo="skip", showlegend=False
    )


def subplot_grid(
    rows: int,
    cols: int,
    titles: Sequence[str] = (),
    *,
    horizontal_spacing: float,
    vertical_spacing: float,
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The layout of a ``rows`` x ``cols`` grid of plots with a title over each, as
    ``make_subplots(rows, cols, subplot_titles=titles, ...)`` lays it out, and the names of each
    cell's axes, row by row from the top left (``[("xaxis", "yaxis"), ("xaxis2", "yaxis2"),
    ...]``; a trace drawn in a cell names them ``x2``/``y2``, :func:`axis_ref`).

    Builders that fill many cells hand plotly their traces and this layout at once: building
    the figure with ``make_subplots``, then ``add_trace(row=, col=)`` and
    ``update_xaxes(row=, col=)`` per cell cost plotly a validation pass each, 20-60 ms of a
    figure of six panels (``make_subplots`` alone ~15 ms). The domains are computed as
    plotly's own, to the last bit (tested against it).
    """
    width = (1.0 - horizontal_spacing * (cols - 1)) / cols
    widths = [width] * cols
    height = (1.0 - vertical_spacing * (rows - 1)) / rows
    heights = [height] * rows
    layout: dict[str, Any] = {}
    cells: list[tuple[str, str]] = []
    annotations = []
    for r in range(rows):
        up = rows - 1 - r  # plotly counts rows from the bottom
        y_s = sum(heights[:up]) + up * vertical_spacing
        y_e = y_s + heights[up]
        # plotly's rounding of values a float error outside [0, 1]
        y_dom = [min(max(y_s, 0.0), 1.0), min(max(y_e, 0.0), 1.0)]
        for c in range(cols):
            x_s = sum(widths[:c]) + c * horizontal_spacing
            x_dom = [x_s, x_s + widths[c]]
            k = len(cells) + 1
            suffix = "" if k == 1 else str(k)
            x_name, y_name = f"xaxis{suffix}", f"yaxis{suffix}"
            layout[x_name] = {"anchor": f"y{suffix}", "domain": x_dom}
            layout[y_name] = {"anchor": f"x{suffix}", "domain": y_dom}
            cells.append((x_name, y_name))
            if k <= len(titles) and titles[k - 1]:
                annotations.append(
                    {
                        "y": y_dom[1],
                        "xref": "paper",
                        "x": sum(x_dom) / 2.0,
                        "yref": "paper",
                        "text": titles[k - 1],
                        "showarrow": False,
                        "font": {"size": 16},
                        "xanchor": "center",
                        "yanchor": "bottom",
                    }
                )
    if annotations:
        layout["annotations"] = annotations
    return layout, cells


def axis_ref(name: str) -> str:
    """A trace's reference to a layout axis: ``"xaxis2"`` -> ``"x2"``, ``"yaxis"`` -> ``"y"``.

    Examples
    --------
    >>> axis_ref("xaxis2"), axis_ref("yaxis")
    ('x2', 'y')
    """
    return name.replace("axis", "")


def scatter_class(n_points: int) -> type[go.Scatter] | type[go.Scattergl]:
    """``go.Scatter`` for a figure of at most :data:`SVG_MAX_POINTS` markers, else
    ``go.Scattergl`` (same attributes, drawn with WebGL)."""
    return go.Scatter if n_points <= SVG_MAX_POINTS else go.Scattergl


def _template() -> go.layout.Template:
    """plotly_white with our font, class palette, hover font and margins that grow to fit every
    axis's labels: the dashboard's look outside Streamlit.

    Only the trace defaults of :data:`TRACE_TYPES` are kept: plotly_white carries defaults for
    24 trace types, which every figure validated on assignment and sent to the browser (half of
    a small figure's JSON, ~10 ms per figure and rerun), for traces we never draw. The
    template's ``xaxis``/``yaxis`` apply to every axis of a figure (``xaxis2``, ...), so the
    margins grow to fit tick labels and axis titles on all of them — nothing is cut at the
    image's edge (checked on exported SVGs in the browser tests).
    """
    white = pio.templates["plotly_white"].to_plotly_json()
    data = {k: v for k, v in white["data"].items() if k in TRACE_TYPES}
    t = go.layout.Template({"layout": white["layout"], "data": data})
    t.layout.font = {**FONT, "color": INK}
    t.layout.colorway = list(QUALITATIVE)
    t.layout.hoverlabel = {"font": {"size": 13}}
    t.layout.xaxis.automargin = True
    t.layout.yaxis.automargin = True
    # Plotly's default ("hide past div") measures every tick label of an axis each time one of
    # them is placed, a forced browser layout each: under a profiler, the browser's layouts took
    # 22 -> 16 ms of Sweep's two charts per "Run sweep" without it, 57 -> 39 ms of Affinity's
    # five. The margins grow to fit the labels (automargin above): none reaches the edge it
    # would be hidden past, and one that did would rather show than vanish.
    t.layout.xaxis.ticklabeloverflow = "allow"
    t.layout.yaxis.ticklabeloverflow = "allow"
    return t


#: The template of every figure: the page draws it as it is (no Streamlit theme on top), so the
#: page, the report and the exported images look the same.
TEMPLATE = _template()
#: Its name in plotly's registry. It is plotly's default template in any process that imports
#: the figures: a new ``go.Figure`` starts with it, which plotly takes
#: as already validated, where assigning it to each built figure validated a copy of it every
#: time (4 of a figure's 10 ms of styling).
TEMPLATE_NAME = "clustlens"
pio.templates[TEMPLATE_NAME] = TEMPLATE
pio.templates.default = TEMPLATE_NAME


def plain(text: object) -> str:
    """Escape a user string so Plotly shows it literally.

    Plotly renders a subset of HTML in every text (``<b>``, ``<a href>``, ``<br>``) and decodes
    entities, so escaping ``& < >`` makes it print the characters themselves.

    Examples
    --------
    >>> plain("<b>x</b> & y")
    '&lt;b&gt;x&lt;/b&gt; &amp; y'
    """
    return html.escape(str(text), quote=False)


def plain_all(values: Iterable[object]) -> list[str]:
    """:func:`plain` of each value (label values of any type become strings)."""
    return [plain(v) for v in values]


def unique_names(names: list[str]) -> list[str]:
    """Make category names unique (a categorical axis merges equal names).

    Examples
    --------
    >>> unique_names(["1", "1", "2"])
    ['1', '1\u200b', '2']
    """
    seen: dict[str, int] = {}
    out = []
    for n in names:
        k = seen.get(n, 0)
        seen[n] = k + 1
        out.append(n + "\u200b" * k)
    return out


def _common_start(texts: list[str]) -> str:
    """The longest start every text shares (character by character)."""
    first, last = min(texts), max(texts)
    k = 0
    while k < min(len(first), len(last)) and first[k] == last[k]:
        k += 1
    return first[:k]


def short_labels(names: list[str], max_chars: int = 18) -> list[str]:
    """Tick texts no longer than ``max_chars`` that still tell the names apart.

    A longer name keeps what differs between the names (the part after their common start and
    before their common end, e.g. the number in "cluster number 12 (k-means)") with as much of
    its start and end as fits, joined by "…"; the full name stays the category, which is what
    the hover shows. Kept distinct.

    Examples
    --------
    >>> short_labels(["k-means cluster number 1", "k-means cluster number 12", "b"], 12)
    ['k-mea…mber 1', 'k-mea…ber 12', 'b']
    >>> short_labels([f"activity class {i} (walking or running)" for i in (1, 22)], 16)
    ['activit…1…nning)', 'activi…22…nning)']
    """
    pre = _common_start(names) if len(names) > 1 else ""
    suf = _common_start([n[::-1] for n in names])[::-1] if len(names) > 1 else ""
    out = []
    for n in names:
        if len(n) <= max_chars:
            out.append(n)
            continue
        core = n[len(pre) : max(len(pre), len(n) - len(suf))]
        room = max_chars - len(core) - 2
        if pre and suf and core and room >= 4:
            out.append(n[: (room + 1) // 2] + "…" + core + "…" + n[len(n) - room // 2 :])
        else:
            head = (max_chars - 1) // 2
            out.append(n[:head] + "…" + n[len(n) - (max_chars - 1 - head) :])
    return unique_names(out)


def category_ticks(
    names: list[str],
    n_cells: int,
    *,
    max_chars: int = 18,
    span_px: float = 500.0,
    font_px: int = 12,
    horizontal: bool = False,
) -> dict:
    """Settings of a categorical axis whose labels never overprint.

    Labels are cut to ``max_chars`` (:func:`short_labels`); they stay level when they fit their
    cell (assuming the axis is ``span_px`` long — a half-width chart), else they stand
    vertical (``horizontal``: a y axis, always level); when even that does not fit, every n-th
    label is shown (the hover names every cell). Plotly computes the margins (``automargin``).
    """
    short = short_labels(names, max_chars)
    n = max(int(n_cells), 1)
    cell = span_px / n
    line = font_px * 1.3
    longest = max((len(t) for t in short), default=0) * font_px * 0.6
    if horizontal or longest <= 0.9 * cell:
        angle = 0
        need = line if horizontal else longest + font_px
    else:
        angle = -90
        need = line
    step = max(1, math.ceil(need / cell))
    return {
        "tickmode": "array",
        "tickvals": names[::step],
        "ticktext": short[::step],
        "tickangle": angle,
        "tickfont": {"size": font_px},
        "automargin": True,
    }


#: Longest title / subtitle line (characters) before it wraps: a half-width chart on a
#: 1,024 px page is about 500 px wide, and Plotly never wraps a title itself.
TITLE_CHARS = 58
SUBTITLE_CHARS = 80


def _fill(words: Sequence[str], width: int) -> list[str]:
    """Words into lines of at most ``width`` characters, each line as full as it can be."""
    lines: list[str] = []
    line = ""
    for word in words:
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    lines.append(line)
    return lines


def wrap_words(text: str, width: int) -> tuple[str, int]:
    """``text`` broken at spaces into lines of at most ``width`` characters (a longer word stays
    whole), joined by ``<br>``; returns it and its number of lines. Existing ``<br>`` stay.

    The lines are as even as their number allows: filled each to ``width``, an 81-character
    subtitle left its last word alone on a second line.

    Examples
    --------
    >>> wrap_words("one marker per setting, colour = ACC; top left is best", 50)
    ('one marker per setting, colour<br>= ACC; top left is best', 2)
    """
    lines: list[str] = []
    for part in text.split("<br>"):
        words = part.split(" ")
        filled = _fill(words, width)
        if len(filled) > 1:  # the narrowest width that needs no more lines
            start = max(max(map(len, words)), math.ceil(len(part) / len(filled)))
            for narrower in range(start, width):
                even = _fill(words, narrower)
                if len(even) == len(filled):
                    filled = even
                    break
        lines.extend(filled)
    return "<br>".join(lines), len(lines)


def style_layout(
    title: str,
    *,
    height: int | None = None,
    top_axis: bool = False,
    subtitle: str | None = None,
    top_labels_px: int = 0,
    above_plot_px: int = 0,
    block_on_pad: bool = False,
) -> dict[str, Any]:
    """The common layout as a dict: left-aligned title, tight margins, the height (see
    :func:`style`, which applies it to a figure; :func:`figure` builds one with it).

    ``block_on_pad``: above a colour bar that stands on the plot (the affinity plot's), Plotly
    stands the title's whole block on the pad, not its first line: the top margin holds the
    subtitle's lines once more, or the title would be cut at the figure's top."""
    title, n_title = wrap_words(title, TITLE_CHARS)
    head: dict = {"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 17}}
    extra = 22 * (n_title - 1)
    n_sub = 0
    if subtitle:
        subtitle, n_sub = wrap_words(subtitle, SUBTITLE_CHARS)
        head["subtitle"] = {"text": subtitle, "font": {"size": 13}}
        extra += 24 + 17 * (n_sub - 1)
    # The title stands on the plot area: Plotly mostly puts the bottom of its *first* line ``pad``
    # above the plot and hangs its other lines and the subtitle below that, inside the pad; the
    # pad holds them, a gap, and above a top axis the axis's tick labels and title, and the top
    # margin holds the first line and the pad. Hung from the figure's top (yref="container")
    # titles were drawn up to 12 px above the figure, cut, whenever they had several lines or
    # a colour bar pushed the margin. No title automargin, and margins that need no push:
    # after a push, titles and image traces are not redrawn (they slid off their places).
    pad = 20 + 22 * (n_title - 1) + 19 * n_sub + above_plot_px
    pad += 48 + top_labels_px if top_axis else 0
    head.update(yref="paper", y=1.0, yanchor="bottom", pad={"b": pad}, automargin=False)
    layout: dict[str, Any] = {
        "title": head,
        # a minimum: the template's axes grow it to fit their tick labels and titles
        "margin": {
            "l": 10,
            "r": 10,
            "t": 36 + pad + (19 * n_sub if block_on_pad else 0),
            "b": 10,
        },
    }
    if height:
        layout["height"] = height + extra
    if pio.templates.default != TEMPLATE_NAME:  # plotly's default changed since: ours anyway
        layout["template"] = TEMPLATE
    return layout


def style(
    fig: go.Figure,
    title: str,
    *,
    height: int | None = None,
    top_axis: bool = False,
    subtitle: str | None = None,
    top_labels_px: int = 0,
    above_plot_px: int = 0,
) -> go.Figure:
    """Apply the common layout: left-aligned title, tight margins, the height (the font, the
    palette and the axes' growing margins come with :data:`TEMPLATE`, every figure's default).

    ``above_plot_px``: room between the title and the plot for what Plotly's automargin does
    not count (subplot titles).

    ``top_axis``: the x axis (ticks and title) sits above the plot, so leave room for it
    under the figure title. ``subtitle``: a smaller line under the title. Long titles and
    subtitles wrap (:data:`TITLE_CHARS`, :data:`SUBTITLE_CHARS`): Plotly never wraps them, and a
    half-width chart would cut them at its edge.

    A builder that has its traces and layout at hand calls :func:`figure` instead: one
    ``update_layout`` costs a few milliseconds, a figure built from one dict a fraction of one.
    """
    fig.update_layout(
        style_layout(title, height=height, top_axis=top_axis, subtitle=subtitle,
                     top_labels_px=top_labels_px, above_plot_px=above_plot_px)
    )  # fmt: skip
    # room for tick labels, axis titles, colour bar and legend before the browser measures
    # them: a margin Plotly has to push makes it draw the figure twice
    return margins.reserve(fig)


#: Set (to anything) in the environment, every :func:`figure` is also built as plotly.py
#: validates it and must read the same in plotly.js (``tests/conftest.py`` sets it: every figure
#: any test builds is checked).
CHECK_ENV = "CLUSTLENS_CHECK_FIGURES"
_LAYOUT_LISTS = ("shapes", "annotations", "images", "selections")


def figure(
    data: Sequence[Any],
    layout: Mapping[str, Any],
    title: str,
    *,
    after: Mapping[str, Any] | None = None,
    **kw: Any,
) -> go.Figure:
    """A figure of ``data`` (plotly traces, or plain dicts as plotly.js reads them) and
    ``layout``, styled as :func:`style` styles it (``kw``: its options), built in one call.

    The figure is assembled without plotly.py's checks: a trace made as a plotly object
    (``go.Bar(...)``) was checked when it was made, and checking it again with the layout took
    ~40 % of a first page's figure building (the Affinity page's six figures: 19 ms against 11).
    A plain-dict trace or layout is what the browser gets as written: with
    ``CLUSTLENS_CHECK_FIGURES`` set (:data:`CHECK_ENV`; the test suite sets it) each figure is
    also built as plotly.py validates it, and the call raises when the two differ as plotly.js
    reads them (a bare-string title, a colour scale plotly.js has no name for).

    ``layout`` is the figure's own layout (axes, shapes, background); the common layout goes
    over it as :func:`style` would apply it afterwards, and ``after`` (a margin of its own, say)
    over that.

    Examples
    --------
    >>> fig = figure([go.Bar(x=["a"], y=[1])], {"yaxis": {"title": {"text": "n"}}}, "Counts")
    >>> fig.layout.title.text, fig.layout.yaxis.title.text
    ('Counts', 'n')
    """
    merged = _merged(_merged(dict(layout), style_layout(title, **kw)), after or {})
    traces = [t.to_plotly_json() if isinstance(t, BaseTraceType) else t for t in data]
    fig = margins.reserve(go.Figure(data=traces, layout=merged, _validate=False))
    if os.environ.get(CHECK_ENV):
        check_as_validated(fig)
    return fig


def check_as_validated(fig: go.Figure) -> None:
    """Raise ``ValueError`` if ``fig``, written out as it is, differs from the same figure
    validated by plotly.py, as plotly.js reads the two (:func:`as_read`)."""
    sent = as_read(json.loads(pio.to_json(fig, validate=False)))
    checked = as_read(json.loads(pio.to_json(go.Figure(fig.to_dict()), validate=True)))
    for key in _LAYOUT_LISTS:  # plotly.py drops an empty list of shapes; plotly.js reads none
        if sent.get("layout", {}).get(key) == []:
            del sent["layout"][key]
    if sent != checked:
        raise ValueError(
            f"figure {fig.layout.title.text!r} is not what plotly.py would validate it to: "
            f"{_first_difference(sent, checked)}"
        )


def as_read(obj: Any) -> Any:
    """A figure's JSON as plotly.js reads it: typed arrays (base64) as lists, NaN as null, a
    property set to null as not set.

    Examples
    --------
    >>> as_read({"x": {"dtype": "i1", "bdata": "AQI="}, "y": [float("nan"), 1.0], "name": None})
    {'x': [1, 2], 'y': [None, 1.0]}
    """
    if isinstance(obj, dict):
        if "bdata" in obj and "dtype" in obj:
            values = np.frombuffer(base64.b64decode(obj["bdata"]), dtype=np.dtype(obj["dtype"]))
            if "shape" in obj:
                values = values.reshape([int(n) for n in str(obj["shape"]).split(",")])
            return as_read(values.tolist())
        # a property set to null is a property not set (plotly.js takes its default)
        return {k: as_read(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, list):
        return [as_read(v) for v in obj]
    if isinstance(obj, float) and math.isnan(obj):
        return None
    return obj


def _first_difference(a: Any, b: Any, path: str = "") -> str:
    """Where two JSON values first differ (``layout.xaxis.title: 'x' != {'text': 'x'}``)."""
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b)):
            if a.get(k) != b.get(k):
                return _first_difference(a.get(k), b.get(k), f"{path}.{k}" if path else k)
    if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
        for i, (x, y) in enumerate(zip(a, b, strict=True)):
            if x != y:
                return _first_difference(x, y, f"{path}[{i}]")
    return f"{path or 'the figure'}: {str(a)[:120]} != {str(b)[:120]}"


def _merged(base: dict[str, Any], over: Mapping[str, Any]) -> dict[str, Any]:
    """``over`` set into ``base`` as plotly's ``update`` sets it: nested dicts merged."""
    for key, value in over.items():
        if isinstance(value, Mapping) and isinstance(base.get(key), Mapping):
            base[key] = _merged(dict(base[key]), value)
        else:
            base[key] = value
    return base


def focus_bands(
    row_spans: Iterable[tuple[float, float]],
    col_spans: Iterable[tuple[float, float]],
    x_extent: tuple[float, float],
    y_extent: tuple[float, float],
) -> list[dict]:
    """Shapes outlining whole rows (``row_spans``, y ranges across ``x_extent``) and whole
    columns (``col_spans``, x ranges across ``y_extent``) in :data:`FOCUS`, for heatmaps opened
    on a class or cluster."""
    line = {"color": FOCUS, "width": 3}
    bands = [(x_extent, (lo, hi)) for lo, hi in row_spans]
    bands += [((lo, hi), y_extent) for lo, hi in col_spans]
    return [
        {
            "type": "rect",
            "x0": x[0],
            "x1": x[1],
            "y0": y[0],
            "y1": y[1],
            "line": line,
            "layer": "above",
        }
        for x, y in bands
    ]


def focus_marker_lines(n: int, positions: Iterable[int]) -> dict:
    """``marker.line`` for ``n`` bars with the bars at ``positions`` outlined in :data:`FOCUS`."""
    on = set(positions)
    return {
        "color": [FOCUS if i in on else "rgba(0,0,0,0)" for i in range(n)],
        "width": [3 if i in on else 0 for i in range(n)],
    }
