"""Multi-view clustering by spectral structure fusion (SSF), its baselines and the protocol.

The model follows the seed paper (Liu, Wang & Qian, spectral structure fusion); equations were
reconstructed from its text, every choice it leaves open is documented in
:mod:`metrics_core.multiview._ssf`. Views are given points-as-rows, ``(n_samples, d_v)``.

Examples
--------
>>> from metrics_core.datasets import make_multiview
>>> views, y = make_multiview(n_per_cluster=10, n_clusters=3, seed=0)
>>> res = ssf_fit(views, 3, max_iter=3)
>>> res.n_components
3
"""

from metrics_core.multiview._baselines import (
    KNN_GRID,
    average_graph,
    knn_graph,
    spectral_clustering,
    spectral_embedding,
)
from metrics_core.multiview._data import HW_VIEWS, load_hw, load_views_from_files
from metrics_core.multiview._protocol import (
    ALL_METHODS,
    DEFAULT_SSF,
    METHODS,
    METRIC_KEYS,
    METRIC_LABELS,
    ProtocolResult,
    latex_table,
    run_protocol,
    sensitivity_grid,
    summarise,
)
from metrics_core.multiview._simplex import project_simplex
from metrics_core.multiview._ssf import INITS, SSFResult, pkn_graph, scale_features, ssf_fit

__all__ = [
    "ALL_METHODS",
    "DEFAULT_SSF",
    "HW_VIEWS",
    "INITS",
    "KNN_GRID",
    "METHODS",
    "METRIC_KEYS",
    "METRIC_LABELS",
    "ProtocolResult",
    "SSFResult",
    "average_graph",
    "knn_graph",
    "latex_table",
    "load_hw",
    "load_views_from_files",
    "pkn_graph",
    "project_simplex",
    "run_protocol",
    "scale_features",
    "sensitivity_grid",
    "spectral_clustering",
    "spectral_embedding",
    "ssf_fit",
    "summarise",
]
