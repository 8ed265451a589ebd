"""Summary figures: headline metrics of several predictions side by side."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from dashboard.figures._memo import memoised
from dashboard.figures._style import QUALITATIVE, figure, plain


@memoised
def metrics_compare(
    results: Mapping[str, Mapping[str, float]],
    keys: Sequence[str],
    labels: Mapping[str, str],
) -> go.Figure:
    """Grouped bars: one group per metric, one bar per prediction (names shown literally)."""
    bars = []
    for i, (name, values) in enumerate(results.items()):
        ks = [k for k in keys if k in values]
        bars.append(
            go.Bar(
                name=plain(name),
                x=[labels.get(k, k) for k in ks],
                y=[float(values[k]) for k in ks],
                marker_color=QUALITATIVE[i % len(QUALITATIVE)],
                hovertemplate="%{x}: %{y:.4f}<extra>%{fullData.name}</extra>",
            )
        )
    layout = {
        "barmode": "group",
        "legend": {"orientation": "h", "y": -0.15},
        "xaxis": {"type": "category"},
        "yaxis": {"title": {"text": "score"}},
    }
    return figure(bars, layout, "Headline metrics per prediction", height=400)
