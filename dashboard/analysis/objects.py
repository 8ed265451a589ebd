"""Analysis objects: what every surface shows, computed once from the inputs and conventions.

UI-free (no Streamlit, no Plotly). The pages get these objects through the caches of
:mod:`dashboard.compute`; the HTML report, the exports and ``clustlens report`` build them with
the same functions. Every figure builder of :mod:`dashboard.figures.panels` takes one of them,
so a number on a page, in the report's table and in the report's figure comes from one object.

- :class:`PartitionAnalysis`: every partition metric of one prediction and its contingency
  table ordered by the optimal matching;
- :class:`AffinityAnalysis`: SRE per point and class, CONN per class and the leakage matrix
  of C under the conventions (a preset included), with the display of |C| + |C|ᵀ;
- :class:`Analysis`: the whole analysis of one ground truth, its predictions and C.

Examples
--------
>>> import numpy as np
>>> pa = analyse_partition([0, 0, 1, 1], [1, 1, 0, 2], Conventions())
>>> pa.metrics["acc"], pa.table.rows, pa.table.cols
(0.75, ['0', '1'], ['1', '0', '2'])
>>> aa = analyse_affinity([0, 0, 1, 1], np.ones((4, 4)) - np.eye(4), Conventions())
>>> round(aa.summary["sre"], 4), aa.conn_classes
(0.6667, ['0', '1'])
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

import metrics_core as mc
from dashboard.analysis import partition as ordering
from dashboard.analysis import pooling
from dashboard.analysis.conventions import Conventions

#: How the points of the affinity plot are sorted.
SORT_MODES = ordering.SORT_MODES


@dataclass(frozen=True, eq=False)
class OrderedTable:
    """A classes x clusters table ordered so matched pairs sit on the diagonal (names as str)."""

    table: np.ndarray
    rows: list[str]
    cols: list[str]
    n_matched: int


@dataclass(frozen=True, eq=False)
class PartitionAnalysis:
    """Every partition metric of one prediction, and its ordered contingency table."""

    metrics: dict[str, Any]
    table: OrderedTable
    n_samples: int
    n_noise: int
    n_classes: int
    n_clusters: int

    @property
    def accuracy(self) -> float:
        return float(self.metrics["acc"])

    def sankey_links(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(class row, cluster column, count) of the flows worth drawing."""
        return ordering.sankey_links(self.table.table)

    def pair_counts_reading(self) -> list[str]:
        """The 2 x 2 pair matrix's counts spelled out in words."""
        return pair_counts_reading(self.metrics)


@dataclass(frozen=True, eq=False)
class AffinityAnalysis:
    """SRE, CONN and leakage of C under ``conventions``; arrays in class order."""

    conventions: Conventions
    summary: dict[str, Any]
    sre_per_point: np.ndarray
    sre_per_class: np.ndarray
    sre_classes: list[str]
    sre_reported: float
    conn_per_class: np.ndarray
    conn_classes: list[str]
    conn_skipped: list[str]
    conn_methods: list[str]
    conn_reported: float
    leakage: np.ndarray
    leakage_classes: list[str]


