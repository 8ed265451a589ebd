"""Partition metrics: every score is a function of one contingency table, counted once.

:func:`contingency_table` counts the classes × clusters table in O(N); set matching
(:mod:`._matching`), pair counting (:mod:`._pairs`) and information-theoretic scores
(:mod:`._information`) are all derived from a :class:`Contingency`. Each public ``*_score`` takes
``labels_true, labels_pred`` or ``contingency=``.
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
    cluster_ratio,
    clustering_error,
    f_measure_score,
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

__all__ = [
    "AVERAGE_METHODS",
    "NOISE_POLICIES",
    "Contingency",
    "Matching",
    "PairConfusion",
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
    "normalized_mutual_info_score",
    "pair_confusion",
    "pair_f1_score",
    "pair_precision_score",
    "pair_recall_score",
    "purity_score",
    "rand_score",
    "v_measure_score",
]
