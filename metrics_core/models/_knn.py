"""The classical baseline affinity: each point linked to its ``k`` nearest neighbours.

Row ``i`` holds point ``i``'s ``k`` nearest other points (ties broken by index), with weight 1
(``weights="binary"``) or a similarity (``weights="similarity"``): for ``metric="cosine"`` the
cosine similarity clipped at 0; for ``metric="euclidean"`` the heat kernel
``exp(-d² / (2σ²))`` with ``σ`` the mean distance of the points to their ``k``-th neighbour.
The matrix is not symmetric; spectral clustering symmetrises it as ``|C| + |C|ᵀ``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.sparse as sp

from metrics_core.models._common import CoefResult, check_data, normalize_rows
from metrics_core.validation._errors import ClustlensInputError


def knn_affinity(
    X: Any, k: int = 10, *, metric: str = "cosine", weights: str = "binary"
) -> CoefResult:
    """k-nearest-neighbour coefficient matrix (CSR, zero diagonal, ``k`` entries per row).

    Parameters
    ----------
    X : array-like of shape (N, D)
        Data, points as rows.
    k : int
        Neighbours per point, ``1 <= k < N``.
    metric : {"cosine", "euclidean"}
        Distance used to rank neighbours.
    weights : {"binary", "similarity"}
        Entry values (module docstring).

    Returns
    -------
    CoefResult

    Examples
    --------
    >>> X = np.array([[0.0], [1.0], [5.0], [6.0]])
    >>> knn_affinity(X, k=1, metric="euclidean").coef.toarray()
    array([[0., 1., 0., 0.],
           [1., 0., 0., 0.],
           [0., 0., 0., 1.],
           [0., 0., 1., 0.]])
    """
    X = check_data(X)
    n = X.shape[0]
    k = int(k)
    if not (1 <= k < n):
        raise ClustlensInputError(f"k must be in [1, N-1] = [1, {n - 1}], got {k}", source="knn")
    if metric not in ("cosine", "euclidean"):
        raise ClustlensInputError(
            f"metric must be cosine or euclidean, got {metric!r}", source="knn"
        )
    if weights not in ("binary", "similarity"):
        raise ClustlensInputError(
            f"weights must be binary or similarity, got {weights!r}", source="knn"
        )
    t0 = time.perf_counter()
    if metric == "cosine":
        Z = normalize_rows(X)
        score = Z @ Z.T  # higher is closer
    else:
        sq = np.einsum("ij,ij->i", X, X)
        score = -(sq[:, None] + sq[None, :] - 2.0 * (X @ X.T))  # minus squared distance
    np.fill_diagonal(score, -np.inf)
    # Stable full sort of each row so that ties go to the lower index, reproducibly.
    nbrs = np.argsort(-score, axis=1, kind="stable")[:, :k]
    best = np.take_along_axis(score, nbrs, axis=1)
    if weights == "binary":
        vals = np.ones_like(best)
    elif metric == "cosine":
        vals = np.maximum(best, 0.0)
    else:
        dist = np.sqrt(np.maximum(-best, 0.0))
        sigma = float(dist[:, -1].mean())
        vals = np.exp(-(dist**2) / (2.0 * sigma**2)) if sigma > 0 else np.ones_like(dist)
    C = sp.csr_array((vals.ravel(), (np.repeat(np.arange(n), k), nbrs.ravel())), shape=(n, n))
    C.eliminate_zeros()
    C.sort_indices()
    params = {"k": k, "metric": metric, "weights": weights}
    return CoefResult(coef=C, params=params, seconds=time.perf_counter() - t0)


def fit_knn(X: np.ndarray, params: dict[str, Any]) -> CoefResult:
    """Registry entry: :func:`knn_affinity` from a params dict."""
    return knn_affinity(
        X,
        k=params["k"],
        metric=params.get("metric", "cosine"),
        weights=params.get("weights", "binary"),
    )
