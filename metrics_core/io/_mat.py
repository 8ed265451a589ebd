"""MATLAB MAT-file readers: v5/v7 through scipy.io, v7.3 (HDF5) through h5py, hard links only.

Both readers list variables from headers alone and check each variable's declared size before
its data is read. The v7.3 reader refuses anything that could make HDF5 read another file on
the machine: external and soft links, external raw storage, virtual datasets.
"""

from __future__ import annotations

import struct
import warnings
import zlib
from typing import Any

import numpy as np
import scipy.sparse as sp

from metrics_core.io._common import (
    IOLimits,
    Source,
    VariableInfo,
    check_declared_bytes,
    prod,
)
from metrics_core.io._sparse import build_csr
from metrics_core.validation._errors import ClustlensInputError

_ITEMSIZE = {
    "double": 8,
    "single": 4,
    "int8": 1,
    "uint8": 1,
    "int16": 2,
    "uint16": 2,
    "int32": 4,
    "uint32": 4,
    "int64": 8,
    "uint64": 8,
    "logical": 1,
    "char": 4,  # read back as numpy unicode (4 bytes a character)
}
NUMERIC_CLASSES = frozenset(_ITEMSIZE) - {"char"}
_MI_COMPRESSED = 15
_MI_MATRIX = 14
# miINT8..miSINGLE (1-7), miDOUBLE (9), miINT64/miUINT64, miMATRIX, miUTF8/16/32 (8/10/11: reserved)
_MI_VALID = frozenset({1, 2, 3, 4, 5, 6, 7, 9, 12, 13, 14, 16, 17, 18})
_MAX_DEPTH = 32
_CHUNK = 1 << 20


class _Bad(Exception):
    """A structural problem found while walking a MAT-file variable."""


class _Inflated(Exception):
    """A compressed variable inflated past the limit."""


class _RawStream:
    def __init__(self, fh: Any, nbytes: int):
        self.fh = fh
        self.left = nbytes

    def read(self, n: int) -> bytes:
        data = self.fh.read(n) if n <= self.left else b""
        if len(data) != n:
            raise _Bad("an element runs past the end of its variable")
        self.left -= n
        return data

    def skip(self, n: int) -> None:
        if n > self.left:
            raise _Bad("an element runs past the end of its variable")
        self.fh.seek(n, 1)
        self.left -= n


class _ZlibStream:
    """Inflate a compressed element on the fly, never holding more than a chunk of it."""

    def __init__(self, fh: Any, nbytes: int, limit: int):
        self.fh = fh
        self.left_in = nbytes
        self.dec = zlib.decompressobj()
        self.buf = b""
        self.total = 0
        self.limit = limit

    def _fill(self, need: int) -> None:
        while len(self.buf) < need:
            if self.dec.unconsumed_tail:
                data = self.dec.unconsumed_tail
            else:
                if self.left_in <= 0:
                    raise _Bad("compressed data ends inside an element")
                data = self.fh.read(min(_CHUNK, self.left_in))
                if not data:
                    raise _Bad("compressed data is truncated")
                self.left_in -= len(data)
            out = self.dec.decompress(data, _CHUNK)
            self.total += len(out)
            if self.total > self.limit:
                raise _Inflated
            if not out and self.dec.eof:
                raise _Bad("compressed data ends inside an element")
            self.buf += out

    def read(self, n: int) -> bytes:
        self._fill(n)
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def skip(self, n: int) -> None:
        while n > 0:
            step = min(n, _CHUNK)
            self._fill(step)
            self.buf = self.buf[step:]
            n -= step


def _walk_matrix(stream: Any, nbytes: int, endian: str, depth: int) -> None:
    """Check the sub-element tags of one miMATRIX element of ``nbytes`` bytes."""
    if depth > _MAX_DEPTH:
        raise _Bad("cells or structs are nested too deeply")
    left = nbytes
    while left > 0:
        if left < 8:
            raise _Bad("a matrix element ends with a partial tag")
        first, count = struct.unpack(endian + "II", stream.read(8))
        left -= 8
        small = first >> 16
        if small:  # small data element: type and size packed in the tag, data in its 4 bytes
            if small > 4 or (first & 0xFFFF) not in _MI_VALID - {_MI_MATRIX}:
                raise _Bad(f"invalid small element tag (type {first & 0xFFFF}, size {small})")
            continue
        if first not in _MI_VALID:
            raise _Bad(f"unknown element type {first}")
        if count > left:
            raise _Bad(f"an element declares {count} bytes but only {left} remain")
        if first == _MI_MATRIX:
            _walk_matrix(stream, count, endian, depth + 1)
            left -= count
            continue
        padded = min(count + (-count % 8), left)
        stream.skip(padded)
        left -= padded


