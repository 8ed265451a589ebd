"""Builders for good, malformed and hostile files, made at test time (no binary fixtures).

Each builder returns ``bytes`` (or writes into a given directory); none of them is imported by
the library.
"""

from __future__ import annotations

import io
import struct
import zlib
from pathlib import Path

import h5py
import numpy as np
import scipy.io
import scipy.sparse as sp

MAT73_HEADER = (
    b"MATLAB 7.3 MAT-file, Platform: GLNXA64, Created on: Mon Jan  1 00:00:00 2024 "
    b"HDF5 schema 1.00 ."
)


# ---- NumPy -----------------------------------------------------------------------------------


def npy_bytes(arr: np.ndarray, allow_pickle: bool = False) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=allow_pickle)
    return buf.getvalue()


def npz_bytes(compress: bool = False, **arrays: np.ndarray) -> bytes:
    buf = io.BytesIO()
    (np.savez_compressed if compress else np.savez)(buf, **arrays)
    return buf.getvalue()


def sparse_npz_bytes(m: sp.sparray | sp.spmatrix, compressed: bool = True) -> bytes:
    buf = io.BytesIO()
    sp.save_npz(buf, m, compressed=compressed)
    return buf.getvalue()


def raw_sparse_npz(fmt: bytes = b"csr", **members: object) -> bytes:
    """A save_npz-like archive with arbitrary (possibly inconsistent) components."""
    arrays = {"format": np.array(fmt)}
    arrays.update({k: np.asarray(v) for k, v in members.items()})
    return npz_bytes(**arrays)


def npy_declaring(shape: tuple[int, ...], descr: str = "<f8", data: bytes = b"") -> bytes:
    """An .npy file whose header declares ``shape`` but holds only ``data``."""
    header = repr({"descr": descr, "fortran_order": False, "shape": shape}).encode("latin1")
    pad = 64 - (10 + len(header) + 1) % 64
    header += b" " * pad + b"\n"
    return b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header + data


def pickled_object_npy() -> bytes:
    return npy_bytes(np.array([{"a": 1}, [2, 3]], dtype=object), allow_pickle=True)


def npz_with_pickled_member() -> bytes:
    buf = io.BytesIO()
    np.savez(buf, gnd=np.array([{"evil": 1}, None], dtype=object))
    return buf.getvalue()


def _deflate_full_flush(data: bytes) -> bytes:
    # A raw deflate chunk ending on a full flush: byte-aligned, no back-references, so copies of
    # it can follow each other and still decode (that is what makes a huge bomb cheap to build).
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush(zlib.Z_FULL_FLUSH)


def zip_bomb_npz(uncompressed_bytes: int) -> bytes:
    """An .npz whose single member really inflates to ``uncompressed_bytes`` (a float64 array of
    zeros): a valid zip64 archive with the true sizes and CRC, built in about a second from one
    compressed MiB of zeros repeated, instead of compressing gigabytes."""
    mib = 1 << 20
    n = uncompressed_bytes // 8
    header = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        header, {"descr": "<f8", "fortran_order": False, "shape": (n,)}
    )
    head = header.getvalue()
    body = n * 8
    whole, rest = divmod(body, mib)
    zeros = bytes(mib)
    block = _deflate_full_flush(zeros)
    parts = [_deflate_full_flush(head), block * whole, _deflate_full_flush(bytes(rest))]
    final = zlib.compressobj(9, zlib.DEFLATED, -15)
    parts.append(final.compress(b"") + final.flush())
    data = b"".join(parts)
    crc = zlib.crc32(head)
    for _ in range(whole):
        crc = zlib.crc32(zeros, crc)
    crc = zlib.crc32(bytes(rest), crc)
    size = len(head) + body
    name = b"C.npy"
    dos_time, dos_date = 0, (2020 - 1980) << 9 | 1 << 5 | 1
    local_extra = struct.pack("<HHQQ", 1, 16, size, len(data))
    local = struct.pack(
        "<IHHHHHIIIHH", 0x04034B50, 45, 0, 8, dos_time, dos_date, crc, 0xFFFFFFFF,
        0xFFFFFFFF, len(name), len(local_extra),
    ) + name + local_extra  # fmt: skip
    central_extra = struct.pack("<HHQQQ", 1, 24, size, len(data), 0)
    central = struct.pack(
        "<IHHHHHHIIIHHHHHII", 0x02014B50, 45, 45, 0, 8, dos_time, dos_date, crc, 0xFFFFFFFF,
        0xFFFFFFFF, len(name), len(central_extra), 0, 0, 0, 0, 0xFFFFFFFF,
    ) + name + central_extra  # fmt: skip
    cd_offset = len(local) + len(data)
    eocd64_offset = cd_offset + len(central)
    eocd64 = struct.pack("<IQHHIIQQQQ", 0x06064B50, 44, 45, 45, 0, 0, 1, 1, len(central), cd_offset)
    locator = struct.pack("<IIQI", 0x07064B50, 0, eocd64_offset, 1)
    eocd = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(central), 0xFFFFFFFF, 0)
    return local + data + central + eocd64 + locator + eocd


