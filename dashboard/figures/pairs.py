"""Pair-confusion figures: the 2x2 matrix over unordered pairs and the pair scores."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import plotly.graph_objects as go

from dashboard.figures._memo import memoised
from dashboard.figures._style import BAD, QUALITATIVE, SEQ_COUNTS, figure
from metrics_core.evaluation import METRICS_BY_KEY

#: The pair-counting scores shown, in order; their names come from the metric catalogue.
PAIR_KEYS: tuple[str, ...] = ("pair_precision", "pair_recall", "pair_f1", "jaccard", "fmi",
                              "rand", "ari")  # fmt: skip
PAIR_SCORES: dict[str, str] = {k: METRICS_BY_KEY[k].name for k in PAIR_KEYS}


@memoised
def pair_confusion_matrix(tp: int, fp: int, fn: int, tn: int) -> go.Figure:
    """2x2 matrix: rows = same / different class, columns = same / different cluster.

    Colour is the share within the row (so the two error cells stand out even when TN dwarfs
    everything); the text gives the count, the row share and the reading of the cell.
    """
    counts = np.array([[tp, fn], [fp, tn]], dtype=np.float64)
    rows_total = counts.sum(axis=1, keepdims=True)
    share = np.divide(counts, rows_total, out=np.zeros_like(counts), where=rows_total > 0)
    names = [
        ["TP: together in both", "FN: split apart"],
        ["FP: merged together", "TN: apart in both"],
    ]
    text = [
        [
            f"{names[i][j]}<br>{int(counts[i, j]):,} pairs<br>{share[i, j]:.1%} of the row"
            for j in range(2)
        ]
        for i in range(2)
    ]
    heat = go.Heatmap(
        z=share,
        x=["same cluster", "different clusters"],
        y=["same class", "different classes"],
        text=text,
        texttemplate="%{text}",
        textfont={"size": 15},
        colorscale=SEQ_COUNTS,
        zmin=0,
        zmax=1,
        hovertemplate="%{y}, %{x}<br>%{text}<extra></extra>",
        colorbar={"title": {"text": "share of row"}, "thickness": 14},
        xgap=3,
        ygap=3,
    )
    layout = {
        "xaxis": {"type": "category", "side": "top", "title": {"text": "prediction"}},
        "yaxis": {"type": "category", "autorange": "reversed", "title": {"text": "ground truth"}},
    }
    return figure([heat], layout, "Pair confusion over unordered pairs of points", height=470,
                  top_axis=True)  # fmt: skip


@memoised
def pair_scores_bar(scores: Mapping[str, float]) -> go.Figure:
    """Horizontal bars of the pair-counting scores (ARI may be negative), all one colour.

    The length is the score; colour carries no extra meaning (a traffic-light colouring by
    arbitrary thresholds read as a verdict nobody explained). A negative ARI (worse than
    chance) is the one bar drawn in red.
    """
    keys = [k for k in PAIR_SCORES if k in scores]
    vals = [float(scores[k]) for k in keys]
    colors = [BAD if v < 0 else QUALITATIVE[0] for v in vals]
    bars = go.Bar(
        x=vals,
        y=[PAIR_SCORES[k] for k in keys],
        orientation="h",
        marker_color=colors,
        text=[f"{v:.3f}" for v in vals],
        textposition="outside",
        hovertemplate="%{y}: %{x:.4f}<extra></extra>",
    )
    lo = min([0.0, *vals])
    layout = {
        "xaxis": {"range": [lo - 0.05 if lo < 0 else 0, 1.12],
                  "title": {"text": "score (1 = perfect)"}},
        "yaxis": {"type": "category", "autorange": "reversed"},
    }  # fmt: skip
    return figure(
        [bars],
        layout,
        "Pair-counting scores",
        subtitle="all from the 2 x 2 pair confusion above; 1 = perfect, ARI 0 = chance",
        height=440,
    )