def _wrap(source: Source, exc: BaseException, where: str | None, what: str) -> Exception:
    if isinstance(exc, MemoryError):
        return source.fail(f"not enough memory to read {what}", where)
    return source.fail(f"cannot read {what}: the file is damaged or not supported ({exc})", where)


# --------------------------------------------------------------------------------------------
# MATLAB v5 / v7 (scipy.io)
# --------------------------------------------------------------------------------------------


class Mat5File:
    """A v5/v7 MAT-file: variable headers listed up front, one variable read on demand."""

    def __init__(self, source: Source, limits: IOLimits):
        from scipy.io.matlab._mio5 import MatFile5Reader

        self.source = source
        self.limits = limits
        self.fh = source.open()
        self.entries: dict[str, tuple[int, VariableInfo]] = {}
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.reader = MatFile5Reader(
                    self.fh,
                    squeeze_me=False,
                    chars_as_strings=True,
                    struct_as_record=True,
                    verify_compressed_data_integrity=True,
                )
                self.endian = "<" if self.reader.byte_order in ("<", "little") else ">"
                self.reader.initialize_read()
                self.reader.read_file_header()
                while not self.reader.end_of_stream():
                    start = self.fh.tell()
                    hdr, next_pos = self.reader.read_var_header()
                    info = self._info(hdr)
                    if info.name and info.name not in self.entries:
                        self.entries[info.name] = (start, info)
                    if next_pos <= start or next_pos > source.size:
                        raise ValueError(f"variable {info.name!r} runs past the end of the file")
                    self.fh.seek(next_pos)
        except Exception as exc:
            self.fh.close()
            if isinstance(exc, ClustlensInputError):
                raise
            raise _wrap(source, exc, None, "the MAT-file") from None

    def _info(self, hdr: Any) -> VariableInfo:
        from scipy.io.matlab._mio5_params import mclass_info

        name = (hdr.name or b"").decode("latin1")
        cls = "logical" if hdr.is_logical else mclass_info.get(hdr.mclass, "unknown")
        shape = tuple(int(d) for d in hdr.dims)
        if cls == "sparse":
            return VariableInfo(name, shape, "double", True, int(hdr.nzmax))
        if getattr(hdr, "is_complex", False) and cls in NUMERIC_CLASSES:
            cls = f"complex {cls}"
        return VariableInfo(name, shape, cls)

    def close(self) -> None:
        self.fh.close()

    def __enter__(self) -> Mat5File:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def variables(self) -> list[VariableInfo]:
        return [info for _, info in self.entries.values()]

    def declared_bytes(self, info: VariableInfo) -> int | None:
        if info.sparse:
            ncols = info.shape[1] if len(info.shape) > 1 else 1
            return int(info.nnz or 0) * 16 + (ncols + 1) * 8
        cls = info.dtype.removeprefix("complex ")
        if cls in _ITEMSIZE:
            factor = 2 if info.dtype.startswith("complex") else 1
            return prod(info.shape) * _ITEMSIZE[cls] * factor
        return None  # cell/struct: bounded by the decompression check instead

    def _check_structure(self, start: int, where: str) -> None:
        """Walk every element tag of one variable before scipy reads it.

        scipy's compiled MAT-file reader indexes a table with the element type found in the file
        and trusts byte counts: a flipped byte can make it read out of bounds and crash the
        process. So every tag is checked here first (known type, byte count inside its parent),
        and a compressed variable is inflated as a stream with a ceiling (a zlib bomb stops
        here, before any array is allocated).
        """
        self.fh.seek(start)
        tag = self.fh.read(8)
        if len(tag) < 8:
            raise self.source.fail("variable header is truncated", where)
        mdtype, nbytes = struct.unpack(self.endian + "II", tag)
        limit = self.limits.max_array_bytes + _CHUNK
        try:
            if mdtype == _MI_COMPRESSED:
                stream: _RawStream | _ZlibStream = _ZlibStream(self.fh, nbytes, limit)
                mdtype, nbytes = struct.unpack(self.endian + "II", stream.read(8))
            else:
                stream = _RawStream(self.fh, nbytes)
            if mdtype != _MI_MATRIX:
                raise _Bad(f"expected a matrix element, found element type {mdtype}")
            _walk_matrix(stream, nbytes, self.endian, 0)
        except _Bad as exc:
            raise self.source.fail(
                f"the MAT-file is damaged or crafted: {exc}; refusing to parse it", where
            ) from None
        except _Inflated:
            raise self.source.fail(
                f"the compressed variable inflates to more than {limit} bytes, more than any "
                "array allowed here (a zip bomb?)",
                where,
            ) from None
        except zlib.error as exc:
            raise self.source.fail(f"compressed variable is damaged ({exc})", where) from None

    def read(self, name: str) -> Any:
        start, info = self.entries[name]
        where = f"variable {name!r}"
        declared = self.declared_bytes(info)
        if declared is not None:
            check_declared_bytes(self.source, declared, "the variable", self.limits, where)
        self._check_structure(start, where)
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                self.fh.seek(start)
                hdr, _ = self.reader.read_var_header()
                value = self.reader.read_var_array(hdr, process=True)
        except Exception as exc:
            raise _wrap(self.source, exc, where, "the variable") from None
        if sp.issparse(value):
            # scipy has built the matrix from the file's ir/jc without checking them: validate
            # the raw components before any scipy routine touches them.
            csc = value
            return build_csr(
                csc.data,
                csc.indices,
                csc.indptr,
                csc.shape,
                fmt="csc",
                source=self.source.name,
                where=where,
            )
        return value


