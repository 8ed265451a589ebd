"""Shared look and the one escaping rule for text that reaches Plotly."""

from __future__ import annotations

import html
from collections.abc import Iterable

import plotly.graph_objects as go
import plotly.io as pio
from plotly.colors import get_colorscale, sample_colorscale

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


def _template() -> go.layout.Template:
    """plotly_white with our font and class palette: the dashboard's look outside Streamlit."""
    t = go.layout.Template(pio.templates["plotly_white"])
    t.layout.font = FONT
    t.layout.colorway = list(QUALITATIVE)
    return t


#: Light template for figures shown outside Streamlit (the HTML report, static exports); in the
#: app, Streamlit's own light theme gives the same look.
TEMPLATE = _template()


def pct(share: float) -> str:
    """A share as a percentage that never rounds a real leak to "0%".

    Exact zero prints as "0", shares under 0.1% as "<0.1%", the rest with one decimal.

    Examples
    --------
    >>> [pct(x) for x in (0.0, 0.0004, 0.015, 0.2, 1.0)]
    ['0', '<0.1%', '1.5%', '20.0%', '100%']
    """
    if not share > 0:
        return "0"
    if share >= 1:
        return "100%"
    if share < 0.001:
        return "<0.1%"
    return f"{min(share, 0.999):.1%}"


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


def style(
    fig: go.Figure,
    title: str,
    *,
    height: int | None = None,
    top_axis: bool = False,
    subtitle: str | None = None,
) -> go.Figure:
    """Apply the common layout: readable font, left-aligned title, tight margins.

    ``top_axis``: the x axis (ticks and title) sits above the plot, so leave room for it
    under the figure title. ``subtitle``: a smaller second line under the title (keep the
    title itself short: Plotly never wraps it, and half-width charts clip long ones).
    """
    head: dict = {"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 17}}
    if subtitle:
        head["subtitle"] = {"text": subtitle, "font": {"size": 13}}
    fig.update_layout(
        title=head,
        font=FONT,
        margin={
            "l": 10,
            "r": 10,
            "t": (130 if top_axis else 60) + (24 if subtitle else 0),
            "b": 10,
        },
        hoverlabel={"font": {"size": 13}},
    )
    if height:
        fig.update_layout(height=height)
    return fig