def many_members_npz(n: int) -> bytes:
    return npz_bytes(**{f"a{i}": np.zeros(1) for i in range(n)})


# ---- MATLAB v5 ----------------------------------------------------------------------------------


def savemat_bytes(mdict: dict, compress: bool = False) -> bytes:
    buf = io.BytesIO()
    scipy.io.savemat(buf, mdict, do_compression=compress)
    return buf.getvalue()


def patch_once(data: bytes, old: bytes, new: bytes) -> bytes:
    assert len(old) == len(new)
    assert data.count(old) == 1, f"pattern found {data.count(old)} times"
    return data.replace(old, new)


def mat5_declaring_huge_dims() -> bytes:
    """A 3 x 3 double whose dimension field is patched to 100000 x 100000 (80 GB)."""
    data = savemat_bytes({"C": np.arange(9.0).reshape(3, 3)})
    old = struct.pack("<IIii", 5, 8, 3, 3)  # miINT32 tag, 8 bytes, dims 3, 3
    new = struct.pack("<IIii", 5, 8, 100000, 100000)
    return patch_once(data, old, new)


def mat5_sparse_bad_index() -> bytes:
    """A sparse 4 x 4 matrix whose row index array holds 99."""
    m = sp.csc_array((np.ones(3), np.array([3, 0, 2]), np.array([0, 1, 2, 3, 3])), shape=(4, 4))
    data = savemat_bytes({"C": m})
    old = np.array([3, 0, 2], dtype="<i4").tobytes()
    new = np.array([3, 0, 99], dtype="<i4").tobytes()
    return patch_once(data, old, new)


