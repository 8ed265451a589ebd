"""What every engine hands back, and the one scoring code that turns it into numbers.

An engine (DuckDB, Spark, or the in-memory reader) only *counts*: the (class, cluster) pair
counts of a labels table, and — given an edge list C — each point's ℓ1 mass and mass off its
class, the class x class leakage sums, the ℓ2 row norms and the in-class entries. Everything
else (the contingency table, every partition metric, the SRE formula and its zero-row policy,
λ2 per class and CONN's conventions) is the in-memory code of :mod:`metrics_core.partition` and
:mod:`metrics_core.affinity`, called here once for all engines.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import scipy.sparse as sp

from metrics_core.affinity._diagnostics import (
    LeakageResult,
    _conn,
    detail,
    finish_conn,
    resolve_conventions,
    sre_from_masses,
    summary,
)
from metrics_core.partition import partition_metrics
from metrics_core.partition._contingency import (
    DENSE_CELL_LIMIT,
    NOISE_POLICIES,
    Contingency,
    NoiseSingleton,
    _is_noise,
)
from metrics_core.validation._errors import ClustlensInputError
from metrics_core.validation._labels import MAX_SAMPLES, check_labels

#: Engines ``evaluate_table`` can count with.
ENGINES = ("duckdb", "spark", "memory")
#: Columns an edge list must have: C[i, j] = value, i and j point ids.
EDGE_COLUMNS = ("i", "j", "value")
#: Default memory limit of an engine (and the budget the in-memory reader checks against).
DEFAULT_MEMORY_LIMIT = "2GB"

_UNITS = {"": 1, "B": 1, "KB": 10**3, "MB": 10**6, "GB": 10**9, "TB": 10**12,
          "KIB": 2**10, "MIB": 2**20, "GIB": 2**30, "TIB": 2**40}  # fmt: skip


def parse_memory(text: str | int) -> int:
    """Bytes in a memory size such as ``"2GB"``, ``"512MiB"`` or ``1_000_000``.

    Examples
    --------
    >>> parse_memory("2GB"), parse_memory("1.5 GiB"), parse_memory(4096)
    (2000000000, 1610612736, 4096)
    """
    if isinstance(text, int):
        return text
    s = str(text).strip().upper().replace(" ", "")
    num = s.rstrip("KMGTIB")
    unit = s[len(num) :]
    try:
        value = float(num)
    except ValueError:
        value = -1.0
    if unit not in _UNITS or not math.isfinite(value) or value <= 0:
        raise ClustlensInputError(
            f"{text!r} is not a memory size; write e.g. 2GB, 512MB or 1.5GiB",
            source="--memory-limit",
        )
    return int(value * _UNITS[unit])


def table_format(path: str | os.PathLike[str], what: str) -> str:
    """``"parquet"`` or ``"csv"`` from the file's first bytes (the extension is only a hint)."""
    p = Path(path)
    if not p.is_file():
        raise ClustlensInputError(f"no such file: {str(p)!r}", source=what)
    with open(p, "rb") as fh:
        head = fh.read(4)
    if head == b"PAR1":
        return "parquet"
    if p.suffix.lower() in (".parquet", ".pq"):
        raise ClustlensInputError(
            "the file is named .parquet but does not start with the parquet magic bytes 'PAR1'",
            source=str(p),
        )
    return "csv"


@dataclass(frozen=True)
class TableRequest:
    """What to count: a labels table (and an optional edge list) and the columns to use."""

    labels: str
    true_col: str
    pred_col: str
    id_col: str | None = None
    edges: str | None = None
    orientation: str = "rows"
    memory_limit: str = DEFAULT_MEMORY_LIMIT
    noise_labels: tuple[Any, ...] = (-1,)

    @property
    def labels_format(self) -> str:
        return table_format(self.labels, "--table")

    @property
    def edges_format(self) -> str | None:
        return None if self.edges is None else table_format(self.edges, "--edges")


@dataclass
class PairCounts:
    """One row per distinct (true, predicted) pair: the values and how many points carry them."""

    true_values: np.ndarray
    pred_values: np.ndarray
    counts: np.ndarray


@dataclass
class EdgeSums:
    """What an engine sums over an edge list, points in LABELS row order 0..N-1.

    ``total[i]``/``outside[i]``: ℓ1 mass of point i's representation and its mass on points of
    other classes; ``sq[i]``: squared ℓ2 norm; ``leakage[a, b]``: mass from class a onto class
    b; ``rows, cols, values``: the in-class entries (duplicates summed, points as rows).
    """

    total: np.ndarray
    outside: np.ndarray
    sq: np.ndarray
    leakage: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    values: np.ndarray
    n_edges: int = 0
    n_duplicates: int = 0
    in_class: Any = None  # an engine's handle on the summed entries (Spark: a DataFrame)


