"""Evaluation: ``evaluate`` (every metric in one call) and the catalogue that describes each key.

:func:`evaluate` counts the contingency table once and assembles its result from the same
kernels as the public ``*_score`` functions; given C it adds the affinity diagnostics.
:data:`METRICS` describes every key (name, short name, formula, range, direction, convention)
and feeds the README table, the dashboard's tables, the report and the property tests.
"""

from metrics_core.evaluation._catalog import (
    COLUMN_LABELS,
    METRICS,
    METRICS_BY_KEY,
    MetricInfo,
    column_label,
)
from metrics_core.evaluation._evaluate import evaluate, partition_metrics
from metrics_core.evaluation._tables import (
    STD_DDOF,
    LatexCell,
    MeanStd,
    best_rows,
    braces_balanced,
    latex_escape,
    mean_std,
    mean_std_caption,
    mean_std_table,
    metrics_latex,
    plain_value,
    to_latex,
)

__all__ = [
    "COLUMN_LABELS",
    "METRICS",
    "METRICS_BY_KEY",
    "STD_DDOF",
    "LatexCell",
    "MeanStd",
    "MetricInfo",
    "best_rows",
    "braces_balanced",
    "column_label",
    "evaluate",
    "latex_escape",
    "mean_std",
    "mean_std_caption",
    "mean_std_table",
    "metrics_latex",
    "partition_metrics",
    "plain_value",
    "to_latex",
]
