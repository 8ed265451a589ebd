"""Cached analysis objects of the Evaluate pages (Summary, Contingency, Pair confusion, Affinity).

The only place these pages compute, and it only caches: every value is built by the UI-free
functions of :mod:`dashboard.analysis.objects` (the same ones ``clustlens report`` calls).
Caches (``st.cache_data``) are keyed on strings only — input keys (SHA-256 of the bytes plus the
variable/column picked) and ``Conventions.key``; arrays travel as ``_``-prefixed arguments,
which Streamlit does not hash, so a large C is never hashed on a rerun.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import streamlit as st

from dashboard.analysis import objects
from dashboard.analysis.conventions import Conventions
from dashboard.analysis.objects import AffinityAnalysis, Analysis, PartitionAnalysis
from dashboard.session.budget import CACHE_TTL
from dashboard.session.state import Input
from metrics_core.evaluation import mean_std, mean_std_caption

_CACHE = {"show_spinner": False, "max_entries": 64, "ttl": CACHE_TTL}


# ---------------------------------------------------------------- analysis objects
@st.cache_data(**_CACHE)
def _partition(tkey: str, pkey: str, conv_key: str, _conv, _t, _p) -> PartitionAnalysis:
    return objects.analyse_partition(_t, _p, _conv)


def partition(truth: Input, pred: Input, conv: Conventions) -> PartitionAnalysis:
    """Metrics and the matched contingency table of ``pred`` (cached)."""
    return _partition(truth.key, pred.key, conv.key, conv, truth.value, pred.value)


@st.cache_data(**_CACHE)
def _affinity(tkey: str, ckey: str, conv_key: str, _conv, _t, _c) -> AffinityAnalysis:
    return objects.analyse_affinity(_t, _c, _conv)


def coef_fits(truth: Input, coef: Input | None) -> bool:
    """C is given and is N x N for the ground truth's N."""
    return coef is not None and coef.value.shape == (truth.n, truth.n)


def affinity(truth: Input, coef: Input, conv: Conventions) -> AffinityAnalysis:
    """SRE, CONN and leakage of C under ``conv`` (cached)."""
    return _affinity(truth.key, coef.key, conv.key, conv, truth.value, coef.value)


def own(pred: Input | None, coef: Input | None) -> Input | None:
    """The C of ``pred``: its own when it carries one, else ``coef`` (the session's)."""
    return pred.own_coef if pred is not None and pred.own_coef is not None else coef


def metrics(truth: Input, pred: Input, coef: Input | None, conv: Conventions) -> dict[str, Any]:
    """Every metric of one prediction (with SRE/CONN when its C fits the labels; a prediction
    that carries its own C is scored with it)."""
    coef = own(pred, coef)
    aff = affinity(truth, coef, conv) if coef_fits(truth, coef) else None
    return objects.combined_metrics(partition(truth, pred, conv), aff)


def all_metrics(
    truth: Input, preds: list[Input], coef: Input | None, conv: Conventions
) -> dict[str, dict[str, Any]]:
    """``{prediction name: metrics}`` for every prediction that fits the ground truth."""
    return {p.name: metrics(truth, p, coef, conv) for p in preds if p.n == truth.n}


@st.cache_data(**_CACHE)
def _affinity_display(
    tkey: str, pkey: str, ckey: str, sort_mode: str, _t, _p, _c
) -> dict[str, Any]:
    return objects.affinity_display(_t, _p, _c, sort_mode)


def affinity_display(
    truth: Input, pred: Input | None, coef: Input, sort_mode: str
) -> dict[str, Any]:
    """|C| + |C|ᵀ in display order, pooled block-aware for large N (cached)."""
    return _affinity_display(
        truth.key,
        "" if pred is None else pred.key,
        coef.key,
        sort_mode,
        truth.value,
        None if pred is None else pred.value,
        coef.value,
    )


