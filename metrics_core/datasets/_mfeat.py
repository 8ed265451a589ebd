"""Single views of the UCI "Multiple Features" handwritten digits (the multi-view set called HW).

2,000 digits (0–9, 200 each), six feature sets of the same images; row ``i`` is the same digit in
every view. The files in ``mfeat/`` beside this module are a copy of the UCI data (donated by
Robert P.W. Duin, Delft University of Technology; CC BY 4.0 — see ``mfeat/README.md``; keep the
attribution wherever the data is redistributed).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import numpy as np

MFEAT_DIR = Path(__file__).resolve().parent / "mfeat"

VIEWS: dict[str, str] = {
    "fou": "Fourier coefficients of the character shapes (76)",
    "fac": "profile correlations (216)",
    "kar": "Karhunen–Loève coefficients (64)",
    "pix": "pixel averages in 2×3 windows (240)",
    "zer": "Zernike moments (47)",
    "mor": "morphological features (6)",
}
"""View name -> description (feature count); the keys are what :func:`load_view` accepts."""


@lru_cache(maxsize=len(VIEWS))
def _read(name: str) -> tuple[np.ndarray, np.ndarray]:
    import pandas as pd

    frame = pd.read_csv(MFEAT_DIR / f"mfeat-{name}.csv.gz")
    values = frame.to_numpy(dtype=np.float64)
    # The last column is the digit (0–9); the header row only holds column indices.
    X = np.ascontiguousarray(values[:, :-1])
    y = values[:, -1].astype(np.int64)
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


def load_view(name: str) -> tuple[np.ndarray, np.ndarray]:
    """Load one view of the handwritten-digit set.

    Parameters
    ----------
    name : str
        One of :data:`VIEWS` (``"fou"``, ``"fac"``, ``"kar"``, ``"pix"``, ``"zer"``, ``"mor"``);
        the ``"mfeat-"`` prefix is accepted too.

    Returns
    -------
    X : numpy.ndarray of shape (2000, n_features)
        Features as given by UCI (not normalised), points as rows.
    y : numpy.ndarray of shape (2000,)
        The digit, 0–9, 200 of each.

    Examples
    --------
    >>> X, y = load_view("mor")
    >>> X.shape, int(y.max()) + 1
    ((2000, 6), 10)
    """
    key = str(name).strip().lower().removeprefix("mfeat-").removeprefix("mfeat:")
    if key not in VIEWS:
        raise ValueError(f"unknown mfeat view {name!r}; choose one of {', '.join(VIEWS)}")
    X, y = _read(key)
    return X.copy(), y.copy()


def stratified_subset(labels: np.ndarray, n: int, seed: int) -> np.ndarray:
    """Sorted indices of about ``n`` points, the same share of every class (seeded).

    Examples
    --------
    >>> stratified_subset(np.repeat([0, 1], 10), 6, 0).size
    6
    """
    labels = np.asarray(labels)
    classes = np.unique(labels)
    if n >= labels.size:
        return np.arange(labels.size)
    per = max(1, n // classes.size)
    rng = np.random.default_rng(seed)
    parts = []
    for c in classes:
        members = np.flatnonzero(labels == c)
        parts.append(rng.choice(members, size=min(per, members.size), replace=False))
    return np.sort(np.concatenate(parts))
