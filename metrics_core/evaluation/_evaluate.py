"""``evaluate``: every metric from one contingency table (and optionally one C), one call."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from metrics_core.partition._contingency import Contingency, NoisePolicy, as_contingency
from metrics_core.partition._information import AVERAGE_METHODS, _ami, _emi, _hcv, _mi, _nmi
from metrics_core.partition._matching import _f_matrix_max, _match
from metrics_core.partition._pairs import _pairs, _ratio


def partition_metrics(
    c: Contingency,
    *,
    average_method: str = "arithmetic",
    beta: float = 1.0,
    fmi_alpha: float = 0.5,
) -> dict[str, float | int]:
    """All partition metrics of one :class:`Contingency`, as plain Python numbers."""
    if average_method not in AVERAGE_METHODS:
        raise ValueError(
            f"unknown average_method {average_method!r}; choose one of {AVERAGE_METHODS}"
        )
    if not 0.0 <= fmi_alpha <= 1.0:
        raise ValueError("fmi_alpha must be in [0, 1]")
    n = c.n_samples
    out: dict[str, float | int] = {
        "n_samples": n,
        "n_classes": c.n_classes,
        "n_clusters": c.n_clusters,
        "n_noise": c.n_noise,
    }
    acc = _match(c).accuracy
    out["acc"] = acc
    out["clustering_error"] = 1.0 - acc
    if n:
        col_max = c.table.max(axis=0)
        col_max = col_max.toarray() if hasattr(col_max, "toarray") else col_max
        out["purity"] = float(col_max.sum() / n)
        out["f_measure"] = float((c.row_sums * _f_matrix_max(c)).sum() / n)
    else:
        out["purity"] = out["f_measure"] = 1.0

    tp, fp, fn, tn = _pairs(c)
    total = tp + fp + fn + tn
    prec, rec = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
    out.update(pair_tp=tp, pair_fp=fp, pair_fn=fn, pair_tn=tn)
    out["pair_precision"] = prec
    out["pair_recall"] = rec
    out["pair_f1"] = _ratio(2 * tp, 2 * tp + fp + fn)
    out["rand"] = 1.0 if total == 0 or tp + tn == total else (tp + tn) / total
    out["ari"] = (
        1.0
        if fn == 0 and fp == 0
        else 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))
    )
    out["fmi"] = 0.0 if tp == 0 else float((prec**0.5) * (rec**0.5))
    out["fmi_weighted"] = 0.0 if tp == 0 else float(prec**fmi_alpha * rec ** (1.0 - fmi_alpha))
    out["jaccard"] = _ratio(tp, tp + fp + fn)

    out["mi"] = _mi(c)
    for m in AVERAGE_METHODS:
        out[f"nmi_{m}"] = _nmi(c, m)
    emi = _emi(c) if min(c.n_classes, c.n_clusters) > 1 else 0.0
    for m in AVERAGE_METHODS:
        out[f"ami_{m}"] = _ami(c, m, emi)
    out["emi"] = emi
    out["nmi"] = out[f"nmi_{average_method}"]
    out["ami"] = out[f"ami_{average_method}"]
    del out["nmi_arithmetic"], out["ami_arithmetic"]
    if average_method != "arithmetic":
        # keep every normaliser reachable by name even when the headline uses another one
        out["nmi_arithmetic"] = _nmi(c, "arithmetic")
        out["ami_arithmetic"] = _ami(c, "arithmetic", emi)
    h, comp, v = _hcv(c, beta)
    out.update(homogeneity=h, completeness=comp, v_measure=v)
    out["cluster_ratio"] = c.n_clusters / c.n_classes if c.n_classes else 1.0
    return out


def evaluate(
    labels_true: Any = None,
    labels_pred: Any = None,
    coef: Any = None,
    *,
    contingency: Any = None,
    coef_orientation: str | None = None,
    average_method: str = "arithmetic",
    noise_policy: NoisePolicy = "keep",
    noise_labels: Iterable[Any] = (-1,),
    beta: float = 1.0,
    fmi_alpha: float = 0.5,
    affinity_preset: str | None = None,
    zero_rows: str | None = None,
    normalize_rows: bool | None = None,
    conn_cap: bool | None = None,
) -> dict[str, float | int]:
    """Compute every external metric (and, given C, SRE and CONN) in one call.

    The contingency table is built once (O(N)) and every partition metric derived from it.
    Returns a flat dict of plain Python numbers; fractions are in [0, 1]. The keys and what they
    mean are listed in :data:`metrics_core.METRICS`.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        Ground truth and prediction (any hashable labels). Omit them and pass ``contingency``
        to score a table counted elsewhere.
    coef : array-like or scipy.sparse matrix of shape (n_samples, n_samples), optional
        Self-expressive coefficient matrix C; adds ``sre``, ``sre_zero_rows``, ``conn_min``,
        ``conn_mean`` and ``conn_skipped_singletons``. Never densified.
    contingency : Contingency or 2-D array, optional
        A precomputed classes × clusters table.
    coef_orientation : {"rows", "columns"}, optional
        ``"rows"``: row i of C represents point i (the default, the seed definition);
        ``"columns"``: column i does (MATLAB SSC code). Omitted with a preset: the preset's.
        Given and different from the preset's: an error, never silently overridden.
    average_method : {"arithmetic", "geometric", "min", "max"}
        Normaliser of the headline ``nmi`` and ``ami`` (all four are returned anyway).
    noise_policy : {"keep", "exclude", "singletons"}
        Treatment of predicted noise labels (see :func:`contingency_table`).
    noise_labels : iterable
        Predicted labels that mean noise, default ``(-1,)``.
    beta : float
        V-measure weight.
    fmi_alpha : float
        Weight of precision in the weighted Fowlkes–Mallows ``fmi_weighted``.
    affinity_preset, zero_rows, normalize_rows, conn_cap
        SRE/CONN conventions, see :func:`subspace_preserving_error` and :func:`connectivity`;
        ``None`` keeps the preset's (or the documented default) value.

    Examples
    --------
    >>> m = evaluate([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])
    >>> m["acc"], m["n_clusters"], m["pair_tp"] + m["pair_fp"] + m["pair_fn"] + m["pair_tn"]
    (0.6666666666666666, 3, 15)
    >>> evaluate(contingency=[[3, 44, 3], [2, 4, 44]])["acc"]
    0.88
    """
    c = as_contingency(
        labels_true,
        labels_pred,
        contingency=contingency,
        noise_policy=noise_policy,
        noise_labels=noise_labels,
    )
    out = partition_metrics(c, average_method=average_method, beta=beta, fmi_alpha=fmi_alpha)
    if coef is not None:
        from metrics_core.affinity._diagnostics import affinity_diagnostics

        if labels_true is None:
            raise ValueError("SRE and CONN need labels_true (not only a contingency table)")
        conventions: dict[str, Any] = {"orientation": coef_orientation, "preset": affinity_preset}
        if zero_rows is not None:
            conventions["zero_rows"] = zero_rows
        if normalize_rows is not None:
            conventions["normalize_rows"] = normalize_rows
        if conn_cap is not None:
            conventions["cap"] = conn_cap
        out.update(affinity_diagnostics(coef, labels_true, **conventions))
    return out
