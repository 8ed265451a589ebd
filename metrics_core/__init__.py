"""clustlens metrics core: exact external clustering metrics and subspace-clustering diagnostics.

Every partition metric is a function of one contingency table, built once from the two label
vectors; ``evaluate`` returns them all at once. Pure numpy/scipy, no UI: this package never
imports streamlit, plotly, ``dashboard`` or ``demo_data`` (checked by import-linter in CI).

Packages by concern: :mod:`~metrics_core.validation` (one validator per input kind),
:mod:`~metrics_core.io` (safe loaders), :mod:`~metrics_core.partition` (contingency-based
scores), :mod:`~metrics_core.affinity` (SRE, CONN, leakage of a coefficient matrix),
:mod:`~metrics_core.evaluation` (``evaluate`` and the metric catalogue),
:mod:`~metrics_core.models`, :mod:`~metrics_core.sweep`, :mod:`~metrics_core.multiview`,
:mod:`~metrics_core.datasets` and :mod:`~metrics_core.cli`.
"""

from metrics_core.affinity import (
    AFFINITY_PRESETS,
    affinity_diagnostics,
    connectivity,
    leakage_matrix,
    subspace_preserving_error,
)
from metrics_core.evaluation import METRICS, METRICS_BY_KEY, MetricInfo, evaluate, partition_metrics
from metrics_core.partition import (
    AVERAGE_METHODS,
    NOISE_POLICIES,
    Contingency,
    Matching,
    PairConfusion,
    accuracy_score,
    adjusted_mutual_info_score,
    adjusted_rand_score,
    best_matching,
    cluster_ratio,
    clustering_error,
    completeness_score,
    contingency_from_table,
    contingency_table,
    entropy,
    expected_mutual_info,
    f_measure_score,
    fowlkes_mallows_score,
    homogeneity_completeness_v_measure,
    homogeneity_score,
    jaccard_score,
    mutual_info_score,
    normalized_clustering_accuracy_score,
    normalized_mutual_info_score,
    pair_confusion,
    pair_f1_score,
    pair_precision_score,
    pair_recall_score,
    pair_sets_index_score,
    purity_score,
    rand_score,
    v_measure_score,
)
from metrics_core.validation import ClustlensInputError

__version__ = "0.1.0"

__all__ = [
    "AFFINITY_PRESETS",
    "AVERAGE_METHODS",
    "METRICS",
    "METRICS_BY_KEY",
    "NOISE_POLICIES",
    "ClustlensInputError",
    "Contingency",
    "Matching",
    "MetricInfo",
    "PairConfusion",
    "__version__",
    "accuracy_score",
    "adjusted_mutual_info_score",
    "adjusted_rand_score",
    "affinity_diagnostics",
    "best_matching",
    "cluster_ratio",
    "clustering_error",
    "completeness_score",
    "connectivity",
    "contingency_from_table",
    "contingency_table",
    "entropy",
    "evaluate",
    "expected_mutual_info",
    "f_measure_score",
    "fowlkes_mallows_score",
    "homogeneity_completeness_v_measure",
    "homogeneity_score",
    "jaccard_score",
    "leakage_matrix",
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
    "subspace_preserving_error",
    "v_measure_score",
]
