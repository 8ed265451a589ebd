"""Reading uploaded sweep bundles: one coefficient matrix per parameter setting.

Three formats:

- **.zip** holding ``params.csv`` (at the top, or inside the zip's single top folder) and the
  matrices it names. Manifest columns: ``file`` (a member path relative to the manifest), one
  column per parameter, optionally ``pred`` (a prediction file in the zip). Every matrix format
  :func:`metrics_core.io.load_coef` reads is accepted; predictions as
  :func:`metrics_core.io.load_labels` reads them. A folder with the same layout (what
  ``run_sweep(save_coef_dir=...)`` writes) is read the same way.
- **.mat** (v5/v7) holding one cell array of matrices (dense or sparse) and, for each parameter,
  a numeric vector with one value per cell (a 2-D ``n1 x n2`` cell array takes two vectors, of
  lengths ``n1`` and ``n2``, in file order: the first indexes rows). An optional cell array
  named ``pred``/``preds``/``grps``/``idx`` holds predictions.
- **results-only .csv**: one row per setting, parameter columns plus already computed metric
  columns (any key of :data:`metrics_core.METRICS` and ``sparsity``/``seconds``); no matrices.

A missing member, an unreadable matrix, a size that disagrees with the other settings or a bad
manifest row makes that entry fail with a message naming it (``Bundle.errors``); the other
settings still load. Only a bundle that cannot be read at all raises.

Zip safety: at most ``max_members`` members; declared sizes checked (each member and in total)
before anything is inflated, and reads stop at the declared size; absolute paths, ``..``, drive
letters, backslashes and NUL in member names are refused; encrypted members are refused. Nothing
is ever extracted to disk.
"""

from __future__ import annotations

import io as _io
import os
import posixpath
import zipfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from metrics_core.validation._errors import ClustlensInputError

GiB = 1024**3
MANIFEST = "params.csv"
_PRED_CELL_NAMES = ("pred", "preds", "grps", "idx", "labels_pred")
_RESERVED = {"file", "pred", "entry", "setting"}


@dataclass(frozen=True)
class BundleLimits:
    """Ceilings for an uploaded bundle (checked on declared sizes, before inflating).

    Attributes
    ----------
    max_members : int
        Members of a zip (default 5,000).
    max_member_bytes : int
        Inflated size of one member (default 2 GiB).
    max_total_bytes : int
        Inflated size of all members together (default 8 GiB).
    max_ratio : float
        Largest inflated / compressed size ratio of a member bigger than 1 MiB (default 1,000;
        ratios above that are zip bombs, not matrices).
    max_settings : int
        Settings in a manifest, .mat or CSV (default 10,000).
    """

    max_members: int = 5000
    max_member_bytes: int = 2 * GiB
    max_total_bytes: int = 8 * GiB
    max_ratio: float = 1000.0
    max_settings: int = 10_000


@dataclass
class BundleSetting:
    """One setting of a bundle.

    Attributes
    ----------
    name : str
        The entry: member path (zip), ``cell {i}`` (.mat) or ``row {r}`` (CSV).
    params : dict
        Parameter values (numbers where the column is numeric).
    coef : numpy.ndarray or scipy.sparse.csr_array or None
        The N x N matrix (None for a results-only setting).
    pred : numpy.ndarray or None
        Predictions given with the bundle.
    metrics : dict or None
        Already computed metrics (results-only CSV).
    """

    name: str
    params: dict[str, Any]
    coef: Any = None
    pred: np.ndarray | None = None
    metrics: dict[str, Any] | None = None


@dataclass
class Bundle:
    """A loaded sweep bundle: the settings that loaded and the entries that did not.

    Attributes
    ----------
    settings : list of BundleSetting
    errors : list of ClustlensInputError
        One per failed entry, each message naming it.
    param_names : tuple of str
    kind : {"zip", "dir", "mat", "csv"}
    source : str
        Display name.
    """

    settings: list[BundleSetting]
    errors: list[ClustlensInputError] = field(default_factory=list)
    param_names: tuple[str, ...] = ()
    kind: str = ""
    source: str = ""

    @property
    def n_samples(self) -> int | None:
        """N of the matrices (None for a results-only bundle)."""
        for s in self.settings:
            if s.coef is not None:
                return int(s.coef.shape[0])
        return None


