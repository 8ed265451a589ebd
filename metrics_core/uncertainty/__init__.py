"""Uncertainty of a score: bootstrap intervals over points, permutation p-values against the
chance null (fixed group sizes), and a paired bootstrap for two predictions of the same points.
"""

from metrics_core.uncertainty._resampling import (
    DEFAULT_METRICS,
    Interval,
    bootstrap_intervals,
    method_text,
    paired_difference,
)

__all__ = [
    "DEFAULT_METRICS",
    "Interval",
    "bootstrap_intervals",
    "method_text",
    "paired_difference",
]
