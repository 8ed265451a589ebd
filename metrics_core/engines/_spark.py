"""Counting with Spark: the same GROUP BYs in Spark SQL, CONN per class with ``applyInPandas``.

:func:`spark_evaluate` takes DataFrames (for a job submitted to a cluster);
``clustlens evaluate --engine spark`` reads files into a local session. Only counts, per-point
sums, K x K sums and one λ2 per class travel back to the driver.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from metrics_core.engines._common import (
    EDGE_COLUMNS,
    EdgeSums,
    PairCounts,
    TableResult,
    class_layout,
    gather_sums,
    score,
)
from metrics_core.validation._coef import refuse_coef_above
from metrics_core.validation._errors import ClustlensInputError


def _import_pyspark() -> Any:
    try:
        import pyspark  # noqa: F401
        from pyspark.sql import functions as F
    except ImportError:
        raise ClustlensInputError(
            "the Spark engine needs pyspark (and Java 17+): pip install 'clustlens[spark]'",
            source="--engine spark",
        ) from None
    return F


def local_session(memory_limit: str = "2g", app_name: str = "clustlens") -> Any:
    """A local Spark session (``local[*]``) with Arrow on, quiet logs and no UI."""
    import warnings

    _import_pyspark()
    # pyspark warns on every pandas conversion when pandas >= 3 (it works; the tests check).
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas")
    from pyspark.sql import SparkSession

    spark = (
        SparkSession.builder.master("local[*]")
        .appName(app_name)
        .config("spark.driver.memory", memory_limit)
        .config("spark.ui.enabled", "false")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .config("spark.sql.shuffle.partitions", "8")
        .config("spark.ui.showConsoleProgress", "false")
        .getOrCreate()
    )
    spark.sparkContext.setLogLevel("ERROR")
    return spark


def read_table(spark: Any, path: str, fmt: str) -> Any:
    """A DataFrame of a parquet or CSV file (CSV: header, types inferred)."""
    if fmt == "parquet":
        return spark.read.parquet(path)
    return spark.read.csv(path, header=True, inferSchema=True)


def _with_position(df: Any, spark: Any) -> Any:
    """``df`` with ``pos``: its row order (zipWithIndex keeps partition order = file order)."""
    schema = df.schema.add("pos", "long")
    rdd = df.rdd.zipWithIndex().map(lambda rv: (*rv[0], rv[1]))
    return spark.createDataFrame(rdd, schema)


class SparkCounter:
    """The counts of a labels DataFrame (and an edge-list DataFrame) computed by Spark."""

    def __init__(
        self,
        spark: Any,
        labels: Any,
        true_col: str,
        pred_col: str,
        *,
        id_col: str | None = None,
        edges: Any = None,
        orientation: str = "rows",
        names: tuple[str, str] = ("labels", "edges"),
    ) -> None:
        self.F = _import_pyspark()
        self.spark, self.labels, self.edges = spark, labels, edges
        self.true_col, self.pred_col, self.id_col = true_col, pred_col, id_col
        self.orientation, self.names = orientation, names
        for flag, col in (("true", true_col), ("pred", pred_col), ("id", id_col)):
            if col is not None and col not in labels.columns:
                raise ClustlensInputError(
                    f"the {flag} column {col!r} is not a column of the table; its columns are "
                    f"{labels.columns}",
                    source=names[0],
                )
        if edges is not None:
            missing = [c for c in EDGE_COLUMNS if c not in edges.columns]
            if missing:
                raise ClustlensInputError(
                    f"an edge list needs columns {list(EDGE_COLUMNS)}; missing {missing}",
                    source=names[1],
                )
        self.n_points = 0
        self._points: Any = None

    def pair_counts(self) -> PairCounts:
        F = self.F
        df = self.labels.groupBy(F.col(self.true_col).alias("t"), F.col(self.pred_col).alias("p"))
        pdf = df.count().toPandas()
        counts = pdf["count"].to_numpy(dtype=np.int64)
        self.n_points = int(counts.sum())
        return PairCounts(_values(pdf["t"]), _values(pdf["p"]), counts)

    def point_codes(self, classes: np.ndarray) -> np.ndarray:
        F = self.F
        cols = [F.col(self.true_col).alias("t")]
        if self.id_col:
            cols.append(F.col(self.id_col).alias("id"))
        positioned = _with_position(self.labels.select(*cols), self.spark)
        table = self.spark.createDataFrame(
            [(_text(v), i) for i, v in enumerate(classes)], "value string, code int"
        )
        key = (
            F.col("t").cast("long").cast("string")
            if _is_float(self.labels, self.true_col)
            else (F.col("t").cast("string"))
        )
        self._points = (
            positioned.join(table, key == F.col("value"))
            .select("pos", "code", *(["id"] if self.id_col else []))
            .cache()
        )
        pdf = self._points.select("pos", "code").toPandas()
        codes = np.full(self.n_points, -1, dtype=np.intp)
        codes[pdf["pos"].to_numpy(dtype=np.int64)] = pdf["code"].to_numpy()
        if (codes < 0).any():
            raise ClustlensInputError("could not match every point to its class", self.names[0])
        return codes

    def edge_sums(self, codes: np.ndarray, n_classes: int) -> EdgeSums:
        F = self.F
        n = codes.shape[0]
        a, b = ("i", "j") if self.orientation == "rows" else ("j", "i")
        e = self.edges.select(F.col(a).alias("a"), F.col(b).alias("b"), F.col("value"))
        bad = e.filter(
            F.col("value").isNull() | F.isnan("value") | (F.abs("value") == float("inf"))
        )
        first = bad.limit(1).collect()
        if first:
            raise ClustlensInputError(
                f"value {first[0]['value']!r} of edge ({first[0]['a']!r}, {first[0]['b']!r}) is "
                "missing or not finite",
                source=self.names[1],
            )
        pts = self._points
        if self.id_col:
            dup = pts.groupBy("id").count().filter("count > 1").limit(1).collect()
            if dup:
                raise ClustlensInputError(
                    f"id {dup[0]['id']!r} appears {dup[0]['count']} times in column "
                    f"{self.id_col!r}; ids must be unique",
                    source=self.names[0],
                )
            pi = pts.select(
                F.col("id").alias("a"), F.col("pos").alias("i"), F.col("code").alias("ci")
            )
            pj = pts.select(
                F.col("id").alias("b"), F.col("pos").alias("j"), F.col("code").alias("cj")
            )
        else:
            pi = pts.select(
                F.col("pos").alias("a"), F.col("pos").alias("i"), F.col("code").alias("ci")
            )
            pj = pts.select(
                F.col("pos").alias("b"), F.col("pos").alias("j"), F.col("code").alias("cj")
            )
        mapped = e.join(pi, "a", "left").join(pj, "b", "left")
        orphan = mapped.filter(F.col("i").isNull() | F.col("j").isNull()).limit(1).collect()
        if orphan:
            raise ClustlensInputError(
                f"edge ({orphan[0]['a']!r}, {orphan[0]['b']!r}) names a point that is not in "
                "the labels table",
                source=self.names[1],
            )
        big = e.agg(F.max(F.abs("value"))).collect()[0][0] or 0.0
        refuse_coef_above(float(big), n, self.names[1])
        n_edges = mapped.count()
        # Repeated (i, j) are summed before |.|, as scipy sums a COO matrix's duplicates.
        c = (
            mapped.groupBy("i", "j")
            .agg(F.sum("value").alias("v"), F.first("ci").alias("ci"), F.first("cj").alias("cj"))
            .cache()
        )
        n_unique = c.count()
        av = F.abs("v")
        per_point = (
            c.groupBy("i")
            .agg(
                F.sum(av).alias("total"),
                F.sum(F.when(F.col("ci") != F.col("cj"), av).otherwise(0.0)).alias("outside"),
                F.sum(F.col("v") * F.col("v")).alias("sq"),
            )
            .toPandas()
        )
        leak = c.groupBy("ci", "cj").agg(F.sum(av).alias("m")).toPandas()
        return gather_sums(
            n,
            n_classes,
            tuple(per_point[k].to_numpy() for k in ("i", "total", "outside", "sq")),
            tuple(leak[k].to_numpy() for k in ("ci", "cj", "m")),
            n_edges=int(n_edges),
            n_duplicates=int(n_edges - n_unique),
            in_class=c,
        )

    def describe(self) -> list[dict[str, Any]]:
        out = [{"role": "table", "file": self.names[0], "engine": "spark",
                "columns": {"true": self.true_col, "pred": self.pred_col, "id": self.id_col},
                "shape": [self.n_points]}]  # fmt: skip
        if self.edges is not None:
            out.append({"role": "edges", "file": self.names[1], "engine": "spark",
                        "orientation": self.orientation})  # fmt: skip
        return out


def _empty() -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)


def _is_float(df: Any, col: str) -> bool:
    return dict(df.dtypes)[col] in ("double", "float", "boolean")


def _text(value: Any) -> str:
    if isinstance(value, (bool, np.bool_)):
        return str(int(value))
    return str(value)


def _values(col: Any) -> np.ndarray:
    """A pandas column of labels as an object array, NULL/NaN as None."""
    arr = col.to_numpy(dtype=object)
    return np.array([None if v is None or (isinstance(v, float) and v != v) else v for v in arr],
                    dtype=object)  # fmt: skip


def spark_evaluate(
    labels: Any,
    true_col: str,
    pred_col: str,
    *,
    edges: Any = None,
    id_col: str | None = None,
    spark: Any = None,
    **kwargs: Any,
) -> TableResult:
    """Every metric (and SRE/CONN given an edge list) of Spark DataFrames, scored in clustlens.

    Parameters
    ----------
    labels : pyspark.sql.DataFrame
        One row per point, with the true and predicted label columns (and ``id_col``).
    true_col, pred_col : str
    edges : pyspark.sql.DataFrame, optional
        C as rows (``i``, ``j``, ``value``): C[i, j] = value, i and j ids of ``id_col`` or, with
        no ``id_col``, 0-based positions in ``labels``' row order.
    id_col : str, optional
    spark : SparkSession, optional
        Default: the session ``labels`` belongs to.
    **kwargs
        ``evaluate``'s options (``average_method``, ``noise_policy``, ``beta``,
        ``coef_orientation``, ``affinity_preset``, ...).

    Returns
    -------
    TableResult
        ``metrics`` has the keys (and values) of the in-memory ``evaluate``.
    """
    from metrics_core.engines import _score_kwargs

    spark = spark or labels.sparkSession
    options, conventions, orientation = _score_kwargs(kwargs)
    counter = SparkCounter(
        spark, labels, true_col, pred_col, id_col=id_col, edges=edges, orientation=orientation
    )
    return score(
        counter,
        true_name=f"column {true_col!r}",
        pred_name=f"column {pred_col!r}",
        has_edges=edges is not None,
        conventions=conventions,
        conn_per_class=_conn_per_class if edges is not None else None,
        **options,
    )


def _conn_per_class(counter: SparkCounter, sums: EdgeSums, codes: np.ndarray, conv: dict,
                    scale: np.ndarray | None) -> tuple[np.ndarray, list[str]]:  # fmt: skip
    """λ2 of each class: its subgraph's entries grouped by class, solved by ``applyInPandas``."""
    import pandas as pd

    from metrics_core.affinity._diagnostics import class_lambda2

    F = counter.F
    spark = counter.spark
    counts, local, values, paths = class_layout(codes)
    sc = np.ones(codes.size) if scale is None else scale
    pts = spark.createDataFrame(
        pd.DataFrame({"i": np.arange(codes.size), "li": local, "s": sc, "nk": counts[codes]})
    )
    inside = sums.in_class.filter(F.col("ci") == F.col("cj"))
    blocks = (
        inside.join(pts, "i")
        .join(pts.select(F.col("i").alias("j"), F.col("li").alias("lj")), "j")
        .select("ci", "nk", "li", "lj", (F.col("v") * F.col("s")).alias("v"))
    )
    conv_local = dict(conv)

    def solve(pdf: pd.DataFrame) -> pd.DataFrame:
        value, path = class_lambda2(
            int(pdf["nk"].iloc[0]),
            pdf["li"].to_numpy(),
            pdf["lj"].to_numpy(),
            pdf["v"].to_numpy(dtype=np.float64),
            conv_local,
        )
        return pd.DataFrame({"ci": [int(pdf["ci"].iloc[0])], "lambda2": [value], "path": [path]})

    res = blocks.groupBy("ci").applyInPandas(solve, "ci int, lambda2 double, path string")
    pdf = res.toPandas()
    for ci, lam, path in zip(pdf["ci"], pdf["lambda2"], pdf["path"], strict=True):
        values[int(ci)], paths[int(ci)] = float(lam), str(path)
    return values, paths