class Counter(Protocol):
    """The counting an engine does (each method one or two ``GROUP BY`` queries)."""

    def pair_counts(self) -> PairCounts: ...

    def point_codes(self, classes: np.ndarray) -> np.ndarray: ...

    def edge_sums(self, codes: np.ndarray, n_classes: int) -> EdgeSums: ...

    def describe(self) -> list[dict[str, Any]]: ...


@dataclass
class TableResult:
    """``metrics``: the keys of ``evaluate`` (and SRE/CONN with edges); ``affinity``: the
    per-class detail (:func:`metrics_core.affinity._diagnostics.detail`) or None."""

    metrics: dict[str, Any]
    inputs: list[dict[str, Any]]
    affinity: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)


# ------------------------------------------------------------------------------ labels


def label_values(values: np.ndarray, name: str, locate: Any) -> np.ndarray:
    """Check the distinct values of a label column as ``check_labels`` checks a vector.

    ``locate(value)`` returns the first row holding ``value`` (a query run only to word an
    error), so a refusal says which file, which column, what and where.
    """
    obj = np.asarray(values, dtype=object)
    for v in obj:
        bad = None
        if v is None or (isinstance(v, float) and math.isnan(v)):
            bad = "missing label (empty or NULL)"
        elif isinstance(v, float) and not math.isfinite(v):
            bad = f"non-finite label {v!r}"
        elif isinstance(v, float) and v != round(v):
            bad = f"label {v!r} is not a whole number; labels must be integers or text"
        elif isinstance(v, float) and abs(v) >= 2.0**53:
            bad = f"label {v!r} is a float too large to be read exactly"
        if bad is not None:
            raise ClustlensInputError(bad, source=name, where=locate(v))
    return check_labels(obj, name)


def contingency_from_pairs(
    pairs: PairCounts,
    *,
    true_name: str,
    pred_name: str,
    noise_policy: str = "keep",
    noise_labels: Iterable[Any] = (-1,),
    locate_true: Any = None,
    locate_pred: Any = None,
) -> Contingency:
    """The :class:`Contingency` the in-memory ``contingency_table`` builds from the same points.

    Rows and columns are in ``np.unique`` order of the label values and the table is dense up
    to ``DENSE_CELL_LIMIT`` cells, exactly as in memory, so every metric comes out bit for bit
    the same. Predicted noise labels follow ``noise_policy`` (``"singletons"``: each noise
    point becomes a one-point cluster, after the real clusters).
    """
    if noise_policy not in NOISE_POLICIES:
        raise ClustlensInputError(
            f"unknown noise_policy {noise_policy!r}; choose one of {', '.join(NOISE_POLICIES)}",
            source="noise_policy",
        )
    t = label_values(pairs.true_values, true_name, locate_true or (lambda v: None))
    p = label_values(pairs.pred_values, pred_name, locate_pred or (lambda v: None))
    counts = np.asarray(pairs.counts, dtype=np.int64)
    n = int(counts.sum())
    if n == 0:
        raise ClustlensInputError("the table has no rows", source=true_name)
    if n > MAX_SAMPLES:
        raise ClustlensInputError(
            f"{n:,} points: pair counts past {MAX_SAMPLES:,} points could overflow int64",
            source=true_name,
        )
    noise = _is_noise(p, noise_labels)
    n_noise = int(counts[noise].sum())
    if n_noise and noise_policy == "exclude":
        if n_noise == n:
            raise ClustlensInputError(
                f"all {n_noise:,} predicted labels are noise ({list(noise_labels)}); with "
                "noise_policy='exclude' no point is left to score. Use 'keep' or 'singletons'",
                source=pred_name,
            )
        t, p, counts, noise = t[~noise], p[~noise], counts[~noise], noise[~noise]
    classes, ti = np.unique(t, return_inverse=True)
    singles = n_noise and noise_policy == "singletons"
    real = ~noise if singles else np.ones(p.shape[0], dtype=bool)
    clusters, pi_real = np.unique(p[real], return_inverse=True)
    k, c = classes.size, clusters.size
    names: np.ndarray = clusters
    if singles:
        # One column per noise point, after the real clusters; within a class the order of its
        # noise points does not change any sum (every such cell holds 1).
        noise_rows = np.repeat(ti[noise], counts[noise])
        noise_rows.sort(kind="stable")
        names = np.empty(c + noise_rows.size, dtype=object)
        names[:c] = clusters.tolist()
        names[c:] = [NoiseSingleton(i) for i in range(noise_rows.size)]
        rows = np.concatenate([ti[real], noise_rows])
        cols = np.concatenate([pi_real, c + np.arange(noise_rows.size)])
        vals = np.concatenate([counts[real], np.ones(noise_rows.size, dtype=np.int64)])
        c += noise_rows.size
    else:
        rows, cols, vals = ti, pi_real, counts
    if k * c <= DENSE_CELL_LIMIT:
        table: Any = np.zeros(k * c, dtype=np.int64)
        np.add.at(table, rows.astype(np.int64) * c + cols, vals)
        table = table.reshape(k, c)
    else:
        table = sp.csr_array((vals, (rows, cols)), shape=(k, c))
        table.sum_duplicates()
    return Contingency(table, classes, names, n_noise, noise_policy)


