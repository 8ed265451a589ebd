"""clustlens metrics core: exact external clustering metrics and subspace-clustering diagnostics.

Every partition metric is a function of one contingency table, built once from the two label
vectors; ``evaluate`` returns them all at once. Pure numpy/scipy, no UI.
"""

from metrics_core._catalog import METRICS, METRICS_BY_KEY, MetricInfo
from metrics_core._contingency import (
    NOISE_POLICIES,
    Contingency,
    contingency_from_table,
    contingency_table,
)
from metrics_core._errors import ClustlensInputError
from metrics_core._evaluate import evaluate, partition_metrics
from metrics_core._information import (
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
from metrics_core._matching import (
    Matching,
    accuracy_score,
    best_matching,
    cluster_ratio,
    clustering_error,
    f_measure_score,
    purity_score,
)
from metrics_core._pairs import (
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

__version__ = "0.1.0"

__all__ = [
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
    "best_matching",
    "cluster_ratio",
    "clustering_error",
    "completeness_score",
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
    "mutual_info_score",
    "normalized_mutual_info_score",
    "pair_confusion",
    "pair_f1_score",
    "pair_precision_score",
    "pair_recall_score",
    "partition_metrics",
    "purity_score",
    "rand_score",
    "v_measure_score",
]

try:  # the affinity diagnostics land separately; keep the package importable meanwhile
    from metrics_core._affinity import (
        AFFINITY_PRESETS,
        affinity_diagnostics,
        connectivity,
        leakage_matrix,
        subspace_preserving_error,
    )

    __all__ += [
        "AFFINITY_PRESETS",
        "affinity_diagnostics",
        "connectivity",
        "leakage_matrix",
        "subspace_preserving_error",
    ]
except ImportError:  # pragma: no cover
    pass
