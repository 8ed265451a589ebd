"""Validator for a self-expressive coefficient matrix C (dense or scipy.sparse, never densified)."""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp

from metrics_core.validation._errors import ClustlensInputError


def check_coef(
    coef: Any, n_samples: int | None = None, name: str = "coef", *, copy: bool = True
) -> np.ndarray | sp.csr_array:
    """Return ``coef`` as a square, finite, real float64 matrix, or raise.

    Dense input (anything :func:`numpy.asarray` reads as a 2-D real array) comes back as a
    float64 :class:`numpy.ndarray` (no copy when it already is one). scipy.sparse input (any
    format, matrix or array API) comes back as a float64 :class:`scipy.sparse.csr_array` with
    duplicate entries summed; it is never densified. Sparse index arrays are checked before the
    matrix is used, because scipy accepts out-of-range indices and crashes later.

    Parameters
    ----------
    coef : array-like or scipy.sparse matrix, shape (N, N)
        The coefficient matrix.
    n_samples : int, optional
        Expected N (the number of labels); a mismatch raises.
    name : str
        What to call the matrix in messages.
    copy : bool, default True
        Sparse input: return a copy. With ``False``, a float64 CSR matrix already in canonical
        form (sorted, no duplicates) comes back sharing its arrays, for callers that only read
        it (a copy of C is 240 MB at N = 1e6 with 20 entries a row, and ~100 ms); any other
        input is still converted into arrays of its own, never modified in place.

    Returns
    -------
    numpy.ndarray or scipy.sparse.csr_array

    Raises
    ------
    ClustlensInputError
        Not 2-D, not square, complex, non-numeric, NaN/inf, values so large that
        ``|C| + |C|ᵀ`` would overflow, bad sparse indices, or N differs from ``n_samples``.

    Examples
    --------
    >>> check_coef([[0, 1], [2, 0]]).dtype
    dtype('float64')
    >>> import scipy.sparse as sp
    >>> check_coef(sp.eye(3, format="coo")).format
    'csr'
    """
    if sp.issparse(coef):
        out = _check_sparse(coef, name, copy)
    else:
        out = _check_dense(coef, name)
    n = out.shape[0]
    check_coef_magnitude(out, name)
    if n_samples is not None and n != n_samples:
        raise ClustlensInputError(
            f"the matrix is {n} x {n} but there are {n_samples} labels; "
            "C must have one row and one column per labelled point",
            source=name,
        )
    return out


def _refuse_above(values: Any, limit: float, what: str, why: str, name: str) -> None:
    # max(max, -min) rather than abs().max(): no temporary copy of C's values (160 MB at
    # N = 1e6 with 20 entries a row), and NaN still propagates into `big`.
    big = float(max(values.max(), -values.min())) if values.size else 0.0
    if big > limit:
        raise ClustlensInputError(
            f"{what} magnitude {big:.3g} is too large: {why} would overflow float64 (the largest "
            f"usable magnitude here is {limit:.3g}); rescale it",
            source=name,
        )


def check_coef_magnitude(c: np.ndarray | sp.csr_array, name: str = "coef") -> None:
    """Refuse values so large that W = |C| + |C|ᵀ or its row sums would overflow float64.

    A sum of at most 2N terms each below ``finfo.max / (2N)`` cannot overflow, so SRE, CONN
    and leakage stay finite (1e308 entries otherwise turn every diagnostic into inf or NaN).
    """
    values = c.data if sp.issparse(c) else c
    _refuse_above(
        values, coef_magnitude_limit(c.shape[0]), "coefficient", "sums of |C| + |C|ᵀ", name
    )


def coef_magnitude_limit(n: int) -> float:
    """The largest |C_ij| an N x N C may hold: 2N such terms cannot overflow a float64 sum."""
    return float(np.finfo(np.float64).max / (2.0 * max(n, 1)))


def refuse_coef_above(big: float, n: int, name: str) -> None:
    """Refuse a C (given as its largest magnitude, e.g. counted by an engine) past the limit."""
    _refuse_above(
        np.array([big]), coef_magnitude_limit(n), "coefficient", "sums of |C| + |C|ᵀ", name
    )


