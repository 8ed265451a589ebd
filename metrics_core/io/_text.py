"""Text (.csv/.tsv/.txt) readers: delimiter and header detection, exact line numbers in errors.

Parsing runs in numpy's C tokenizer (``np.loadtxt``); only when it fails do we walk the lines
in Python to say exactly which line and column is wrong.
"""

from __future__ import annotations

import csv
import io
import re
import warnings
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from metrics_core.io._common import IOLimits, Source, name_order

_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
MISSING_TOKENS = frozenset({"", "na", "nan", "n/a", "null", "none", "missing"})
_SNIFF_LINES = 20


@dataclass
class TextTable:
    """A text file split into fields: ``header`` (or None) and a 2-D ``body``."""

    source: Source
    text: str
    sep: str | None  # None: whitespace; "line": one field per line
    header: list[str] | None
    body: np.ndarray
    first_body_line: int  # 1-based line number of the first data row
    notes: list[str] = field(default_factory=list)

    def line_of_row(self, row: int) -> int:
        """1-based file line of body row ``row`` (blank lines are skipped)."""
        seen = -1
        for lineno, line in enumerate(self.text.splitlines(), start=1):
            if lineno < self.first_body_line or not line.strip():
                continue
            seen += 1
            if seen == row:
                return lineno
        return self.first_body_line + row  # pragma: no cover - row past the end


def read_text(source: Source, limits: IOLimits) -> tuple[str, list[str]]:
    """Decode a text file (UTF-8, else Latin-1), refusing binary data."""
    notes: list[str] = []
    if source.size > limits.max_text_bytes:
        raise source.fail(
            f"text file is {source.size} bytes, more than the {limits.max_text_bytes}-byte "
            "limit; save large matrices as .npy/.npz/.mat instead"
        )
    raw = source.read_all()
    nul = raw.find(b"\x00")
    if nul >= 0:
        raise source.fail(
            f"is not a text file (binary data: a NUL byte at offset {nul}); "
            "check the file type or extension"
        )
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        text = raw.decode("latin-1")
        bad = _CONTROL.search(text)
        if bad:
            raise source.fail(
                f"is not a text file (binary data at byte offset {bad.start()}); "
                "check the file type or extension"
            ) from None
        notes.append(f"not valid UTF-8 (byte offset {exc.start}); read as Latin-1")
    bad = _CONTROL.search(text)
    if bad:
        line = text.count("\n", 0, bad.start()) + 1
        raise source.fail(
            f"is not a plain text file (control character {text[bad.start()]!r})",
            f"line {line}",
        )
    if not text.strip():
        raise source.fail("the file holds no data (only blank lines)")
    return text, notes


def _split(line: str, sep: str | None) -> list[str]:
    if sep == "line":
        return [_unquote(line.strip())]
    if sep is None:
        return line.split()
    return [f.strip() for f in next(csv.reader([line], delimiter=sep, quotechar='"'))]


def _splits_badly(line: str, sep: str | None) -> bool:
    try:
        _split(line, sep)
    except csv.Error:
        return True
    return False


def _unquote(s: str) -> str:
    return s[1:-1] if len(s) >= 2 and s[0] == s[-1] == '"' else s


