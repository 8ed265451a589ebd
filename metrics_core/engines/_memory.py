"""The in-memory path for a labels table: read the columns into numpy, score with ``evaluate``.

This is the reference the engines are tested against, and the path for tables that fit. Before
reading anything it estimates the memory the read needs and refuses, with the estimate and
the way out (``--engine duckdb``), when that is above the limit.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import scipy.sparse as sp

from metrics_core.engines._common import EDGE_COLUMNS, TableRequest, TableResult, parse_memory
from metrics_core.validation._errors import ClustlensInputError
from metrics_core.validation._labels import check_labels

# Bytes held per label row while reading and factorising (value columns, pandas' copies,
# codes) and per edge (i, j, value, their mapped copies and the CSR arrays).
_BYTES_PER_LABEL_ROW = 64
_BYTES_PER_EDGE = 220
# A CSV's in-memory size relative to the file (pandas' object columns and parse buffers).
_CSV_EXPANSION = 8


def _human(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB", "TB"):
        if n < 1000 or unit == "TB":
            return f"{n:.3g} {unit}"
        n /= 1000
    return f"{n:.3g} TB"


def _parquet_rows(path: str) -> int:
    import pyarrow.parquet as pq

    return int(pq.ParquetFile(path).metadata.num_rows)


def _need_pyarrow(what: str) -> None:
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        raise ClustlensInputError(
            "reading parquet needs pyarrow: pip install 'clustlens[duckdb]'", source=what
        ) from None


def estimate_bytes(request: TableRequest) -> int:
    """What the in-memory path would hold, estimated from metadata (parquet) or file size."""
    total = 0
    for path, fmt, per_row in (
        (request.labels, request.labels_format, _BYTES_PER_LABEL_ROW),
        (request.edges, request.edges_format, _BYTES_PER_EDGE),
    ):
        if path is None:
            continue
        if fmt == "parquet":
            _need_pyarrow(path)
            total += _parquet_rows(path) * per_row
        else:
            total += os.path.getsize(path) * _CSV_EXPANSION
    return total


def _read(path: str, fmt: str, columns: list[str]) -> dict[str, np.ndarray]:
    if fmt == "parquet":
        _need_pyarrow(path)
        import pyarrow.parquet as pq

        schema = pq.ParquetFile(path).schema_arrow
        missing = [c for c in columns if c not in schema.names]
        if missing:
            raise ClustlensInputError(
                f"no column(s) {missing}; its columns are {schema.names}", source=path
            )
        table = pq.read_table(path, columns=columns)
        return {c: table.column(c).to_numpy(zero_copy_only=False) for c in columns}
    import pandas as pd

    try:
        frame = pd.read_csv(path, usecols=lambda c: c in columns, low_memory=False)
    except (ValueError, pd.errors.ParserError, UnicodeDecodeError) as exc:
        raise ClustlensInputError(f"cannot read it as CSV ({exc})", source=path) from None
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        head = pd.read_csv(path, nrows=0).columns.tolist()
        raise ClustlensInputError(f"no column(s) {missing}; its columns are {head}", source=path)
    return {c: frame[c].to_numpy() for c in columns}


def read_inputs(request: TableRequest) -> tuple[np.ndarray, np.ndarray, Any]:
    """(labels_true, labels_pred, C or None) read whole into memory, within the limit."""
    need = estimate_bytes(request)
    limit = parse_memory(request.memory_limit)
    if need > limit:
        raise ClustlensInputError(
            f"reading this in memory would need about {_human(need)}, above the memory limit "
            f"{_human(limit)}; count it with --engine duckdb (out of core), or raise "
            "--memory-limit",
            source=request.labels,
        )
    cols = [request.true_col, request.pred_col] + ([request.id_col] if request.id_col else [])
    table = _read(request.labels, request.labels_format, cols)
    t = check_labels(table[request.true_col], f"{request.labels}: column {request.true_col!r}")
    p = check_labels(table[request.pred_col], f"{request.labels}: column {request.pred_col!r}")
    coef = None
    if request.edges is not None:
        n = t.shape[0]
        e = _read(request.edges, request.edges_format, list(EDGE_COLUMNS))
        # C as stored (row i, column j); the orientation convention is applied by the scorer.
        a, b = "i", "j"
        ii, jj = _positions(e[a], request, table, n), _positions(e[b], request, table, n)
        bad = (ii < 0) | (jj < 0)
        if bad.any():
            r = int(np.flatnonzero(bad)[0])
            what = (
                f"an id of column {request.id_col!r}"
                if request.id_col
                else f"a row number of the labels table (0 to {n - 1:,})"
            )
            raise ClustlensInputError(
                f"edge ({e[a][r]!r}, {e[b][r]!r}) names a point that is not {what}",
                source=request.edges,
                where=f"row {r:,} (0-based data row)",
            )
        try:
            v = np.asarray(e["value"], dtype=np.float64)
        except (TypeError, ValueError):
            raise ClustlensInputError(
                "column 'value' holds non-numbers", source=request.edges
            ) from None
        bad_v = ~np.isfinite(v)
        if bad_v.any():
            r = int(np.flatnonzero(bad_v)[0])
            raise ClustlensInputError(
                f"value {v[r]!r} is missing or not finite; every stored entry of C must be a "
                "finite number",
                source=request.edges,
                where=f"row {r:,} (0-based data row)",
            )
        coef = sp.coo_array((v, (ii, jj)), shape=(n, n)).tocsr()
    return t, p, coef


def _positions(ids: np.ndarray, request: TableRequest, table: dict, n: int) -> np.ndarray:
    """Row positions of edge endpoints (-1 where the id is unknown)."""
    if request.id_col:
        import pandas as pd

        index = pd.Index(table[request.id_col])
        if not index.is_unique:
            dup = index[index.duplicated()][0]
            raise ClustlensInputError(
                f"id {dup!r} appears more than once in column {request.id_col!r}; ids must be "
                "unique",
                source=request.labels,
            )
        return index.get_indexer(ids).astype(np.int64)
    ids = np.asarray(ids)
    if ids.dtype.kind not in "iu":
        raise ClustlensInputError(
            f"edge ids hold {ids.dtype}; without --id-col, i and j are the 0-based row numbers "
            "of the labels table (integers)",
            source=request.edges,
        )
    out = ids.astype(np.int64)
    out[(out < 0) | (out >= n)] = -1
    return out


def evaluate_in_memory(request: TableRequest, **kwargs: Any) -> TableResult:
    """Score ``request`` with the in-memory ``evaluate`` (and SRE/CONN via the same code)."""
    from metrics_core.affinity._diagnostics import affinity_report
    from metrics_core.evaluation._evaluate import evaluate

    conventions = kwargs.pop("conventions", None) or {}
    t, p, coef = read_inputs(request)
    metrics = evaluate(t, p, **kwargs)
    affinity = None
    if coef is not None:
        keys, affinity = affinity_report(coef, t, **conventions)
        metrics.update(keys)
    inputs = [{"role": "table", "file": request.labels, "engine": "memory",
               "columns": {"true": request.true_col, "pred": request.pred_col,
                           "id": request.id_col}, "shape": [int(t.shape[0])]}]  # fmt: skip
    if request.edges:
        inputs.append({"role": "edges", "file": request.edges, "engine": "memory",
                       "orientation": request.orientation})  # fmt: skip
    return TableResult(metrics, inputs, affinity)
