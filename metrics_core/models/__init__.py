"""Self-expressive models (LSR, EnSC, SSC-OMP), the kNN baseline and spectral clustering.

Every model maps data ``X`` (N points as rows) to a coefficient matrix ``C`` (N x N, row ``i``
represents point ``i``, zero diagonal) through :func:`fit_coef`; :func:`spectral_clustering`
turns ``C`` into predicted labels with :func:`kmeans` (scikit-learn's k-means labels, restarts
run side by side). UI-free: numpy and scipy only.
"""

from metrics_core.models._common import CoefResult, ParamSpec, check_data, normalize_rows
from metrics_core.models._ensc import ensc
from metrics_core.models._kmeans import KMeansResult, kmeans, kmeans_seeds
from metrics_core.models._knn import knn_affinity
from metrics_core.models._lsr import LSRPath, lsr, lsr_objective, lsr_path
from metrics_core.models._registry import MODELS, ModelSpec, fit_coef, get_model
from metrics_core.models._spectral import (
    SpectralResult,
    affinity_from_coef,
    spectral_clustering,
    spectral_embedding,
)
from metrics_core.models._ssc_omp import ssc_omp

__all__ = [
    "MODELS",
    "CoefResult",
    "KMeansResult",
    "LSRPath",
    "ModelSpec",
    "ParamSpec",
    "SpectralResult",
    "affinity_from_coef",
    "check_data",
    "ensc",
    "fit_coef",
    "get_model",
    "kmeans",
    "kmeans_seeds",
    "knn_affinity",
    "lsr",
    "lsr_objective",
    "lsr_path",
    "normalize_rows",
    "spectral_clustering",
    "spectral_embedding",
    "ssc_omp",
]
