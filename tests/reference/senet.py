"""Port of SENet's ``utils.py`` SRE and CONN, the ``senet`` preset's test oracle.

From github.com/zhangsz1998/Self-Expressive-Network, ``utils.py`` (``subspace_preserving_error``,
``connectivity``, ``normalized_laplacian``), commit 3ba118301c1ea25655e5cd416c86ecafa9f50e0e:
SRE = mean_i(1 - ||mask_i * A_i||_1 / ||A_i||_1) * 100 (0/0 -> NaN for the whole mean); CONN =
min over classes of the second smallest eigenvalue of I - D^-1/2 A D^-1/2 (NaN with a
zero-degree vertex; a one-point class crashes the reference). ``sparse_variant`` computes the
clustlens ``unnormalized_mean`` convention (D - A, mean) with the same loops.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.csgraph import laplacian as csgraph_laplacian


def l2_rows(c):
    norms = np.sqrt((c**2).sum(axis=1))
    norms[norms == 0] = 1.0
    return c / norms[:, None]


def ref_senet_sre(c, s):
    """SENet: mean(1 - ||mask * C||_1 / ||C||_1) * 100 with row norms; 0/0 -> NaN."""
    n = len(s)
    mask = np.array([[1.0 if s[i] == s[j] else 0.0 for j in range(n)] for i in range(n)])
    with np.errstate(invalid="ignore", divide="ignore"):
        ratios = np.abs(mask * c).sum(axis=1) / np.abs(c).sum(axis=1)
    return float(np.mean(1.0 - ratios) * 100.0)


def ref_senet_conn(a, s, sparse_variant):
    vals = []
    for k in np.unique(s):
        idx = np.flatnonzero(s == k)
        if len(idx) < 2:
            continue  # the reference crashes here; the preset skips
        block = a[np.ix_(idx, idx)]
        if sparse_variant:
            lap = csgraph_laplacian(block)  # normed=False: D - A
            vals.append(np.linalg.eigvalsh(lap)[1])
        else:
            deg = block.sum(axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                dis = np.diag(1.0 / np.sqrt(deg))
                lap = np.eye(len(idx)) - dis @ block @ dis
            vals.append(np.nan if np.isnan(lap).any() else np.linalg.eigvalsh(lap)[1])
    return float(np.mean(vals)) if sparse_variant else float(np.min(vals))
