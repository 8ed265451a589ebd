"""Safe file loaders for labels, coefficient matrices, data matrices and contingency tables.

Every loader takes a path, ``bytes`` (with ``name=`` giving the file name, whose extension picks
the format) or a binary file object, and raises :class:`~metrics_core.ClustlensInputError`
for every problem, naming the file, what is wrong and where.

Safety rules, applied to every file:

- never unpickle (``allow_pickle=False``; object arrays are refused);
- check sparse index arrays before scipy builds a matrix from them;
- HDF5 / MATLAB v7.3 files are walked through hard links only; external and soft links,
  external raw storage and virtual datasets are refused;
- declared sizes (``.npy`` headers, zip directories, MAT-file and HDF5 headers) are checked
  against :class:`IOLimits` before any data is read.

Label values are never changed (1-based labels stay 1-based); ``notes`` say in one line each
what was done to read the file.

Examples
--------
>>> import numpy as np, io
>>> buf = io.BytesIO(); np.save(buf, np.array([[1.0, 2.0, 2.0]]))
>>> res = load_labels(buf.getvalue(), name="pred.npy")
>>> res.labels.tolist(), res.notes
([1, 2, 2], ['flattened a (1, 3) array', 'float-coded labels read as integers',
 'labels run 1..2 (1-based, as MATLAB writes them)'])
>>> load_labels(b"y\\n0\\n1\\n1\\n", name="truth.csv").labels.tolist()
[0, 1, 1]
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
import scipy.sparse as sp

from metrics_core.io._common import (
    DATA_NAMES,
    DEFAULT_LIMITS,
    MATRIX_NAMES,
    PRED_NAMES,
    TEXT_PRED_NAMES,
    TEXT_TRUE_NAMES,
    TRUE_NAMES,
    IOLimits,
    Source,
    VariableInfo,
    check_declared_bytes,
    choose_variable,
    detect_format,
    name_order,
    prod,
)
from metrics_core.io._mat import NUMERIC_CLASSES, Hdf5File, Mat5File, cell_to_labels
from metrics_core.io._numpy import (
    NpzArchive,
    check_npy_dtype,
    read_npy_data,
    read_npy_header,
)
from metrics_core.io._text import split_text, to_labels_values
from metrics_core.validation._coef import check_coef_magnitude, check_data_magnitude
from metrics_core.validation._errors import ClustlensInputError
from metrics_core.validation._labels import check_labels

__all__ = [
    "DATA_NAMES",
    "DEFAULT_LIMITS",
    "MATRIX_NAMES",
    "PRED_NAMES",
    "TRUE_NAMES",
    "IOLimits",
    "LoadedLabels",
    "LoadedMatrix",
    "LoadedTable",
    "VariableInfo",
    "list_variables",
    "load_coef",
    "load_data_matrix",
    "load_labels",
    "load_table",
]

LabelKind = Literal["true", "pred"] | None
_CONTAINERS = ("npz", "mat5", "hdf5")
# Tables with more cells than this come back as CSR (same threshold as the Contingency class).
_DENSE_TABLE_CELLS = 4_000_000


def _values_note(lab: np.ndarray) -> str:
    """One line on the label values: 1-based or 0-based ints, their range, or strings."""
    if not lab.size:
        return ""
    if lab.dtype.kind in "iu":
        lo, hi = int(lab.min()), int(lab.max())
        k = np.unique(lab).size
        if lo == 1 and hi == k:
            return f"labels run 1..{k} (1-based, as MATLAB writes them)"
        if lo == 0 and hi == k - 1:
            return f"labels run 0..{k - 1}"
        return f"{k} distinct integer labels from {lo} to {hi}"
    if lab.dtype.kind == "U":
        return f"{np.unique(lab).size} distinct string labels"
    return ""


@dataclass(frozen=True)
class LoadedLabels:
    """Labels read from a file.

    Attributes
    ----------
    labels : numpy.ndarray
        1-D label vector, normalised by ``check_labels`` (int64, str or bool).
    variable : str or None
        The variable or column that was read (None for single-array files).
    candidates : list of str
        Variables or columns the file offers.
    notes : list of str
        One-line notes on what was done to read the file.
    source : str
        The file name used in messages.
    """

    labels: np.ndarray
    variable: str | None
    candidates: list[str]
    notes: list[str] = field(default_factory=list)
    source: str = ""

    def __post_init__(self) -> None:
        # One-line notes on how the values read; the values themselves are never changed
        # (only the partition matters to every metric). Idempotent: a result rebuilt from
        # another process's notes does not repeat them.
        note = _values_note(self.labels)
        if note and note not in self.notes:
            self.notes.append(note)


@dataclass(frozen=True)
class LoadedMatrix:
    """A matrix read from a file: a float64 ndarray, or a float64 CSR array (never densified).

    Attributes
    ----------
    matrix : numpy.ndarray or scipy.sparse.csr_array
    variable : str or None
    candidates : list of str
    notes : list of str
    source : str
    """

    matrix: np.ndarray | sp.csr_array
    variable: str | None
    candidates: list[str]
    notes: list[str] = field(default_factory=list)
    source: str = ""


@dataclass(frozen=True)
class LoadedTable:
    """A contingency table read from (class, cluster, count) rows.

    Unpacks as ``table, classes, clusters = load_table(...)``.

    Attributes
    ----------
    table : numpy.ndarray or scipy.sparse.csr_array
        int64 counts, rows = classes, columns = clusters.
    classes, clusters : numpy.ndarray
        The label values of the rows and columns (sorted).
    notes : list of str
    source : str
    """

    table: np.ndarray | sp.csr_array
    classes: np.ndarray
    clusters: np.ndarray
    notes: list[str] = field(default_factory=list)
    source: str = ""

    def __iter__(self) -> Iterator[Any]:
        return iter((self.table, self.classes, self.clusters))


# ---------------------------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------------------------


def _open_container(source: Source, fmt: str, limits: IOLimits) -> Any:
    if fmt == "npz":
        return NpzArchive(source, limits)
    if fmt == "mat5":
        return Mat5File(source, limits)
    return Hdf5File(source, limits)


def _read_container(container: Any, name: str, *, strings: bool = False) -> Any:
    if isinstance(container, NpzArchive):
        return container.read_sparse() if container.is_sparse else container.read(name)
    if isinstance(container, Hdf5File):
        return container.read(name, strings=strings)
    value = container.read(name)
    if isinstance(value, np.ndarray) and value.dtype.kind == "O" and strings:
        return cell_to_labels(value, container.source, f"variable {name!r}")
    return value


def _is_numeric(dtype: str) -> bool:
    if dtype in NUMERIC_CLASSES:
        return True
    if dtype in ("object", "str", "reference"):
        return False
    try:
        return np.dtype(dtype).kind in "biuf"
    except TypeError:
        return False


def _is_vector(shape: Sequence[int]) -> bool:
    if len(shape) == 1:
        return shape[0] > 0
    return len(shape) == 2 and min(shape) == 1 and max(shape) > 0


def _label_preference(kind: LabelKind, text: bool = False) -> tuple[str, ...]:
    true = TRUE_NAMES + (TEXT_TRUE_NAMES if text else ())
    pred = PRED_NAMES + (TEXT_PRED_NAMES if text else ())
    if text:  # in a CSV, "idx" is usually a row index, not predicted labels
        pred = tuple(n for n in pred if n != "idx")
    if kind == "pred":
        return pred + true
    if kind not in (None, "true"):
        raise ClustlensInputError(
            f"kind must be 'true', 'pred' or None, got {kind!r}", source="kind"
        )
    return true + pred


def _labels_from_array(arr: Any, source: Source, notes: list[str], where: str | None) -> np.ndarray:
    if sp.issparse(arr):
        raise source.fail("holds a sparse matrix, not a label vector", where)
    arr = np.asarray(arr)
    if arr.ndim == 0:
        raise source.fail("holds a single value, not a label vector", where)
    if arr.size == 0:
        raise source.fail("holds no labels (an empty array)", where)
    if arr.ndim == 2 and 1 in arr.shape:
        notes.append(f"flattened a ({arr.shape[0]}, {arr.shape[1]}) array")
        arr = arr.reshape(-1)
    if arr.ndim != 1:
        raise source.fail(
            f"is not a label vector: it holds an array of shape {arr.shape}; labels need one "
            "value per point (shape (N,), (N, 1) or (1, N))",
            where,
        )
    if arr.dtype.kind == "c":
        raise source.fail("holds complex numbers, not labels", where)
    if arr.dtype.kind == "f" and np.isfinite(arr).all() and (arr == np.round(arr)).all():
        notes.append("float-coded labels read as integers")
    try:
        return check_labels(arr, name=source.name)
    except ClustlensInputError as exc:
        raise source.fail(exc.reason, ", ".join(w for w in (where, exc.where) if w)) from None


def _load_npy(
    source: Source, limits: IOLimits, check: Callable[[tuple[int, ...]], None] | None = None
) -> np.ndarray:
    with source.open() as fh:
        header = read_npy_header(fh, source)
        check_npy_dtype(header[2], source, None)
        if check is not None:
            check(header[0])
        return read_npy_data(fh, header, source.size - fh.tell(), source, limits)


def _check_square_shape(
    source: Source, shape: Sequence[int], limits: IOLimits, where: str | None, sparse: bool
) -> None:
    if len(shape) != 2 or shape[0] != shape[1]:
        raise source.fail(
            f"a coefficient matrix must be square N x N, got shape "
            f"{' x '.join(str(d) for d in shape) or 'scalar'}",
            where,
        )
    if shape[0] == 0:
        raise source.fail("the coefficient matrix is empty (0 x 0)", where)
    if not sparse and shape[0] > limits.max_dense_n:
        raise source.fail(
            f"a dense {shape[0]} x {shape[0]} coefficient matrix is larger than the limit "
            f"N = {limits.max_dense_n}; store it sparse (scipy.sparse.save_npz or MATLAB sparse)",
            where,
        )


def _magnitude(check: Callable[..., None], m: Any, source: Source, where: str | None) -> None:
    """Run a magnitude check, naming the file (and variable) in its message."""
    try:
        check(m)
    except ClustlensInputError as exc:
        raise source.fail(exc.reason, where) from None


def _finite_dense(m: np.ndarray, source: Source, where: str | None, what: str) -> np.ndarray:
    if m.dtype.kind == "c":
        raise source.fail(f"the {what} holds complex values; it must be real", where)
    if m.dtype.kind not in "biuf":
        raise source.fail(f"the {what} must be numeric, got dtype {m.dtype}", where)
    m = np.ascontiguousarray(m, dtype=np.float64)
    bad = ~np.isfinite(m)
    if bad.any():
        i, j = (int(k) for k in np.argwhere(bad)[0])
        raise source.fail(
            f"the {what} holds a non-finite value ({m[i, j]!r}); all entries must be finite",
            ", ".join(w for w in (where, f"row {i}, column {j}") if w),
        )
    return m


# ---------------------------------------------------------------------------------------------
# public API
# ---------------------------------------------------------------------------------------------


def default_orientation(name: str | None) -> str:
    """How a coefficient-matrix file is read when no flag or preset says otherwise.

    The one rule of clustlens (library, CLI, dashboard, report): MATLAB ``.mat`` files store the
    points as **columns** (the SSC codes solve ``X = X*C``), every other format as **rows**.
    Every surface prints the orientation it used.

    Examples
    --------
    >>> default_orientation("C.mat"), default_orientation("C.npz"), default_orientation(None)
    ('columns', 'rows', 'rows')
    """
    return "columns" if name and str(name).lower().endswith(".mat") else "rows"


def list_variables(
    src: Any, *, name: str | None = None, limits: IOLimits | None = None
) -> list[VariableInfo]:
    """List the variables of a .mat (v5 or v7.3) or .npz file from headers only.

    Files without named variables (.npy, text) give an empty list.

    Parameters
    ----------
    src : str, os.PathLike, bytes or binary file object
    name : str, optional
        File name (its extension picks the format) when ``src`` is bytes.
    limits : IOLimits, optional

    Returns
    -------
    list of VariableInfo

    Examples
    --------
    >>> import numpy as np, io
    >>> buf = io.BytesIO(); np.savez(buf, C=np.eye(3), gnd=np.arange(3))
    >>> [(v.name, v.shape) for v in list_variables(buf.getvalue(), name="run.npz")]
    [('C', (3, 3)), ('gnd', (3,))]
    """
    limits = limits or DEFAULT_LIMITS
    source = Source(src, name)
    fmt = detect_format(source, ("npy", "npz", "mat5", "hdf5", "text"), "variables")
    if fmt not in _CONTAINERS:
        return []
    with _open_container(source, fmt, limits) as container:
        return container.variables()


def load_labels(
    src: Any,
    *,
    name: str | None = None,
    variable: str | None = None,
    column: str | int | None = None,
    kind: LabelKind = None,
    limits: IOLimits | None = None,
) -> LoadedLabels:
    """Load a label vector from .txt/.csv/.tsv, .npy, .npz or .mat (v5 or v7.3).

    Parameters
    ----------
    src : str, os.PathLike, bytes or binary file object
    name : str, optional
        File name (its extension picks the format) when ``src`` is bytes.
    variable : str, optional
        Variable to read from a .mat/.npz file. By default a conventional name is looked for
        (ground truth: gnd, s, label, labels, truth, y; predictions: grps, idx, pred), else the
        only vector-shaped variable.
    column : str or int, optional
        Column of a text file: a header name or a 0-based index. By default the only column,
        else a conventional header name.
    kind : {"true", "pred", None}
        Which conventional names to prefer.
    limits : IOLimits, optional

    Returns
    -------
    LoadedLabels

    Examples
    --------
    >>> load_labels(b"id,label\\n0,cat\\n1,dog\\n", name="y.csv").labels.tolist()
    ['cat', 'dog']
    """
    limits = limits or DEFAULT_LIMITS
    preferred = _label_preference(kind)
    source = Source(src, name)
    fmt = detect_format(source, ("text", "npy", "npz", "mat5", "hdf5"), "labels")
    notes: list[str] = []
    if fmt == "text":
        return _labels_from_text(source, limits, column, _label_preference(kind, text=True))
    if fmt == "npy":
        arr = _load_npy(source, limits)
        return LoadedLabels(
            _labels_from_array(arr, source, notes, None), None, [], notes, source.name
        )
    with _open_container(source, fmt, limits) as container:
        infos = container.variables()
        suitable = [
            v
            for v in infos
            if not v.sparse
            and _is_vector(v.shape)
            and (_is_numeric(v.dtype) or v.dtype in ("str", "cell", "reference"))
        ]
        chosen = choose_variable(source, infos, suitable, preferred, variable, "labels", notes)
        value = _read_container(container, chosen, strings=True)
    labels = _labels_from_array(value, source, notes, f"variable {chosen!r}")
    return LoadedLabels(labels, chosen, [v.name for v in infos], notes, source.name)


def _labels_from_text(
    source: Source, limits: IOLimits, column: str | int | None, preferred: tuple[str, ...]
) -> LoadedLabels:
    table = split_text(source, limits, numeric=False, header_names=preferred, column=column)
    notes = list(table.notes)
    body, header = table.body, table.header
    k = body.shape[1]
    if header is not None and len(header) != k:
        raise source.fail(
            f"the header names {len(header)} columns but the rows have {k} fields", "line 1"
        )
    names = header if header is not None else [str(j) for j in range(k)]
    if column is not None:
        if isinstance(column, (int, np.integer)) and not isinstance(column, bool):
            if not -k <= column < k:
                raise source.fail(f"has {k} column(s); column index {column} is out of range")
            j = int(column) % k
        elif header is not None and column in header:
            j = header.index(column)
        else:
            raise source.fail(
                f"has no column {column!r}; columns: "
                + (
                    ", ".join(repr(h) for h in header)
                    if header
                    else f"{k} unnamed (use 0..{k - 1})"
                )
            )
    elif k == 1:
        j = 0
    elif header is None and body.shape[0] == 1:
        notes.append(f"read a single row of {k} labels")
        values = body[0]
        labels = check_labels(to_labels_values(values, table, "", notes), name=source.name)
        return LoadedLabels(labels, None, [], notes, source.name)
    elif header is not None and name_order(header, preferred):
        j = header.index(name_order(header, preferred)[0])
        notes.append(f"picked column {header[j]!r} by its conventional name")
    else:
        listing = ", ".join(repr(n) for n in names)
        raise source.fail(
            f"has {k} columns ({listing}) and none has a conventional label name; "
            "pass column= (a header name or a 0-based index)"
        )
    if header is not None:
        notes.append(f"read column {header[j]!r}")
    elif k > 1:
        notes.append(f"read column {j}")
    col_name = header[j] if header is not None else (str(j) if k > 1 else "")
    values = to_labels_values(body[:, j], table, col_name, notes)
    labels = check_labels(values, name=source.name)
    return LoadedLabels(labels, header[j] if header else None, list(names), notes, source.name)


def _read_matrix(
    source: Source,
    limits: IOLimits,
    what: str,
    names: tuple[str, ...],
    variable: str | None,
    shape_ok: Callable[[Any], bool],
    check_shape: Callable[[tuple[int, ...], str | None, bool], None] | None,
) -> tuple[Any, str | None, list[str], list[str]]:
    """Read one 2-D numeric array (dense or sparse) from text, .npy or a container.

    ``shape_ok`` says which container variables can hold it; ``check_shape(shape, where,
    sparse)`` refuses a declared shape before any data is read. Returns the array, the chosen
    variable (None for single-array files), the variables on offer and the notes.
    """
    fmt = detect_format(source, ("text", "npy", "npz", "mat5", "hdf5"), what)
    notes: list[str] = []
    chosen: str | None = None
    candidates: list[str] = []
    if fmt == "text":
        table = split_text(source, limits, numeric=True)
        notes += table.notes
        if table.header is not None:
            notes.append("skipped a header line")
        m: Any = table.body
        if check_shape is not None:
            check_shape(m.shape, None, False)
    elif fmt == "npy":
        m = _load_npy(
            source,
            limits,
            None if check_shape is None else lambda shape: check_shape(shape, None, False),
        )
    else:
        with _open_container(source, fmt, limits) as container:
            infos = container.variables()
            candidates = [v.name for v in infos]
            suitable = [v for v in infos if shape_ok(v) and (v.sparse or _is_numeric(v.dtype))]
            chosen = choose_variable(source, infos, suitable, names, variable, what, notes)
            if check_shape is not None:
                info = next(v for v in infos if v.name == chosen)
                where = None if getattr(container, "is_sparse", False) else f"variable {chosen!r}"
                check_shape(info.shape, where, info.sparse)
            m = _read_container(container, chosen)
        if fmt == "npz" and container.is_sparse:
            chosen = None
    return m, chosen, candidates, notes


def load_coef(
    src: Any,
    *,
    name: str | None = None,
    variable: str | None = None,
    limits: IOLimits | None = None,
) -> LoadedMatrix:
    """Load a square N x N coefficient matrix C (dense or sparse, never densified).

    Formats: .npy, .npz (a dense array, or a ``scipy.sparse.save_npz`` file in CSR/CSC/COO),
    .mat (dense or sparse; v5/v7 and v7.3), .csv/.tsv/.txt (dense numbers). Conventional
    variable names: C, CMat, Z, Coef, CKSym, W, A.

    Returns
    -------
    LoadedMatrix
        ``matrix`` is a C-contiguous float64 ndarray or a canonical float64 CSR array.

    Examples
    --------
    >>> import scipy.sparse as sp, io
    >>> buf = io.BytesIO(); sp.save_npz(buf, sp.random(4, 4, density=0.5, format="csr"))
    >>> m = load_coef(buf.getvalue(), name="C.npz").matrix
    >>> m.format, m.shape, m.dtype
    ('csr', (4, 4), dtype('float64'))
    """
    limits = limits or DEFAULT_LIMITS
    source = Source(src, name)

    def square(v: Any) -> bool:
        return len(v.shape) == 2 and v.shape[0] == v.shape[1] and v.shape[0] > 0

    def check(shape: tuple[int, ...], where: str | None, sparse: bool) -> None:
        _check_square_shape(source, shape, limits, where, sparse)

    edges = _edge_list(source, limits)
    if edges is not None:
        _magnitude(check_coef_magnitude, edges.matrix, source, None)
        return edges
    m, chosen, candidates, notes = _read_matrix(
        source, limits, "a coefficient matrix", MATRIX_NAMES, variable, square, check
    )
    where = f"variable {chosen!r}" if chosen else None
    if sp.issparse(m):
        _check_square_shape(source, m.shape, limits, where, sparse=True)
    else:
        m = np.asarray(m)
        _check_square_shape(source, m.shape, limits, where, sparse=False)
        m = _finite_dense(m, source, where, "coefficient matrix")
    _magnitude(check_coef_magnitude, m, source, where)
    return LoadedMatrix(m, chosen, candidates, notes, source.name)


#: The header of a C given as an edge list (what an engine writes: C[i, j] = value).
EDGE_HEADER = ("i", "j", "value")
EDGE_LIST_NOTE = "edge list (i, j, value): N is the largest index + 1 until labels say more"


def _edge_list(source: Source, limits: IOLimits) -> LoadedMatrix | None:
    """C from a text edge list with the header ``i, j, value`` (else None: not an edge list).

    i and j are 0-based point indices; repeated (i, j) are summed (as scipy sums a COO
    matrix's duplicates). Without labels the size is the largest index + 1; the dashboard pads
    it to the number of labels.
    """
    if detect_format(source, ("text", "npy", "npz", "mat5", "hdf5"), "a coefficient matrix") != (
        "text"
    ):
        return None
    head = source.head(200).decode("utf-8", "replace").splitlines()
    first = (
        [f.strip().strip('"').lower() for f in re.split(r"[,;\t ]+", head[0].strip())]
        if (head)
        else []
    )
    if tuple(first) != EDGE_HEADER:
        return None
    table = split_text(source, limits, numeric=True, header_names=EDGE_HEADER)
    body = table.body
    if body.ndim != 2 or body.shape[1] != 3:
        raise source.fail("an edge list needs 3 columns: i, j, value")
    idx = body[:, :2]
    bad = ~np.isfinite(idx) | (idx < 0) | (idx != np.round(idx)) | (idx >= 2**31)
    if bad.any():
        r = int(np.flatnonzero(bad.any(axis=1))[0])
        raise source.fail(
            "i and j must be 0-based point indices (whole numbers >= 0), "
            f"got ({idx[r, 0]:g}, {idx[r, 1]:g})",
            f"line {table.line_of_row(r)}",
        )
    vals = body[:, 2]
    badv = ~np.isfinite(vals)
    if badv.any():
        r = int(np.flatnonzero(badv)[0])
        raise source.fail(f"value {vals[r]:g} is not finite", f"line {table.line_of_row(r)}")
    ii, jj = idx[:, 0].astype(np.int64), idx[:, 1].astype(np.int64)
    n = int(max(ii.max(initial=-1), jj.max(initial=-1))) + 1
    if n == 0:
        raise source.fail("the edge list has no rows")
    _check_square_shape(source, (n, n), limits, None, sparse=True)
    m = sp.coo_array((vals, (ii, jj)), shape=(n, n)).tocsr()
    m.sum_duplicates()
    notes = [*table.notes, EDGE_LIST_NOTE]
    if m.nnz < vals.size:
        notes.append(f"summed {vals.size - m.nnz:,} repeated (i, j) rows")
    return LoadedMatrix(m, None, [], notes, source.name)


def load_data_matrix(
    src: Any,
    *,
    name: str | None = None,
    variable: str | None = None,
    limits: IOLimits | None = None,
    n_rows: int | None = None,
    rows_for: str = "the labels",
) -> LoadedMatrix:
    """Load a dense N x D data matrix X (float64) from .csv/.tsv/.txt, .npy, .npz or .mat.

    Conventional variable names: X, data, fea, features. A sparse variable is densified when it
    fits the size limit (said in ``notes``). No transposition is applied: MATLAB code often
    stores points as columns (D x N). With ``n_rows`` (one row per label of ``rows_for``) a
    matrix with another number of rows is refused before it is densified or checked further.

    Examples
    --------
    >>> load_data_matrix(b"1 2\\n3 4\\n5 6\\n", name="X.txt").matrix.shape
    (3, 2)
    """
    limits = limits or DEFAULT_LIMITS
    source = Source(src, name)
    m, chosen, candidates, notes = _read_matrix(
        source,
        limits,
        "a data matrix",
        DATA_NAMES,
        variable,
        lambda v: len(v.shape) == 2 and min(v.shape) > 0,
        None,
    )
    where = f"variable {chosen!r}" if chosen else None
    shape = tuple(int(d) for d in m.shape)
    if n_rows is not None and len(shape) == 2 and shape[0] != n_rows:
        hint = " (stored as features x points? transpose it)" if shape[1] == n_rows else ""
        raise source.fail(
            f"has {shape[0]:,} rows but {rows_for} has {n_rows:,} labels{hint}", where
        )
    if sp.issparse(m):
        check_declared_bytes(source, prod(m.shape) * 8, "the densified data matrix", limits, where)
        m = m.toarray()
        notes.append("densified a sparse matrix")
    m = np.asarray(m)
    if m.ndim == 1:
        m = m.reshape(-1, 1)
        notes.append("read a vector as one column")
    if m.ndim != 2 or m.size == 0:
        raise source.fail(
            f"a data matrix must be a non-empty 2-D array, got shape {m.shape}", where
        )
    m = _finite_dense(m, source, where, "data matrix")
    _magnitude(check_data_magnitude, m, source, where)
    return LoadedMatrix(m, chosen, candidates, notes, source.name)


def load_table(src: Any, *, name: str | None = None, limits: IOLimits | None = None) -> LoadedTable:
    """Load a contingency table from text rows of (class, cluster, count).

    A header line is optional; the delimiter (comma, tab, semicolon, whitespace) is detected.
    Class and cluster values that are all numbers are read as integers, else as strings. Rows
    repeating a (class, cluster) pair are summed (said in ``notes``). This is the output of a
    ``SELECT class, cluster, COUNT(*) ... GROUP BY class, cluster``.

    Returns
    -------
    LoadedTable
        int64 table (dense, or CSR when it has more than 4,000,000 cells), classes, clusters.

    Examples
    --------
    >>> t, classes, clusters = load_table(b"class,cluster,n\\na,0,3\\na,1,44\\nb,1,4\\n",
    ...                                   name="counts.csv")
    >>> t.tolist(), classes.tolist(), clusters.tolist()
    ([[3, 44], [0, 4]], ['a', 'b'], [0, 1])
    """
    limits = limits or DEFAULT_LIMITS
    source = Source(src, name)
    detect_format(source, ("text",), "a contingency table")
    table = split_text(source, limits, numeric=False)
    notes = list(table.notes)
    body = table.body
    if body.shape[1] != 3:
        raise source.fail(
            f"a contingency table needs 3 columns (class, cluster, count), found {body.shape[1]}"
        )
    classes_raw = to_labels_values(body[:, 0], table, "class", [])
    clusters_raw = to_labels_values(body[:, 1], table, "cluster", [])
    counts_s = body[:, 2]
    try:
        counts_f = counts_s.astype(np.float64)
    except ValueError:
        i = next(i for i, v in enumerate(counts_s) if not _isfloat(v))
        raise source.fail(
            f"count {counts_s[i]!r} is not a number", f"line {table.line_of_row(i)}, column 3"
        ) from None
    bad = ~np.isfinite(counts_f) | (counts_f < 0) | (counts_f != np.round(counts_f))
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        raise source.fail(
            f"count {counts_s[i]!r} is not a non-negative whole number",
            f"line {table.line_of_row(i)}, column 3",
        )
    if counts_f.max(initial=0) >= 2**53:
        raise source.fail("a count is too large to be exact")
    counts = counts_f.astype(np.int64)
    classes, rows = np.unique(classes_raw, return_inverse=True)
    clusters, cols = np.unique(clusters_raw, return_inverse=True)
    k, c = classes.shape[0], clusters.shape[0]
    pair = rows.astype(np.int64) * c + cols
    n_dup = pair.shape[0] - np.unique(pair).shape[0]
    if n_dup:
        notes.append(f"summed {n_dup} repeated (class, cluster) rows")
    if k * c <= _DENSE_TABLE_CELLS:
        t: Any = np.zeros(k * c, dtype=np.int64)
        np.add.at(t, pair, counts)
        t = t.reshape(k, c)
    else:
        t = sp.coo_array((counts, (rows, cols)), shape=(k, c)).tocsr()
        t.sum_duplicates()
    return LoadedTable(t, classes, clusters, notes, source.name)


def _isfloat(v: str) -> bool:
    try:
        float(v)
    except ValueError:
        return False
    return True
