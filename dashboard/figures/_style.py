"""Shared look and the one escaping rule for text that reaches Plotly."""

from __future__ import annotations

import html
from collections.abc import Iterable

import plotly.graph_objects as go

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
GOOD = "#2f7d32"
BAD = "#c62828"
NEUTRAL = "#6b7280"


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
    fig: go.Figure, title: str, *, height: int | None = None, top_axis: bool = False
) -> go.Figure:
    """Apply the common layout: readable font, left-aligned title, tight margins.

    ``top_axis``: the x axis (ticks and title) sits above the plot, so leave room for it
    under the figure title.
    """
    fig.update_layout(
        title={"text": title, "x": 0.0, "xanchor": "left", "font": {"size": 17}},
        font=FONT,
        margin={"l": 10, "r": 10, "t": 130 if top_axis else 60, "b": 10},
        hoverlabel={"font": {"size": 13}},
    )
    if height:
        fig.update_layout(height=height)
    return fig