# --------------------------------------------------------------------------------------------


def _entry_error(source: str, entry: str, message: str) -> ClustlensInputError:
    return ClustlensInputError(f"entry {entry!r}: {message}", source=source)


def _safe_member_name(name: str) -> bool:
    if not name or "\x00" in name or "\\" in name:
        return False
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        return False
    return ".." not in name.split("/")


def _read_source(src: Any, name: str | None, limit: int) -> tuple[bytes | None, str, Path | None]:
    if isinstance(src, (str, os.PathLike)):
        p = Path(src)
        label = name or str(src)
        if p.is_dir():
            return None, label, p
        if not p.exists():
            raise ClustlensInputError("file not found", source=label)
        if p.stat().st_size > limit:
            raise ClustlensInputError(f"is larger than {limit} bytes", source=label)
        return p.read_bytes(), label, None
    if isinstance(src, (bytes, bytearray, memoryview)):
        return bytes(src), name or "uploaded bundle", None
    if hasattr(src, "read"):
        raw = src.getvalue() if hasattr(src, "getvalue") else src.read()
        return bytes(raw), name or str(getattr(src, "name", "") or "uploaded bundle"), None
    raise ClustlensInputError(
        f"expected a path, bytes or a binary file, got {type(src).__name__}", source="bundle"
    )


def _kind(data: bytes, label: str) -> str:
    ext = os.path.splitext(label)[1].lower()
    if data[:4] in (b"PK\x03\x04", b"PK\x05\x06"):
        return "zip"
    if data[:6] == b"MATLAB" or data[:8] == b"\x89HDF\r\n\x1a\n" or ext == ".mat":
        return "mat"
    if ext in (".csv", ".tsv", ".txt", ""):
        return "csv"
    raise ClustlensInputError(
        "is not a sweep bundle (.zip with params.csv, .mat with a cell array, or a results CSV)",
        source=label,
    )


def load_bundle(
    src: Any,
    name: str | None = None,
    *,
    n_samples: int | None = None,
    limits: BundleLimits | None = None,
) -> Bundle:
    """Load a sweep bundle (.zip + ``params.csv``, .mat cell array, results CSV or a folder).

    Parameters
    ----------
    src : path, bytes or binary file object
        The bundle.
    name : str, optional
        Display name (and extension hint) for bytes input.
    n_samples : int, optional
        Expected N (e.g. the number of labels); without it, the most common size among the
        settings is taken as right and the others are reported.
    limits : BundleLimits, optional
        Safety ceilings.

    Returns
    -------
    Bundle
        ``settings`` that loaded and ``errors`` naming each entry that did not.

    Raises
    ------
    ClustlensInputError
        When nothing can be read (not a bundle, no manifest, no ``file`` column, ...).

    Examples
    --------
    >>> b = load_bundle(b"lambda,acc,sre\\n0.1,0.9,0.05\\n0.5,0.8,0.2\\n", name="sweep.csv")
    >>> b.kind, b.param_names, b.settings[1].metrics
    ('csv', ('lambda',), {'acc': 0.8, 'sre': 0.2})
    """
    limits = limits or BundleLimits()
    data, label, directory = _read_source(src, name, limits.max_total_bytes)
    if directory is not None:
        bundle = _load_dir(directory, label, limits)
    else:
        kind = _kind(data, label)
        if kind == "zip":
            bundle = _load_zip(data, label, limits)
        elif kind == "mat":
            bundle = _load_mat(data, label, limits)
        else:
            return _load_results_csv(data, label, limits)
    _check_sizes(bundle, n_samples)
    return bundle


# --------------------------------------------------------------------------------------------
# Manifest-based bundles (zip, folder)
# --------------------------------------------------------------------------------------------