# --------------------------------------------------------------------------------------------
# MATLAB v7.3 / HDF5 (h5py)
# --------------------------------------------------------------------------------------------


class Hdf5File:
    """An HDF5 file (MATLAB v7.3 or plain) walked through hard links only.

    Datasets carrying a ``MATLAB_class`` attribute are transposed to MATLAB's orientation
    (MATLAB writes column-major arrays, so an M x N variable is stored as N x M); plain HDF5
    datasets are returned as stored.
    """

    def __init__(self, source: Source, limits: IOLimits):
        import h5py

        self.h5py = h5py
        self.source = source
        self.limits = limits
        self._fh = source.open() if source.data is not None else None
        try:
            self.f = h5py.File(
                self._fh if self._fh is not None else source.path, "r", locking=False
            )
        except Exception as exc:
            if self._fh is not None:
                self._fh.close()
            raise _wrap(source, exc, None, "the HDF5 / MATLAB v7.3 file") from None
        self.entries: dict[str, tuple[Any, VariableInfo]] = {}
        try:
            for name in list(self.f.keys()):
                if name.startswith("#"):  # MATLAB's #refs# and #subsystem# hold no variables
                    continue
                obj = self._follow(self.f, name, f"variable {name!r}")
                info = self._info(name, obj)
                if info is not None:
                    self.entries[name] = (obj, info)
        except Exception as exc:
            self.close()
            if isinstance(exc, ClustlensInputError):
                raise
            raise _wrap(source, exc, None, "the HDF5 / MATLAB v7.3 file") from None

    def close(self) -> None:
        try:
            self.f.close()
        finally:
            if self._fh is not None:
                self._fh.close()

    def __enter__(self) -> Hdf5File:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- safety ---------------------------------------------------------------------------
    def _follow(self, group: Any, name: str, where: str) -> Any:
        h5py = self.h5py
        link = group.get(name, getlink=True)
        if isinstance(link, h5py.ExternalLink):
            raise self.source.fail(
                f"is an external link to {link.filename!r} (object {link.path!r}); links to "
                "other files are refused because they would read files on this machine",
                where,
            )
        if isinstance(link, h5py.SoftLink):
            raise self.source.fail(
                f"is a soft link to {link.path!r}; only hard links are followed", where
            )
        if not isinstance(link, h5py.HardLink):
            raise self.source.fail(
                "is a user-defined HDF5 link; only hard links are followed", where
            )
        obj = group[name]
        if isinstance(obj, h5py.Dataset):
            self._check_dataset(obj, where)
        return obj

    def _check_dataset(self, ds: Any, where: str) -> None:
        if ds.is_virtual:
            raise self.source.fail(
                "is a virtual dataset (its data lives in other files); refused", where
            )
        if ds.external:
            files = ", ".join(repr(e[0]) for e in ds.external)
            raise self.source.fail(
                f"stores its data in external files ({files}); refused because it would read "
                "files on this machine",
                where,
            )

    def _attr(self, obj: Any, key: str) -> Any:
        if key not in obj.attrs:
            return None
        aid = obj.attrs.get_id(key)
        if aid.get_storage_size() > 65_536:
            raise self.source.fail(f"attribute {key!r} is implausibly large", obj.name)
        value = obj.attrs[key]
        if isinstance(value, np.ndarray) and value.size == 1:
            value = value.reshape(()).item()
        if isinstance(value, (bytes, np.bytes_)):
            value = value.decode("latin1")
        return value

    # -- headers --------------------------------------------------------------------------
    def _info(self, name: str, obj: Any) -> VariableInfo | None:
        h5py = self.h5py
        if isinstance(obj, h5py.Group):
            mcls = self._attr(obj, "MATLAB_class")
            nrows = self._attr(obj, "MATLAB_sparse")
            if nrows is None:
                return VariableInfo(name, (), str(mcls or "group"))
            jc = self._follow(obj, "jc", f"variable {name!r}/jc") if _has(obj, "jc") else None
            if jc is None or len(jc.shape) != 1 or jc.shape[0] < 1:
                raise self.source.fail(
                    "sparse variable lacks a 1-D 'jc' (column pointer) dataset",
                    f"variable {name!r}",
                )
            nnz = 0
            if _has(obj, "data"):
                nnz = prod(self._follow(obj, "data", f"variable {name!r}/data").shape)
            return VariableInfo(
                name, (int(nrows), jc.shape[0] - 1), str(mcls or "double"), True, nnz
            )
        if not isinstance(obj, h5py.Dataset):
            return None  # a committed datatype
        mcls = self._attr(obj, "MATLAB_class")
        shape = tuple(int(d) for d in obj.shape)
        if mcls is not None:
            shape = shape[::-1]
            if self._attr(obj, "MATLAB_empty"):
                shape = (0,) * max(len(shape), 2)
            dtype = str(mcls)
            if obj.dtype.names and {"real", "imag"} <= set(obj.dtype.names):
                dtype = f"complex {dtype}"
        else:
            dtype = "reference" if h5py.check_dtype(ref=obj.dtype) else obj.dtype.name
        return VariableInfo(name, shape, dtype)

    def variables(self) -> list[VariableInfo]:
        return [info for _, info in self.entries.values()]

    # -- data -----------------------------------------------------------------------------
    def read(self, name: str, *, strings: bool = False) -> Any:
        obj, info = self.entries[name]
        where = f"variable {name!r}"
        try:
            if info.sparse:
                return self._read_sparse(obj, info, where)
            if info.dtype == "cell" or info.dtype == "reference":
                if not strings:
                    raise self.source.fail(
                        "is a cell array; only labels may be a cell array of strings", where
                    )
                return self._read_cellstr(obj, where)
            if info.dtype in ("struct", "group") or isinstance(obj, self.h5py.Group):
                raise self.source.fail(f"is a {info.dtype}, not an array", where)
            if obj.dtype.names:
                raise self.source.fail(
                    "holds complex or compound values; a real numeric array is needed", where
                )
            if obj.dtype.kind not in "biufS":
                raise self.source.fail(f"has unsupported HDF5 type {obj.dtype}", where)
            if prod(info.shape) == 0:
                return np.zeros(info.shape)
            nbytes = prod(obj.shape) * obj.dtype.itemsize
            check_declared_bytes(self.source, nbytes, "the variable", self.limits, where)
            arr = np.asarray(obj[()])
            if self._attr(obj, "MATLAB_class") is not None:
                arr = arr.T
                if info.dtype == "char":
                    return _char_rows(arr)
                if info.dtype == "logical":
                    arr = arr.astype(bool)
            return arr
        except Exception as exc:
            if isinstance(exc, ClustlensInputError):
                raise
            raise _wrap(self.source, exc, where, "the variable") from None

    def _read_sparse(self, group: Any, info: VariableInfo, where: str) -> sp.csr_array:
        nrows, ncols = info.shape
        nnz = int(info.nnz or 0)
        check_declared_bytes(
            self.source, nnz * 16 + (ncols + 1) * 8, "the sparse variable", self.limits, where
        )
        parts = {}
        for key in ("jc", "ir", "data"):
            if _has(group, key):
                ds = self._follow(group, key, f"{where}/{key}")
                if not isinstance(ds, self.h5py.Dataset):
                    raise self.source.fail(f"sparse member {key!r} is not a dataset", where)
                if ds.dtype.names:
                    raise self.source.fail(
                        "holds complex values; a coefficient matrix must be real", where
                    )
                size = prod(ds.shape) * ds.dtype.itemsize
                check_declared_bytes(
                    self.source, size, f"sparse member {key!r}", self.limits, where
                )
                parts[key] = np.asarray(ds[()]).reshape(-1)
        jc = parts["jc"]
        if "ir" not in parts or "data" not in parts:
            if jc.size and np.any(jc != 0):
                raise self.source.fail("sparse variable lacks its 'ir' or 'data' dataset", where)
            parts["ir"] = np.zeros(0, np.int64)
            parts["data"] = np.zeros(0)
        return build_csr(
            parts["data"],
            parts["ir"],
            jc,
            (nrows, ncols),
            fmt="csc",
            source=self.source.name,
            where=where,
        )

    def _read_cellstr(self, ds: Any, where: str) -> np.ndarray:
        n = prod(ds.shape)
        if n > self.limits.max_cell_elements:
            raise self.source.fail(
                f"cell array has {n} elements, more than the limit of "
                f"{self.limits.max_cell_elements}",
                where,
            )
        refs = np.asarray(ds[()]).T.reshape(-1)
        out: list[Any] = []
        for i, ref in enumerate(refs):
            cw = f"{where}, cell {i + 1}"
            if not ref:
                raise self.source.fail("cell element is a null reference", cw)
            obj = self.f[ref]  # an in-file object address, never a link
            if not isinstance(obj, self.h5py.Dataset):
                raise self.source.fail("cell element is not an array", cw)
            self._check_dataset(obj, cw)
            if prod(obj.shape) > 1_000_000:
                raise self.source.fail("cell element is too large for a label", cw)
            cls = self._attr(obj, "MATLAB_class")
            if self._attr(obj, "MATLAB_empty"):
                raise self.source.fail("missing label (empty cell element)", cw)
            value = np.asarray(obj[()])
            if cls == "char":
                out.append("".join(chr(c) for c in value.T.reshape(-1)))
            elif value.size == 1 and value.dtype.kind in "biuf":
                out.append(value.reshape(()).item())
            else:
                raise self.source.fail("cell element is neither a string nor a single number", cw)
        return np.array(out, dtype=object)


