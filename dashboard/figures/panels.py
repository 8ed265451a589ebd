"""Every figure of the Evaluate pages, built from an analysis object — the one figure path.

The pages, the HTML report and the PNG/SVG/PDF exports all call these builders with the same
:mod:`dashboard.analysis.objects` object, so a figure cannot show numbers that its table does
not. Each builder is pure (no Streamlit) and returns a new ``go.Figure``.

:data:`REPORT_PANELS` lists the figures the report shows, in order, with their captions.

Examples
--------
>>> import numpy as np
>>> from dashboard.analysis.conventions import Conventions
>>> from dashboard.analysis.objects import analyse
>>> a = analyse([0, 0, 1, 1], {"run": [0, 0, 1, 0]}, np.ones((4, 4)), Conventions())
>>> [caption for caption, _ in report_figures(a)][:2]
['Contingency table, ordered by the optimal matching', 'Where each class goes']
"""

from __future__ import annotations

from collections.abc import Callable

import plotly.graph_objects as go

from dashboard.analysis.focus import Focus
from dashboard.analysis.objects import AffinityAnalysis, Analysis, PartitionAnalysis
from dashboard.figures._memo import memoised
from dashboard.figures.affinity import (
    affinity_figure,
    conn_bars,
    leakage_heatmap,
    sre_class_bars,
)
from dashboard.figures.contingency import contingency_heatmap, sankey
from dashboard.figures.pairs import pair_confusion_matrix, pair_scores_bar

NO_FOCUS = Focus()


@memoised
def contingency_panel(
    pa: PartitionAnalysis, *, mode: str = "counts", focus: Focus = NO_FOCUS
) -> go.Figure:
    """The contingency heatmap in matched order (counts, row- or column-normalised), the rows
    and columns of ``focus`` outlined."""
    t = pa.table
    return contingency_heatmap(
        t.table, t.rows, t.cols, mode=mode, n_matched=t.n_matched,
        focus_rows=focus.class_positions(t.rows), focus_cols=focus.cluster_positions(t.cols),
    )  # fmt: skip


@memoised
def sankey_panel(pa: PartitionAnalysis) -> go.Figure:
    """Where each class goes: the class → cluster flows."""
    t = pa.table
    src, dst, val = pa.sankey_links()
    return sankey(
        t.table, t.rows, t.cols, sources=src, targets=dst, values=val, n_matched=t.n_matched
    )


@memoised
def pair_matrix_panel(pa: PartitionAnalysis) -> go.Figure:
    """TP/FP/FN/TN over unordered pairs."""
    m = pa.metrics
    return pair_confusion_matrix(m["pair_tp"], m["pair_fp"], m["pair_fn"], m["pair_tn"])


@memoised
def pair_scores_panel(pa: PartitionAnalysis) -> go.Figure:
    """The pair-counting scores as bars."""
    return pair_scores_bar(pa.metrics)


@memoised
def affinity_panel(display: dict, *, log: bool = True, focus: Focus = NO_FOCUS) -> go.Figure:
    """|C| + |C|ᵀ in display order (from :func:`~dashboard.analysis.objects.affinity_display`);
    the blocks of ``focus`` (its classes, or its clusters when sorted by prediction) outlined."""
    wanted = focus.clusters if display["group_kind"] == "cluster" else focus.classes
    return affinity_figure(
        display, log=log, focus_groups=Focus.positions(wanted, display["group_names"])
    )


@memoised
def conn_panel(aa: AffinityAnalysis, *, focus: Focus = NO_FOCUS) -> go.Figure:
    """λ₂ per class under the analysis's conventions (its preset included)."""
    return conn_bars(
        aa.conn_classes, aa.conn_per_class, focus=focus.class_positions(aa.conn_classes)
    )


@memoised
def sre_class_panel(aa: AffinityAnalysis, *, focus: Focus = NO_FOCUS) -> go.Figure:
    """SRE per class under the analysis's conventions."""
    return sre_class_bars(
        aa.sre_classes, aa.sre_per_class, focus=focus.class_positions(aa.sre_classes)
    )


@memoised
def leakage_panel(
    aa: AffinityAnalysis, *, absolute: bool = True, focus: Focus = NO_FOCUS
) -> go.Figure:
    """The K x K leakage matrix."""
    return leakage_heatmap(
        aa.leakage, aa.leakage_classes, absolute=absolute,
        focus=focus.class_positions(aa.leakage_classes),
    )  # fmt: skip


#: (caption, builder) of the report's figures, in order; builders take the whole Analysis.
REPORT_PANELS: tuple[tuple[str, Callable[[Analysis], go.Figure | None]], ...] = (
    (
        "Contingency table, ordered by the optimal matching",
        lambda a: contingency_panel(a.partition),
    ),
    ("Where each class goes", lambda a: sankey_panel(a.partition)),
    ("Pair confusion", lambda a: pair_matrix_panel(a.partition)),
    (
        "Affinity |C| + |C|ᵀ, points sorted by ground truth",
        lambda a: affinity_panel(a.display) if a.display is not None else None,
    ),
    (
        "Connectivity per class (λ2)",
        lambda a: conn_panel(a.affinity) if a.affinity is not None else None,
    ),
    ("SRE per class", lambda a: sre_class_panel(a.affinity) if a.affinity is not None else None),
    (
        "Leakage between classes",
        lambda a: leakage_panel(a.affinity) if a.affinity is not None else None,
    ),
)


def report_figures(analysis: Analysis) -> list[tuple[str, go.Figure]]:
    """The report's (caption, figure) pairs for ``analysis`` (figures that need C only with C)."""
    out = []
    for caption, build in REPORT_PANELS:
        fig = build(analysis)
        if fig is not None:
            out.append((caption, fig))
    return out