def _read_csv_bytes(data: bytes, label: str) -> Any:
    import pandas as pd

    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise ClustlensInputError("is not UTF-8 text", source=label) from None
    sep = "\t" if label.lower().endswith(".tsv") else None
    try:
        frame = pd.read_csv(
            _io.StringIO(text), sep=sep, engine="python", dtype=str, keep_default_na=False
        )
    except Exception as exc:  # pandas raises several types for malformed text
        raise ClustlensInputError(f"cannot be read as CSV ({exc})", source=label) from None
    frame.columns = [str(c).strip() for c in frame.columns]
    return frame


def _param_value(text: str) -> Any:
    t = str(text).strip()
    try:
        f = float(t)
    except ValueError:
        return t
    if not np.isfinite(f):
        raise ValueError(f"{t!r} is not a finite number")
    return int(f) if f == int(f) and "." not in t and "e" not in t.lower() else f


def _manifest_rows(frame: Any, label: str, limits: BundleLimits) -> tuple[list, list, tuple]:
    cols = list(frame.columns)
    if "file" not in cols:
        raise ClustlensInputError(
            f"the manifest has no 'file' column (columns: {', '.join(cols) or 'none'})",
            source=label,
        )
    if len(frame) > limits.max_settings:
        raise ClustlensInputError(
            f"the manifest lists {len(frame)} settings, more than {limits.max_settings}",
            source=label,
        )
    dup = [c for c, n in Counter(cols).items() if n > 1]
    if dup:
        raise ClustlensInputError(f"the manifest repeats column {dup[0]!r}", source=label)
    param_names = tuple(c for c in cols if c not in _RESERVED)
    rows, errors = [], []
    for r, rec in enumerate(frame.to_dict("records"), start=2):  # line 1 is the header
        entry = str(rec.get("file", "")).strip() or f"{MANIFEST} line {r}"
        try:
            if not str(rec.get("file", "")).strip():
                raise ValueError("the 'file' cell is empty")
            params = {}
            for p in param_names:
                cell = str(rec.get(p, "")).strip()
                if cell == "":
                    raise ValueError(f"no value for parameter {p!r}")
                params[p] = _param_value(cell)
            pred = str(rec.get("pred", "")).strip() or None
            rows.append((r, entry, params, pred))
        except ValueError as exc:
            errors.append(_entry_error(label, entry, f"{MANIFEST} line {r}: {exc}"))
    return rows, errors, param_names


def _load_member(reader: Any, member: str, what: str, label: str, entry: str) -> Any:
    from metrics_core import io as cio

    data = reader(member)
    base = posixpath.basename(member)
    try:
        if what == "coef":
            return cio.load_coef(data, name=base).matrix
        return cio.load_labels(data, name=base).labels
    except ClustlensInputError as exc:
        where = f" (at {exc.where})" if exc.where else ""
        raise _entry_error(label, entry, f"{what} file {member!r}: {exc.reason}{where}") from None


def _from_manifest(
    manifest: bytes, reader: Any, exists: Any, base: str, label: str, limits: BundleLimits
) -> Bundle:
    frame = _read_csv_bytes(manifest, f"{label}: {MANIFEST}")
    rows, errors, param_names = _manifest_rows(frame, f"{label}: {MANIFEST}", limits)
    settings: list[BundleSetting] = []
    for r, entry, params, pred_name in rows:
        try:
            member = posixpath.normpath(posixpath.join(base, entry)) if base else entry
            if not _safe_member_name(entry) or not _safe_member_name(member):
                raise _entry_error(label, entry, f"{MANIFEST} line {r}: unsafe file name")
            if not exists(member):
                raise _entry_error(label, entry, f"{MANIFEST} line {r}: no such file in the bundle")
            coef = _load_member(reader, member, "coef", label, entry)
            pred = None
            if pred_name is not None:
                pmember = posixpath.normpath(posixpath.join(base, pred_name)) if base else pred_name
                if not _safe_member_name(pred_name) or not exists(pmember):
                    raise _entry_error(
                        label,
                        entry,
                        f"{MANIFEST} line {r}: prediction file {pred_name!r} not found",
                    )
                pred = _load_member(reader, pmember, "pred", label, entry)
            settings.append(BundleSetting(entry, params, coef, pred))
        except ClustlensInputError as exc:
            errors.append(exc)
    return Bundle(settings, errors, param_names)