def _has(group: Any, key: str) -> bool:
    """Whether ``group`` has a link ``key``, without resolving it (``in`` would follow it)."""
    return bool(group.id.links.exists(key.encode()))


def _char_rows(arr: np.ndarray) -> np.ndarray:
    """MATLAB char matrix (uint16 codes, M x L) -> M strings."""
    arr = np.atleast_2d(arr)
    return np.array(["".join(chr(c) for c in row).rstrip() for row in arr], dtype=object)


def cell_to_labels(value: np.ndarray, source: Source, where: str) -> np.ndarray:
    """A scipy.io cell array (object array of small arrays) -> object array of str/number."""
    flat = value.reshape(-1, order="F")
    out: list[Any] = []
    for i, elem in enumerate(flat):
        cw = f"{where}, cell {i + 1}"
        e = np.asarray(elem)
        if e.dtype.kind == "U":
            if e.size != 1:
                raise source.fail(
                    "missing label (empty cell element)"
                    if e.size == 0
                    else "cell element holds several strings",
                    cw,
                )
            out.append(str(e.reshape(()).item()))
        elif e.dtype.kind in "biuf" and e.size == 1:
            out.append(e.reshape(()).item())
        elif e.size == 0:
            raise source.fail("missing label (empty cell element)", cw)
        else:
            raise source.fail("cell element is neither a string nor a single number", cw)
    return np.array(out, dtype=object)
