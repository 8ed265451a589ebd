"""Counting with DuckDB: out of core, under a memory limit, on parquet or CSV of any size.

Only ``GROUP BY`` queries run here; their results (pair counts, per-point masses, the K x K
leakage sums and the in-class entries) go to :func:`metrics_core.engines._common.score`.
DuckDB spills to a temporary directory (removed afterwards) when a query outgrows
``memory_limit``.
"""

from __future__ import annotations

import tempfile
from typing import Any

import numpy as np

from metrics_core.engines._common import (
    EDGE_COLUMNS,
    EdgeSums,
    PairCounts,
    TableRequest,
    class_layout,
    gather_sums,
    parse_memory,
)
from metrics_core.validation._coef import refuse_coef_above
from metrics_core.validation._errors import ClustlensInputError

_INT_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "UTINYINT", "USMALLINT", "UINTEGER",
              "UBIGINT", "HUGEINT", "UHUGEINT")  # fmt: skip
_FLOAT_TYPES = ("FLOAT", "DOUBLE", "REAL", *_INT_TYPES)


def _import_duckdb() -> Any:
    try:
        import duckdb
    except ImportError:
        raise ClustlensInputError(
            "the DuckDB engine needs the duckdb package: pip install 'clustlens[duckdb]'",
            source="--engine duckdb",
        ) from None
    return duckdb


def _q(name: str) -> str:
    """A quoted SQL identifier."""
    return '"' + name.replace('"', '""') + '"'