def is_number(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


def _sniff_sep(lines: Sequence[str], ext: str, numeric: bool) -> str | None:
    if ext == ".tsv" or any("\t" in ln for ln in lines):
        return "\t"
    if any("," in ln for ln in lines):
        return ","
    if any(";" in ln for ln in lines):
        return ";"
    counts = [len(ln.split()) for ln in lines]
    if max(counts) > 1 and (numeric or ext == ".txt" or len(set(counts)) == 1):
        return None  # whitespace-separated columns
    return "line"  # one value per line (labels may contain spaces)


def split_text(
    source: Source,
    limits: IOLimits,
    *,
    numeric: bool,
    header_names: Sequence[str] = (),
    column: str | int | None = None,
) -> TextTable:
    """Split a text file into an optional header and a body of strings or float64 numbers.

    A first line is a header when a field in it is not a number but the rest of its column is,
    when it names a conventional column (``header_names``) or the requested ``column``, or (for
    numeric bodies) when any of its fields is not a number.
    """
    text, notes = read_text(source, limits)
    lines = text.splitlines()
    nonblank = [(i, ln) for i, ln in enumerate(lines) if ln.strip()]
    sample = [ln for _, ln in nonblank[:_SNIFF_LINES]]
    sep = _sniff_sep(sample, source.ext, numeric)
    first_idx, first_line = nonblank[0]
    try:
        first = _split(first_line, sep)
        rest = [_split(ln, sep) for ln in sample[1:]]
    except csv.Error as exc:  # e.g. a field past the csv module's 131,072-character limit
        bad = next(i for i, ln in nonblank[:_SNIFF_LINES] if _splits_badly(ln, sep))
        raise source.fail(f"cannot be split into fields ({exc})", f"line {bad + 1}") from None
    header = None
    if _is_header(first, rest, numeric, header_names, column):
        header = first
        if len(nonblank) == 1:
            raise source.fail("the file holds a header line but no data", "line 1")
        body_start = nonblank[1][0]
    else:
        body_start = first_idx
    if sep == "line":
        values = [_unquote(ln.strip()) for ln in lines[body_start:] if ln.strip()]
        body = np.array(values, dtype=str if not numeric else object).reshape(-1, 1)
        if numeric:
            body = _to_float(body, source, body_start)
    else:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                body = np.loadtxt(
                    io.StringIO(text),
                    dtype=np.float64 if numeric else str,
                    delimiter=sep,
                    skiprows=body_start,
                    ndmin=2,
                    comments=None,
                    quotechar='"' if sep is not None else None,
                    encoding=None,
                )
        except ValueError as exc:
            raise _locate(source, lines, body_start, sep, numeric, header, exc) from None
        if not numeric and sep is not None:
            body = np.char.strip(body)
    return TextTable(source, text, sep, header, body, body_start + 1, notes)


def _to_float(body: np.ndarray, source: Source, body_start: int) -> np.ndarray:
    out = np.empty(body.shape, dtype=np.float64)
    for i, v in enumerate(body[:, 0]):
        try:
            out[i, 0] = float(v)
        except ValueError:
            raise source.fail(f"{v!r} is not a number", f"data row {i + 1}") from None
    return out


def _is_header(
    first: list[str],
    rest: list[list[str]],
    numeric: bool,
    header_names: Sequence[str],
    column: str | int | None,
) -> bool:
    if isinstance(column, str) and column in first:
        return True
    if name_order(first, header_names):
        return True
    first_numeric = [is_number(f) for f in first]
    if all(first_numeric):
        return False
    if numeric:
        return True
    for j in range(len(first)):
        col = [r[j] for r in rest if j < len(r)]
        if not first_numeric[j] and col and all(is_number(v) for v in col):
            return True
    return False


def _locate(
    source: Source,
    lines: list[str],
    body_start: int,
    sep: str | None,
    numeric: bool,
    header: list[str] | None,
    exc: Exception,
) -> Exception:
    """Find the first ragged or non-numeric line after np.loadtxt refused the file."""
    expected = None
    expected_line = 0
    for lineno, line in enumerate(lines[body_start:], start=body_start + 1):
        if not line.strip():
            continue
        try:
            fields = _split(line, sep)
        except csv.Error as e:
            return source.fail(f"malformed quoting ({e})", f"line {lineno}")
        if expected is None:
            expected, expected_line = len(fields), lineno
        elif len(fields) != expected:
            return source.fail(
                f"ragged rows: this line has {len(fields)} fields but line {expected_line} has "
                f"{expected}; every row needs the same number of columns",
                f"line {lineno}",
            )
        if numeric:
            for j, f in enumerate(fields):
                if not is_number(f):
                    return source.fail(
                        f"{f!r} is not a number" + (" (missing value)" if not f else ""),
                        f"line {lineno}, column {j + 1}",
                    )
    return source.fail(f"cannot be parsed as a table ({exc})")


_INTEGER = re.compile(r"^[+-]?[0-9]+$")


def _integer_labels(values: np.ndarray, notes: list[str]) -> np.ndarray | None:
    """Integer literals as int64, or uint64 past int64 (hash ids); ``None`` if not all integers.

    Integers are never routed through float64 (which would merge ids past 2**53). Integers that
    fit neither 64-bit range together (e.g. -1 and 2**63) are kept as their exact text.
    """
    try:
        return values.astype(np.int64)
    except (ValueError, OverflowError):
        pass
    if not all(_INTEGER.match(str(v)) for v in values):
        return None
    try:
        out = values.astype(np.uint64)
    except (ValueError, OverflowError):
        notes.append("integer labels beyond the 64-bit ranges kept as exact text")
        return np.array([str(int(v)) for v in values], dtype=str)
    notes.append("integer labels past 2**63 - 1 read as unsigned 64-bit integers")
    return out


def to_labels_values(
    values: np.ndarray, table: TextTable, col_name: str, notes: list[str]
) -> np.ndarray:
    """Turn a column of strings into int64 (numbers) or str labels; refuse missing values."""
    src = table.source
    where_col = f"column {col_name!r}" if col_name else None

    def where(i: int) -> str:
        return f"line {table.line_of_row(i)}" + (f", {where_col}" if where_col else "")

    empty = values == ""
    if empty.any():
        i = int(np.flatnonzero(empty)[0])
        raise src.fail("missing label (empty field); every point needs a label", where(i))
    ints = _integer_labels(values, notes)
    if ints is not None:
        return ints
    try:
        floats = values.astype(np.float64)
    except ValueError:
        floats = None
    if floats is not None:
        bad = ~np.isfinite(floats)
        if bad.any():
            i = int(np.flatnonzero(bad)[0])
            raise src.fail(f"missing or non-finite label {str(values[i])!r}", where(i))
        frac = floats != np.round(floats)
        if frac.any():
            i = int(np.flatnonzero(frac)[0])
            raise src.fail(
                f"label {str(values[i])!r} is not a whole number; labels must be integers or text",
                where(i),
            )
        big = np.abs(floats) >= 2.0**53
        if big.any():
            # a float64 cannot hold every integer past 2**53: two labels could become one
            i = int(np.flatnonzero(big)[0])
            raise src.fail(
                f"label {str(values[i])!r} is written as a float too large to be read exactly; "
                "write integer labels without a decimal point or exponent",
                where(i),
            )
        notes.append("float-coded labels read as integers")
        return floats.astype(np.int64)
    lowered = np.char.lower(values)
    missing = np.isin(lowered, list(MISSING_TOKENS))
    if missing.any():
        others = values[~missing]
        if others.size and all(is_number(v) for v in others[:1000]):
            i = int(np.flatnonzero(missing)[0])
            raise src.fail(
                f"missing label {str(values[i])!r} among numeric labels; every point needs a label",
                where(i),
            )
    return values
