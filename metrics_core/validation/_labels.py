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

    Accepts integers anywhere in the int64 or uint64 range (hash ids past 2**63 included; they
    are never routed through float64), strings, booleans, datetimes and whole-number floats
    (``3.0`` is read as ``3``). A ``(1, N)`` or ``(N, 1)`` array is flattened.

    Rules, each independent of which other labels are present:

    - every missing value — ``None``, NaN, NaT, ``pandas.NA`` — is refused alike, with the index
      of the first one;
    - a boolean is the integer it equals in Python (``True == 1``, ``False == 0``), so
      ``[True, 1, 0]`` has two labels, and so has ``[True, 1, 0, "a"]`` plus ``"a"``;
    - mixed integers and strings are compared as text (``1`` and ``"1"`` are one label);
    - integers that fit neither 64-bit range together (e.g. ``-1`` and ``2**63``) are kept as
      their exact decimal text.

    Inf, non-whole floats, floats past 2**53 (not exact), nested objects and other types are
    refused with the index of the first bad entry.

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
        arr = _as_array(labels)
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
    if arr.dtype.kind in "Mm":
        nat = np.isnat(arr)
        if nat.any():
            i = int(np.flatnonzero(nat)[0])
            raise ClustlensInputError("missing label (NaT)", source=name, where=f"index {i}")
    if arr.dtype.kind == "f":
        nan = np.isnan(arr)
        if nan.any():
            i = int(np.flatnonzero(nan)[0])
            raise ClustlensInputError("missing label (NaN)", source=name, where=f"index {i}")
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


def _as_array(labels: Any) -> np.ndarray:
    """``np.asarray`` that never turns Python integers into float64.

    ``np.asarray([2**63, 5])`` gives float64 (both ids become 9.223372036854776e18); pandas
    nullable arrays give float NaN for NA. Sequences whose values are Python ints past int64 go
    through the object path instead, so every integer keeps its exact value.
    """
    if isinstance(labels, np.ndarray):
        return labels
    if hasattr(labels, "to_numpy") and hasattr(labels, "dtype"):  # pandas Series / arrays
        labels = labels.to_numpy(dtype=object) if _has_missing(labels) else labels.to_numpy()
    arr = np.asarray(labels)
    if arr.ndim == 1 and arr.dtype.kind in "fuOUS" and not isinstance(labels, np.ndarray):
        obj = np.empty(len(labels), dtype=object)
        obj[:] = list(labels)
        if arr.dtype.kind in "US":
            # numpy spells True as "True" next to strings; keep the values for the bool rule
            if any(not isinstance(v, (str, bytes, np.str_, np.bytes_)) for v in obj):
                return obj
        elif any(isinstance(v, int) and not isinstance(v, bool) for v in obj):
            return obj
    return arr


def _has_missing(values: Any) -> bool:
    try:
        return bool(values.isna().any()) if hasattr(values, "isna") else False
    except (TypeError, ValueError):
        return False


def _is_missing(value: Any) -> str | None:
    """The name of a missing-value marker, or ``None`` for a real label."""
    if value is None:
        return "None"
    if type(value).__name__ == "NAType":
        return "pandas NA"
    if isinstance(value, (float, np.floating)) and np.isnan(value):
        return "NaN"
    if isinstance(value, (np.datetime64, np.timedelta64)) and np.isnat(value):
        return "NaT"
    if type(value).__name__ == "NaTType":
        return "NaT"
    return None


def _object_labels(arr: np.ndarray, name: str) -> np.ndarray:
    """Turn an object array of scalars into a homogeneous int or str array."""
    kinds = set()
    for i, value in enumerate(arr):
        missing = _is_missing(value)
        if missing is not None:
            raise ClustlensInputError(f"missing label ({missing})", source=name, where=f"index {i}")
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
        return _integers(arr, name)
    # Mixed ints and strings: compare them as text, so 1 and "1" are the same label; a bool is
    # the integer it equals (True is "1"), the same rule as without strings.
    return np.array([_as_text(v) for v in arr], dtype="U")


def _as_text(v: Any) -> str:
    if isinstance(v, bytes):
        return v.decode()
    if isinstance(v, (bool, np.bool_, float, np.floating, int, np.integer)):
        return str(int(v))
    return str(v)


def _integers(arr: np.ndarray, name: str) -> np.ndarray:
    """Whole numbers as int64, uint64 past int64, exact text when neither range holds them all."""
    for v in arr:
        if isinstance(v, (float, np.floating)) and abs(v) >= 2.0**53:
            raise ClustlensInputError(f"float label {v!r} is too large to be exact", source=name)
    values = [int(v) for v in arr]
    lo, hi = (min(values), max(values)) if values else (0, 0)
    if lo >= -(2**63) and hi < 2**63:
        return np.array(values, dtype=np.int64)
    if lo >= 0 and hi < 2**64:
        return np.array(values, dtype=np.uint64)
    return np.array([str(v) for v in values], dtype="U")


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
