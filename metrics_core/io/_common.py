"""Shared pieces of the file loaders: limits, the input source, format sniffing, variable choice.

Nothing here reads array data; it only looks at names, sizes and the first bytes of a file.
"""

from __future__ import annotations

import io
import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, BinaryIO

from metrics_core.validation._errors import ClustlensInputError

GiB = 1024**3


@dataclass(frozen=True)
class IOLimits:
    """Ceilings checked against *declared* sizes before any array is allocated.

    A 2 KB file can declare a 75 GB array (an ``.npy`` header, an HDF5 dataspace, a MAT-file
    dimension field, a zip directory entry); these limits refuse such files before reading.

    Attributes
    ----------
    max_array_bytes : int
        Memory one array may take once loaded (default 2 GiB).
    max_dense_n : int
        Largest N for a dense N x N coefficient matrix (default 200,000).
    max_members : int
        Most members an ``.npz`` archive may hold (default 64).
    max_text_bytes : int
        Largest text (.csv/.tsv/.txt) file (default 1 GiB).
    max_cell_elements : int
        Most elements of a MATLAB cell array (cellstr labels) (default 20,000,000).
    array_limit_words : str
        What ``max_array_bytes`` stands for, when it is not the file-format ceiling (e.g. "the
        120 MiB this session's budget leaves"): refusals then say "more than <this>" instead
        of calling the file corrupt or hostile.

    Examples
    --------
    >>> IOLimits(max_array_bytes=1024).max_array_bytes
    1024
    """

    max_array_bytes: int = 2 * GiB
    max_dense_n: int = 200_000
    max_members: int = 64
    max_text_bytes: int = 1 * GiB
    max_cell_elements: int = 20_000_000
    array_limit_words: str = ""


DEFAULT_LIMITS = IOLimits()

# Conventional variable names, in order of preference (first match wins).
MATRIX_NAMES: tuple[str, ...] = ("C", "CMat", "Z", "Coef", "CKSym", "W", "A")
TRUE_NAMES: tuple[str, ...] = ("gnd", "s", "label", "labels", "truth", "y")
PRED_NAMES: tuple[str, ...] = ("grps", "idx", "pred")
DATA_NAMES: tuple[str, ...] = ("X", "data", "fea", "features")
# Extra column names seen in CSV headers (tried after the MATLAB conventions).
TEXT_TRUE_NAMES: tuple[str, ...] = ("class", "target", "true", "ground_truth", "labels_true")
TEXT_PRED_NAMES: tuple[str, ...] = (
    "cluster",
    "clusters",
    "prediction",
    "predicted",
    "labels_pred",
)

TEXT_EXTS = (".txt", ".csv", ".tsv")
FORMAT_BY_EXT = {
    ".txt": "text",
    ".csv": "text",
    ".tsv": "text",
    ".npy": "npy",
    ".npz": "npz",
    ".mat": "mat",
    ".h5": "hdf5",
    ".hdf5": "hdf5",
}
_FORMAT_WORDS = {
    "npy": "a NumPy .npy file",
    "npz": "a zip archive (.npz)",
    "mat5": "a MATLAB v5 MAT-file",
    "hdf5": "an HDF5 / MATLAB v7.3 file",
    "text": "text",
}
HDF5_SIGNATURE = b"\x89HDF\r\n\x1a\n"


@dataclass(frozen=True)
class VariableInfo:
    """What a container file declares about one variable (read from headers only).

    Attributes
    ----------
    name : str
        Variable (or ``.npz`` member) name.
    shape : tuple of int
        Declared shape, in the orientation the loaders return (MATLAB's for .mat files).
    dtype : str
        NumPy dtype name, or the MATLAB class (``"cell"``, ``"char"``, ``"struct"``, ...).
    sparse : bool
        Whether the variable is a sparse matrix.
    nnz : int or None
        Declared number of stored entries of a sparse matrix.
    """

    name: str
    shape: tuple[int, ...]
    dtype: str
    sparse: bool = False
    nnz: int | None = None


