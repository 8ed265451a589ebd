"""Write the dashboard's demo files (deterministic): ``python -m demo_data.make_demo``.

The demo is a union of 5 random 4-dimensional subspaces in R^30 (80 points each, a little
noise) with:

- ``demo_true.txt``: ground truth, 1-based (``1`` .. ``5``), one label per line;
- ``demo_coef.npz``: a sparse self-expressive coefficient matrix C (scipy ``save_npz``, rows =
  points): the ridge (LSR) solution kept to its 10 largest entries per row, then shaped so that
  the prediction's errors have a visible cause — class 1 is two halves joined by a few weak
  links (low connectivity), classes 4 and 5 exchange coefficients (leakage, high SRE);
- ``demo_pred_run1.txt``, ``demo_pred_run2.txt``: two runs of one method that split class 1
  and merge classes 4 and 5 (plus a few scattered mistakes), cluster ids in an arbitrary order.

Kept small (tens of KB) so that the app starts fast.

The Points page also offers the **handwritten-digits demo** (UCI "Multiple Features", HW: 2,000
digits, the pixel view shipped in :mod:`metrics_core.datasets`, images of 16 rows x 15 columns):

- ``hw_coef.npz``: the 10-nearest-neighbour graph of the pixel view (cosine, binary weights),
  used as C;
- ``hw_pred.txt``: spectral clustering of that graph into 10 clusters (ids in an arbitrary
  order); its ground truth is the digit (``metrics_core.datasets.load_view("pix")``).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import scipy.sparse as sp

from metrics_core.datasets import union_of_subspaces

HERE = Path(__file__).resolve().parent
N_CLASSES, PER_CLASS, SEED = 5, 80, 7
FILES = {
    "truth": "demo_true.txt",
    "coef": "demo_coef.npz",
    "preds": ("demo_pred_run1.txt", "demo_pred_run2.txt"),
}
HW_FILES = {"coef": "hw_coef.npz", "pred": "hw_pred.txt"}
#: Height x width of one pixel-view image (rows of 15 pixels, 16 rows).
HW_IMAGE_SHAPE = (16, 15)


def _lsr_topk(X: np.ndarray, lam: float = 0.05, k: int = 10) -> np.ndarray:
    """Ridge self-expression C = G (G + λI)⁻¹ with G = X Xᵀ, zero diagonal, top-k per row."""
    g = X @ X.T
    c = np.linalg.solve(g + lam * np.eye(len(g)), g).T
    np.fill_diagonal(c, 0.0)
    keep = np.argsort(-np.abs(c), axis=1)[:, :k]
    out = np.zeros_like(c)
    rows = np.arange(len(c))[:, None]
    out[rows, keep] = c[rows, keep]
    return out


def build(seed: int = SEED) -> dict[str, object]:
    """Return the demo as arrays: ``truth`` (1-based ints), ``coef`` (CSR), ``preds`` (list)."""
    rng = np.random.default_rng(seed)
    X, y = union_of_subspaces(30, 4, N_CLASSES, PER_CLASS, noise=0.05, seed=seed)
    c = _lsr_topk(X)
    n = len(y)
    idx = [np.flatnonzero(y == k) for k in range(N_CLASSES)]
    # Class 0: cut it into two halves, keep three weak links between them.
    a, b = idx[0][: PER_CLASS // 2], idx[0][PER_CLASS // 2 :]
    c[np.ix_(a, b)] = 0.0
    c[np.ix_(b, a)] = 0.0
    for i, j in zip(a[:3], b[:3], strict=True):
        c[i, j] = c[j, i] = 0.02
    # Classes 3 and 4: every point also leans on three points of the other class.
    scale = float(np.median(np.abs(c[c != 0])))
    for src, dst in ((idx[3], idx[4]), (idx[4], idx[3])):
        for i in src:
            c[i, rng.choice(dst, 3, replace=False)] = scale * rng.uniform(0.5, 1.2, 3)
    coef = sp.csr_array(c)
    coef.eliminate_zeros()

    preds = []
    for run in range(2):
        r = np.random.default_rng(seed + 100 + run)
        cluster = y.copy()  # 0..4
        cut = PER_CLASS // 2 + (0 if run == 0 else 6)
        cluster[idx[0][cut:]] = 5  # split class 0
        cluster[idx[4]] = 3  # merge classes 3 and 4
        flip = r.random(n) < 0.03
        cluster[flip] = r.choice([0, 1, 2, 3, 5], flip.sum())
        names = r.permutation(6)  # arbitrary cluster ids (5 are used)
        preds.append(names[cluster])
    return {"truth": y + 1, "coef": coef, "preds": preds}


def build_hw(seed: int = SEED) -> dict[str, object]:
    """The handwritten-digits demo: ``truth`` (digit), ``coef`` (kNN graph), ``pred``, ``X``."""
    from metrics_core.datasets import load_view
    from metrics_core.models import knn_affinity, spectral_clustering

    X, y = load_view("pix")
    coef = sp.csr_array(knn_affinity(X, 10).coef, dtype=np.float32)
    labels = np.asarray(spectral_clustering(coef, 10, seed=0).labels)
    names = np.random.default_rng(seed).permutation(10)  # arbitrary cluster ids
    return {"truth": y, "coef": coef, "pred": names[labels], "X": X}


def write(directory: Path = HERE) -> list[Path]:
    """Write the demo files into ``directory`` and return their paths."""
    hw = build_hw()
    sp.save_npz(directory / HW_FILES["coef"], sp.csr_matrix(hw["coef"]), compressed=True)
    np.savetxt(directory / HW_FILES["pred"], hw["pred"], fmt="%d")
    demo = build()
    out = [directory / FILES["truth"], directory / FILES["coef"]]
    np.savetxt(out[0], demo["truth"], fmt="%d")
    sp.save_npz(out[1], sp.csr_matrix(demo["coef"]), compressed=True)
    for name, pred in zip(FILES["preds"], demo["preds"], strict=True):
        np.savetxt(directory / name, pred, fmt="%d")
        out.append(directory / name)
    return [*out, directory / HW_FILES["coef"], directory / HW_FILES["pred"]]


if __name__ == "__main__":
    for p in write():
        print(f"{p.name}: {p.stat().st_size:,} bytes")
