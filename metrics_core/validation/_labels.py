"""Validators, one per input kind: label vectors, contingency tables, coefficient matrices."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from metrics_core.validation._errors import ClustlensInputError

# A contingency table's counts are summed in int64; past this many points a count could overflow
# the pair sums (n * (n - 1) / 2 must fit in int64).
MAX_SAMPLES = 3_000_000_000


def check_labels(labels: Any, name: str = "labels") -> np.ndarray:
    """Return ``labels`` as a 1-D array of hashable values, or raise.

    Accepts ints of any value (negatives included), strings, booleans and whole-number floats
    (``3.0`` is read as ``3``). A ``(1, N)`` or ``(N, 1)`` array is flattened. NaN, inf,
    non-whole floats, nested objects and ``None`` are refused with the index of the first bad
    entry.

    Parameters
    ----------
    labels : array-like
        The label vector.
    name : str
        What to call it in messages (``"labels_true"``, a file name, ...).

    Returns
    -------
    numpy.ndarray
        One-dimensional array (integer, string or bool dtype).

    Examples
    --------
    >>> check_labels([1.0, 2.0, 2.0]).tolist()
    [1, 2, 2]
    >>> check_labels([[0, 1, 1]]).tolist()
    [0, 1, 1]
    """
    if isinstance(labels, (str, bytes)):
        raise ClustlensInputError("expected a sequence of labels, got a single string", source=name)
    if sp.issparse(labels):
        labels = labels.toarray()
    try:
        arr = np.asarray(labels)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        raise ClustlensInputError(
            f"cannot be read as a label vector ({exc})", source=name
        ) from None
    if arr.ndim == 2 and 1 in arr.shape:
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise ClustlensInputError(
            f"labels must be one-dimensional, got an array of shape {arr.shape}", source=name
        )
    if arr.dtype.kind == "f":
        bad = ~np.isfinite(arr)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise ClustlensInputError(
                f"labels must be finite; found {arr[i]!r}", source=name, where=f"index {i}"
            )
        frac = arr != np.round(arr)
        if frac.any():
            i = int(np.flatnonzero(frac)[0])
            raise ClustlensInputError(
                f"float labels must be whole numbers; found {arr[i]!r}",
                source=name,
                where=f"index {i}",
            )
        if arr.size and np.abs(arr).max() >= 2**53:
            raise ClustlensInputError("float labels are too large to be exact", source=name)
        arr = arr.astype(np.int64)
    elif arr.dtype.kind == "c":
        raise ClustlensInputError("complex numbers are not labels", source=name)
    elif arr.dtype.kind == "O":
        arr = _object_labels(arr, name)
    elif arr.dtype.kind == "S":
        arr = arr.astype("U")
    elif arr.dtype.kind == "V":
        raise ClustlensInputError("structured arrays are not labels", source=name)
    if arr.shape[0] > MAX_SAMPLES:
        raise ClustlensInputError(f"more than {MAX_SAMPLES} labels are not supported", source=name)
    return arr


def _object_labels(arr: np.ndarray, name: str) -> np.ndarray:
    """Turn an object array of scalars into a homogeneous int or str array."""
    kinds = set()
    for i, value in enumerate(arr):
        if value is None:
            raise ClustlensInputError("missing label (None)", source=name, where=f"index {i}")
        if isinstance(value, (bool, np.bool_)):
            kinds.add("i")
        elif isinstance(value, (int, np.integer)):
            kinds.add("i")
        elif isinstance(value, (float, np.floating)):
            if not np.isfinite(value) or value != round(value):
                raise ClustlensInputError(
                    f"labels must be whole numbers or strings; found {value!r}",
                    source=name,
                    where=f"index {i}",
                )
            kinds.add("i")
        elif isinstance(value, (str, np.str_)):
            kinds.add("U")
        elif isinstance(value, bytes):
            kinds.add("U")
        else:
            raise ClustlensInputError(
                f"labels must be numbers or strings; found a {type(value).__name__}",
                source=name,
                where=f"index {i}",
            )
    if kinds == {"i"}:
        return np.array([int(v) for v in arr], dtype=np.int64)
    # Mixed ints and strings: compare them as text, so 1 and "1" are the same label.
    return np.array(
        [
            v.decode() if isinstance(v, bytes) else str(int(v)) if isinstance(v, float) else str(v)
            for v in arr
        ],
        dtype="U",
    )


def check_label_pair(labels_true: Any, labels_pred: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validate two label vectors of the same length.

    Examples
    --------
    >>> a, b = check_label_pair([0, 0, 1], ["x", "y", "y"])
    >>> a.shape, b.shape
    ((3,), (3,))
    """
    t = check_labels(labels_true, "labels_true")
    p = check_labels(labels_pred, "labels_pred")
    if t.shape[0] != p.shape[0]:
        raise ClustlensInputError(
            f"labels_true has {t.shape[0]} entries but labels_pred has {p.shape[0]}; "
            "both must label the same points",
            source="labels",
        )
    return t, p


def check_contingency(table: Any, name: str = "contingency") -> np.ndarray | sp.csr_array:
    """Validate a classes x clusters table of non-negative whole counts.

    Returns a dense ``int64`` array or an ``int64`` CSR array (when given sparse input).

    Examples
    --------
    >>> check_contingency([[3, 44, 3], [2, 4, 44]]).sum()
    np.int64(100)
    """
    if sp.issparse(table):
        t = sp.csr_array(table)
        data = t.data
    else:
        try:
            t = np.asarray(table)
        except (ValueError, TypeError) as exc:
            raise ClustlensInputError(f"cannot be read as a table ({exc})", source=name) from None
        if t.ndim != 2:
            raise ClustlensInputError(
                f"a contingency table must be 2-D, got shape {t.shape}", source=name
            )
        data = t
    if data.dtype.kind not in "iuf b":
        raise ClustlensInputError(f"counts must be numbers, got dtype {data.dtype}", source=name)
    if data.dtype.kind == "f":
        if not np.isfinite(data).all():
            raise ClustlensInputError("counts must be finite", source=name)
        if (data != np.round(data)).any():
            raise ClustlensInputError("counts must be whole numbers", source=name)
    if (data < 0).any():
        raise ClustlensInputError("counts must be non-negative", source=name)
    if sp.issparse(t):
        t = t.astype(np.int64)
        t.sum_duplicates()
        t.eliminate_zeros()
    else:
        t = t.astype(np.int64)
    if t.sum() > MAX_SAMPLES:
        raise ClustlensInputError(f"more than {MAX_SAMPLES} points are not supported", source=name)
    return t
