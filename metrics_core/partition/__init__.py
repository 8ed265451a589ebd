"""Partition metrics: every score is a function of one contingency table, counted once.

:func:`contingency_table` counts the classes × clusters table in O(N); set matching
(:mod:`._matching`), pair counting (:mod:`._pairs`) and information-theoretic scores
(:mod:`._information`) are all derived from a :class:`Contingency`. Each metric is registered
once (:mod:`._registry`: catalogue entry + kernel); ``evaluate`` and the public ``*_score``
functions (which take ``labels_true, labels_pred`` or ``contingency=``) call the same kernels.
"""

from metrics_core.partition._contingency import (
    NOISE_POLICIES,
    Contingency,
    as_contingency,
    contingency_from_table,
    contingency_table,
)
from metrics_core.partition._information import (
    AVERAGE_METHODS,
    adjusted_mutual_info_score,
    completeness_score,
    entropy,
    expected_mutual_info,
    homogeneity_completeness_v_measure,
    homogeneity_score,
    mutual_info_score,
    normalized_mutual_info_score,
    v_measure_score,
)
from metrics_core.partition._matching import (
    Matching,
    accuracy_score,
    best_matching,
    clustering_error,
    f_measure_score,
    normalized_clustering_accuracy_score,
    pair_sets_index_score,
    purity_score,
)
from metrics_core.partition._pairs import (
    PairConfusion,
    adjusted_rand_score,
    fowlkes_mallows_score,
    jaccard_score,
    pair_confusion,
    pair_f1_score,
    pair_precision_score,
    pair_recall_score,
    rand_score,
)
from metrics_core.partition._registry import (
    REGISTRY,
    MetricInfo,
    TableStats,
    partition_metrics,
    registered_infos,
    score,
)
from metrics_core.partition._sizes import cluster_ratio

__all__ = [
    "AVERAGE_METHODS",
    "NOISE_POLICIES",
    "REGISTRY",
    "Contingency",
    "Matching",
    "MetricInfo",
    "PairConfusion",
    "TableStats",
    "accuracy_score",
    "adjusted_mutual_info_score",
    "adjusted_rand_score",
    "as_contingency",
    "best_matching",
    "cluster_ratio",
    "clustering_error",
    "completeness_score",
    "contingency_from_table",
    "contingency_table",
    "entropy",
    "expected_mutual_info",
    "f_measure_score",
    "fowlkes_mallows_score",
    "homogeneity_completeness_v_measure",
    "homogeneity_score",
    "jaccard_score",
    "mutual_info_score",
    "normalized_clustering_accuracy_score",
    "normalized_mutual_info_score",
    "pair_confusion",
    "pair_f1_score",
    "pair_precision_score",
    "pair_recall_score",
    "pair_sets_index_score",
    "partition_metrics",
    "purity_score",
    "rand_score",
    "registered_infos",
    "score",
    "v_measure_score",
]
