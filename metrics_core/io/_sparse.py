"""Check sparse index arrays *before* scipy sees them, then build a float64 CSR array.

scipy builds a CSR/CSC matrix from out-of-range or non-monotone index arrays without a full
check, and its compiled routines then read or write out of bounds on first use (a segfault of
the whole server). So every sparse matrix read from a file goes through :func:`build_csr`.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from metrics_core.validation._errors import ClustlensInputError


def _fail(source: str, message: str, where: str | None = None) -> ClustlensInputError:
    return ClustlensInputError(message, source=source, where=where)


def _index_array(arr: object, what: str, source: str, where: str | None) -> np.ndarray:
    a = np.asarray(arr)
    if a.dtype.kind not in "iu":
        raise _fail(source, f"sparse {what} must be integers, got dtype {a.dtype}", where)
    if a.ndim != 1:
        a = a.reshape(-1) if a.ndim == 2 and 1 in a.shape else a
        if a.ndim != 1:
            raise _fail(source, f"sparse {what} must be 1-D, got shape {a.shape}", where)
    if a.size and a.dtype.kind == "u" and a.max() > np.iinfo(np.int64).max:
        raise _fail(source, f"sparse {what} holds an index too large for int64", where)
    return a.astype(np.int64, copy=False)


def _check_shape(shape: object, source: str, where: str | None) -> tuple[int, int]:
    try:
        shp = tuple(int(d) for d in np.asarray(shape).reshape(-1))
    except (TypeError, ValueError):
        raise _fail(source, f"sparse shape {shape!r} is not a pair of integers", where) from None
    if len(shp) != 2 or min(shp) < 0:
        raise _fail(source, f"sparse shape must be two non-negative integers, got {shp}", where)
    if max(shp) > np.iinfo(np.int64).max // 2:
        raise _fail(source, f"sparse shape {shp} is absurdly large", where)
    return shp  # type: ignore[return-value]


def _check_data(data: object, nnz: int, source: str, where: str | None) -> np.ndarray:
    d = np.asarray(data)
    if d.ndim != 1:
        d = d.reshape(-1) if d.ndim == 2 and 1 in d.shape else d
    if d.ndim != 1:
        raise _fail(source, f"sparse values must be 1-D, got shape {d.shape}", where)
    if d.dtype.kind == "c":
        raise _fail(source, "sparse values are complex; a coefficient matrix must be real", where)
    if d.dtype.kind not in "biuf":
        raise _fail(source, f"sparse values must be numbers, got dtype {d.dtype}", where)
    if d.shape[0] != nnz:
        raise _fail(
            source,
            f"sparse matrix is inconsistent: index pointer says {nnz} stored entries but there "
            f"are {d.shape[0]} values",
            where,
        )
    return d.astype(np.float64, copy=False)


def build_csr(
    data: object,
    indices: object,
    indptr: object,
    shape: object,
    *,
    fmt: str = "csr",
    source: str = "matrix",
    where: str | None = None,
) -> sp.csr_array:
    """Validate compressed sparse components and return a canonical float64 CSR array.

    ``fmt`` is ``"csr"`` (``indptr`` runs over rows) or ``"csc"`` (over columns, as MATLAB
    stores sparse matrices). Values must be finite.

    Examples
    --------
    >>> m = build_csr([1.0, 2.0], [0, 2], [0, 1, 2, 2], (3, 3))
    >>> m.toarray().tolist()
    [[1.0, 0.0, 0.0], [0.0, 0.0, 2.0], [0.0, 0.0, 0.0]]
    >>> build_csr([1.0], [5], [0, 1], (1, 3), source="C.npz")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    metrics_core.ClustlensInputError: C.npz: sparse column index 5 is out of range ...
    """
    nrows, ncols = _check_shape(shape, source, where)
    major, minor = (nrows, ncols) if fmt == "csr" else (ncols, nrows)
    minor_name = "column" if fmt == "csr" else "row"
    ip = _index_array(indptr, "index pointer (indptr/jc)", source, where)
    ix = _index_array(indices, f"{minor_name} indices (indices/ir)", source, where)
    if ip.shape[0] != major + 1:
        raise _fail(
            source,
            f"sparse index pointer has {ip.shape[0]} entries but a matrix with {major} "
            f"{'rows' if fmt == 'csr' else 'columns'} needs {major + 1}",
            where,
        )
    if ip[0] != 0:
        raise _fail(source, f"sparse index pointer must start at 0, starts at {ip[0]}", where)
    steps = np.diff(ip)
    if steps.size and steps.min() < 0:
        k = int(np.flatnonzero(steps < 0)[0])
        raise _fail(
            source,
            f"sparse index pointer decreases from {ip[k]} to {ip[k + 1]}; it must never decrease",
            f"position {k + 1}",
        )
    nnz = int(ip[-1])
    if nnz != ix.shape[0]:
        raise _fail(
            source,
            f"sparse matrix is inconsistent: index pointer ends at {nnz} but there are "
            f"{ix.shape[0]} {minor_name} indices",
            where,
        )
    if nnz:
        bad = (ix < 0) | (ix >= minor)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise _fail(
                source,
                f"sparse {minor_name} index {ix[k]} is out of range for a {nrows} x {ncols} "
                f"matrix (valid: 0..{minor - 1})",
                f"stored entry {k}",
            )
    d = _check_data(data, nnz, source, where)
    if nnz and not np.isfinite(d).all():
        k = int(np.flatnonzero(~np.isfinite(d))[0])
        major_k = int(np.searchsorted(ip, k, side="right") - 1)
        row, col = (major_k, int(ix[k])) if fmt == "csr" else (int(ix[k]), major_k)
        raise _fail(
            source,
            f"the matrix holds a non-finite value ({d[k]!r}); coefficients must be finite",
            f"row {row}, column {col}",
        )
    # Only now, with every index checked, do we let scipy see the arrays.
    if fmt == "csr":
        m = sp.csr_array((d, ix, ip), shape=(nrows, ncols))
    else:
        m = sp.csc_array((d, ix, ip), shape=(nrows, ncols)).tocsr()
    m.sum_duplicates()
    return m


def build_csr_from_coo(
    data: object,
    row: object,
    col: object,
    shape: object,
    *,
    source: str = "matrix",
    where: str | None = None,
) -> sp.csr_array:
    """Validate COO triplets and return a canonical float64 CSR array.

    Examples
    --------
    >>> build_csr_from_coo([1.0, 2.0], [0, 1], [1, 0], (2, 2)).toarray().tolist()
    [[0.0, 1.0], [2.0, 0.0]]
    """
    nrows, ncols = _check_shape(shape, source, where)
    r = _index_array(row, "row indices", source, where)
    c = _index_array(col, "column indices", source, where)
    if r.shape != c.shape:
        raise _fail(
            source,
            f"sparse COO matrix has {r.shape[0]} row indices but {c.shape[0]} column indices",
            where,
        )
    for arr, lim, what in ((r, nrows, "row"), (c, ncols, "column")):
        bad = (arr < 0) | (arr >= lim)
        if bad.any():
            k = int(np.flatnonzero(bad)[0])
            raise _fail(
                source,
                f"sparse {what} index {arr[k]} is out of range for a {nrows} x {ncols} matrix",
                f"stored entry {k}",
            )
    d = _check_data(data, r.shape[0], source, where)
    if d.size and not np.isfinite(d).all():
        k = int(np.flatnonzero(~np.isfinite(d))[0])
        raise _fail(
            source,
            f"the matrix holds a non-finite value ({d[k]!r}); coefficients must be finite",
            f"row {r[k]}, column {c[k]}",
        )
    m = sp.coo_array((d, (r, c)), shape=(nrows, ncols)).tocsr()
    m.sum_duplicates()
    return m
