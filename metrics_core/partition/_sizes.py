"""Sizes of a contingency table: points, classes, clusters, noise points, the cluster ratio."""

from __future__ import annotations

from typing import Any

from metrics_core.partition._registry import SIZE, MetricInfo, TableStats, metric, score


@metric(MetricInfo("n_samples", "points", SIZE, "N", (0, None), "info", "after the noise policy",
                   "", short="N"))  # fmt: skip
def _n_samples(t: TableStats) -> int:
    return t.c.n_samples


@metric(MetricInfo("n_classes", "classes", SIZE, "K = #distinct true labels", (0, None), "info",
                   "", "", short="K"))  # fmt: skip
def _n_classes(t: TableStats) -> int:
    return t.c.n_classes


@metric(
    MetricInfo(
        "n_clusters",
        "clusters",
        SIZE,
        "C = #distinct predicted labels",
        (0, None),
        "info",
        "noise kept as one cluster unless the noise policy says otherwise",
        "",
        short="C",
    )
)
def _n_clusters(t: TableStats) -> int:
    return t.c.n_clusters


@metric(
    MetricInfo(
        "n_noise",
        "noise points",
        SIZE,
        "#{j : pred_j ∈ noise labels}",
        (0, None),
        "info",
        "noise labels default to -1 (DBSCAN/HDBSCAN)",
        "",
        short="noise points",
    )
)
def _n_noise(t: TableStats) -> int:
    return t.c.n_noise


@metric(
    MetricInfo(
        "cluster_ratio",
        "cluster ratio",
        SIZE,
        "C / K",
        (0, None),
        "info",
        "> 1 over-segments, < 1 under-segments",
        "",
        short="C / K",
    )
)
def _cluster_ratio(t: TableStats) -> float:
    c = t.c
    return 1.0 if c.n_classes == 0 else c.n_clusters / c.n_classes


def cluster_ratio(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Cluster ratio = #clusters / #classes: above 1 over-segments, below 1 under-segments.

    Examples
    --------
    >>> cluster_ratio(contingency=[[3, 44, 3], [2, 4, 44]])
    1.5
    """
    return score("cluster_ratio", labels_true, labels_pred, contingency)
