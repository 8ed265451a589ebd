"""NumPy .npy and .npz readers that never unpickle and check declared sizes before reading."""

from __future__ import annotations

import zipfile
import zlib
from typing import BinaryIO

import numpy as np
import numpy.lib.format as npformat
import scipy.sparse as sp

from metrics_core.io._common import (
    IOLimits,
    Source,
    VariableInfo,
    check_declared_bytes,
    prod,
)
from metrics_core.io._sparse import build_csr, build_csr_from_coo
from metrics_core.validation._errors import ClustlensInputError

# Header of one .npy member: at most numpy's own 10 KB header limit plus the magic.
_HEADER_SLACK = 65_536
SPARSE_NAME = "matrix"
_ZIP_ERRORS = (
    zipfile.BadZipFile,
    zlib.error,
    OSError,
    EOFError,
    RuntimeError,
    ValueError,
)  # how a scipy.sparse.save_npz file's single matrix is listed


def dtype_label(dt: np.dtype) -> str:
    if dt.hasobject:
        return "object"
    if dt.kind in "US":
        return "str"
    return dt.name


def read_npy_header(
    fh: BinaryIO, source: Source, where: str | None = None
) -> tuple[tuple[int, ...], bool, np.dtype]:
    """Read an .npy header (shape, fortran_order, dtype) without touching the data."""
    try:
        version = npformat.read_magic(fh)
        if version == (1, 0):
            shape, fortran, dtype = npformat.read_array_header_1_0(fh)
        elif version == (2, 0):
            shape, fortran, dtype = npformat.read_array_header_2_0(fh)
        else:
            raise source.fail(f"unsupported .npy format version {version}", where)
    except ClustlensInputError:
        raise
    except Exception as exc:  # numpy's header parser raises ValueError, SyntaxError, TokenError...
        raise source.fail(
            f"is not a valid .npy file: the header is damaged ({exc})", where
        ) from None
    if any(int(d) < 0 for d in shape):
        raise source.fail(f".npy header declares a negative dimension {shape}", where)
    return tuple(int(d) for d in shape), bool(fortran), dtype


def check_npy_dtype(dtype: np.dtype, source: Source, where: str | None) -> None:
    if dtype.hasobject:
        raise source.fail(
            "holds an object array (pickled Python objects), which is never loaded because "
            "unpickling can run code; save a numeric or string array instead "
            "(e.g. np.save(f, np.asarray(x, dtype=float)))",
            where,
        )
    if dtype.kind not in "biufcUS":
        raise source.fail(f"holds an array of unsupported dtype {dtype}", where)


def read_npy_data(
    fh: BinaryIO,
    header: tuple[tuple[int, ...], bool, np.dtype],
    available: int,
    source: Source,
    limits: IOLimits,
    where: str | None = None,
) -> np.ndarray:
    """Read the data that follows a checked header; ``available`` bytes remain in ``fh``."""
    shape, fortran, dtype = header
    check_npy_dtype(dtype, source, where)
    count = prod(shape)
    nbytes = count * dtype.itemsize
    check_declared_bytes(source, nbytes, "the array", limits, where)
    if nbytes > available:
        raise source.fail(
            f"is truncated: the header declares a {shape} {dtype} array ({nbytes} bytes) "
            f"but only {available} bytes of data follow",
            where,
        )
    buf = bytearray(nbytes)
    got = fh.readinto(buf) if nbytes else 0
    if got != nbytes:
        raise source.fail(f"is truncated: read {got} of {nbytes} bytes of array data", where)
    arr = np.frombuffer(buf, dtype=dtype, count=count)
    return arr.reshape(shape[::-1]).T if fortran else arr.reshape(shape)


def load_npy(source: Source, limits: IOLimits) -> np.ndarray:
    with source.open() as fh:
        header = read_npy_header(fh, source)
        check_npy_dtype(header[2], source, None)
        available = source.size - fh.tell()
        return read_npy_data(fh, header, available, source, limits)


def npy_info(source: Source) -> VariableInfo:
    with source.open() as fh:
        shape, _, dtype = read_npy_header(fh, source)
    return VariableInfo("", shape, dtype_label(dtype))


