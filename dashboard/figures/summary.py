"""Summary figures: headline metrics of several predictions side by side."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import plotly.graph_objects as go

from dashboard.figures._memo import memoised
from dashboard.figures._style import QUALITATIVE, plain, style


@memoised
def metrics_compare(
    results: Mapping[str, Mapping[str, float]],
    keys: Sequence[str],
    labels: Mapping[str, str],
) -> go.Figure:
    """Grouped bars: one group per metric, one bar per prediction (names shown literally)."""
    fig = go.Figure()
    for i, (name, values) in enumerate(results.items()):
        ks = [k for k in keys if k in values]
        fig.add_trace(
            go.Bar(
                name=plain(name),
                x=[labels.get(k, k) for k in ks],
                y=[float(values[k]) for k in ks],
                marker_color=QUALITATIVE[i % len(QUALITATIVE)],
                hovertemplate="%{x}: %{y:.4f}<extra>%{fullData.name}</extra>",
            )
        )
    fig.update_layout(barmode="group", legend={"orientation": "h", "y": -0.15})
    fig.update_xaxes(type="category")
    fig.update_yaxes(title="score")
    return style(fig, "Headline metrics per prediction", height=400)
