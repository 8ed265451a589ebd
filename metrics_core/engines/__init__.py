"""Count on an engine, score in clustlens: labels tables and edge lists of any size.

Every partition metric depends only on the contingency table, and SRE and the leakage matrix
only on sums of |c_ij| grouped by (point, class of j) and (class of i, class of j). An engine
does that counting — DuckDB out of core on one machine, Spark on a cluster — and the in-memory
code of clustlens does all the scoring, so the numbers equal the in-memory path's: the counts
are integers, every metric is computed from them by the same code, and the float sums an
engine adds (per-point masses, leakage) differ from numpy's only in summation order.

Engines: ``"duckdb"`` (``pip install 'clustlens[duckdb]'``), ``"spark"``
(``pip install 'clustlens[spark]'`` and Java 17+) and ``"memory"`` (reads the columns into
numpy; refuses up front when the estimate is above the memory limit). DuckDB and pyspark are
imported only when their engine is used.

Examples
--------
>>> import os, tempfile
>>> d = tempfile.mkdtemp()
>>> path = os.path.join(d, "labels.csv")
>>> _ = open(path, "w").write("truth,pred\\n0,0\\n0,0\\n1,1\\n1,0\\n")
>>> evaluate_table(path, "truth", "pred", engine="memory").metrics["acc"]
0.75
"""

from __future__ import annotations

from typing import Any

from metrics_core.engines._common import (
    DEFAULT_MEMORY_LIMIT,
    EDGE_COLUMNS,
    ENGINES,
    TableRequest,
    TableResult,
    parse_memory,
    score,
)
from metrics_core.validation._errors import ClustlensInputError

__all__ = [
    "DEFAULT_MEMORY_LIMIT",
    "EDGE_COLUMNS",
    "ENGINES",
    "TableRequest",
    "TableResult",
    "evaluate_table",
    "parse_memory",
    "spark_evaluate",
]

_OPTIONS = ("average_method", "noise_policy", "noise_labels", "beta", "fmi_alpha")
_CONVENTIONS = ("coef_orientation", "affinity_preset", "zero_rows", "normalize_rows", "conn_cap")


def _score_kwargs(kwargs: dict[str, Any]) -> tuple[dict[str, Any], dict[str, Any], str]:
    """Split ``evaluate``'s keyword options into (scoring options, SRE/CONN conventions, the
    resolved orientation of C)."""
    from metrics_core.affinity._diagnostics import resolve_conventions
    from metrics_core.evaluation._evaluate import affinity_conventions

    unknown = sorted(set(kwargs) - set(_OPTIONS) - set(_CONVENTIONS))
    if unknown:
        raise ClustlensInputError(f"unknown option(s) {unknown}", source="arguments")
    options = {k: kwargs[k] for k in _OPTIONS if k in kwargs}
    conventions = affinity_conventions(**{k: kwargs.get(k) for k in _CONVENTIONS})
    sre_conv, _, _ = resolve_conventions(**conventions)
    return options, conventions, sre_conv["orientation"]


def spark_evaluate(*args: Any, **kwargs: Any) -> TableResult:
    """Score Spark DataFrames (see :func:`metrics_core.engines._spark.spark_evaluate`)."""
    from metrics_core.engines._spark import spark_evaluate as run

    return run(*args, **kwargs)


def evaluate_table(
    labels: str,
    true_col: str,
    pred_col: str,
    *,
    edges: str | None = None,
    id_col: str | None = None,
    engine: str = "duckdb",
    memory_limit: str = DEFAULT_MEMORY_LIMIT,
    threads: int | None = None,
    **kwargs: Any,
) -> TableResult:
    """Every metric of a labels table (parquet or CSV), counted by ``engine``.

    Parameters
    ----------
    labels : str
        Parquet or CSV file (CSV: a header line), one row per point.
    true_col, pred_col : str
        The columns holding the ground truth and the prediction.
    edges : str, optional
        C as an edge list, parquet or CSV with columns ``i``, ``j``, ``value``: C[i, j] =
        value (repeated pairs are summed). i and j are ids of ``id_col``, or without it 0-based
        data-row numbers of ``labels``. Adds SRE and CONN (and ``TableResult.affinity``).
    id_col : str, optional
        A column of unique point ids that ``edges`` refers to.
    engine : {"duckdb", "spark", "memory"}
    memory_limit : str
        DuckDB's memory limit (it spills to disk beyond it), Spark's driver memory, and the
        budget the in-memory path checks its estimate against.
    threads : int, optional
        DuckDB threads (default: all cores).
    **kwargs
        ``evaluate``'s options: ``average_method``, ``noise_policy``, ``noise_labels``,
        ``beta``, ``fmi_alpha``, ``coef_orientation``, ``affinity_preset``, ``zero_rows``,
        ``normalize_rows``, ``conn_cap``.

    Returns
    -------
    TableResult
        ``metrics`` holds the keys of :func:`metrics_core.evaluate` with the same values.
    """
    if engine not in ENGINES:
        raise ClustlensInputError(f"unknown engine {engine!r}; choose one of {ENGINES}", "engine")
    parse_memory(memory_limit)
    options, conventions, orientation = _score_kwargs(kwargs)
    request = TableRequest(
        labels=str(labels),
        true_col=true_col,
        pred_col=pred_col,
        id_col=id_col,
        edges=None if edges is None else str(edges),
        orientation=orientation,
        memory_limit=memory_limit,
    )
    request.labels_format  # noqa: B018  (refuses a missing file before any engine starts)
    if edges is not None:
        request.edges_format  # noqa: B018
    if engine == "memory":
        from metrics_core.engines._memory import evaluate_in_memory

        return evaluate_in_memory(request, conventions=conventions, **options)
    if engine == "duckdb":
        from metrics_core.engines._duckdb import DuckDBCounter

        with DuckDBCounter(request, threads=threads) as counter:
            return score(
                counter,
                true_name=f"{request.labels}: column {true_col!r}",
                pred_name=f"{request.labels}: column {pred_col!r}",
                has_edges=edges is not None,
                conventions=conventions,
                locate_true=counter.locate(true_col),
                locate_pred=counter.locate(pred_col),
                conn_per_class=lambda _c, sums, codes, conv, scale: counter.conn_per_class(
                    sums, codes, conv, scale
                ),
                **options,
            )
    from metrics_core.engines._spark import local_session, read_table
    from metrics_core.engines._spark import spark_evaluate as run

    spark = local_session(memory_limit.lower().replace("gb", "g").replace("mb", "m"))
    labels_df = read_table(spark, request.labels, request.labels_format)
    edges_df = None if edges is None else read_table(spark, request.edges, request.edges_format)
    result = run(labels_df, true_col, pred_col, edges=edges_df, id_col=id_col, spark=spark,
                 **kwargs)  # fmt: skip
    for d, path in zip(result.inputs, (request.labels, request.edges), strict=False):
        d["file"] = path
    return result