def _load_zip(data: bytes, label: str, limits: BundleLimits) -> Bundle:
    try:
        zf = zipfile.ZipFile(_io.BytesIO(data))
    except (zipfile.BadZipFile, OSError) as exc:
        raise ClustlensInputError(f"is not a readable zip archive ({exc})", source=label) from None
    with zf:
        infos = zf.infolist()
        if len(infos) > limits.max_members:
            raise ClustlensInputError(
                f"holds {len(infos)} members, more than {limits.max_members}", source=label
            )
        total = 0
        members: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            if info.is_dir():
                continue
            if not _safe_member_name(info.filename):
                raise ClustlensInputError(
                    "has an unsafe member name (absolute path, '..' or backslash)",
                    source=label,
                    where=repr(info.filename),
                )
            if info.flag_bits & 0x1:
                raise ClustlensInputError(
                    "has an encrypted member", source=label, where=info.filename
                )
            if info.file_size > limits.max_member_bytes:
                raise ClustlensInputError(
                    f"member declares {info.file_size} bytes, more than {limits.max_member_bytes}",
                    source=label,
                    where=info.filename,
                )
            if info.file_size > 2**20 and info.file_size > limits.max_ratio * max(
                info.compress_size, 1
            ):
                raise ClustlensInputError(
                    "member inflates more than any matrix file would (a zip bomb?)",
                    source=label,
                    where=info.filename,
                )
            total += info.file_size
            members[info.filename] = info
        if total > limits.max_total_bytes:
            raise ClustlensInputError(
                f"members declare {total} bytes in total, more than {limits.max_total_bytes}",
                source=label,
            )
        manifests = [m for m in members if posixpath.basename(m) == MANIFEST]
        top = [m for m in manifests if "/" not in m]
        if top:
            manifest = top[0]
        elif len(manifests) == 1 and manifests[0].count("/") == 1:
            manifest = manifests[0]
        else:
            raise ClustlensInputError(
                f"has no {MANIFEST} at its top level (or in its single top folder)", source=label
            )
        base = posixpath.dirname(manifest)

        def reader(member: str) -> bytes:
            info = members[member]
            try:
                with zf.open(info) as fh:
                    # Never trust the declared size: read one byte more and compare.
                    blob = fh.read(info.file_size + 1)
            except (zipfile.BadZipFile, OSError, EOFError, NotImplementedError) as exc:
                raise _entry_error(label, member, f"cannot be read from the zip ({exc})") from None
            if len(blob) != info.file_size:
                raise _entry_error(label, member, "is larger than its declared size")
            return blob

        bundle = _from_manifest(reader(manifest), reader, members.__contains__, base, label, limits)
    bundle.kind, bundle.source = "zip", label
    return bundle


def _load_dir(directory: Path, label: str, limits: BundleLimits) -> Bundle:
    mpath = directory / MANIFEST
    if not mpath.is_file():
        raise ClustlensInputError(f"folder has no {MANIFEST}", source=label)
    root = directory.resolve()

    def resolve(member: str) -> Path:
        return (root / member).resolve()

    def exists(member: str) -> bool:
        p = resolve(member)
        return p.is_file() and root in p.parents

    def reader(member: str) -> bytes:
        p = resolve(member)
        if p.stat().st_size > limits.max_member_bytes:
            raise _entry_error(label, member, f"is larger than {limits.max_member_bytes} bytes")
        return p.read_bytes()

    bundle = _from_manifest(mpath.read_bytes(), reader, exists, "", label, limits)
    bundle.kind, bundle.source = "dir", label
    return bundle


# --------------------------------------------------------------------------------------------
# .mat bundles
# --------------------------------------------------------------------------------------------


