"""``evaluate``: every metric from one contingency table (and optionally one C), one call.

Assembled from the registry (:mod:`metrics_core.partition._registry`): the same kernels the
public ``*_score`` functions call, sharing the table's pair counts, matching, entropies, MI and
E[MI] (each computed once).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from metrics_core.partition import partition_metrics
from metrics_core.partition._contingency import NoisePolicy, as_contingency


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
    metrics: Iterable[str] | None = None,
    workers: int | None = None,
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
    metrics : iterable of str, optional
        Only these partition metrics (keys of :data:`metrics_core.METRICS`), and only what they
        need computed: ``metrics=("acc", "nmi")`` skips the matching's F-measures, the pair
        counts and AMI's expected MI. Same values as the full call. Default: all of them. SRE
        and CONN come with ``coef`` whatever it says.
    workers : int, optional
        Threads for the two label vectors' factorising (at once, from 65,536 labels each) and
        for CONN's classes of a sparse C. ``None``: the environment's ``CLUSTLENS_WORKERS``,
        else every CPU this process may use; ``1``: the calling thread only. No number depends
        on it.

    Examples
    --------
    >>> m = evaluate([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])
    >>> m["acc"], m["n_clusters"], m["pair_tp"] + m["pair_fp"] + m["pair_fn"] + m["pair_tn"]
    (0.6666666666666666, 3, 15)
    >>> evaluate(contingency=[[3, 44, 3], [2, 4, 44]])["acc"]
    0.88
    >>> evaluate([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2], metrics=["nmi", "acc"])
    {'nmi': 0.5158037429793889, 'acc': 0.6666666666666666}
    """
    c = as_contingency(
        labels_true,
        labels_pred,
        contingency=contingency,
        noise_policy=noise_policy,
        noise_labels=noise_labels,
        workers=workers,
    )
    out = partition_metrics(
        c, average_method=average_method, beta=beta, fmi_alpha=fmi_alpha, keys=metrics
    )
    if coef is not None:
        from metrics_core.affinity._diagnostics import affinity_diagnostics

        if labels_true is None:
            raise ValueError("SRE and CONN need labels_true (not only a contingency table)")
        conventions = affinity_conventions(
            coef_orientation, affinity_preset, zero_rows, normalize_rows, conn_cap
        )
        out.update(affinity_diagnostics(coef, labels_true, workers=workers, **conventions))
    return out


def affinity_conventions(
    coef_orientation: str | None = None,
    affinity_preset: str | None = None,
    zero_rows: str | None = None,
    normalize_rows: bool | str | None = None,
    conn_cap: bool | None = None,
) -> dict[str, Any]:
    """The SRE/CONN convention keywords of :func:`evaluate`'s arguments (``None``: not given)."""
    conventions: dict[str, Any] = {"orientation": coef_orientation, "preset": affinity_preset}
    if zero_rows is not None:
        conventions["zero_rows"] = zero_rows
    if normalize_rows is not None:
        conventions["normalize_rows"] = normalize_rows
    if conn_cap is not None:
        conventions["cap"] = conn_cap
    return conventions
