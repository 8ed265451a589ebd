"""Loading multi-view data: HW from :mod:`metrics_core.datasets` and the user's own view files."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np

from metrics_core.validation._errors import ClustlensInputError

HW_VIEWS: tuple[str, ...] = ("fou", "fac", "kar", "pix", "zer", "mor")
"""HW view order used everywhere here (the UCI file order of the mfeat set)."""


def load_hw() -> tuple[list[np.ndarray], np.ndarray, list[str]]:
    """Load the six views of HW (UCI Multiple Features, 2,000 digits, 10 classes).

    Reads ``metrics_core/datasets/mfeat/mfeat-<view>.csv.gz`` through
    :func:`metrics_core.datasets.load_view` (raw UCI features, points as rows). UCI data by
    Robert P.W. Duin, CC BY 4.0 (attribution in ``metrics_core/datasets/mfeat/README.md``).

    Returns
    -------
    views : list of numpy.ndarray
        Six ``(2000, d_v)`` float arrays in :data:`HW_VIEWS` order.
    labels : numpy.ndarray
        The digit of every row (0-9).
    names : list of str
        The view names.
    """
    from metrics_core.datasets import load_view

    views, labels = [], None
    for name in HW_VIEWS:
        X, y = load_view(name)
        if labels is not None and not np.array_equal(labels, y):
            raise ClustlensInputError("label column differs between views", source=f"mfeat-{name}")
        views.append(np.array(X, dtype=float))
        labels = np.array(y)
    return views, labels, list(HW_VIEWS)


def load_views_from_files(
    paths: Sequence[str | Path], labels: str | Path | None = None
) -> tuple[list[np.ndarray], np.ndarray | None, list[str]]:
    """Load one data matrix per view (``.csv``/``.txt``/``.npy``/``.npz``/``.mat``), points as rows.

    Uses the safe loaders of :mod:`metrics_core.io` (no pickles, size limits). All views must
    have the same number of rows; the labels file, if given, one label per row.

    Parameters
    ----------
    paths : sequence of path
        One file per view, in view order.
    labels : path, optional
        Ground-truth labels.

    Returns
    -------
    views, labels (or None), names (file stems)

    Raises
    ------
    ClustlensInputError
        Unreadable files, fewer than one view, or mismatching row counts.
    """
    from metrics_core.io import load_data_matrix, load_labels

    if not paths:
        raise ClustlensInputError("no view files given", source="views")
    views, names = [], []
    for p in paths:
        p = Path(p)
        views.append(load_data_matrix(p.read_bytes(), name=p.name).matrix.astype(float))
        names.append(p.stem)
    n = views[0].shape[0]
    for p, v in zip(paths, views, strict=True):
        if v.shape[0] != n:
            raise ClustlensInputError(
                f"has {v.shape[0]} rows but the first view has {n} (one row per point; "
                "transpose files stored as features x points)",
                source=Path(p).name,
            )
    y = None
    if labels is not None:
        lp = Path(labels)
        y = np.asarray(load_labels(lp.read_bytes(), name=lp.name).labels)
        if y.shape[0] != n:
            raise ClustlensInputError(
                f"has {y.shape[0]} labels but the views have {n} rows", source=lp.name
            )
    return views, y, names