def _load_mat(data: bytes, label: str, limits: BundleLimits) -> Bundle:
    from metrics_core.io._common import DEFAULT_LIMITS, Source
    from metrics_core.io._mat import Mat5File

    if data[:8] == b"\x89HDF\r\n\x1a\n" or data[512:520] == b"\x89HDF\r\n\x1a\n":
        raise ClustlensInputError(
            "MATLAB v7.3 (HDF5) sweep bundles are not supported yet; save with "
            "save(..., '-v7') or upload a .zip of matrices",
            source=label,
        )
    source = Source(data, label)
    with Mat5File(source, DEFAULT_LIMITS) as mat:
        infos = mat.variables()
        cells = [v for v in infos if v.dtype == "cell"]
        pred_cells = [v for v in cells if v.name.lower() in _PRED_CELL_NAMES]
        coef_cells = [v for v in cells if v not in pred_cells]
        if len(coef_cells) != 1:
            found = ", ".join(v.name for v in coef_cells) or "none"
            raise ClustlensInputError(
                f"expected exactly one cell array of coefficient matrices, found: {found}",
                source=label,
            )
        cinfo = coef_cells[0]
        shape = tuple(int(d) for d in cinfo.shape)
        n_cells = int(np.prod(shape))
        if n_cells > limits.max_settings:
            raise ClustlensInputError(
                f"cell array {cinfo.name!r} has {n_cells} cells, more than {limits.max_settings}",
                source=label,
            )
        vectors = [
            v
            for v in infos
            if v.dtype not in ("cell", "char", "struct")
            and not v.sparse
            and len(v.shape) == 2
            and min(v.shape) == 1
            and v.name != cinfo.name
        ]
        grid_dims = [d for d in shape if d > 1]
        errors: list[ClustlensInputError] = []
        if len(grid_dims) <= 1:
            vecs = [v for v in vectors if max(v.shape) == n_cells]
            if not vecs:
                raise ClustlensInputError(
                    f"no parameter vector with one value per cell ({n_cells}) of {cinfo.name!r}",
                    source=label,
                )
            pvals = {v.name: np.asarray(mat.read(v.name), dtype=float).ravel() for v in vecs}
            combos = [{p: _num(vals[i]) for p, vals in pvals.items()} for i in range(n_cells)]
        elif len(grid_dims) == 2:
            n1, n2 = shape
            v1 = [v for v in vectors if max(v.shape) == n1]
            v2 = [v for v in vectors if max(v.shape) == n2 and v not in v1[:1]]
            if not v1 or not v2:
                raise ClustlensInputError(
                    f"a {n1} x {n2} cell array needs two parameter vectors, of lengths {n1} "
                    f"and {n2}",
                    source=label,
                )
            a, b = v1[0], v2[0]
            va = np.asarray(mat.read(a.name), dtype=float).ravel()
            vb = np.asarray(mat.read(b.name), dtype=float).ravel()
            pvals = {a.name: va, b.name: vb}
            # MATLAB linear order is column-major: cell (r, c) is element r + c * n1.
            combos = [
                {a.name: _num(va[r]), b.name: _num(vb[c])} for c in range(n2) for r in range(n1)
            ]
        else:
            raise ClustlensInputError(
                f"cell array {cinfo.name!r} has shape {shape}; at most two parameters",
                source=label,
            )
        cell_arr = mat.read(cinfo.name)
        flat = np.asarray(cell_arr, dtype=object).ravel(order="F")
        preds = None
        if pred_cells:
            preds = np.asarray(mat.read(pred_cells[0].name), dtype=object).ravel(order="F")
    settings: list[BundleSetting] = []
    for i in range(n_cells):
        entry = f"{cinfo.name}{{{i + 1}}}"
        try:
            coef = _cell_matrix(flat[i], label, entry)
            pred = None
            if preds is not None and i < preds.size and np.asarray(preds[i]).size:
                pred = np.asarray(preds[i]).ravel()
                from metrics_core.validation._labels import check_labels

                pred = check_labels(pred, f"{label}: {entry} predictions")
            settings.append(BundleSetting(entry, combos[i], coef, pred))
        except ClustlensInputError as exc:
            errors.append(exc)
    return Bundle(settings, errors, tuple(pvals), "mat", label)


def _num(v: float) -> Any:
    return int(v) if float(v).is_integer() and abs(v) < 2**53 else float(v)