# ------------------------------------------------------------------------------ scoring


def score(
    counter: Counter,
    *,
    true_name: str,
    pred_name: str,
    has_edges: bool,
    average_method: str = "arithmetic",
    noise_policy: str = "keep",
    noise_labels: Iterable[Any] = (-1,),
    beta: float = 1.0,
    fmi_alpha: float = 0.5,
    conventions: dict[str, Any] | None = None,
    locate_true: Any = None,
    locate_pred: Any = None,
    conn_per_class: Any = None,
) -> TableResult:
    """Count with ``counter`` and score with the in-memory code; the keys of ``evaluate``.

    ``conn_per_class(counter, sums, codes, conventions, scale) -> (values, paths)`` lets an
    engine solve λ2 per class where the entries live (Spark); by default the in-class entries
    come back and go through the in-memory CONN code.
    """
    pairs = counter.pair_counts()
    cont = contingency_from_pairs(
        pairs,
        true_name=true_name,
        pred_name=pred_name,
        noise_policy=noise_policy,
        noise_labels=noise_labels,
        locate_true=locate_true,
        locate_pred=locate_pred,
    )
    metrics = partition_metrics(cont, average_method=average_method, beta=beta, fmi_alpha=fmi_alpha)
    affinity = None
    notes: list[str] = []
    if has_edges:
        sre_conv, conn_conv, spec = resolve_conventions(**(conventions or {}))
        classes = np.unique(label_values(pairs.true_values, true_name, lambda v: None))
        codes = counter.point_codes(classes)
        sums = counter.edge_sums(codes, classes.size)
        if sums.n_duplicates:
            notes.append(f"summed {sums.n_duplicates:,} repeated (i, j) edges, as scipy does")
        sre = sre_from_masses(sums.total, sums.outside, codes, classes, sre_conv, spec)
        n = codes.shape[0]
        scale = None
        if conn_conv["normalize_rows"] is not False:
            norms = np.sqrt(sums.sq)
            norms[norms == 0] = 1.0  # sparse C: only an exactly zero row keeps its values
            scale = 1.0 / norms
        counts = np.bincount(codes, minlength=classes.size)
        if conn_per_class is not None:
            values, paths = conn_per_class(counter, sums, codes, conn_conv, scale)
            conn = finish_conn(values, paths, counts, classes, conn_conv, spec)
        else:
            in_class = sp.csr_array((sums.values, (sums.rows, sums.cols)), shape=(n, n))
            in_class.sum_duplicates()
            conn = _conn(in_class, codes, classes, counts, conn_conv, spec, "auto", None, scale)
        metrics.update(summary(sre, conn))
        affinity = detail(sre, conn, LeakageResult(sums.leakage, classes))
    return TableResult(metrics, counter.describe(), affinity, notes)


def class_layout(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """(class sizes, each point's index within its class, λ2 start values, paths).

    A class of two or more points that no in-class entry reaches has only isolated vertices:
    it starts at λ2 = 0 ("isolated"); the classes an engine streams overwrite their entry.
    """
    n_classes = int(codes.max()) + 1 if codes.size else 0
    counts = np.bincount(codes, minlength=n_classes)
    order = np.argsort(codes, kind="stable")
    local = np.empty(codes.size, dtype=np.int64)
    local[order] = np.arange(codes.size) - np.repeat(np.cumsum(counts) - counts, counts)
    values = np.where(counts >= 2, 0.0, np.nan)
    paths = ["isolated" if c >= 2 else "singleton" for c in counts]
    return counts, local, values, paths


def gather_sums(
    n: int,
    n_classes: int,
    point: tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray],
    leak: tuple[np.ndarray, np.ndarray, np.ndarray],
    **rest: Any,
) -> EdgeSums:
    """:class:`EdgeSums` from an engine's two GROUP BYs: per point (i, total, outside, sq) and
    per class pair (ci, cj, mass); points without a stored entry get zeros."""
    idx = np.asarray(point[0], dtype=np.int64)
    total, outside, sq = np.zeros(n), np.zeros(n), np.zeros(n)
    total[idx], outside[idx], sq[idx] = point[1], point[2], point[3]
    leakage = np.zeros((n_classes, n_classes))
    leakage[np.asarray(leak[0], dtype=np.intp), np.asarray(leak[1], dtype=np.intp)] = leak[2]
    empty = np.zeros(0, dtype=np.int64)
    return EdgeSums(total, outside, sq, leakage, empty, empty, np.zeros(0), **rest)


def chunks(n: int, step: int) -> Iterator[tuple[int, int]]:
    """(start, stop) pairs covering range(n) in steps of ``step``."""
    for s in range(0, n, step):
        yield s, min(n, s + step)
