"""Input files for the browser tests: a labelled union of blocks with a sparse C, and bad files."""

from __future__ import annotations

import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import scipy.sparse as sp

#: One class name is a would-be HTML injection: it must be shown literally, never executed.
CLASS_NAMES = ["walk", "run", "sit", "stand", "<img/src=x/onerror=window.__pwned=1>", "lie"]
N_PER_CLASS = 200  # N = 1,200 > the dashboard's per-cell limit, so the affinity plot is pooled


@dataclass(frozen=True)
class Dataset:
    labels_true: np.ndarray  # strings
    labels_pred: np.ndarray  # ints
    coef: sp.csr_array


def make_dataset(n_per_class: int = N_PER_CLASS, seed: int = 0) -> Dataset:
    """Six classes; the prediction splits class 0 in two and merges classes 4 and 5; C has
    8 within-class coefficients per point and cross-class leakage for one point in ten."""
    rng = np.random.default_rng(seed)
    k = len(CLASS_NAMES)
    n = k * n_per_class
    y = np.repeat(np.arange(k), n_per_class)
    pred = y.copy()
    pred[: n_per_class // 2] = k  # class 0 split over clusters 0 and k
    pred[pred == 5] = 4  # classes 4 and 5 merged
    rows, cols = [], []
    for i in range(n):
        lo = y[i] * n_per_class
        nbrs = rng.choice(n_per_class - 1, size=8, replace=False)
        nbrs = lo + nbrs + (lo + nbrs >= i)  # skip the point itself: zero diagonal
        rows += [i] * 8
        cols += nbrs.tolist()
        if rng.random() < 0.1:
            rows.append(i)
            cols.append(int(rng.integers(n)))
    vals = rng.uniform(0.05, 1.0, size=len(rows))
    c = sp.csr_array((vals, (rows, cols)), shape=(n, n))
    c.setdiag(0)
    c.eliminate_zeros()
    return Dataset(np.array(CLASS_NAMES)[y], pred.astype(np.int64), c)


def write_inputs(ds: Dataset, folder: Path) -> dict[str, Path]:
    """Ground truth as .txt (string labels), prediction as .npy, C as scipy sparse .npz."""
    folder.mkdir(parents=True, exist_ok=True)
    truth = folder / "activity_truth.txt"
    truth.write_text("\n".join(ds.labels_true) + "\n", encoding="utf-8")
    pred = folder / "spectral_pred.npy"
    np.save(pred, ds.labels_pred, allow_pickle=False)
    coef = folder / "coef_sparse.npz"
    sp.save_npz(coef, ds.coef)
    return {"truth": truth, "pred": pred, "coef": coef}


def garbage_npy() -> bytes:
    """Bytes that are not a .npy file at all."""
    return b"this is not a numpy file\x00\xff\xfe" * 40


def out_of_range_sparse_npz(n: int = 1200) -> bytes:
    """A scipy-sparse-style .npz whose column indices point far outside the matrix.

    ``scipy.sparse.load_npz`` accepts it (no full index check) and the first real use then
    reads out of bounds: the kind of file that can take a whole server down.
    """
    c = sp.random(n, n, density=0.002, format="csr", random_state=1, dtype=np.float64)
    indices = c.indices.astype(np.int32).copy()
    indices[::7] = 2_000_000_000
    buf = io.BytesIO()
    np.savez(
        buf,
        indices=indices,
        indptr=c.indptr.astype(np.int32),
        format=np.array(b"csr"),
        shape=np.array([n, n]),
        data=c.data,
    )
    return buf.getvalue()