def _cell_matrix(value: Any, label: str, entry: str) -> Any:
    if sp.issparse(value):
        try:
            value.check_format(full_check=True)  # scipy built it from file indices unchecked
        except (ValueError, TypeError) as exc:
            raise _entry_error(label, entry, f"damaged sparse matrix ({exc})") from None
        m = sp.csr_array(value, dtype=np.float64)
        if not np.all(np.isfinite(m.data)):
            raise _entry_error(label, entry, "contains NaN or inf")
    else:
        arr = np.asarray(value)
        if arr.dtype.kind not in "biuf":
            raise _entry_error(label, entry, f"is not a numeric matrix ({arr.dtype})")
        m = np.ascontiguousarray(arr, dtype=np.float64)
        if m.ndim != 2:
            raise _entry_error(label, entry, f"is not a matrix (shape {m.shape})")
        if not np.all(np.isfinite(m)):
            raise _entry_error(label, entry, "contains NaN or inf")
    if m.shape[0] != m.shape[1] or m.shape[0] == 0:
        raise _entry_error(label, entry, f"is not a square N x N matrix (shape {m.shape})")
    return m


# --------------------------------------------------------------------------------------------
# Results-only CSV
# --------------------------------------------------------------------------------------------


def _metric_keys() -> set[str]:
    from metrics_core import METRICS_BY_KEY

    # outcomes of a run that are not parameters (the multi-view protocol writes the last two)
    extra = {"sparsity", "seconds", "seconds_fit", "seconds_cluster", "entry", "setting"}
    extra |= {"n_components", "n_iter"}
    return extra | set(METRICS_BY_KEY)


def _load_results_csv(data: bytes, label: str, limits: BundleLimits) -> Bundle:
    frame = _read_csv_bytes(data, label)
    if len(frame) > limits.max_settings:
        raise ClustlensInputError(
            f"has {len(frame)} rows, more than {limits.max_settings}", source=label
        )
    known = _metric_keys()
    cols = list(frame.columns)
    metric_cols = [c for c in cols if c in known and c not in ("entry", "setting")]
    param_cols = [c for c in cols if c not in known]
    if not metric_cols:
        raise ClustlensInputError(
            "a results-only CSV needs metric columns (e.g. acc, nmi, sre, conn_min); found "
            f"only: {', '.join(cols) or 'nothing'}",
            source=label,
        )
    settings, errors = [], []
    for r, rec in enumerate(frame.to_dict("records"), start=2):
        entry = f"row {r}"
        try:
            params = {}
            for p in param_cols:
                cell = str(rec.get(p, "")).strip()
                if cell == "":
                    raise ValueError(f"no value for parameter {p!r}")
                params[p] = _param_value(cell)
            metrics = {}
            for m in metric_cols:
                cell = str(rec.get(m, "")).strip()
                try:
                    metrics[m] = float(cell) if cell else float("nan")
                except ValueError:
                    raise ValueError(f"metric {m!r} is not a number: {cell!r}") from None
            settings.append(BundleSetting(entry, params, None, None, metrics))
        except ValueError as exc:
            errors.append(_entry_error(label, entry, str(exc)))
    return Bundle(settings, errors, tuple(param_cols), "csv", label)


# --------------------------------------------------------------------------------------------


def _check_sizes(bundle: Bundle, n_samples: int | None) -> None:
    sizes = [s.coef.shape[0] for s in bundle.settings if s.coef is not None]
    if not sizes:
        return
    ref = int(n_samples) if n_samples is not None else Counter(sizes).most_common(1)[0][0]
    why = "the labels have" if n_samples is not None else "the bundle's other settings are"
    keep = []
    for s in bundle.settings:
        n = s.coef.shape[0]
        if n != ref:
            bundle.errors.append(
                _entry_error(bundle.source, s.name, f"matrix is {n} x {n} but {why} N = {ref}")
            )
        elif s.pred is not None and s.pred.shape[0] != ref:
            bundle.errors.append(
                _entry_error(
                    bundle.source, s.name, f"has {s.pred.shape[0]} predictions for N = {ref} points"
                )
            )
        else:
            keep.append(s)
    bundle.settings = keep


__all__ = ["Bundle", "BundleLimits", "BundleSetting", "load_bundle"]