def sre_points_display(truth: Input, coef: Input, conv: Conventions) -> dict[str, Any]:
    """Per-point SRE in ground-truth order, with group bounds and names."""
    return objects.sre_points_display(truth.value, affinity(truth, coef, conv))


def analysis(
    truth: Input,
    preds: list[Input],
    active: Input,
    coef: Input | None,
    conv: Conventions,
    uncertainty: dict[str, Any] | None = None,
) -> Analysis:
    """The whole :class:`Analysis` the report and the exports take, from the cached pieces."""
    fitting = [p for p in preds if p.n == truth.n]
    coef_all, coef = coef, own(active, coef)
    aff = affinity(truth, coef, conv) if coef_fits(truth, coef) else None
    display = affinity_display(truth, active, coef, "ground truth") if aff is not None else None
    notes = [f"{i.name}: {n}" for i in (truth, *fitting) for n in i.notes]
    return Analysis(
        conventions=conv,
        results={p.name: metrics(truth, p, coef_all, conv) for p in fitting},
        active=active.name,
        partition=partition(truth, active, conv),
        affinity=aff,
        display=display,
        notes=notes,
        diagnosis=diagnosis(truth, active, coef, conv),
        uncertainty=uncertainty,
    )


# ---------------------------------------------------------------- report
@st.cache_data(show_spinner=False, max_entries=4, ttl=CACHE_TTL)
def _report(key: str, _analysis: Analysis, _inputs: tuple) -> str:
    from dashboard.outputs import report

    return report.analysis_report(_analysis, inputs=list(_inputs))


def report_html(
    truth: Input,
    preds: list[Input],
    active: Input,
    coef: Input | None,
    conv: Conventions,
    uncertainty: dict[str, Any] | None = None,
) -> str:
    """The self-contained HTML report of the current analysis (figures for ``active``), with
    the intervals Summary computed for ``active`` when given."""
    from dashboard.outputs import report

    a = analysis(truth, preds, active, coef, conv, uncertainty)
    fitting = [p for p in preds if p.n == truth.n]
    used = [truth, *fitting]
    seen: set[str] = set()
    for p in fitting:  # each distinct C once, in order
        c = own(p, coef)
        if c is not None and c.key not in seen and coef_fits(truth, c):
            seen.add(c.key)
            used.append(c)
    infos = tuple(report.InputInfo(i.role, i.name, i.sha256, i.n_bytes) for i in used)
    unc = "" if uncertainty is None else f"unc:{uncertainty['n']}:{uncertainty['seed']}:"
    unc += "" if uncertainty is None else str(uncertainty.get("other", ""))
    key = "|".join([conv.key, active.key, unc, *(i.key for i in used)])
    return _report(key, a, infos)


# ---------------------------------------------------------------- tables and words
def contingency(truth: Input, pred: Input, conv: Conventions) -> PartitionAnalysis:
    """Alias of :func:`partition` (the Contingency page's name for it)."""
    return partition(truth, pred, conv)


def comparison(
    results: dict[str, dict[str, Any]], keys: list[str], runs: bool
) -> list[dict[str, Any]]:
    """One row per prediction (and mean ± std rows when the predictions are runs)."""
    rows: list[dict[str, Any]] = [
        {"prediction": name, **{k: r.get(k) for k in keys}} for name, r in results.items()
    ]
    if runs and len(results) > 1:
        ms = mean_std(list(results.values()), keys)
        rows.append({"prediction": "mean", **{k: ms[k].mean for k in ms}})
        rows.append({"prediction": "std", **{k: ms[k].std for k in ms}})
    return rows


def mean_pm_std(results: dict[str, dict[str, Any]], keys: list[str]) -> dict[str, str]:
    """``"0.812 ± 0.021"`` per key over the predictions."""
    ms = mean_std(list(results.values()), keys)
    return {k: f"{v.mean:.3f} ± {v.std:.3f}" for k, v in ms.items()}


