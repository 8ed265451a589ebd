"""Evaluation: ``evaluate`` (every metric in one call) and the catalogue that describes each key.

:func:`evaluate` counts the contingency table once and assembles its result from the same
kernels as the public ``*_score`` functions; given C it adds the affinity diagnostics.
:data:`METRICS` describes every key (name, short name, formula, range, direction, convention)
and feeds the README table, the dashboard's tables, the report and the property tests.
"""

from metrics_core.evaluation._catalog import METRICS, METRICS_BY_KEY, MetricInfo
from metrics_core.evaluation._evaluate import evaluate, partition_metrics

__all__ = ["METRICS", "METRICS_BY_KEY", "MetricInfo", "evaluate", "partition_metrics"]