class Source:
    """A file given as a path, bytes or a file-like object with a display name and extension."""

    def __init__(self, src: Any, name: str | None = None):
        self.path: str | None = None
        self.data: bytes | None = None
        if isinstance(src, (bytes, bytearray, memoryview)):
            self.data = bytes(src)
            self.name = name or "uploaded file"
        elif isinstance(src, (str, os.PathLike)):
            self.path = os.fspath(src)
            self.name = name or self.path
            if not os.path.exists(self.path):
                raise ClustlensInputError("file not found", source=self.name)
            if os.path.isdir(self.path):
                raise ClustlensInputError("is a directory, not a file", source=self.name)
        elif hasattr(src, "read"):
            # e.g. a Streamlit UploadedFile or an open binary file
            raw = src.getvalue() if hasattr(src, "getvalue") else src.read()
            if isinstance(raw, str):
                raw = raw.encode("utf-8")
            self.data = bytes(raw)
            self.name = name or str(getattr(src, "name", "") or "uploaded file")
        else:
            raise ClustlensInputError(
                f"expected a file path, bytes or a binary file object, got {type(src).__name__}",
                source=name or "input",
            )
        self.ext = os.path.splitext(os.path.basename(str(self.name)))[1].lower()
        if not self.ext and self.path is not None:
            self.ext = os.path.splitext(self.path)[1].lower()
        try:
            self.size = len(self.data) if self.data is not None else os.path.getsize(self.path)
        except OSError as exc:
            raise ClustlensInputError(
                f"cannot be read ({exc.strerror})", source=self.name
            ) from None

    def open(self) -> BinaryIO:
        """A fresh binary handle positioned at the start."""
        if self.data is not None:
            return io.BytesIO(self.data)
        try:
            return open(self.path, "rb")  # the caller closes it
        except OSError as exc:
            raise ClustlensInputError(
                f"cannot be read ({exc.strerror})", source=self.name
            ) from None

    def head(self, n: int = 4096) -> bytes:
        if self.data is not None:
            return self.data[:n]
        with self.open() as fh:
            return fh.read(n)

    def read_all(self) -> bytes:
        if self.data is not None:
            return self.data
        with self.open() as fh:
            return fh.read()

    def fail(self, message: str, where: str | None = None) -> ClustlensInputError:
        return ClustlensInputError(message, source=self.name, where=where)


def sniff(head: bytes) -> str:
    """Name the format the first bytes of a file show: npy, npz, hdf5, mat5 or text."""
    if head.startswith(b"\x93NUMPY"):
        return "npy"
    if head.startswith((b"PK\x03\x04", b"PK\x05\x06")):
        return "npz"
    for offset in (0, 512, 1024, 2048):
        if head[offset : offset + 8] == HDF5_SIGNATURE:
            return "hdf5"
    if (
        len(head) >= 128
        and head[126:128] in (b"IM", b"MI")
        and head[124:126]
        in (
            b"\x00\x01",
            b"\x01\x00",
        )
    ):
        return "mat5"
    return "text"


def detect_format(source: Source, allowed: Sequence[str], what: str) -> str:
    """Pick the reader from the extension, check it against the content, or raise.

    Returns one of ``npy``, ``npz``, ``mat5``, ``hdf5``, ``text``.
    """
    if source.size == 0:
        raise source.fail("the file is empty")
    head = source.head(4096)
    found = sniff(head)
    supported = sorted({e for e, f in FORMAT_BY_EXT.items() if _fits(f, allowed)})
    if not source.ext:
        if found not in allowed:
            raise source.fail(
                f"cannot tell the file type (no extension; content looks like "
                f"{_FORMAT_WORDS[found]}); {what} can be read from {', '.join(supported)}"
            )
        return found
    expected = FORMAT_BY_EXT.get(source.ext)
    if expected is None or not _fits(expected, allowed):
        raise source.fail(
            f"unsupported file type {source.ext!r} for {what}; use one of {', '.join(supported)}"
        )
    if expected == "mat":
        if found in ("mat5", "hdf5"):
            return found
        if found == "text":
            raise source.fail(
                "is not a MATLAB v5/v7/v7.3 MAT-file (unrecognised header; MAT v4 and "
                "non-MATLAB data are not supported); re-save it in MATLAB with save -v7 or -v7.3"
            )
    elif expected == found:
        return found
    if found == "text" and expected != "text":
        raise source.fail(
            f"is not {_FORMAT_WORDS[expected]} (its first bytes are {head[:16]!r}); "
            "the file is damaged or has the wrong extension"
        )
    raise source.fail(
        f"has extension {source.ext!r} but its content is {_FORMAT_WORDS[found]}; "
        "rename it with the matching extension"
    )


