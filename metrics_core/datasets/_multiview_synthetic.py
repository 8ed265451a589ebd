"""A small synthetic multi-view data set: every view sees the clusters only partly."""

from __future__ import annotations

import numpy as np


def make_multiview(
    n_per_cluster: int = 30,
    n_clusters: int = 4,
    n_views: int = 3,
    dims: tuple[int, ...] | None = None,
    noise: float = 0.3,
    *,
    merge: bool = True,
    seed: int = 0,
) -> tuple[list[np.ndarray], np.ndarray]:
    """Draw ``n_views`` views of the same clustered points.

    Every cluster has a random centre per view (standard Gaussian, scaled to norm 3) and its
    points are the centre plus isotropic Gaussian noise of standard deviation
    ``noise``. With ``merge=True`` view ``v`` cannot tell clusters ``v mod K`` and
    ``(v + 1) mod K`` apart (they share one centre), so no single view recovers all clusters when
    ``n_views >= 2`` while the views together do.

    Parameters
    ----------
    n_per_cluster, n_clusters, n_views : int
        Sizes.
    dims : tuple of int, optional
        Dimension of each view (default ``10 + 5 v``).
    noise : float
        Standard deviation of the per-coordinate Gaussian noise.
    merge : bool
        Merge one pair of clusters in every view (the "partial" views).
    seed : int
        Seed of the random generator.

    Returns
    -------
    views : list of numpy.ndarray
        ``views[v]`` has shape ``(n_per_cluster * n_clusters, dims[v])``, points as rows; row
        ``i`` is the same point in every view.
    labels : numpy.ndarray of int
        Cluster of every point, 0-based, in blocks.

    Examples
    --------
    >>> views, y = make_multiview(n_per_cluster=5, n_clusters=3, n_views=2, seed=1)
    >>> [v.shape for v in views], y.tolist()[:6]
    ([(15, 10), (15, 15)], [0, 0, 0, 0, 0, 1])
    """
    if min(n_per_cluster, n_clusters, n_views) < 1:
        raise ValueError("all sizes must be at least 1")
    if dims is None:
        dims = tuple(10 + 5 * v for v in range(n_views))
    if len(dims) != n_views:
        raise ValueError("dims needs one entry per view")
    rng = np.random.default_rng(seed)
    labels = np.repeat(np.arange(n_clusters), n_per_cluster)
    views = []
    for v, d in enumerate(dims):
        centres = rng.standard_normal((n_clusters, d))
        centres *= 3.0 / np.linalg.norm(centres, axis=1, keepdims=True)
        if merge and n_clusters >= 2 and n_views >= 2:
            centres[(v + 1) % n_clusters] = centres[v % n_clusters]
        x = centres[labels] + noise * rng.standard_normal((labels.size, d))
        views.append(x)
    return views, labels