class NpzArchive:
    """An .npz archive read member by member, each member's header checked before its data."""

    def __init__(self, source: Source, limits: IOLimits):
        self.source = source
        self.limits = limits
        self._fh = source.open()
        try:
            self.zf = zipfile.ZipFile(self._fh)
            infos = self.zf.infolist()
        except (zipfile.BadZipFile, OSError, ValueError, EOFError, NotImplementedError) as exc:
            self._fh.close()
            raise source.fail(f"is not a valid .npz (zip) archive ({exc})") from None
        if len(infos) > limits.max_members:
            self.close()
            raise source.fail(
                f"the archive has {len(infos)} members, more than the limit of "
                f"{limits.max_members}; an .npz of arrays needs only a few"
            )
        total = 0
        self.members: dict[str, zipfile.ZipInfo] = {}
        for info in infos:
            if info.is_dir():
                continue
            where = f"member {info.filename!r}"
            if not info.filename.endswith(".npy"):
                self.close()
                raise source.fail(
                    "the archive holds a member that is not a .npy array; only np.savez / "
                    "scipy.sparse.save_npz archives are read",
                    where,
                )
            if info.flag_bits & 0x1:
                self.close()
                raise source.fail("the archive member is encrypted", where)
            check_declared_bytes(
                source, max(info.file_size - _HEADER_SLACK, 0), "an archive member", limits, where
            )
            total += info.file_size
            self.members[info.filename[: -len(".npy")]] = info
        if total > 2 * limits.max_array_bytes + len(infos) * _HEADER_SLACK:
            self.close()
            raise source.fail(
                f"the archive declares {total} bytes once uncompressed, far more than any "
                "array allowed here (a zip bomb?)"
            )
        self.is_sparse = {"format", "shape", "data"} <= set(self.members)

    def close(self) -> None:
        try:
            self.zf.close()
        finally:
            self._fh.close()

    def __enter__(self) -> NpzArchive:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _open_member(self, name: str) -> BinaryIO:
        try:
            return self.zf.open(self.members[name])
        except (zipfile.BadZipFile, OSError, ValueError, RuntimeError, NotImplementedError) as e:
            raise self.source.fail(
                f"cannot open archive member ({e})", f"member {name!r}"
            ) from None

    def header(self, name: str) -> tuple[tuple[int, ...], bool, np.dtype]:
        try:
            with self._open_member(name) as fh:
                return read_npy_header(fh, self.source, f"member {name!r}")
        except _ZIP_ERRORS as exc:
            raise self.source.fail(
                f"the archive member is damaged ({exc})", f"member {name!r}"
            ) from None

    def read(self, name: str) -> np.ndarray:
        where = f"member {name!r}"
        try:
            with self._open_member(name) as fh:
                header = read_npy_header(fh, self.source, where)
                available = self.members[name].file_size - fh.tell()
                return read_npy_data(fh, header, available, self.source, self.limits, where)
        except _ZIP_ERRORS as exc:
            # zipfile checks the CRC and stream while reading: a damaged member ends here
            raise self.source.fail(f"the archive member is damaged ({exc})", where) from None

    def variables(self) -> list[VariableInfo]:
        if self.is_sparse:
            shape, nnz = self._sparse_shape()
            fmt = self._sparse_format()
            return [VariableInfo(SPARSE_NAME, shape, f"float64 ({fmt})", True, nnz)]
        out = []
        for name in self.members:
            shape, _, dtype = self.header(name)
            out.append(VariableInfo(name, shape, dtype_label(dtype)))
        return out

    def _small(self, name: str, max_items: int = 16) -> np.ndarray:
        shape, _, _ = self.header(name)
        if prod(shape) > max_items:
            raise self.source.fail(
                f"sparse archive member {name!r} should be tiny, declares shape {shape}"
            )
        return self.read(name)

    def _sparse_format(self) -> str:
        fmt = self._small("format")
        try:
            text = fmt.item().decode("ascii") if fmt.dtype.kind == "S" else str(fmt.item())
        except (ValueError, UnicodeDecodeError):
            text = "?"
        if text not in ("csr", "csc", "coo"):
            raise self.source.fail(
                f"sparse format {text!r} is not supported; save it as CSR, CSC or COO "
                "(e.g. scipy.sparse.save_npz(f, m.tocsr()))",
                "member 'format'",
            )
        return text

    def _sparse_shape(self) -> tuple[tuple[int, int], int]:
        shape = self._small("shape")
        if shape.dtype.kind not in "iu" or shape.shape != (2,) or (shape < 0).any():
            raise self.source.fail(
                f"sparse shape must be two non-negative integers, got {shape.tolist()!r}",
                "member 'shape'",
            )
        dshape, _, _ = self.header("data")
        return (int(shape[0]), int(shape[1])), prod(dshape)

    def read_sparse(self) -> sp.csr_array:
        fmt = self._sparse_format()
        shape, _ = self._sparse_shape()
        needed = ("row", "col") if fmt == "coo" else ("indices", "indptr")
        for member in needed:
            if member not in self.members:
                raise self.source.fail(f"sparse {fmt} archive lacks its {member!r} member")
        data = self.read("data")
        if fmt == "coo":
            return build_csr_from_coo(
                data, self.read("row"), self.read("col"), shape, source=self.source.name
            )
        return build_csr(
            data,
            self.read("indices"),
            self.read("indptr"),
            shape,
            fmt=fmt,
            source=self.source.name,
        )