def _fits(fmt: str, allowed: Sequence[str]) -> bool:
    if fmt == "mat":
        return "mat5" in allowed or "hdf5" in allowed
    return fmt in allowed


def check_declared_bytes(
    source: Source, nbytes: int, what: str, limits: IOLimits, where: str | None = None
) -> None:
    """Refuse an array whose declared size exceeds ``limits.max_array_bytes``."""
    if nbytes > limits.max_array_bytes and limits.array_limit_words:
        raise source.fail(
            f"{what} declares {_human(nbytes)} of data, more than {limits.array_limit_words}",
            where,
        )
    if nbytes > limits.max_array_bytes:
        raise source.fail(
            f"{what} declares {_human(nbytes)} of data, more than the "
            f"{_human(limits.max_array_bytes)} limit for one array; the file is corrupt or "
            "hostile, or too large to load here",
            where,
        )


def _human(n: float) -> str:
    for unit in ("bytes", "KiB", "MiB", "GiB", "TiB", "PiB"):
        if n < 1024 or unit == "PiB":
            return f"{n:.0f} {unit}" if unit == "bytes" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n} bytes"  # pragma: no cover


def prod(shape: Sequence[int]) -> int:
    """Exact product of a shape (Python ints, no overflow)."""
    out = 1
    for d in shape:
        out *= int(d)
    return out


def name_order(names: Sequence[str], preferred: Sequence[str]) -> list[str]:
    """``names`` that match a conventional name, best first (exact case before any case)."""
    hits: list[str] = []
    for conv in preferred:
        for n in names:
            if n == conv and n not in hits:
                hits.append(n)
        for n in names:
            if n.lower() == conv.lower() and n not in hits:
                hits.append(n)
    return hits


def choose_variable(
    source: Source,
    infos: Sequence[VariableInfo],
    suitable: Sequence[VariableInfo],
    preferred: Sequence[str],
    variable: str | None,
    what: str,
    notes: list[str],
) -> str:
    """Pick the variable to load: the caller's choice, a conventional name, or the only fit."""
    names = [v.name for v in infos]
    if variable is not None:
        if variable not in names:
            listing = ", ".join(repr(n) for n in names) or "none"
            raise source.fail(f"has no variable {variable!r}; variables found: {listing}")
        return variable
    good = [v.name for v in suitable]
    if not good and len(infos) == 1:
        return infos[0].name  # the only variable: the caller's checks say what is wrong with it
    if not good:
        if any(v.dtype == "object" for v in infos):
            raise source.fail(
                f"no variable looks like {what}; object arrays (pickled Python objects) are "
                f"never loaded: {describe(infos)}"
            )
        raise source.fail(
            f"no variable looks like {what}; found: {describe(infos) or 'no variables'}; "
            "pass variable= to choose one"
        )
    hits = name_order(good, preferred)
    if hits:
        if len(good) > 1:
            others = ", ".join(repr(n) for n in good if n != hits[0])
            notes.append(f"picked variable {hits[0]!r} by its conventional name (also: {others})")
        return hits[0]
    if len(good) == 1:
        if len(infos) > 1:
            notes.append(f"picked variable {good[0]!r}, the only one that looks like {what}")
        return good[0]
    raise source.fail(
        f"several variables could be {what} and none has a conventional name "
        f"({', '.join(preferred)}): {describe(suitable)}; pass variable= to choose one"
    )


def describe(infos: Sequence[VariableInfo]) -> str:
    parts = []
    for v in infos:
        shape = "x".join(str(d) for d in v.shape) or "scalar"
        parts.append(f"{v.name!r} ({shape} {'sparse ' if v.sparse else ''}{v.dtype})")
    return ", ".join(parts)
