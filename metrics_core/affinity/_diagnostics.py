r"""Affinity diagnostics on a self-expressive coefficient matrix C: SRE, CONN and leakage.

Conventions (the defaults are the seed definitions; every one is a named argument)
-------------------------------------------------------------------------------
orientation
    ``"rows"`` (default): row i of C holds the coefficients that represent point i (Python
    codes: ``X ≈ C X`` with points as rows). ``"columns"``: column j represents point j (MATLAB
    SSC codes: ``X ≈ X C`` with points as columns). ``orientation="columns"`` on C is exactly
    ``orientation="rows"`` on Cᵀ.
zero_rows
    What an all-zero representation (ℓ1 mass <= ``zero_tol``) contributes to SRE: ``"zero"``
    (counts 0, default), ``"one"`` (counts 1), ``"nan"`` (excluded from the mean) or
    ``"propagate"`` (the mean becomes NaN, as 0/0 does in a torch implementation).
normalize_rows
    ℓ2-normalise each point's coefficient vector (row, or column with ``"columns"``) before
    building W. SRE is a per-point ratio, so it is unchanged by any per-point scaling.
    ``"sklearn"`` copies ``sklearn.preprocessing.normalize``: dense rows with norm < 10·eps and
    sparse rows with norm 0 are left as they are.
cap
    Clip each class's λ2 at 1.0 (λ2 of the normalised Laplacian lies in [0, n / (n - 1)]).
laplacian
    ``"normalized"`` (default), ``I - D^{-1/2} W D^{-1/2}``, or ``"unnormalized"``, ``D - W``
    (what ``scipy.sparse.csgraph.laplacian`` returns without ``normed=True``).
singletons
    One-point classes have no λ2: ``"skip"`` (default, reported in ``skipped_singletons``) or
    ``"zero"`` (count 0, as the MATLAB code does on a zero-diagonal C).
isolated
    λ2 of a class block with a zero-degree vertex: ``"zero"`` (default; the block is
    disconnected) or ``"nan"`` (what ``D^{-1/2}`` with a zero degree gives in a torch code).
zero_tol
    Threshold for "zero" ℓ1 masses and degrees (default 0.0: exactly zero; MATLAB uses eps).
sre_offset
    Added to each point's ℓ1 mass in the SRE denominator (default 0; the Python toolbox adds
    1e-10, so an all-zero row counts 0 there).
self_loops
    ``"keep"`` (default) uses the diagonal of C in W; ``"drop"`` ignores it, as
    ``scipy.sparse.csgraph.laplacian`` does.
sparse_pairs
    ``"lambda2"`` (default) or ``"zero"``: a two-point class of a sparse C scores 0 (the
    Python toolbox: scipy's ``eigsh`` refuses k = n there and the error is caught as 0).
affinity_scale
    W = affinity_scale · (|C| + |C|ᵀ). Irrelevant for the normalised Laplacian; the
    unnormalised λ2 scales with it (the Python toolboxes use 0.5).

The diagonal of C is used as given (self-expressive models set it to zero).

Definitions
-----------
With A = |C| in row orientation and y the true labels,

.. math::

    \mathrm{SRE}_i = \frac{\sum_{j:\,y_j \ne y_i} A_{ij}}{\sum_j A_{ij}}, \qquad
    \mathrm{SRE} = \frac1N \sum_i \mathrm{SRE}_i,

computed from ``A @ onehot(y)`` (per stored entry on sparse C: the class of each entry's row
against the class of its column, then per-row sums), never with the N x N same-class mask.
For each class k with n_k >= 2 points,
``W_k = affinity_scale · (A + Aᵀ)[y == k][:, y == k]`` (only the K diagonal blocks are built),
``λ2^(k)`` is the second smallest eigenvalue of its Laplacian (0 when the block is
disconnected), and ``CONN_min = min_k λ2^(k)``, ``CONN_mean = mean_k λ2^(k)``.

Presets (``AFFINITY_PRESETS``; each entry's ``description`` says exactly how it differs)
----------------------------------------------------------------------------------------
A preset named after a reference code reproduces that code, quirks included; its
``reference`` names repository, file and commit.

==================  ========  ===============  ==========  ==============  ==========  ========
preset              points    zero rows (SRE)  W rows      Laplacian       CONN        SRE
==================  ========  ===============  ==========  ==============  ==========  ========
(None, default)     rows      count 0          as given    normed          min, mean   fraction
ssc_omp_matlab      columns   count 1 (<eps)   as given    normed          min         fraction
ensc_python         rows      count 0 (+1e-10) ℓ2 (sklearn) normed, no diag min, <= 1  fraction
senet               rows      NaN for all      ℓ2, x0.5    normed          min         %
unnormalized_mean   rows      NaN for all      ℓ2, x0.5    D - W           mean        %
==================  ========  ===============  ==========  ==============  ==========  ========

``senet_sparse`` is an alias of ``unnormalized_mean`` (our own convention: no published code
computes it). Singletons: 0 in ``ssc_omp_matlab`` and ``ensc_python``, skipped elsewhere; a
two-point class of a sparse C scores 0 in ``ensc_python`` (the reference's eigsh fails there).

With a preset, every convention argument left at its default takes the preset's value; a
non-default argument that disagrees with the preset raises :class:`ClustlensInputError`.
``SREResult.value`` is always a fraction; ``.reported`` is on the preset's scale, and
``ConnResult.reported`` is the aggregate (min or mean) the reference reports.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from metrics_core._threads import check_workers, thread_map
from metrics_core.affinity._conventions import (
    _CONN_DEFAULTS,
    _EPS,
    _SRE_DEFAULTS,
    ISOLATED_POLICIES,
    LAPLACIANS,
    NORMALIZE_ROWS,
    ORIENTATIONS,
    SELF_LOOPS,
    SINGLETON_POLICIES,
    SPARSE_PAIRS,
    ZERO_ROW_POLICIES,
    preset_conventions,
)
from metrics_core.affinity._spectral_gap import METHODS, lambda2, lambda2_block_diagonal
from metrics_core.validation._coef import check_coef
from metrics_core.validation._errors import ClustlensInputError
from metrics_core.validation._labels import check_labels

# Dense C is processed in row chunks of about this many entries so |C| is never copied whole.
_DENSE_CHUNK = 4_000_000
# Sparse SRE walks C in row chunks of about this many stored entries (temporaries in cache).
_SPARSE_CHUNK = 250_000
# Sparse CONN builds W for runs of consecutive classes holding about this many stored entries
# of C (a class larger than this is a run of its own), one run per thread at a time: the run's
# W (~1.8 entries per entry of C at 90 % in-class mass) and its temporaries stay a few MB
# however large C is, where one W for all classes doubled the peak memory. The compiled
# Lanczos solves each class on its own, so small runs cost no speed (N = 1e5 on two threads:
# 0.21 s for runs of 125,000, 0.20 s for 500,000; peak 124 against 166 MiB).
_CONN_GROUP_NNZ = 125_000


@dataclass(frozen=True, eq=False)
class SREResult:
    """Subspace-preserving representation error.

    Attributes
    ----------
    value : float
        Mean of ``per_point`` under the zero-row policy, a fraction in [0, 1] (NaN when no
        point counts, or with ``"propagate"`` and a zero row).
    per_point : numpy.ndarray
        SRE_i per point, NaN for zero rows under ``"nan"`` / ``"propagate"``.
    per_class : numpy.ndarray
        The same mean restricted to each class (order of ``classes``).
    n_zero_rows : int
        Points whose representation has ℓ1 mass <= ``zero_tol``.
    classes : numpy.ndarray
        Sorted class labels.
    reported : float
        ``value`` on the preset's scale (x100 for the SENet presets, else equal to ``value``).
    """

    value: float
    per_point: np.ndarray
    per_class: np.ndarray
    n_zero_rows: int
    classes: np.ndarray
    reported: float = float("nan")


@dataclass(frozen=True, eq=False)
class ConnResult:
    """Connectivity: λ2 of each class's block of W.

    Attributes
    ----------
    min, mean : float
        Over the classes that were not skipped (NaN if none, or if a class is NaN).
    per_class : numpy.ndarray
        λ2 per class (order of ``classes``), NaN for skipped singletons.
    classes : numpy.ndarray
    skipped_singletons : list
        Labels of one-point classes that were skipped.
    method_per_class : list of str
        Which path computed each class: ``"skipped"``, ``"singleton"``, ``"isolated"``,
        ``"components"``, ``"dense"``, ``"lanczos"``, ``"shift-invert"``.
    reported : float
        ``min`` or ``mean``, whichever the preset's reference reports (``min`` by default).
    """

    min: float
    mean: float
    per_class: np.ndarray
    classes: np.ndarray
    skipped_singletons: list = field(default_factory=list)
    method_per_class: list = field(default_factory=list)
    reported: float = float("nan")


@dataclass(frozen=True, eq=False)
class LeakageResult:
    """K x K matrix of |C| mass from points of class a (rows) onto points of class b."""

    matrix: np.ndarray
    classes: np.ndarray

    def __iter__(self):  # unpacks as (matrix, classes)
        return iter((self.matrix, self.classes))


# --------------------------------------------------------------------------- conventions


def _resolve(
    preset: str | None, given: dict[str, Any], defaults: dict[str, Any]
) -> tuple[dict[str, Any], dict[str, Any]]:
    """Merge explicit arguments with a preset; returns (conventions, preset dict).

    ``None`` means "not given": it takes the preset's value, else the documented default. A
    given value that differs from the preset's raises, even when it equals the documented
    default (``orientation="rows"`` with a columns preset is a contradiction, not a no-op).
    """
    if preset is None:
        conv = {k: defaults[k] if v is None else v for k, v in given.items()}
        spec: dict[str, Any] = {}
    else:
        spec = preset_conventions(preset)
        conv = {}
        for key, value in given.items():
            wanted = spec.get(key, defaults[key])
            if value is not None and value != wanted:
                raise ClustlensInputError(
                    f"{key}={value!r} conflicts with preset {preset!r}, which uses "
                    f"{key}={wanted!r}; drop the argument or the preset",
                    source=key,
                )
            conv[key] = wanted
    _check_choice(conv, "orientation", ORIENTATIONS)
    _check_choice(conv, "zero_rows", ZERO_ROW_POLICIES)
    _check_choice(conv, "laplacian", LAPLACIANS)
    _check_choice(conv, "singletons", SINGLETON_POLICIES)
    _check_choice(conv, "isolated", ISOLATED_POLICIES)
    _check_choice(conv, "self_loops", SELF_LOOPS)
    _check_choice(conv, "sparse_pairs", SPARSE_PAIRS)
    if "normalize_rows" in conv and not any(
        conv["normalize_rows"] is v or conv["normalize_rows"] == v for v in NORMALIZE_ROWS
    ):
        raise ClustlensInputError(
            f"must be one of {NORMALIZE_ROWS}, got {conv['normalize_rows']!r}",
            source="normalize_rows",
        )
    for key in ("zero_tol", "affinity_scale", "sre_offset"):
        if key in conv:
            v = conv[key]
            if not (isinstance(v, (int, float)) and np.isfinite(v) and v >= 0):
                raise ClustlensInputError(f"must be a finite number >= 0, got {v!r}", source=key)
    if conv.get("affinity_scale", 1.0) == 0:
        raise ClustlensInputError("must be > 0", source="affinity_scale")
    return conv, spec


def _check_choice(conv: dict[str, Any], key: str, choices: tuple[str, ...]) -> None:
    if key in conv and conv[key] not in choices:
        raise ClustlensInputError(f"must be one of {choices}, got {conv[key]!r}", source=key)


def _prepare(coef: Any, labels_true: Any, orientation: str):
    """Validate; return (C with points as rows, class codes, classes, counts)."""
    labels = check_labels(labels_true, "labels_true")
    if labels.shape[0] == 0:
        raise ClustlensInputError("there are no points (empty label vector)", source="labels_true")
    # Nothing here writes to C: a canonical float64 CSR input is used as it is, not copied.
    c = check_coef(coef, n_samples=labels.shape[0], name="coef", copy=False)
    if orientation == "columns":
        c = c.T.tocsr() if sp.issparse(c) else c.T
    classes, codes = np.unique(labels, return_inverse=True)
    codes = codes.astype(np.intp, copy=False)
    counts = np.bincount(codes, minlength=classes.size)
    return c, codes, classes, counts


def _narrow_codes(codes: np.ndarray) -> np.ndarray:
    """Class codes in the narrowest integer type that holds them.

    Every stored entry of C looks up the class of its column, at random: with 1,000 classes
    the int16 table of N = 1e6 points is 2 MB and mostly stays in a core's cache, the int32
    one (4 MB) does not (the per-entry pass of sparse SRE ~10 % faster).
    """
    top = int(codes.max()) if codes.size else 0
    for dtype in (np.int16, np.int32):
        if top <= np.iinfo(dtype).max:
            return codes.astype(dtype)
    return codes


def _csr_rows(c: sp.csr_array) -> np.ndarray:
    return np.repeat(np.arange(c.shape[0], dtype=np.intp), np.diff(c.indptr))


def _row_sums(values: np.ndarray, indptr: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over each CSR row (0 for empty rows)."""
    out = np.zeros(indptr.size - 1)
    nonempty = indptr[:-1] < indptr[1:]
    if values.size:
        # reduceat runs each segment up to the next listed start, i.e. to the end of the row.
        out[nonempty] = np.add.reduceat(values, indptr[:-1][nonempty])
    return out


