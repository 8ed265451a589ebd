"""Multi-view clustering by spectral structure fusion (SSF), its baselines and the protocol.

The model follows the seed paper (Liu, Wang & Qian, spectral structure fusion); equations were
reconstructed from its text, every choice it leaves open is documented in
:mod:`metrics_core.multiview._ssf`. Views are given points-as-rows, ``(n_samples, d_v)``.

Examples
--------
>>> from metrics_core.datasets import make_multiview
>>> from metrics_core.multiview import ssf_fit
>>> views, y = make_multiview(n_per_cluster=10, n_clusters=3, seed=0)
>>> res = ssf_fit(views, 3, max_iter=3)
>>> res.n_components
3
"""

from metrics_core._lazy import lazy_exports

# The baselines import scikit-learn and the protocol pandas: a page that only fits SSF (or
# reads DEFAULT_SSF) should not pay for them.
_EXPORTS: dict[str, str] = {
    "KNN_GRID": "metrics_core.multiview._baselines",
    "average_graph": "metrics_core.multiview._baselines",
    "knn_graph": "metrics_core.multiview._baselines",
    "spectral_clustering": "metrics_core.multiview._baselines",
    "spectral_embedding": "metrics_core.multiview._baselines",
    "HW_VIEWS": "metrics_core.multiview._data",
    "load_hw": "metrics_core.multiview._data",
    "load_views_from_files": "metrics_core.multiview._data",
    "ALL_METHODS": "metrics_core.multiview._protocol",
    "DEFAULT_SSF": "metrics_core.multiview._ssf",
    "METHODS": "metrics_core.multiview._protocol",
    "METRIC_KEYS": "metrics_core.multiview._protocol",
    "METRIC_LABELS": "metrics_core.multiview._protocol",
    "SELECTED_BY_SHORT": "metrics_core.multiview._protocol",
    "ProtocolResult": "metrics_core.multiview._protocol",
    "latex_table": "metrics_core.multiview._protocol",
    "protocol_steps": "metrics_core.multiview._protocol",
    "run_protocol": "metrics_core.multiview._protocol",
    "sensitivity_grid": "metrics_core.multiview._protocol",
    "summarise": "metrics_core.multiview._protocol",
    "project_simplex": "metrics_core.multiview._simplex",
    "INITS": "metrics_core.multiview._ssf",
    "SSFResult": "metrics_core.multiview._ssf",
    "pkn_graph": "metrics_core.multiview._ssf",
    "scale_features": "metrics_core.multiview._ssf",
    "ssf_fit": "metrics_core.multiview._ssf",
}
__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)

__all__ = [
    "ALL_METHODS",
    "DEFAULT_SSF",
    "HW_VIEWS",
    "INITS",
    "KNN_GRID",
    "METHODS",
    "METRIC_KEYS",
    "METRIC_LABELS",
    "SELECTED_BY_SHORT",
    "ProtocolResult",
    "SSFResult",
    "average_graph",
    "knn_graph",
    "latex_table",
    "load_hw",
    "load_views_from_files",
    "pkn_graph",
    "project_simplex",
    "protocol_steps",
    "run_protocol",
    "scale_features",
    "sensitivity_grid",
    "spectral_clustering",
    "spectral_embedding",
    "ssf_fit",
    "summarise",
]