@dataclass(frozen=True, eq=False)
class Analysis:
    """One analysis: the predictions' metrics, the active one in detail, C's diagnostics."""

    conventions: Conventions
    results: dict[str, dict[str, Any]]
    active: str
    partition: PartitionAnalysis
    affinity: AffinityAnalysis | None = None
    display: dict[str, Any] | None = None
    inputs: list[dict[str, Any]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    diagnosis: list[dict[str, Any]] = field(default_factory=list)  # of the active prediction
    # bootstrap intervals / permutation p-values of the active prediction (see uncertainty())
    uncertainty: dict[str, Any] | None = None


# ------------------------------------------------------------------------------ builders


def analyse_partition(
    labels_true: Any,
    labels_pred: Any,
    conv: Conventions,
    *,
    max_cols: int = ordering.MAX_DISPLAY_COLS,
) -> PartitionAnalysis:
    """Metrics and the matched contingency table of one prediction (counted once)."""
    c = mc.contingency_table(labels_true, labels_pred, noise_policy=conv.noise_policy)
    metrics = mc.evaluate(contingency=c, average_method=conv.average_method)
    m = mc.best_matching(contingency=c)
    ci = np.asarray(m.class_index, dtype=np.int64)
    cj = np.asarray(m.cluster_index, dtype=np.int64)
    classes = [str(x) for x in c.classes]
    clusters = [str(x) for x in c.clusters]
    if c.is_sparse:  # huge table (e.g. noise points as singletons): densify the big columns
        col_sums = np.asarray(c.col_sums)
        extra = np.setdiff1d(np.argsort(-col_sums, kind="stable")[:max_cols], cj)
        keep = np.concatenate([np.unique(cj), extra])
        sub = sp.csr_array(c.table)[:, keep].toarray()
        rest = np.asarray(c.row_sums) - sub.sum(axis=1)
        remap = {int(j): i for i, j in enumerate(keep)}
        out = ordering.order_contingency(
            sub,
            classes,
            [clusters[j] for j in keep],
            ci,
            np.array([remap[int(j)] for j in cj], dtype=np.int64),
            max_cols=max_cols,
        )
        if rest.any():
            n_rest = c.n_clusters - len(keep)
            out["table"] = np.column_stack([out["table"], rest[out["row_order"]]])
            out["cols"].append(f"({n_rest} small clusters)")
    else:
        out = ordering.order_contingency(c.dense(), classes, clusters, ci, cj, max_cols=max_cols)
    return PartitionAnalysis(
        metrics=metrics,
        table=OrderedTable(out["table"], out["rows"], out["cols"], out["n_matched"]),
        n_samples=c.n_samples,
        n_noise=c.n_noise,
        n_classes=c.n_classes,
        n_clusters=c.n_clusters,
    )


def analyse_affinity(labels_true: Any, coef: Any, conv: Conventions) -> AffinityAnalysis:
    """SRE, CONN and leakage of ``coef`` (dense or sparse; never densified)."""
    kw = conv.affinity_kwargs()
    sre = mc.subspace_preserving_error(coef, labels_true, **kw)
    conn = mc.connectivity(coef, labels_true, **kw)
    leak = mc.leakage_matrix(coef, labels_true, orientation=conv.effective_orientation)
    summary = {
        "sre": float(sre.value),
        "sre_zero_rows": int(sre.n_zero_rows),
        "conn_min": float(conn.min),
        "conn_mean": float(conn.mean),
        "conn_skipped_singletons": len(conn.skipped_singletons),
    }
    return AffinityAnalysis(
        conventions=conv,
        summary=summary,
        sre_per_point=np.asarray(sre.per_point, dtype=np.float64),
        sre_per_class=np.asarray(sre.per_class, dtype=np.float64),
        sre_classes=[str(c) for c in sre.classes],
        sre_reported=float(sre.reported),
        conn_per_class=np.asarray(conn.per_class, dtype=np.float64),
        conn_classes=[str(c) for c in conn.classes],
        conn_skipped=[str(c) for c in conn.skipped_singletons],
        conn_methods=list(conn.method_per_class),
        conn_reported=float(conn.reported),
        leakage=np.asarray(leak.matrix, dtype=np.float64),
        leakage_classes=[str(c) for c in leak.classes],
    )


def label_codes(labels: Any) -> tuple[np.ndarray, list[str]]:
    """Integer codes (sorted label order) and the labels as text."""
    uniq, codes = np.unique(np.asarray(labels), return_inverse=True)
    return codes.reshape(-1).astype(np.int64), [str(u) for u in uniq]


def affinity_display(
    labels_true: Any,
    labels_pred: Any | None,
    coef: Any,
    sort_mode: str = "ground truth",
    *,
    max_bins: int = pooling.MAX_BINS,
    cell_limit: int = pooling.CELL_LIMIT,
) -> dict[str, Any]:
    """|C| + |C|ᵀ in display order, pooled block-aware above ``cell_limit`` points.

    W is symmetric, so the display does not depend on the orientation of C. A sparse C is
    pooled from its stored entries (never densified).
    """
    t_codes, t_names = label_codes(labels_true)
    p_codes, p_names = label_codes(labels_pred) if labels_pred is not None else (None, [])
    if sort_mode == "prediction" and p_codes is None:
        sort_mode = "ground truth"
    order, groups = ordering.display_order(t_codes, p_codes, sort_mode)
    bounds = pooling.group_bounds(groups)
    names = p_names if sort_mode == "prediction" else t_names
    group_names = [names[g] for g in groups[bounds[:-1]]]
    n = len(order)
    pool_bounds = bounds
    if sort_mode == "ground truth, then prediction" and p_codes is not None:
        sub = pooling.group_bounds(t_codes[order] * (len(p_names) + 1) + p_codes[order])
        if len(sub) - 1 <= max_bins // 2:
            pool_bounds = sub  # respect the cluster sub-blocks as well when they are few
    if n <= cell_limit:
        edges = np.arange(n + 1, dtype=np.int64)
        values = pooling.cell_affinity(coef, order)
    else:
        edges = pooling.bin_edges(pool_bounds, max_bins)
        values = pooling.pooled_affinity(coef, order, edges)
    return {
        "values": values.astype(np.float32),
        "edges": edges,
        "bounds": bounds,
        "group_names": group_names,
        "group_kind": "cluster" if sort_mode == "prediction" else "class",
        "pooled": n > cell_limit,
        "n": n,
        "sort_mode": sort_mode,
        "order": order,
        "groups": groups,
    }


def sre_points_display(labels_true: Any, aff: AffinityAnalysis) -> dict[str, Any]:
    """Per-point SRE in ground-truth order, with group bounds and names."""
    codes, names = label_codes(labels_true)
    order, groups = ordering.display_order(codes, None, "ground truth")
    bounds = pooling.group_bounds(groups)
    return {
        "values": aff.sre_per_point[order],
        "groups": groups,
        "bounds": bounds,
        "names": [names[g] for g in groups[bounds[:-1]]],
        "order": order,
    }


def combined_metrics(pa: PartitionAnalysis, aff: AffinityAnalysis | None) -> dict[str, Any]:
    """The prediction's metrics plus, with C, the affinity summary (what every table shows)."""
    out = dict(pa.metrics)
    if aff is not None:
        out.update(aff.summary)
    return out


def analyse(
    labels_true: Any,
    preds: Mapping[str, Any],
    coef: Any,
    conv: Conventions,
    *,
    active: str | None = None,
    sort_mode: str = "ground truth",
    inputs: Sequence[Mapping[str, Any]] = (),
    notes: Sequence[str] = (),
) -> Analysis:
    """The whole analysis without any cache: what ``clustlens report`` builds from files.

    The dashboard builds the same :class:`Analysis` from its cached pieces
    (:func:`dashboard.compute.evaluation.analysis`), with these same functions.
    """
    if not preds:
        raise mc.ClustlensInputError("at least one prediction is needed", source="predictions")
    names = list(preds)
    active = active if active in preds else names[0]
    aff = analyse_affinity(labels_true, coef, conv) if coef is not None else None
    parts = {name: analyse_partition(labels_true, p, conv) for name, p in preds.items()}
    results = {name: combined_metrics(pa, aff) for name, pa in parts.items()}
    display = None
    if coef is not None:
        display = affinity_display(labels_true, preds[active], coef, sort_mode)
    from metrics_core.diagnosis import diagnose

    found = diagnose(
        labels_true,
        preds[active],
        coef,
        noise_policy=conv.noise_policy,
        **(conv.affinity_kwargs() if coef is not None else {}),
    )
    return Analysis(
        conventions=conv,
        results=results,
        active=active,
        partition=parts[active],
        affinity=aff,
        display=display,
        inputs=[dict(i) for i in inputs],
        notes=list(notes),
        diagnosis=[f.as_dict() for f in found],
    )


def uncertainty(
    labels_true: Any,
    labels_pred: Any,
    other: Any | None,
    *,
    n: int,
    seed: int,
    average_method: str = "arithmetic",
    other_name: str = "",
) -> dict[str, Any]:
    """Bootstrap intervals and permutation p-values of one prediction, and (``other`` given)
    the paired bootstrap of ``other`` − it: what Summary, the report and ``clustlens report
    --uncertainty`` show (:mod:`metrics_core.uncertainty`)."""
    from metrics_core.uncertainty import bootstrap_intervals, method_text, paired_difference

    rows = bootstrap_intervals(
        labels_true, labels_pred, n_boot=n, n_perm=n, seed=seed, average_method=average_method
    )
    out: dict[str, Any] = {
        "method": method_text(n, n, 0.95, seed),
        "rows": [r.as_dict() for r in rows],
        "n": n,
        "seed": seed,
    }
    if other is not None:
        diff = paired_difference(
            labels_true, labels_pred, other, n_boot=n, seed=seed, average_method=average_method
        )
        out["paired"] = [r.as_dict() for r in diff]
        out["other"] = other_name
        out["paired_method"] = (
            f"paired 95% percentile bootstrap over points, {n:,} resamples (the same draws "
            f"score both predictions); two-sided p for no difference; seed {seed}"
        )
    return out


# ------------------------------------------------------------------------------ words


def pair_counts_reading(m: Mapping[str, Any]) -> list[str]:
    """The 2 x 2 pair matrix's counts in words (our own text with numbers only).

    No verdict: which errors the prediction makes is said once, in points, by
    :func:`metrics_core.diagnosis.verdict`; :func:`metrics_core.diagnosis.pair_view` says what
    the pair scores make of it.

    Examples
    --------
    >>> pair_counts_reading({"pair_tp": 3, "pair_fp": 9, "pair_fn": 1, "pair_tn": 2})[2]
    '75.0% of the same-class pairs stay together (pair recall).'
    """
    tp, fp, fn = int(m["pair_tp"]), int(m["pair_fp"]), int(m["pair_fn"])
    share = tp / (tp + fn) if tp + fn else 1.0
    return [
        f"{fp:,} pairs are put together although their classes differ (false positives: "
        "merged classes and misassigned points).",
        f"{fn:,} pairs are pulled apart although they share a class (false negatives: split "
        "classes and misassigned points).",
        f"{share:.1%} of the same-class pairs stay together (pair recall).",
    ]


def metric_rows(values: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The catalogue joined with the values: one row per metric, in catalogue order."""
    rows = []
    seen = set()
    for info in mc.METRICS:
        if info.key not in values:
            continue
        seen.add(info.key)
        lo, hi = info.bounds
        rng = f"[{'-∞' if lo is None else lo}, {'∞' if hi is None else hi}]"
        rows.append(
            {
                "family": info.family,
                "metric": info.name,
                "key": info.key,
                "value": values[info.key],
                "better": {"higher": "higher ↑", "lower": "lower ↓"}.get(info.direction, "—"),
                "range": rng,
                "formula": info.formula,
                "convention": info.convention,
                "reference": info.reference,
            }
        )
    for k, v in values.items():  # keys not (yet) in the catalogue still show up
        if k not in seen and isinstance(v, (int, float)):
            rows.append({"family": "other", "metric": k, "key": k, "value": v})
    return rows