def _sparse_row_chunks(indptr: np.ndarray):
    """(first row, end row) of consecutive CSR rows holding about ``_SPARSE_CHUNK`` entries."""
    n = indptr.size - 1
    if n == 0:
        return
    cuts = np.searchsorted(indptr, np.arange(0, indptr[-1], _SPARSE_CHUNK), side="right") - 1
    cuts = np.unique(np.concatenate([[0], cuts.clip(0, n), [n]]))  # every row, even if nnz = 0
    yield from zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True)


def _dense_row_chunks(n: int):
    step = max(1, _DENSE_CHUNK // max(n, 1))
    for start in range(0, n, step):
        yield start, min(n, start + step)


# --------------------------------------------------------------------------- SRE


def _row_masses(c, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(total ℓ1 mass, ℓ1 mass on other classes) of each row of C (points as rows)."""
    n = codes.shape[0]
    if sp.issparse(c):
        # One pass over the stored entries: the class of each entry's row (repeat, no gather)
        # against the class of its column, then per-row segment sums. In chunks of rows of
        # about _SPARSE_CHUNK entries, so the temporaries stay in cache and small (at
        # N = 1e6 with 20 entries a row, whole-matrix temporaries took 0.8 s and 240 MB).
        small = _narrow_codes(codes)
        total = np.empty(n)
        outside = np.empty(n)
        indptr = c.indptr
        for r0, r1 in _sparse_row_chunks(indptr):
            p0, p1 = indptr[r0], indptr[r1]
            local = indptr[r0 : r1 + 1] - p0
            a = np.abs(c.data[p0:p1])
            total[r0:r1] = _row_sums(a, local)
            a *= np.repeat(small[r0:r1], np.diff(local)) != small[c.indices[p0:p1]]
            outside[r0:r1] = _row_sums(a, local)
        return total, outside
    total = np.empty(n)
    outside = np.empty(n)
    k = int(codes.max()) + 1 if n else 0
    onehot = np.zeros((n, k))
    onehot[np.arange(n), codes] = 1.0
    for s, e in _dense_row_chunks(n):
        block = np.abs(c[s:e])
        total[s:e] = block.sum(axis=1)
        per_class = block @ onehot  # |C| @ onehot(y): mass of each row on each class
        outside[s:e] = total[s:e] - per_class[np.arange(e - s), codes[s:e]]
    return total, outside


def _sre_from_masses(
    total: np.ndarray,
    outside: np.ndarray,
    codes: np.ndarray,
    n_classes: int,
    zero_rows: str,
    zero_tol: float,
    offset: float = 0.0,
) -> tuple[float, np.ndarray, np.ndarray, int]:
    zero = total <= zero_tol
    per_point = np.empty_like(total)
    ok = ~zero
    # Clip: on dense input the off-class mass is total - in-class, which rounding can push
    # a hair outside [0, total].
    per_point[ok] = np.clip(outside[ok] / (total[ok] + offset), 0.0, 1.0)
    per_point[zero] = {"zero": 0.0, "one": 1.0, "nan": np.nan, "propagate": np.nan}[zero_rows]
    counted = ~np.isnan(per_point) if zero_rows == "nan" else np.ones_like(zero)
    with np.errstate(invalid="ignore", divide="ignore"):
        value = float(per_point[counted].sum() / counted.sum()) if counted.any() else np.nan
        sums = np.bincount(codes[counted], weights=per_point[counted], minlength=n_classes)
        cnts = np.bincount(codes[counted], minlength=n_classes)
        per_class = sums / cnts
    return value, per_point, per_class, int(zero.sum())


def subspace_preserving_error(
    coef: Any,
    labels_true: Any,
    *,
    orientation: str | None = None,
    zero_rows: str | None = None,
    normalize_rows: bool | str | None = None,
    zero_tol: float | None = None,
    sre_offset: float | None = None,
    preset: str | None = None,
) -> SREResult:
    r"""Subspace-preserving representation error (SRE): the share of ℓ1 mass off the true class.

    .. math::

        \mathrm{SRE}_i = 1 - \frac{\sum_{j:\,y_j = y_i} |C_{ij}|}{\sum_j |C_{ij}|},\qquad
        \mathrm{SRE} = \operatorname{mean}_i \mathrm{SRE}_i

    (row i represents point i; ``orientation="columns"`` uses column i). Lower is better; 0
    means every representation is subspace-preserving. Computed per stored entry (sparse) or
    as ``|C| @ onehot(y)`` in row chunks (dense): O(nnz) time, never the N x N class mask, and
    sparse input is never densified.

    Parameters
    ----------
    coef : array-like or scipy.sparse matrix, shape (N, N)
    labels_true : array-like, shape (N,)
    orientation : {"rows", "columns"}, default "rows"
    zero_rows : {"zero", "one", "nan", "propagate"}, default "zero"
        Contribution of a point whose ℓ1 mass is <= ``zero_tol``: 0, 1, excluded from the
        mean, or NaN for the whole mean.
    normalize_rows : {False, True, "sklearn"}, default False
        Accepted for symmetry with :func:`connectivity`; per-point scaling leaves SRE unchanged.
    zero_tol : float, default 0.0
        ℓ1 masses <= this are zero rows (default: exactly zero).
    sre_offset : float, default 0.0
        Added to each point's ℓ1 mass in the denominator (the Python toolbox adds 1e-10).
    preset : str, optional
        A key of ``AFFINITY_PRESETS``; it sets every argument not given (``None``). A given
        argument that disagrees with the preset raises.

    Returns
    -------
    SREResult

    Examples
    --------
    >>> import numpy as np
    >>> C = np.array([[0, 2, 1], [1, 0, 0], [0, 0, 0]])
    >>> r = subspace_preserving_error(C, [0, 0, 1])
    >>> round(r.value, 12), r.per_point.round(12).tolist(), r.n_zero_rows
    (0.111111111111, [0.333333333333, 0.0, 0.0], 1)
    >>> round(subspace_preserving_error(C, [0, 0, 1], zero_rows="nan").value, 12)
    0.166666666667
    >>> subspace_preserving_error(C, [0, 0, 1], preset="senet").reported
    nan
    """
    given = {
        "orientation": orientation,
        "zero_rows": zero_rows,
        "normalize_rows": normalize_rows,
        "zero_tol": zero_tol,
        "sre_offset": sre_offset,
    }
    conv, spec = _resolve(preset, given, _SRE_DEFAULTS)
    c, codes, classes, _ = _prepare(coef, labels_true, conv["orientation"])
    return _sre(c, codes, classes, conv, spec)


def _sre(c, codes, classes, conv, spec) -> SREResult:
    total, outside = _row_masses(c, codes)
    return sre_from_masses(total, outside, codes, classes, conv, spec)


def sre_from_masses(
    total: np.ndarray,
    outside: np.ndarray,
    codes: np.ndarray,
    classes: np.ndarray,
    conv: dict[str, Any],
    spec: dict[str, Any],
) -> SREResult:
    """SRE from each point's ℓ1 mass and its mass off the true class (points in label order).

    The one place the SRE formula and its zero-row policies live: the in-memory path sums the
    masses from C, an engine of :mod:`metrics_core.engines` sums them with a ``GROUP BY``.
    """
    value, per_point, per_class, n_zero = _sre_from_masses(
        total,
        outside,
        codes,
        classes.size,
        conv["zero_rows"],
        conv["zero_tol"],
        conv.get("sre_offset", 0.0),
    )
    return SREResult(
        value=value,
        per_point=per_point,
        per_class=per_class,
        n_zero_rows=n_zero,
        classes=classes,
        reported=value * spec.get("sre_scale", 1.0),
    )


# --------------------------------------------------------------------------- leakage


def leakage_matrix(coef: Any, labels_true: Any, *, orientation: str | None = None) -> LeakageResult:
    r"""K x K matrix of coefficient mass between true classes.

    ``matrix[a, b] = Σ_{i: y_i = a} Σ_{j: y_j = b} |C_ij|`` (row orientation: point i of class
    a uses point j of class b). Its total is ``Σ|C|``; the diagonal is the subspace-preserving
    mass and row a off its diagonal is what class a leaks.

    Examples
    --------
    >>> import numpy as np
    >>> m, classes = leakage_matrix(np.array([[0, 2, -1], [1, 0, 0], [0, 3, 0]]), ["a", "a", "b"])
    >>> m.tolist(), classes.tolist()
    ([[3.0, 1.0], [3.0, 0.0]], ['a', 'b'])
    """
    conv, _ = _resolve(None, {"orientation": orientation}, _SRE_DEFAULTS)
    c, codes, classes, _ = _prepare(coef, labels_true, conv["orientation"])
    return _leakage(c, codes, classes)


def _leakage(c, codes, classes) -> LeakageResult:
    k = classes.size
    if sp.issparse(c):
        rows = _csr_rows(c)
        flat = codes[rows] * k + codes[c.indices]
        m = np.bincount(flat, weights=np.abs(c.data), minlength=k * k).reshape(k, k)
        return LeakageResult(matrix=m, classes=classes)
    n = codes.shape[0]
    onehot = np.zeros((n, k))
    onehot[np.arange(n), codes] = 1.0
    m = np.zeros((k, k))
    for s, e in _dense_row_chunks(n):
        m += onehot[s:e].T @ (np.abs(c[s:e]) @ onehot)
    return LeakageResult(matrix=m, classes=classes)


# --------------------------------------------------------------------------- CONN


def _row_scale(c, normalize_rows: bool | str) -> np.ndarray | None:
    """1 / ℓ2 norm of each row (1 for zero rows), or None when not normalising.

    ``"sklearn"`` mimics ``sklearn.preprocessing.normalize(C, "l2")``: on dense C a row whose
    norm is below 10·eps is left as it is; on sparse C only an exactly zero row is.
    """
    if normalize_rows is False:
        return None
    if sp.issparse(c):
        sq = np.bincount(_csr_rows(c), weights=c.data**2, minlength=c.shape[0])
    else:
        sq = np.empty(c.shape[0])
        for s, e in _dense_row_chunks(c.shape[0]):
            sq[s:e] = np.einsum("ij,ij->i", c[s:e], c[s:e])
    norms = np.sqrt(sq)
    if normalize_rows == "sklearn" and not sp.issparse(c):
        norms[norms < 10 * _EPS] = 1.0
    else:
        norms[norms == 0] = 1.0
    return 1.0 / norms


@dataclass(frozen=True)
class _ClassRuns:
    """Points in class order and runs of consecutive classes, for building W run by run."""

    order: np.ndarray  # point indices, class by class (stable)
    pos: np.ndarray  # position of each point in ``order``
    codes: np.ndarray  # class codes, narrowest integer type
    starts: np.ndarray  # class boundaries in ``order``
    bounds: list  # (first class, end class) of each run


def _class_runs(c: sp.csr_array, codes: np.ndarray, counts: np.ndarray) -> _ClassRuns:
    """Cut the classes into runs of about ``_CONN_GROUP_NNZ`` stored entries of C each."""
    n = codes.shape[0]
    codes_small = _narrow_codes(codes)
    # The same stable order; numpy radix-sorts 16-bit keys (4x faster at N = 1e6).
    order = np.argsort(codes_small, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
    # 32-bit positions halve the per-entry temporaries of each run.
    small = np.int32 if n < 2**31 else np.intp
    pos = np.empty(n, dtype=small)
    pos[order] = np.arange(n, dtype=small)
    row_nnz = np.diff(c.indptr)[order]
    # Stored entries per class (an upper bound of its in-class entries) sets the runs.
    class_nnz = np.add.reduceat(row_nnz, starts[:-1]) if n else np.zeros(0, dtype=np.intp)
    class_nnz[counts == 0] = 0
    bounds = []
    k0 = 0
    n_classes = counts.size
    while k0 < n_classes:
        k1, total = k0 + 1, class_nnz[k0]
        while k1 < n_classes and total + class_nnz[k1] <= _CONN_GROUP_NNZ:
            total += class_nnz[k1]
            k1 += 1
        bounds.append((k0, k1))
        k0 = k1
    return _ClassRuns(order, pos, codes_small, starts, bounds)


def _run_w(
    c: sp.csr_array, runs: _ClassRuns, k0: int, k1: int, scale, affinity_scale, self_loops="keep"
) -> tuple[sp.csr_array, np.ndarray]:
    """W's block-diagonal for classes ``k0:k1`` and its block boundaries.

    W = s (A + Aᵀ) restricted to each class, points permuted so classes are contiguous, built
    straight from C's rows of those classes: only their in-class entries are kept, and each
    run is symmetrised on its own, so neither |C| + |C|ᵀ nor all of W is ever held at once.
    (A compiled pass doing the same took as long: the look-up of each entry's column, at
    random over all N points, is most of it.)
    """
    codes_small, pos = runs.codes, runs.pos
    s0, s1 = runs.starts[k0], runs.starts[k1]
    rows = runs.order[s0:s1]
    sub = c[rows]  # the run's rows, in class order (one C++ row gather)
    nnz = np.diff(sub.indptr)
    # In-class entries: the column's class is the row's class.
    keep = codes_small[sub.indices] == np.repeat(codes_small[rows], nnz)
    keep &= sub.data != 0
    if self_loops == "drop":
        keep &= sub.indices != np.repeat(rows, nnz)
    kept = np.flatnonzero(keep)
    vals = np.abs(sub.data[kept])
    if scale is not None:
        vals *= np.repeat(scale[rows], nnz)[kept]
    vals *= affinity_scale
    count = np.int32 if keep.size < 2**31 else np.intp
    indptr = np.concatenate([np.zeros(1, count), np.cumsum(keep, dtype=count)])[sub.indptr]
    cols = pos[sub.indices[kept]] - pos.dtype.type(s0)
    m = int(s1 - s0)
    del sub, keep, kept
    a = sp.csr_array((vals, cols, indptr), shape=(m, m))
    del vals, cols, indptr
    # A + Aᵀ in C++ (sums coincident entries, drops exact zeros).
    return sp.csr_array(a + a.T), runs.starts[k0 : k1 + 1] - s0


def _dense_class_blocks(c: np.ndarray, codes, counts, scale, affinity_scale, self_loops="keep"):
    """Yield (class index, dense W block), one |C| sub-block per class (|C| never copied whole)."""
    order = np.argsort(codes, kind="stable")
    starts = np.concatenate([[0], np.cumsum(counts)])
    for k in range(counts.size):
        idx = order[starts[k] : starts[k + 1]]
        a = np.abs(c[np.ix_(idx, idx)])
        if scale is not None:
            a *= scale[idx][:, None]
        block = a + a.T
        block *= affinity_scale
        if self_loops == "drop":
            np.fill_diagonal(block, 0.0)
        yield k, block


def connectivity(
    coef: Any,
    labels_true: Any,
    *,
    orientation: str | None = None,
    normalize_rows: bool | str | None = None,
    cap: bool | None = None,
    laplacian: str | None = None,
    singletons: str | None = None,
    isolated: str | None = None,
    zero_tol: float | None = None,
    affinity_scale: float | None = None,
    self_loops: str | None = None,
    sparse_pairs: str | None = None,
    preset: str | None = None,
    method: str = "auto",
    dense_max: int | None = None,
    workers: int | None = None,
) -> ConnResult:
    r"""Connectivity (CONN): algebraic connectivity of each true class in W = |C| + |C|ᵀ.

    For each class k with n_k >= 2 points, let ``W_k`` be its diagonal block of
    ``W = affinity_scale · (|C| + |C|ᵀ)`` (after optional ℓ2 normalisation of each point's
    coefficients) and ``D_k = diag(W_k 1)``;

    .. math::

        \lambda_2^{(k)} = \lambda_2\bigl(I - D_k^{-1/2} W_k D_k^{-1/2}\bigr) \in
        \Bigl[0, \tfrac{n_k}{n_k - 1}\Bigr],\qquad
        \mathrm{CONN}_{\min} = \min_k \lambda_2^{(k)},\quad
        \mathrm{CONN}_{\mathrm{mean}} = \operatorname{mean}_k \lambda_2^{(k)}.

    A disconnected block (including one with an isolated, zero-degree vertex) gives exactly 0.
    Higher is better. Only the K diagonal blocks of W are built; each block's λ2 is computed
    by dense ``eigvalsh`` (small blocks), deflated Lanczos or shift-invert (see
    :mod:`metrics_core.affinity._spectral_gap`), after an exact connected-components check.

    Parameters
    ----------
    coef : array-like or scipy.sparse matrix, shape (N, N)
    labels_true : array-like, shape (N,)
    Every convention defaults to ``None``: the preset's value, else the documented default
    given in brackets below.

    orientation : {"rows", "columns"}, default "rows"
    normalize_rows : {False, True, "sklearn"}, default False
        ℓ2-normalise each point's coefficient vector before building W (``"sklearn"``: as
        ``sklearn.preprocessing.normalize`` does, see the module notes).
    cap : bool, default False
        Clip each λ2 at 1.0.
    laplacian : {"normalized", "unnormalized"}, default "normalized"
    singletons : {"skip", "zero"}, default "skip"
    isolated : {"zero", "nan"}, default "zero"
    zero_tol : float, default 0.0
        Degrees <= this count as zero (isolated vertex).
    affinity_scale : float, default 1.0
        Factor on |C| + |C|ᵀ (matters only for the unnormalised Laplacian).
    self_loops : {"keep", "drop"}, default "keep"
        Whether the diagonal of C enters W (``"drop"``: as ``scipy.sparse.csgraph.laplacian``,
        which ignores the diagonal).
    sparse_pairs : {"lambda2", "zero"}, default "lambda2"
        A two-point class of a SPARSE C: its λ2, or 0 (the Python toolbox, whose ``eigsh``
        refuses k = n on a sparse 2 x 2 block and scores the class 0).
    preset : str, optional
        A key of ``AFFINITY_PRESETS`` (sets every argument not given).
    method : {"auto", "dense", "lanczos", "shift-invert"}
        Force an eigen-solver path (for testing); ``"auto"`` picks per block.
    dense_max : int, optional
        Largest block solved densely under ``"auto"`` (default ``_spectral_gap.DENSE_MAX``).
    workers : int, optional
        Threads that solve a sparse C's classes, a run of classes each (default: the
        environment's ``CLUSTLENS_WORKERS`` when set, else every CPU this process may use; 1:
        in the calling thread). The values do not depend on it.

    Returns
    -------
    ConnResult

    Examples
    --------
    Two classes: a triangle (complete graph, λ2 = 3/2) and a path of three points (λ2 = 1):

    >>> import numpy as np
    >>> C = np.zeros((6, 6))
    >>> C[0, 1] = C[1, 2] = C[2, 0] = 1.0
    >>> C[3, 4] = C[4, 5] = 1.0
    >>> r = connectivity(C, [0, 0, 0, 1, 1, 1])
    >>> r.per_class.round(12).tolist(), r.min, round(r.mean, 12)
    ([1.5, 1.0], 1.0, 1.25)
    >>> connectivity(C, [0, 0, 0, 1, 1, 2]).skipped_singletons
    [2]
    """
    given = {
        "orientation": orientation,
        "normalize_rows": normalize_rows,
        "cap": cap,
        "laplacian": laplacian,
        "singletons": singletons,
        "isolated": isolated,
        "zero_tol": zero_tol,
        "affinity_scale": affinity_scale,
        "self_loops": self_loops,
        "sparse_pairs": sparse_pairs,
    }
    conv, spec = _resolve(preset, given, _CONN_DEFAULTS)
    if method not in METHODS:
        raise ClustlensInputError(f"must be one of {METHODS}, got {method!r}", source="method")
    workers = check_workers(workers)
    c, codes, classes, counts = _prepare(coef, labels_true, conv["orientation"])
    return _conn(c, codes, classes, counts, conv, spec, method, dense_max, workers=workers)


def _conn(
    c, codes, classes, counts, conv, spec, method, dense_max, scale=None, workers=None
) -> ConnResult:
    """CONN of C (points as rows); ``scale`` overrides the ℓ2 row scale computed from C (an
    engine that hands over only the in-class entries passes the scale of the whole rows);
    ``workers`` threads solve the runs of classes of a sparse C (None: every available CPU)."""
    workers = check_workers(workers)
    k_classes = classes.size
    if scale is None:
        scale = _row_scale(c, conv["normalize_rows"])
    solver = {"laplacian": conv["laplacian"], "method": method, "zero_tol": conv["zero_tol"]}
    loops = conv.get("self_loops", "keep")
    if sp.issparse(c):
        values = np.full(k_classes, np.nan)
        paths = ["singleton"] * k_classes
        runs = _class_runs(c, codes, counts)

        def solve(bounds: tuple[int, int]) -> tuple[np.ndarray, list[str]]:
            w, starts = _run_w(c, runs, *bounds, scale, conv["affinity_scale"], loops)
            return lambda2_block_diagonal(w, starts, dense_max=dense_max, **solver)

        # Each run is built and solved on its own, so runs go to threads: the sparse products,
        # row gathers and numpy passes that make up nearly all of it release the GIL. The
        # same runs, the same start vectors: the values do not depend on the thread count.
        for (k0, _), (vals, run_paths) in zip(
            runs.bounds, thread_map(solve, runs.bounds, workers), strict=True
        ):
            values[k0 : k0 + vals.size] = vals
            paths[k0 : k0 + vals.size] = run_paths
    else:
        values = np.full(k_classes, np.nan)
        paths = ["singleton"] * k_classes
        blocks = _dense_class_blocks(c, codes, counts, scale, conv["affinity_scale"], loops)
        for k, block in blocks:
            if counts[k] >= 2:
                values[k], paths[k] = lambda2(block, dense_max=dense_max, **solver)
    return finish_conn(values, list(paths), counts, classes, conv, spec, sparse=sp.issparse(c))


def class_lambda2(
    n_points: int, rows: np.ndarray, cols: np.ndarray, values: np.ndarray, conv: dict[str, Any]
) -> tuple[float, str]:
    """λ2 of one class from its in-class entries of C (local indices, scale already applied).

    ``values`` are the entries of C (signed, any scale applied); W = affinity_scale · (|C_k| +
    |C_k|ᵀ) is built here as for the whole matrix, so an engine that groups the entries by
    class (Spark's ``applyInPandas``) computes each class with the in-memory code.
    """
    keep = values != 0
    if conv.get("self_loops", "keep") == "drop":
        keep &= rows != cols
    r, q = rows[keep], cols[keep]
    v = np.abs(values[keep]) * conv["affinity_scale"]
    w = sp.coo_array(
        (np.concatenate([v, v]), (np.concatenate([r, q]), np.concatenate([q, r]))),
        shape=(n_points, n_points),
    ).tocsr()
    w.sum_duplicates()
    w.eliminate_zeros()
    vals, paths = lambda2_block_diagonal(
        w,
        np.array([0, n_points]),
        laplacian=conv["laplacian"],
        zero_tol=conv["zero_tol"],
    )
    return float(vals[0]), paths[0]


def finish_conn(
    values: np.ndarray,
    paths: list[str],
    counts: np.ndarray,
    classes: np.ndarray,
    conv: dict[str, Any],
    spec: dict[str, Any],
    *,
    sparse: bool = True,
) -> ConnResult:
    """Apply the conventions (pairs, singletons, isolated vertices, cap, min/mean) to raw λ2s.

    ``values[k]``/``paths[k]`` are what the solver returned for class k (NaN/"singleton" for a
    one-point class). Shared by the in-memory path and the engines of
    :mod:`metrics_core.engines`, so both report CONN under the same rules.
    """
    k_classes = classes.size
    per_class = np.full(k_classes, np.nan)
    methods = ["skipped"] * k_classes
    skipped: list = []
    if sparse and conv.get("sparse_pairs", "lambda2") == "zero":
        pairs = counts == 2
        values = np.where(pairs, 0.0, values)
        paths = ["pair (sparse)" if pairs[k] else paths[k] for k in range(k_classes)]
    for k in range(k_classes):
        if counts[k] < 2:
            if conv["singletons"] == "zero":
                per_class[k], methods[k] = 0.0, "singleton"
            else:
                skipped.append(classes[k].item())
            continue
        value = values[k]
        if paths[k] == "isolated" and conv["isolated"] == "nan":
            value = np.nan
        # Roundoff can leave λ2 of a connected block a hair below 0.
        per_class[k] = value if np.isnan(value) else max(value, 0.0)
        methods[k] = paths[k]
    if conv["cap"]:
        per_class = np.minimum(per_class, 1.0)
    counted = np.array([m != "skipped" for m in methods], dtype=bool)
    vals = per_class[counted]
    c_min = float(vals.min()) if vals.size else np.nan
    c_mean = float(vals.mean()) if vals.size else np.nan
    report = spec.get("conn_report", "min")
    return ConnResult(
        min=c_min,
        mean=c_mean,
        per_class=per_class,
        classes=classes,
        skipped_singletons=skipped,
        method_per_class=methods,
        reported=c_min if report == "min" else c_mean,
    )


# --------------------------------------------------------------------------- one call


def affinity_diagnostics(
    coef: Any, labels_true: Any, *, workers: int | None = None, **conventions: Any
) -> dict[str, Any]:
    """SRE and CONN in one call, as plain Python numbers (used by ``evaluate``).

    Keyword arguments are the conventions of :func:`subspace_preserving_error` and
    :func:`connectivity` (``orientation``, ``zero_rows``, ``normalize_rows``, ``cap``,
    ``laplacian``, ``singletons``, ``isolated``, ``zero_tol``, ``affinity_scale``,
    ``preset``); each goes to the function(s) that use it. C and the labels are validated once.
    ``workers``: CONN's threads, as in :func:`connectivity`.

    Returns
    -------
    dict
        ``sre`` (fraction), ``sre_zero_rows`` (int), ``conn_min``, ``conn_mean`` (float),
        ``conn_skipped_singletons`` (int, the number of skipped one-point classes).

    Examples
    --------
    >>> import numpy as np
    >>> C = np.ones((4, 4)) - np.eye(4)
    >>> d = affinity_diagnostics(C, [0, 0, 1, 1])
    >>> round(d["sre"], 12), round(d["conn_min"], 12), d["conn_skipped_singletons"]
    (0.666666666667, 2.0, 0)
    """
    sre_conv, conn_conv, spec = resolve_conventions(**conventions)
    workers = check_workers(workers)
    c, codes, classes, counts = _prepare(coef, labels_true, sre_conv["orientation"])
    sre = _sre(c, codes, classes, sre_conv, spec)
    conn = _conn(c, codes, classes, counts, conn_conv, spec, "auto", None, workers=workers)
    return summary(sre, conn)


def resolve_conventions(
    **conventions: Any,
) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    """(SRE conventions, CONN conventions, preset) from keyword conventions, checked.

    Examples
    --------
    >>> sre, conn, spec = resolve_conventions(preset="ssc_omp_matlab")
    >>> sre["orientation"], conn["laplacian"], spec["conn_report"]
    ('columns', 'normalized', 'min')
    """
    allowed = set(_SRE_DEFAULTS) | set(_CONN_DEFAULTS) | {"preset"}
    unknown = sorted(set(conventions) - allowed)
    if unknown:
        raise ClustlensInputError(
            f"unknown convention(s) {unknown}; known: {sorted(allowed)}", source="conventions"
        )
    preset = conventions.get("preset")
    sre_given = {k: conventions.get(k) for k in _SRE_DEFAULTS}
    conn_given = {k: conventions.get(k) for k in _CONN_DEFAULTS}
    sre_conv, spec = _resolve(preset, sre_given, _SRE_DEFAULTS)
    conn_conv, _ = _resolve(preset, conn_given, _CONN_DEFAULTS)
    return sre_conv, conn_conv, spec


def summary(sre: SREResult, conn: ConnResult) -> dict[str, Any]:
    """The ``evaluate`` keys of SRE and CONN as plain Python numbers."""
    return {
        "sre": float(sre.value),
        "sre_zero_rows": int(sre.n_zero_rows),
        "conn_min": float(conn.min),
        "conn_mean": float(conn.mean),
        "conn_skipped_singletons": len(conn.skipped_singletons),
    }


def detail(sre: SREResult, conn: ConnResult, leak: LeakageResult) -> dict[str, Any]:
    """Per-class SRE and CONN, a per-point SRE summary and the leakage matrix, JSON-ready.

    ``sre_per_point`` summarises the per-point errors that count (NaN rows left out):
    quantiles and how many points have any mass off their class.
    """
    pp = sre.per_point[~np.isnan(sre.per_point)]
    q = np.quantile(pp, [0.0, 0.5, 0.9, 1.0]) if pp.size else np.full(4, np.nan)

    def num(x: Any) -> float | None:
        x = float(x)
        return None if np.isnan(x) else x

    return {
        "classes": [c.item() if hasattr(c, "item") else c for c in sre.classes],
        "sre_per_class": [num(v) for v in sre.per_class],
        "conn_per_class": [num(v) for v in conn.per_class],
        "conn_method_per_class": list(conn.method_per_class),
        "sre_per_point": {
            "min": num(q[0]),
            "median": num(q[1]),
            "p90": num(q[2]),
            "max": num(q[3]),
            "n_positive": int((pp > 0).sum()),
            "n_counted": int(pp.size),
        },
        "leakage": leak.matrix.tolist(),
    }


def affinity_report(
    coef: Any, labels_true: Any, **conventions: Any
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the ``evaluate`` keys of SRE/CONN, :func:`detail`) with C and labels validated once.

    Examples
    --------
    >>> import numpy as np
    >>> keys, more = affinity_report(np.ones((4, 4)) - np.eye(4), [0, 0, 1, 1])
    >>> round(keys["sre"], 4), more["leakage"]
    (0.6667, [[2.0, 4.0], [4.0, 2.0]])
    """
    sre_conv, conn_conv, spec = resolve_conventions(**conventions)
    c, codes, classes, counts = _prepare(coef, labels_true, sre_conv["orientation"])
    sre = _sre(c, codes, classes, sre_conv, spec)
    conn = _conn(c, codes, classes, counts, conn_conv, spec, "auto", None)
    return summary(sre, conn), detail(sre, conn, _leakage(c, codes, classes))
