"""Diagnosis: each error of a clustering named (split, merge, misassignment), costed in points,
and — given the coefficient matrix C — traced to its cause: the representation or the clustering.

Examples
--------
>>> f = diagnose([0, 0, 0, 0, 1, 1, 1, 1], [0, 0, 1, 1, 2, 2, 2, 2])
>>> [(x.kind, x.classes, x.clusters, x.points, x.cause) for x in f]
[('split', [0], [0, 1], 2, 'unknown')]
"""

from __future__ import annotations

from typing import Any

from metrics_core.diagnosis._findings import Finding, Thresholds, partition_findings
from metrics_core.diagnosis._reading import CAUSE_WORDS, pair_view, verdict
from metrics_core.partition._contingency import as_contingency

__all__ = ["CAUSE_WORDS", "Finding", "Thresholds", "diagnose", "pair_view", "verdict"]


def diagnose(
    labels_true: Any = None,
    labels_pred: Any = None,
    coef: Any = None,
    *,
    contingency: Any = None,
    thresholds: Thresholds | None = None,
    noise_policy: str = "keep",
    **conventions: Any,
) -> list[Finding]:
    """Every split, merge and misassignment, most costly first, with causes when C is given.

    Parameters
    ----------
    labels_true, labels_pred : array-like
        Ground truth and prediction (or pass ``contingency``: no cause can be found then).
    coef : array-like or sparse, optional
        The coefficient matrix; adds the cause and the C evidence to every finding.
    thresholds : Thresholds, optional
        Every threshold, named (defaults in :class:`Thresholds`).
    noise_policy : str
        As in :func:`metrics_core.contingency_table`.
    **conventions
        SRE/CONN conventions (``orientation``, ``preset``, ...) used for the causes.

    Returns
    -------
    list of Finding
    """
    th = thresholds or Thresholds()
    c = as_contingency(labels_true, labels_pred, contingency=contingency, noise_policy=noise_policy)
    findings = partition_findings(c, th)
    if coef is not None and findings:
        from metrics_core.diagnosis._causes import add_causes

        add_causes(findings, labels_true, labels_pred, coef, th, conventions)
    return findings
