"""Baselines of the seed paper: spectral clustering on one view's k-NN graph and on the average
of the views' graphs (SC_avg)."""

from __future__ import annotations

import numpy as np
from scipy.sparse import csr_matrix
from sklearn.neighbors import kneighbors_graph

from metrics_core.models._spectral import spectral_clustering as _spectral
from metrics_core.models._spectral import spectral_embedding as _embed

KNN_GRID: tuple[int, ...] = tuple(range(5, 61, 5))  # the paper's 5, 10, ..., 60


def knn_graph(X: np.ndarray, n_neighbors: int) -> csr_matrix:
    """Symmetric binary k-NN graph: ``w_ij = 1`` if either point is among the other's
    ``n_neighbors`` nearest (Euclidean) neighbours, else 0; no self-loops.

    Parameters
    ----------
    X : numpy.ndarray of shape (n_samples, n_features)
        Points as rows.
    n_neighbors : int

    Returns
    -------
    scipy.sparse.csr_matrix of shape (n_samples, n_samples)

    Examples
    --------
    >>> W = knn_graph(np.array([[0.0], [1.0], [5.0], [6.0]]), 1)
    >>> W.toarray().astype(int).tolist()
    [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]]
    """
    A = kneighbors_graph(X, n_neighbors, mode="connectivity", include_self=False)
    return csr_matrix(A.maximum(A.T))


def spectral_embedding(W, n_clusters: int, *, seed: int = 0) -> np.ndarray:
    """Ng-Jordan-Weiss embedding of an affinity W, rows normalised (the models' one embedding).

    :func:`metrics_core.models.spectral_embedding` with ``affinity="precomputed"``; graphs of at
    most 500 points are solved densely (``dense_below=501``), as this baseline always did.

    Parameters
    ----------
    W : array or sparse matrix of shape (n, n)
        Symmetric non-negative affinity.
    n_clusters : int
    seed : int
        Seeds the ARPACK start vector (the embedding is otherwise deterministic).

    Returns
    -------
    numpy.ndarray of shape (n, n_clusters)
    """
    return _embed(W, n_clusters, seed=seed, dense_below=501, affinity="precomputed")[0]


def kmeans_labels(E: np.ndarray, n_clusters: int, *, seed: int, n_init: int = 10) -> np.ndarray:
    """k-means (k-means++ init, ``n_init`` restarts, best inertia) on the embedding rows."""
    from sklearn.cluster import KMeans

    km = KMeans(n_clusters=n_clusters, n_init=n_init, random_state=seed)
    return km.fit_predict(E)


def spectral_clustering(W, n_clusters: int, *, seed: int = 0, n_init: int = 10) -> np.ndarray:
    """Spectral clustering of a graph: :func:`metrics_core.models.spectral_clustering` on the
    affinity as given (``affinity="precomputed"``, ``dense_below=501``); returns the labels.

    Examples
    --------
    >>> W = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
    >>> spectral_clustering(W, 2, seed=0).tolist() in ([0, 0, 0, 1, 1, 1], [1, 1, 1, 0, 0, 0])
    True
    """
    return _spectral(
        W, n_clusters, seed=seed, n_init=n_init, dense_below=501, affinity="precomputed"
    ).labels


def average_graph(graphs: list) -> csr_matrix:
    """SC_avg's input: the plain mean of the views' graphs (every view weighted equally)."""
    total = csr_matrix(graphs[0], dtype=float)
    for g in graphs[1:]:
        total = total + csr_matrix(g, dtype=float)
    return total / len(graphs)