def exports(
    results: dict[str, dict[str, Any]],
    context: dict[str, Any],
    runs: bool,
) -> tuple[str, str]:
    """(CSV, JSON) text of the metrics: one row per prediction, strings formula-escaped."""
    from dashboard.outputs import export

    rows = export.export_rows(results, context)
    payload: dict[str, Any] = {"context": context, "predictions": results}
    if runs and len(results) > 1:
        keys = sorted({k for r in results.values() for k in r})
        ms = mean_std(list(results.values()), keys)
        payload["mean_std"] = {
            "caption": mean_std_caption(len(results)),
            **{k: {"mean": v.mean, "std": v.std, "n": v.n} for k, v in ms.items()},
        }
        rows.append({"prediction": "mean", **{k: v.mean for k, v in ms.items()}})
        rows.append({"prediction": "std", **{k: v.std for k, v in ms.items()}})
    return export.to_csv(rows), export.to_json(payload)


def metric_rows(values: dict[str, Any]) -> list[dict[str, Any]]:
    """The catalogue joined with the values (see :func:`dashboard.analysis.objects.metric_rows`)."""
    return objects.metric_rows(values)


def fmt(value: Any, digits: int = 4) -> str:
    """A metric value as text (ints with separators, NaN as 'n/a')."""
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        return "n/a" if not math.isfinite(float(value)) else f"{float(value):.{digits}f}"
    return str(value)


@st.cache_data(**_CACHE)
def _diagnosis(
    tkey: str, pkey: str, ckey: str, conv_key: str, _conv, _t, _p, _c
) -> list[dict[str, Any]]:
    from metrics_core.diagnosis import diagnose

    kwargs = _conv.affinity_kwargs() if _c is not None else {}
    found = diagnose(
        _t, _p, _c, thresholds=_conv.thresholds(), noise_policy=_conv.noise_policy, **kwargs
    )
    return [f.as_dict() for f in found]


def diagnosis(
    truth: Input, pred: Input, coef: Input | None, conv: Conventions
) -> list[dict[str, Any]]:
    """Every split, merge and misassignment of ``pred``, most costly first, traced to C when it
    fits (:func:`metrics_core.diagnosis.diagnose`), with the thresholds of ``conv``; cached on
    the inputs' keys."""
    coef = own(pred, coef)
    c = coef if coef_fits(truth, coef) else None
    return _diagnosis(
        truth.key,
        pred.key,
        c.key if c is not None else "",
        conv.diagnosis_key,
        conv,
        truth.value,
        pred.value,
        None if c is None else c.value,
    )


@st.cache_data(**_CACHE)
def _uncertainty(
    tkey: str, pkey: str, bkey: str, avg: str, n: int, seed: int, other_name: str, _t, _p, _b
) -> dict[str, Any]:
    return objects.uncertainty(
        _t, _p, _b, n=n, seed=seed, average_method=avg, other_name=other_name
    )


def uncertainty(
    truth: Input, pred: Input, other: Input | None, conv: Conventions, n: int, seed: int
) -> dict[str, Any]:
    """Bootstrap intervals and permutation p-values of ``pred`` (and its paired difference to
    ``other``), cached on the inputs' keys (:mod:`metrics_core.uncertainty`)."""
    return _uncertainty(
        truth.key,
        pred.key,
        other.key if other is not None else "",
        conv.average_method,
        int(n),
        int(seed),
        "" if other is None else other.name,
        truth.value,
        pred.value,
        None if other is None else other.value,
    )


@st.cache_data(**_CACHE)
def _comparison(tkey: str, akey: str, bkey: str, conv_key: str, _conv, _t, _a, _b):
    from dashboard.analysis.compare import compare

    return compare(_t, _a, _b, _conv)


def comparison_of(truth: Input, a: Input, b: Input, conv: Conventions):
    """:class:`dashboard.analysis.compare.Comparison` of predictions ``a`` and ``b``, cached."""
    return _comparison(truth.key, a.key, b.key, conv.key, conv, truth.value, a.value, b.value)
