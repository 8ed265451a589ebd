"""Port of Chong You's Python toolbox SRE/CONN, as the ``ensc_python`` preset's test oracle.

Written by reading github.com/ChongYou/subspace-clustering, ``metrics/cluster/accuracy.py``
(``self_representation_loss``, ``self_representation_connectivity``) at commit
55e330e38415951f140e74739c869306acdb7a98 and re-stating each step with the same library calls,
so that every quirk of the reference is reproduced here, not reasoned about:

- SRE divides by (row ℓ1 mass + 1e-10);
- CONN row-normalises with ``sklearn.preprocessing.normalize(C, "l2")``, builds
  ``0.5 * (|C_k| + |C_k|ᵀ)`` per class, ``scipy.sparse.csgraph.laplacian(normed=True)``
  (diagonal ignored), ``eigsh(I - L, k=2, which="LA")``, ``1 - val[0]``; every exception is
  caught and scored 0; the result starts at 1 and takes the min over classes.

``ARPACK_FAILED`` is set when an eigsh call on a block of 3 or more points raised: the reference
then scores 0 for a numerical reason (no convergence), a case the preset does not promise to
reproduce (our solve is exact).
"""

from __future__ import annotations

import warnings

import numpy as np
from scipy import sparse
from scipy.sparse import csgraph
from scipy.sparse.linalg import eigsh
from sklearn.preprocessing import normalize


def self_representation_loss(labels_true: np.ndarray, c) -> float:
    n = labels_true.shape[0]
    loss = 0.0
    for i in range(n):
        row = c[i, :]
        row = np.abs(row.toarray().ravel() if sparse.issparse(row) else np.asarray(row).ravel())
        mask = labels_true != labels_true[i]
        loss += np.sum(row[mask]) / (np.sum(row) + 1e-10)
    return loss / n


def self_representation_connectivity(labels_true: np.ndarray, c) -> tuple[float, bool]:
    """(connectivity, whether an eigsh call on a block of >= 3 points failed)."""
    connectivity = 1.0
    arpack_failed = False
    normalized = normalize(c, "l2")
    for k in np.unique(labels_true):
        mask = labels_true == k
        block = normalized[mask, :][:, mask]
        try:
            affinity = 0.5 * (abs(block) + abs(block.T))
            lap = csgraph.laplacian(affinity, normed=True)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                val = eigsh(
                    sparse.identity(lap.shape[0]) - lap,
                    k=2,
                    sigma=None,
                    which="LA",
                    return_eigenvectors=False,
                )
        except Exception:
            if mask.sum() >= 3:
                arpack_failed = True
            val = [1.0]
        connectivity = min(connectivity, 1.0 - val[0])
    return float(connectivity), arpack_failed