def mat5_cell_bomb(inflated_bytes: int) -> bytes:
    """A compressed cell array holding one big zero vector (cells declare no size up front)."""
    cell = np.empty((1, 1), dtype=object)
    cell[0, 0] = np.zeros(inflated_bytes // 8)
    return savemat_bytes({"gnd": cell}, compress=True)


def mat5_cellstr(labels: list[str]) -> bytes:
    cell = np.empty((len(labels), 1), dtype=object)
    for i, s in enumerate(labels):
        cell[i, 0] = s
    return savemat_bytes({"gnd": cell})


# ---- MATLAB v7.3 (HDF5) -------------------------------------------------------------------------


def _add_matlab_header(path: Path) -> None:
    with open(path, "r+b") as fh:
        hdr = MAT73_HEADER.ljust(116, b" ") + b"\x00" * 8 + b"\x00\x02" + b"IM"
        fh.write(hdr)


def _mat_dense(f: h5py.File, name: str, arr: np.ndarray, cls: str = "double") -> None:
    # MATLAB stores column-major: an M x N variable is an N x M dataset.
    ds = f.create_dataset(name, data=np.asarray(arr).T)
    ds.attrs["MATLAB_class"] = np.bytes_(cls)


def _mat_sparse(f: h5py.File, name: str, m: sp.csc_array, jc=None, ir=None) -> None:
    m = sp.csc_array(m)
    g = f.create_group(name)
    g.attrs["MATLAB_class"] = np.bytes_("double")
    g.attrs["MATLAB_sparse"] = np.uint64(m.shape[0])
    g.create_dataset("data", data=m.data.astype(np.float64))
    g.create_dataset("ir", data=(m.indices if ir is None else np.asarray(ir)).astype(np.uint64))
    g.create_dataset("jc", data=(m.indptr if jc is None else np.asarray(jc)).astype(np.uint64))


def _mat_cellstr(f: h5py.File, name: str, labels: list[str]) -> None:
    refs_group = f.require_group("#refs#")
    refs = []
    for i, s in enumerate(labels):
        codes = np.array([[ord(c)] for c in s], dtype=np.uint16)  # 1 x L char, stored L x 1
        d = refs_group.create_dataset(f"s{name}{i}", data=codes)
        d.attrs["MATLAB_class"] = np.bytes_("char")
        refs.append(d.ref)
    ds = f.create_dataset(name, data=np.array([refs], dtype=h5py.ref_dtype))  # N x 1 cell
    ds.attrs["MATLAB_class"] = np.bytes_("cell")


def mat73_file(
    path: Path,
    *,
    dense: dict[str, np.ndarray] | None = None,
    sparse: dict[str, sp.csc_array] | None = None,
    cellstr: dict[str, list[str]] | None = None,
) -> Path:
    """A MATLAB v7.3-like file: 512-byte MATLAB header, then HDF5 with MATLAB attributes."""
    with h5py.File(path, "w", userblock_size=512) as f:
        for k, v in (dense or {}).items():
            _mat_dense(f, k, v)
        for k, v in (sparse or {}).items():
            _mat_sparse(f, k, v)
        for k, v in (cellstr or {}).items():
            _mat_cellstr(f, k, v)
    _add_matlab_header(path)
    return path


def mat73_sparse_bad(path: Path, *, jc=None, ir=None) -> Path:
    m = sp.csc_array(sp.eye(4))
    with h5py.File(path, "w", userblock_size=512) as f:
        _mat_sparse(f, "C", m, jc=jc, ir=ir)
    _add_matlab_header(path)
    return path


def hdf5_external_link(path: Path, target: str = "/etc/passwd") -> Path:
    with h5py.File(path, "w") as f:
        f.create_dataset("gnd", data=np.arange(3.0))
        f["C"] = h5py.ExternalLink(target, "/data")
    return path


def hdf5_soft_link(path: Path) -> Path:
    with h5py.File(path, "w") as f:
        f.create_dataset("hidden", data=np.eye(3))
        f["C"] = h5py.SoftLink("/hidden")
    return path


def hdf5_sparse_with_external_child(path: Path) -> Path:
    with h5py.File(path, "w") as f:
        g = f.create_group("C")
        g.attrs["MATLAB_class"] = np.bytes_("double")
        g.attrs["MATLAB_sparse"] = np.uint64(3)
        g["jc"] = h5py.ExternalLink("/etc/passwd", "/jc")
    return path


def hdf5_external_storage(path: Path, target: Path) -> Path:
    target.write_bytes(np.arange(9.0).tobytes())
    with h5py.File(path, "w") as f:
        f.create_dataset("C", shape=(3, 3), dtype="<f8", external=[(str(target), 0, 72)])
    return path


def hdf5_virtual(path: Path, source_file: Path) -> Path:
    with h5py.File(source_file, "w") as f:
        f.create_dataset("data", data=np.eye(3))
    layout = h5py.VirtualLayout(shape=(3, 3), dtype="f8")
    layout[:] = h5py.VirtualSource(str(source_file), "data", shape=(3, 3))
    with h5py.File(path, "w") as f:
        f.create_virtual_dataset("C", layout)
    return path


def hdf5_huge_declared(path: Path, n: int = 100_000) -> Path:
    """A few-KB file declaring an n x n float64 dataset (never written, chunked)."""
    with h5py.File(path, "w") as f:
        f.create_dataset("C", shape=(n, n), dtype="<f8", chunks=(64, 64))
    return path


GARBAGE = bytes(range(256)) * 8


def touch(path: str) -> int:
    """Called only if a pickle is ever loaded: leaves a file behind as evidence."""
    Path(path).write_text("unpickled!")
    return 0


class Boom:
    """Pickles as a call to :func:`touch`; loading it must never happen."""

    def __init__(self, path: str):
        self.path = path

    def __reduce__(self):
        return (touch, (self.path,))