def check_data_magnitude(x: np.ndarray, name: str = "data") -> None:
    """Refuse a data matrix whose squared norms or Gram entries would overflow float64.

    Distances, kernels and self-expressive solvers sum d products of entries; below
    ``sqrt(finfo.max / (4 d))`` none of those sums can overflow.
    """
    d = max(x.shape[1] if x.ndim == 2 else 1, 1)
    limit = float(np.sqrt(np.finfo(np.float64).max / (4.0 * d)))
    _refuse_above(x, limit, "data", "inner products", name)


def _check_shape(shape: tuple[int, ...], name: str) -> None:
    if len(shape) != 2:
        raise ClustlensInputError(
            f"a coefficient matrix must be 2-D, got shape {shape}", source=name
        )
    if shape[0] != shape[1]:
        raise ClustlensInputError(
            f"a coefficient matrix must be square (N x N), got {shape[0]} x {shape[1]}",
            source=name,
        )


def _check_dtype(dtype: np.dtype, name: str) -> None:
    if dtype.kind == "c":
        raise ClustlensInputError("complex coefficients are not supported", source=name)
    if dtype.kind not in "biuf":
        raise ClustlensInputError(
            f"coefficients must be real numbers, got dtype {dtype}", source=name
        )


def _first_bad(values: np.ndarray) -> int | None:
    bad = ~np.isfinite(values)
    if bad.any():
        return int(np.flatnonzero(bad.ravel())[0])
    return None


def _check_dense(coef: Any, name: str) -> np.ndarray:
    try:
        arr = np.asarray(coef)
    except (ValueError, TypeError) as exc:  # ragged nested lists
        raise ClustlensInputError(f"cannot be read as a matrix ({exc})", source=name) from None
    _check_shape(arr.shape, name)
    _check_dtype(arr.dtype, name)
    arr = arr.astype(np.float64, copy=False)
    i = _first_bad(arr)
    if i is not None:
        r, c = divmod(i, arr.shape[1])
        raise ClustlensInputError(
            f"coefficients must be finite; found {arr[r, c]!r}", source=name, where=f"[{r}, {c}]"
        )
    return arr


def _check_index_range(idx: np.ndarray, bound: int, what: str, name: str) -> None:
    if idx.size and (idx.min() < 0 or idx.max() >= bound):
        raise ClustlensInputError(f"sparse {what} index out of range [0, {bound})", source=name)


def _check_sparse(coef: Any, name: str, copy: bool = True) -> sp.csr_array:
    _check_shape(coef.shape, name)
    _check_dtype(coef.dtype, name)
    n_rows, n_cols = coef.shape
    fmt = coef.format
    # Check raw index arrays before any conversion touches them.
    if fmt in ("csr", "csc"):
        n_major, n_minor = (n_rows, n_cols) if fmt == "csr" else (n_cols, n_rows)
        indptr = np.asarray(coef.indptr)
        if indptr.shape != (n_major + 1,) or indptr[0] != 0 or np.any(np.diff(indptr) < 0):
            raise ClustlensInputError(f"malformed sparse {fmt} index pointer", source=name)
        if indptr[-1] > len(coef.indices) or indptr[-1] > len(coef.data):
            raise ClustlensInputError(
                f"sparse {fmt} index pointer runs past the stored entries", source=name
            )
        _check_index_range(np.asarray(coef.indices[: indptr[-1]]), n_minor, "column", name)
    elif fmt == "coo":
        _check_index_range(np.asarray(coef.row), n_rows, "row", name)
        _check_index_range(np.asarray(coef.col), n_cols, "column", name)
    out = sp.csr_array(coef, dtype=np.float64, copy=copy)
    if not out.has_canonical_format:
        if not copy and fmt == "csr":
            out = out.copy()  # sum_duplicates sorts in place: never the caller's index arrays
        out.sum_duplicates()
    i = _first_bad(out.data)
    if i is not None:
        row = int(np.searchsorted(out.indptr, i, side="right") - 1)
        raise ClustlensInputError(
            f"coefficients must be finite; found {out.data[i]!r}",
            source=name,
            where=f"[{row}, {int(out.indices[i])}]",
        )
    return out