def _lit(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


class DuckDBCounter:
    """The counts of one :class:`TableRequest`, computed by an in-process DuckDB."""

    def __init__(self, request: TableRequest, threads: int | None = None) -> None:
        duckdb = _import_duckdb()
        self.request = request
        self._tmp = tempfile.TemporaryDirectory(prefix="clustlens-duckdb-")
        self.con = duckdb.connect(":memory:")
        limit = parse_memory(request.memory_limit)
        self.con.execute(f"SET memory_limit = '{limit // 2**20}MiB'")
        self.con.execute(f"SET temp_directory = {_lit(self._tmp.name)}")
        # The progress bar goes to stdout, where --json writes: never draw it.
        self.con.execute("SET enable_progress_bar = false")
        if threads:
            self.con.execute(f"SET threads = {int(threads)}")
        self._Error = duckdb.Error
        self.labels_sql = self._source(request.labels, request.labels_format, "--table")
        self.columns = self._columns(self.labels_sql)
        for flag, col in (("--true-col", request.true_col), ("--pred-col", request.pred_col),
                          ("--id-col", request.id_col)):  # fmt: skip
            if col is not None and col not in self.columns:
                raise ClustlensInputError(
                    f"{flag} {col!r} is not a column of the table; its columns are "
                    f"{list(self.columns)}",
                    source=request.labels,
                )
        self.n_points: int | None = None

    def close(self) -> None:
        self.con.close()
        self._tmp.cleanup()

    def __enter__(self) -> DuckDBCounter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -------------------------------------------------------------------------- plumbing

    def _source(self, path: str, fmt: str, flag: str) -> str:
        if fmt == "parquet":
            return f"read_parquet({_lit(path)}, file_row_number = true)"
        return f"read_csv({_lit(path)}, header = true)"

    def _columns(self, source: str) -> dict[str, str]:
        try:
            rel = self.con.sql(f"SELECT * FROM {source} LIMIT 0")
        except self._Error as exc:
            raise ClustlensInputError(f"DuckDB cannot read it: {exc}", source=source) from None
        return dict(zip(rel.columns, [str(t) for t in rel.types], strict=True))

    def _run(self, sql: str, what: str) -> Any:
        try:
            return self.con.execute(sql)
        except self._Error as exc:
            first = str(exc).splitlines()[0]
            raise ClustlensInputError(f"DuckDB failed while {what}: {first}", source=what) from None

    def _positioned(self) -> str:
        """The labels with ``pos``, the 0-based data row (what an edge list's i and j mean)."""
        if not hasattr(self, "_labels_view"):
            r = self.request
            cols = [f"{_q(r.true_col)} AS t"]
            if r.id_col:
                cols.append(f"{_q(r.id_col)} AS id")
            if self.request.labels_format == "parquet":
                sql = f"SELECT file_row_number AS pos, {', '.join(cols)} FROM {self.labels_sql}"
                self._run(f"CREATE TEMP VIEW labels AS {sql}", "reading the labels")
            else:
                # A CSV has no row-number column: the insertion order of a table is file order.
                self._run(
                    f"CREATE TEMP TABLE labels0 AS SELECT {', '.join(cols)} FROM {self.labels_sql}",
                    "reading the labels",
                )
                self._run("CREATE TEMP VIEW labels AS SELECT rowid AS pos, * FROM labels0", "")
            self._labels_view = "labels"
        return self._labels_view

    def locate(self, col: str) -> Any:
        """A function value -> 'row R' for the first data row holding ``value`` in ``col``."""

        def find(value: Any) -> str | None:
            cond = f"{_q(col)} IS NULL" if value is None else f"{_q(col)} = ?"
            sql = (
                f"SELECT min(r) FROM (SELECT row_number() OVER () - 1 AS r, {_q(col)} "
                f"FROM {self.labels_sql}) WHERE {cond}"
            )
            try:
                params = [] if value is None else [value]
                row = self.con.execute(sql, params).fetchone()
            except self._Error:
                return None
            if row is None or row[0] is None:
                return None
            return f"row {int(row[0]):,} (0-based data row), column {col!r}"

        return find

    # -------------------------------------------------------------------------- counting

    def _label_expr(self, col: str) -> str:
        # HUGEINT/UHUGEINT would reach numpy as float64 (two ids could become one): as text.
        kind = self.columns[col].upper()
        if kind in ("HUGEINT", "UHUGEINT"):
            return f"CAST({_q(col)} AS VARCHAR)"
        return _q(col)

    def _text_key(self, expr: str, col: str) -> str:
        """SQL text of a label as :func:`_text` writes the checked value (3.0 -> '3')."""
        kind = self.columns[col].upper()
        if kind in ("FLOAT", "DOUBLE", "REAL", "BOOLEAN"):
            return f"CAST(CAST({expr} AS HUGEINT) AS VARCHAR)"
        return f"CAST({expr} AS VARCHAR)"

    def pair_counts(self) -> PairCounts:
        r = self.request
        t, p = self._label_expr(r.true_col), self._label_expr(r.pred_col)
        sql = f"SELECT {t} AS t, {p} AS p, count(*) AS n FROM {self.labels_sql} GROUP BY ALL"
        res = self._run(sql, "counting the (class, cluster) pairs").fetchnumpy()
        counts = np.asarray(res["n"], dtype=np.int64)
        self.n_points = int(counts.sum())
        return PairCounts(_values(res["t"]), _values(res["p"]), counts)

    def point_codes(self, classes: np.ndarray) -> np.ndarray:
        view = self._positioned()
        self.con.execute("CREATE OR REPLACE TEMP TABLE classes (value VARCHAR, code INTEGER)")
        self.con.executemany(
            "INSERT INTO classes VALUES (?, ?)", [(_text(v), i) for i, v in enumerate(classes)]
        )
        sql = (
            f"CREATE OR REPLACE TEMP TABLE points AS SELECT l.pos, c.code "
            f"FROM {view} l JOIN classes c ON {self._text_key('l.t', self.request.true_col)} "
            "= c.value"
        )
        self._run(sql, "giving each point its class code")
        res = self._run("SELECT pos, code FROM points", "reading the class codes").fetchnumpy()
        n = self.n_points or int(np.asarray(res["pos"]).size)
        codes = np.full(n, -1, dtype=np.intp)
        codes[np.asarray(res["pos"], dtype=np.int64)] = np.asarray(res["code"])
        if (codes < 0).any():  # a class value whose text form differs from numpy's str()
            raise ClustlensInputError(
                "could not match every point to its class", source=self.request.labels
            )
        return codes

    def _edges(self) -> str:
        """A view of the edges as (row, i, j, v) with i, j mapped to label positions."""
        r = self.request
        fmt = r.edges_format
        src = self._source(r.edges, fmt, "--edges")
        cols = self._columns(src)
        missing = [c for c in EDGE_COLUMNS if c not in cols]
        if missing:
            raise ClustlensInputError(
                f"an edge list needs columns {list(EDGE_COLUMNS)}; missing {missing} "
                f"(its columns are {list(cols)})",
                source=r.edges,
            )
        if cols["value"].upper() not in _FLOAT_TYPES:
            raise ClustlensInputError(
                f"column 'value' holds {cols['value']}, not numbers", source=r.edges
            )
        row = "file_row_number" if fmt == "parquet" else "row_number() OVER () - 1"
        a, b = ("i", "j") if r.orientation == "rows" else ("j", "i")
        raw = f"SELECT {row} AS row, {_q(a)} AS a, {_q(b)} AS b, value FROM {src}"
        self._run(f"CREATE TEMP TABLE edges_raw AS {raw}", "reading the edge list")
        n = self.n_points
        bad = self._run(
            "SELECT row, a, b, value FROM edges_raw WHERE value IS NULL OR isnan(value) "
            "OR isinf(value) ORDER BY row LIMIT 1",
            "checking the edge values",
        ).fetchone()
        if bad is not None:
            raise ClustlensInputError(
                f"value {bad[3]!r} is missing or not finite; every stored entry of C must be a "
                "finite number",
                source=r.edges,
                where=f"row {bad[0]:,} (0-based data row)",
            )
        if r.id_col:
            dup = self._run(
                f"SELECT id, count(*) FROM {self._positioned()} GROUP BY id HAVING count(*) > 1 "
                "LIMIT 1",
                "checking the ids",
            ).fetchone()
            if dup is not None:
                raise ClustlensInputError(
                    f"id {dup[0]!r} appears {dup[1]} times in column {r.id_col!r}; ids must be "
                    "unique",
                    source=r.labels,
                )
            mapped = (
                "SELECT e.row, li.pos AS i, lj.pos AS j, e.value FROM edges_raw e "
                f"LEFT JOIN {self._positioned()} li ON e.a = li.id "
                f"LEFT JOIN {self._positioned()} lj ON e.b = lj.id"
            )
            what = f"an id of column {r.id_col!r}"
        else:
            for col in ("i", "j"):
                if cols[col].upper() not in _INT_TYPES:
                    raise ClustlensInputError(
                        f"column {col!r} holds {cols[col]}; without --id-col, i and j are the "
                        "0-based row numbers of the labels table (integers)",
                        source=r.edges,
                    )
            mapped = (
                f"SELECT row, CASE WHEN a >= 0 AND a < {n} THEN a END AS i, "
                f"CASE WHEN b >= 0 AND b < {n} THEN b END AS j, value FROM edges_raw"
            )
            what = f"a row number of the labels table (0 to {n - 1:,})"
        self._run(f"CREATE TEMP TABLE edges_pos AS {mapped}", "matching edges to points")
        orphan = self._run(
            "SELECT e.row, r.a, r.b FROM edges_pos e JOIN edges_raw r USING (row) "
            "WHERE e.i IS NULL OR e.j IS NULL ORDER BY e.row LIMIT 1",
            "checking the edge ids",
        ).fetchone()
        if orphan is not None:
            raise ClustlensInputError(
                f"edge ({orphan[1]!r}, {orphan[2]!r}) names a point that is not {what}",
                source=r.edges,
                where=f"row {orphan[0]:,} (0-based data row)",
            )
        return "edges_pos"

    def edge_sums(self, codes: np.ndarray, n_classes: int) -> EdgeSums:
        n = codes.shape[0]
        edges = self._edges()
        big = self._run(f"SELECT max(abs(value)) FROM {edges}", "").fetchone()[0] or 0.0
        refuse_coef_above(float(big), n, self.request.edges)
        n_edges = self._run(f"SELECT count(*) FROM {edges}", "").fetchone()[0]
        # Repeated (i, j) are summed before |.|, as scipy sums a COO matrix's duplicates.
        self._run(
            "CREATE TEMP TABLE c AS SELECT e.i, e.j, sum(e.value) AS v, "
            "any_value(pi.code) AS ci, any_value(pj.code) AS cj "
            f"FROM {edges} e JOIN points pi ON e.i = pi.pos JOIN points pj ON e.j = pj.pos "
            "GROUP BY e.i, e.j",
            "summing repeated edges",
        )
        n_unique = self._run("SELECT count(*) FROM c", "").fetchone()[0]
        rows = self._run(
            "SELECT i, sum(abs(v)) AS total, sum(CASE WHEN ci <> cj THEN abs(v) ELSE 0 END) "
            "AS outside, sum(v * v) AS sq FROM c GROUP BY i",
            "summing each point's coefficient mass",
        ).fetchnumpy()
        leak = self._run(
            "SELECT ci, cj, sum(abs(v)) AS m FROM c GROUP BY ci, cj", "summing the leakage"
        ).fetchnumpy()
        return gather_sums(
            n,
            n_classes,
            (rows["i"], rows["total"], rows["outside"], rows["sq"]),
            (leak["ci"], leak["cj"], leak["m"]),
            n_edges=int(n_edges),
            n_duplicates=int(n_edges - n_unique),
            in_class="c",
        )

    def conn_per_class(
        self, sums: EdgeSums, codes: np.ndarray, conv: dict[str, Any], scale: np.ndarray | None
    ) -> tuple[np.ndarray, list[str]]:
        """λ2 of each class from its subgraph, streamed class by class (memory: one class)."""
        from metrics_core.affinity._diagnostics import class_lambda2

        counts, local, values, paths = class_layout(codes)
        cur = self._run(
            f"SELECT ci, i, j, v FROM {sums.in_class} WHERE ci = cj ORDER BY ci",
            "extracting each class's subgraph",
        )
        parts: list[tuple[np.ndarray, ...]] = []
        current = None

        def solve() -> None:
            i = np.concatenate([p[0] for p in parts])
            j = np.concatenate([p[1] for p in parts])
            v = np.concatenate([p[2] for p in parts])
            if scale is not None:
                v = v * scale[i]
            k = int(current)
            values[k], paths[k] = class_lambda2(int(counts[k]), local[i], local[j], v, conv)

        while True:
            batch = cur.fetch_df_chunk(vectors_per_chunk=256)  # ~0.5 M rows
            if batch is None or len(batch) == 0:
                break
            ci = batch["ci"].to_numpy()
            cuts = np.flatnonzero(np.diff(ci)) + 1
            for seg in np.split(np.arange(ci.size), cuts):
                k = ci[seg[0]]
                if current is not None and k != current:
                    solve()
                    parts = []
                current = k
                parts.append((batch["i"].to_numpy()[seg], batch["j"].to_numpy()[seg],
                              batch["v"].to_numpy(dtype=np.float64)[seg]))  # fmt: skip
        if current is not None and parts:
            solve()
        return values, paths

    def describe(self) -> list[dict[str, Any]]:
        r = self.request
        out = [{"role": "table", "file": r.labels, "engine": "duckdb",
                "columns": {"true": r.true_col, "pred": r.pred_col, "id": r.id_col},
                "shape": [self.n_points or 0]}]  # fmt: skip
        if r.edges:
            out.append({"role": "edges", "file": r.edges, "engine": "duckdb",
                        "orientation": r.orientation})  # fmt: skip
        return out


def _values(col: Any) -> np.ndarray:
    """A fetched label column as a plain array (masked entries are NULLs: None)."""
    if isinstance(col, np.ma.MaskedArray):
        mask = np.ma.getmaskarray(col)
        if not mask.any():
            return np.asarray(col.data)
        out = np.asarray(col.data, dtype=object)
        out[mask] = None  # (MaskedArray.filled(None) writes the fill value '?', not None)
        return out
    return np.asarray(col)


def _text(value: Any) -> str:
    """A checked label value as text (a bool as 0/1, as SQL casts it)."""
    if isinstance(value, (bool, np.bool_)):
        return str(int(value))
    return str(value)
