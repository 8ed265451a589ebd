"""Synthetic unions of linear subspaces, the standard test bed of subspace clustering."""

from __future__ import annotations

import numpy as np


def union_of_subspaces(
    ambient_dim: int = 30,
    subspace_dim: int = 5,
    n_subspaces: int = 5,
    points_per_subspace: int = 60,
    noise: float = 0.0,
    *,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray]:
    """Draw points from a union of random linear subspaces.

    Each subspace is spanned by an orthonormal basis drawn uniformly at random (QR of a Gaussian
    matrix); each point is a Gaussian combination of its basis, plus isotropic Gaussian noise of
    standard deviation ``noise / sqrt(ambient_dim)``, then scaled to unit ℓ2 norm.
    With ``n_subspaces * subspace_dim <= ambient_dim`` the subspaces are (almost surely)
    independent.

    Parameters
    ----------
    ambient_dim, subspace_dim, n_subspaces, points_per_subspace : int
        Sizes.
    noise : float
        Noise level relative to the (unit) signal norm.
    seed : int
        Seed of the random generator.

    Returns
    -------
    X : numpy.ndarray of shape (n_subspaces * points_per_subspace, ambient_dim)
        Points as rows, unit norm.
    labels : numpy.ndarray of shape (n_points,)
        Subspace index of each point, 0-based.

    Examples
    --------
    >>> X, y = union_of_subspaces(10, 2, 3, 4, seed=1)
    >>> X.shape, sorted(set(y.tolist()))
    ((12, 10), [0, 1, 2])
    """
    if min(ambient_dim, subspace_dim, n_subspaces, points_per_subspace) < 1:
        raise ValueError("all sizes must be at least 1")
    if subspace_dim > ambient_dim:
        raise ValueError("subspace_dim cannot exceed ambient_dim")
    rng = np.random.default_rng(seed)
    blocks = []
    for _ in range(n_subspaces):
        basis, _r = np.linalg.qr(rng.standard_normal((ambient_dim, subspace_dim)))
        coeffs = rng.standard_normal((subspace_dim, points_per_subspace))
        blocks.append((basis @ coeffs).T)
    X = np.vstack(blocks)
    if noise > 0:
        X = X / np.linalg.norm(X, axis=1, keepdims=True)
        X = X + rng.standard_normal(X.shape) * (noise / np.sqrt(ambient_dim))
    X = X / np.maximum(np.linalg.norm(X, axis=1, keepdims=True), np.finfo(float).tiny)
    labels = np.repeat(np.arange(n_subspaces), points_per_subspace)
    return X, labels
