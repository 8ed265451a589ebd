"""The compute layer: the only place the dashboard computes, every result cached.

Caches (``st.cache_data``) are keyed on strings only — input keys (SHA-256 of the bytes plus
the variable/column picked), convention names, view switches. The parsed arrays travel as
underscore-prefixed arguments, which Streamlit does not hash, so a 1e6-non-zero C is never
hashed on a rerun. Public functions take :class:`dashboard.session.state.Input` objects and
:class:`dashboard.session.state.Conventions` and unpack them into those keys.

Uploads are parsed by ``metrics_core.io.worker.parse_in_worker`` (a memory- and
time-limited child process): a hostile file can kill the worker, never the server.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
import streamlit as st

import metrics_core as mc
from dashboard.analysis import partition as analysis
from dashboard.figures import pooling
from dashboard.session.state import Conventions, Input, sha256
from metrics_core.validation._errors import ClustlensInputError

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo_data"
LABEL_KIND, COEF_KIND = "labels", "coef"
#: upload_worker loader per input role
WORKER_KINDS = {"truth": "labels_true", "pred": "labels_pred", "coef": "coef"}
_CACHE = {"show_spinner": False, "max_entries": 64}


# ---------------------------------------------------------------- parsing
@dataclass(frozen=True)
class Parsed:
    """What a loader returned, reduced to what the app needs (picklable, for the cache)."""

    value: Any
    variable: str | None
    column: str | None
    choices: tuple[str, ...]
    choice_kind: str
    notes: tuple[str, ...]


def _names(items: Any) -> tuple[str, ...]:
    out = []
    for it in items or ():
        out.append(str(getattr(it, "name", it)))
    return tuple(out)


def _notes(res: Any) -> tuple[str, ...]:
    notes = getattr(res, "notes", None)
    if notes is None:
        notes = getattr(res, "note", None)
    if not notes:
        return ()
    if isinstance(notes, str):
        return (notes,)
    return tuple(str(n) for n in notes)


TEXT_SUFFIXES = (".txt", ".csv", ".tsv", ".dat")


def _to_parsed(kind: str, res: Any, name: str = "") -> Parsed:
    """Adapt a ``LoadedLabels`` / ``LoadedMatrix`` (or a bare array) to :class:`Parsed`.

    The loaders report the variable (.mat/.npz) or, for text tables, the column they read in
    ``variable`` and what the file offers in ``candidates``.
    """
    if isinstance(res, np.ndarray) or sp.issparse(res):
        value, res = res, None
    else:
        value = None
        for attr in ("labels", "matrix", "values", "value", "array"):
            v = getattr(res, attr, None)
            if isinstance(v, np.ndarray) or sp.issparse(v):
                value = v
                break
        if value is None:
            raise ClustlensInputError("the loader returned no array", source=name or "upload")
    if kind == COEF_KIND and sp.issparse(value):
        value = sp.csr_array(value)
    picked = getattr(res, "variable", None)
    picked = None if picked is None else str(picked)
    choices = _names(getattr(res, "candidates", None) or getattr(res, "variables", None))
    is_text = name.lower().endswith(TEXT_SUFFIXES)
    choice_kind = ("column" if is_text else "variable") if len(choices) > 1 else ""
    return Parsed(
        value=value,
        variable=None if is_text else picked,
        column=picked if is_text else None,
        choices=choices if choice_kind else (),
        choice_kind=choice_kind,
        notes=_notes(res),
    )


@st.cache_data(**_CACHE)
def _parse_upload(
    kind: str, name: str, digest: str, variable: str | None, column: str | None, _data: bytes
) -> Parsed:
    from metrics_core.io.worker import parse_in_worker

    kwargs: dict[str, Any] = {}
    if variable is not None:
        kwargs["variable"] = variable
    if column is not None:
        kwargs["column"] = column
    kind_short = COEF_KIND if kind == "coef" else LABEL_KIND
    return _to_parsed(kind_short, parse_in_worker(kind, _data, name, **kwargs), name)


def parse_upload(
    role: str,
    name: str,
    data: bytes,
    *,
    variable: str | None = None,
    column: str | None = None,
) -> Input:
    """Parse uploaded bytes in the sandboxed worker; raise ``ClustlensInputError`` if bad."""
    kind = COEF_KIND if role == "coef" else LABEL_KIND
    digest = sha256(data)
    p = _parse_upload(WORKER_KINDS[role], name, digest, variable, column, data)
    value = p.value
    if kind == LABEL_KIND:
        value = np.asarray(value).reshape(-1)
    elif value.ndim != 2 or value.shape[0] != value.shape[1]:
        raise ClustlensInputError(
            f"a coefficient matrix must be square (N x N), got shape {value.shape}", source=name
        )
    return Input(
        role=role,
        name=name,
        data=data,
        sha256=digest,
        value=value,
        variable=p.variable if p.variable is not None else variable,
        column=p.column if p.column is not None else column,
        choices=p.choices,
        choice_kind=p.choice_kind,
        notes=p.notes,
    )


@st.cache_resource(show_spinner=False)
def warm_up_worker() -> bool:
    """Start the upload worker's fork server in the background, once per process, so the
    first upload does not wait for it (and the first page does not either)."""
    import threading

    def _go() -> None:
        import time

        time.sleep(3.0)  # let the first page render before competing for the CPU
        try:
            from metrics_core.io.worker import warm_up

            warm_up()
        except Exception:  # the first real upload will report any problem
            pass

    threading.Thread(target=_go, name="clustlens-warm-up", daemon=True).start()
    return True


def _load_trusted(kind: str, name: str, data: bytes, role: str = "") -> Parsed:
    """Parse our own demo files in-process (no worker start-up on the first page)."""
    try:
        from metrics_core import io as mio

        if kind == COEF_KIND:
            return _to_parsed(kind, mio.load_coef(data, name=name), name)
        which = "pred" if role == "pred" else "true"
        return _to_parsed(kind, mio.load_labels(data, name=name, kind=which), name)
    except ImportError:  # the io module is optional for the demo: fall back to numpy/scipy
        import io

        if kind == COEF_KIND:
            return _to_parsed(kind, sp.load_npz(io.BytesIO(data)), name)
        return _to_parsed(kind, np.loadtxt(io.BytesIO(data), dtype=np.int64), name)


@st.cache_data(show_spinner=False, max_entries=2)
def _demo_parsed(demo_dir: str) -> list[tuple[str, str, bytes, Parsed]]:
    from demo_data import make_demo

    d = Path(demo_dir)
    files = [("truth", make_demo.FILES["truth"]), ("coef", make_demo.FILES["coef"])]
    files += [("pred", f) for f in make_demo.FILES["preds"]]
    if not all((d / f).is_file() for _, f in files):
        make_demo.write(d)
    out = []
    for role, fname in files:
        data = (d / fname).read_bytes()
        kind = COEF_KIND if role == "coef" else LABEL_KIND
        out.append((role, fname, data, _load_trusted(kind, fname, data, role)))
    return out


def load_demo() -> tuple[Input, list[Input], Input]:
    """The demo inputs (ground truth, two predictions, C), parsed once per process."""
    truth, preds, coef = None, [], None
    for role, fname, data, p in _demo_parsed(str(DEMO_DIR)):
        value = p.value if role == "coef" else np.asarray(p.value).reshape(-1)
        inp = Input(
            role=role,
            name=f"demo: {fname}",
            data=data,
            sha256=sha256(data),
            value=value,
            variable=p.variable,
            column=p.column,
            choices=p.choices,
            choice_kind=p.choice_kind,
            notes=p.notes,
            demo=True,
        )
        if role == "truth":
            truth = inp
        elif role == "coef":
            coef = inp
        else:
            preds.append(inp)
    return truth, preds, coef


# ---------------------------------------------------------------- metrics
@st.cache_data(**_CACHE)
def _partition(tkey: str, pkey: str, average: str, noise: str, _t, _p) -> dict[str, Any]:
    return mc.evaluate(_t, _p, average_method=average, noise_policy=noise)


@st.cache_data(**_CACHE)
def _affinity(tkey: str, ckey: str, orientation: str, preset: str | None, _t, _c) -> dict:
    # With a preset, its own orientation applies (state.conventions() already put it in
    # ``orientation``, and the views say so); passing it again would only be checked.
    kw: dict[str, Any] = {"preset": preset} if preset else {"orientation": orientation}
    sre = mc.subspace_preserving_error(_c, _t, **kw)
    conn = mc.connectivity(_c, _t, **kw)
    leak = mc.leakage_matrix(_c, _t, orientation=orientation)
    summary = {
        "sre": float(sre.value),
        "sre_zero_rows": int(sre.n_zero_rows),
        "conn_min": float(conn.min),
        "conn_mean": float(conn.mean),
        "conn_skipped_singletons": len(conn.skipped_singletons),
    }
    return {
        "summary": summary,
        "sre_per_point": np.asarray(sre.per_point, dtype=np.float64),
        "sre_per_class": np.asarray(sre.per_class, dtype=np.float64),
        "sre_classes": [str(c) for c in sre.classes],
        "sre_reported": float(sre.reported),
        "conn_per_class": np.asarray(conn.per_class, dtype=np.float64),
        "conn_classes": [str(c) for c in conn.classes],
        "conn_skipped": [str(c) for c in conn.skipped_singletons],
        "conn_methods": list(conn.method_per_class),
        "leakage": np.asarray(leak.matrix, dtype=np.float64),
        "leakage_classes": [str(c) for c in leak.classes],
    }


def affinity(truth: Input, coef: Input, conv: Conventions) -> dict[str, Any]:
    """SRE (per point, per class), CONN per class and the leakage matrix of C."""
    return _affinity(truth.key, coef.key, conv.orientation, conv.preset, truth.value, coef.value)


def metrics(truth: Input, pred: Input, coef: Input | None, conv: Conventions) -> dict[str, Any]:
    """Every ``evaluate`` key for one prediction (with SRE/CONN when C fits the labels)."""
    out = dict(
        _partition(
            truth.key, pred.key, conv.average_method, conv.noise_policy, truth.value, pred.value
        )
    )
    if coef is not None and coef.value.shape == (truth.n, truth.n):
        out.update(affinity(truth, coef, conv)["summary"])
    return out


def all_metrics(
    truth: Input, preds: list[Input], coef: Input | None, conv: Conventions
) -> dict[str, dict[str, Any]]:
    """``{prediction name: metrics}`` for every prediction that fits the ground truth."""
    return {p.name: metrics(truth, p, coef, conv) for p in preds if p.n == truth.n}


def metric_rows(values: dict[str, Any]) -> list[dict[str, Any]]:
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


def comparison(
    results: dict[str, dict[str, Any]], keys: list[str], runs: bool
) -> list[dict[str, Any]]:
    """One row per prediction (and mean ± std rows when the predictions are runs)."""
    rows: list[dict[str, Any]] = [
        {"prediction": name, **{k: r.get(k) for k in keys}} for name, r in results.items()
    ]
    if runs and len(results) > 1:
        ms = analysis.mean_std(list(results.values()), keys)
        rows.append({"prediction": "mean", **{k: ms[k]["mean"] for k in ms}})
        rows.append({"prediction": "std", **{k: ms[k]["std"] for k in ms}})
    return rows


def mean_pm_std(results: dict[str, dict[str, Any]], keys: list[str]) -> dict[str, str]:
    """``"0.812 ± 0.021"`` per key over the predictions."""
    ms = analysis.mean_std(list(results.values()), keys)
    return {k: f"{v['mean']:.3f} ± {v['std']:.3f}" for k, v in ms.items()}


def exports(
    results: dict[str, dict[str, Any]],
    context: dict[str, Any],
    runs: bool,
) -> tuple[str, str]:
    """(CSV, JSON) text of the metrics: one row per prediction, strings formula-escaped."""
    rows = analysis.export_rows(results, context)
    payload: dict[str, Any] = {"context": context, "predictions": results}
    if runs and len(results) > 1:
        keys = sorted({k for r in results.values() for k in r})
        ms = analysis.mean_std(list(results.values()), keys)
        payload["mean_std"] = ms
        rows.append({"prediction": "mean", **{k: v["mean"] for k, v in ms.items()}})
        rows.append({"prediction": "std", **{k: v["std"] for k, v in ms.items()}})
    return analysis.to_csv(rows), analysis.to_json(payload)


# ---------------------------------------------------------------- contingency
@st.cache_data(**_CACHE)
def _contingency(tkey: str, pkey: str, noise: str, max_cols: int, _t, _p) -> dict[str, Any]:
    c = mc.contingency_table(_t, _p, noise_policy=noise)
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
        out = analysis.order_contingency(
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
        out = analysis.order_contingency(c.dense(), classes, clusters, ci, cj, max_cols=max_cols)
    out.update(
        n_samples=c.n_samples,
        n_noise=c.n_noise,
        n_classes=c.n_classes,
        n_clusters=c.n_clusters,
        accuracy=float(m.accuracy),
    )
    return out


def contingency(
    truth: Input, pred: Input, conv: Conventions, max_cols: int = analysis.MAX_DISPLAY_COLS
) -> dict[str, Any]:
    """The contingency table ordered by the optimal matching, with names as strings."""
    return _contingency(truth.key, pred.key, conv.noise_policy, max_cols, truth.value, pred.value)


@st.cache_data(**_CACHE)
def _diagnosis(tkey: str, pkey: str, noise: str, min_share: float, _ct) -> dict[str, Any]:
    d = analysis.split_merge(_ct["table"], _ct["rows"], _ct["cols"], min_share=min_share)
    src, dst, val = analysis.sankey_links(_ct["table"])
    d["sankey"] = (src, dst, val)
    return d


def diagnosis(truth: Input, pred: Input, conv: Conventions, min_share: float) -> dict[str, Any]:
    """Split classes, merging clusters (shares ≥ ``min_share``) and the Sankey flows."""
    ct = contingency(truth, pred, conv)
    return _diagnosis(truth.key, pred.key, conv.noise_policy, float(min_share), ct)


def pair_reading(m: dict[str, Any]) -> list[str]:
    """The 2 x 2 pair matrix spelled out in words (our own text with numbers only)."""
    tp, fp, fn = int(m["pair_tp"]), int(m["pair_fp"]), int(m["pair_fn"])
    lines = [
        f"{fp:,} pairs are put together although their classes differ (false positives): "
        "merged classes, under-segmentation.",
        f"{fn:,} pairs are pulled apart although they share a class (false negatives): "
        "split classes, over-segmentation.",
    ]
    if fp == fn == 0:
        verdict = "No pair is misplaced: the clustering equals the ground truth up to renaming."
    elif fp > 1.5 * fn:
        verdict = (
            f"False positives dominate ({fp:,} vs {fn:,}): the clustering mostly "
            "under-segments (merges classes); pair precision "
            f"{m['pair_precision']:.3f} < recall {m['pair_recall']:.3f}."
        )
    elif fn > 1.5 * fp:
        verdict = (
            f"False negatives dominate ({fn:,} vs {fp:,}): the clustering mostly "
            "over-segments (splits classes); pair recall "
            f"{m['pair_recall']:.3f} < precision {m['pair_precision']:.3f}."
        )
    else:
        verdict = (
            f"False positives and negatives are of the same order ({fp:,} vs {fn:,}): the "
            "clustering both merges and splits classes."
        )
    share = tp / (tp + fn) if tp + fn else 1.0
    lines.append(f"{share:.1%} of the same-class pairs stay together (pair recall).")
    return [verdict, *lines]


# ---------------------------------------------------------------- affinity display
@st.cache_data(**_CACHE)
def _codes(key: str, _labels) -> tuple[np.ndarray, list[str]]:
    uniq, codes = np.unique(np.asarray(_labels), return_inverse=True)
    return codes.reshape(-1).astype(np.int64), [str(u) for u in uniq]


@st.cache_data(**_CACHE)
def _affinity_display(
    tkey: str, pkey: str, ckey: str, sort_mode: str, max_bins: int, cell_limit: int, _t, _p, _c
) -> dict[str, Any]:
    t_codes, t_names = _codes(tkey, _t)
    p_codes, p_names = _codes(pkey, _p) if _p is not None else (None, [])
    if sort_mode == "prediction" and p_codes is None:
        sort_mode = "ground truth"
    order, groups = analysis.display_order(t_codes, p_codes, sort_mode)
    bounds = pooling.group_bounds(groups)
    names = p_names if sort_mode == "prediction" else t_names
    present = groups[bounds[:-1]]
    group_names = [names[g] for g in present]
    n = len(order)
    pool_bounds = bounds
    if sort_mode == "ground truth, then prediction" and p_codes is not None:
        sub = pooling.group_bounds(t_codes[order] * (len(p_names) + 1) + p_codes[order])
        if len(sub) - 1 <= max_bins // 2:
            pool_bounds = sub  # respect the cluster sub-blocks as well when they are few
    if n <= cell_limit:
        edges = np.arange(n + 1, dtype=np.int64)
        values = pooling.cell_affinity(_c, order)
    else:
        edges = pooling.bin_edges(pool_bounds, max_bins)
        values = pooling.pooled_affinity(_c, order, edges)
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


def affinity_display(
    truth: Input,
    pred: Input | None,
    coef: Input,
    sort_mode: str,
    *,
    max_bins: int = pooling.MAX_BINS,
    cell_limit: int = pooling.CELL_LIMIT,
) -> dict[str, Any]:
    """|C| + |C|ᵀ in display order, pooled block-aware above ``cell_limit`` points."""
    return _affinity_display(
        truth.key,
        "" if pred is None else pred.key,
        coef.key,
        sort_mode,
        max_bins,
        cell_limit,
        truth.value,
        None if pred is None else pred.value,
        coef.value,
    )


def sre_points_display(truth: Input, coef: Input, conv: Conventions) -> dict[str, Any]:
    """Per-point SRE in ground-truth order, with group bounds and names."""
    aff = affinity(truth, coef, conv)
    return _sre_points(truth.key, coef.key, conv.orientation, conv.preset, truth.value, aff)


@st.cache_data(**_CACHE)
def _sre_points(tkey: str, ckey: str, orientation: str, preset, _t, _aff) -> dict[str, Any]:
    codes, names = _codes(tkey, _t)
    order, groups = analysis.display_order(codes, None, "ground truth")
    bounds = pooling.group_bounds(groups)
    return {
        "values": _aff["sre_per_point"][order],
        "groups": groups,
        "bounds": bounds,
        "names": [names[g] for g in groups[bounds[:-1]]],
        "order": order,
    }


def fmt(value: Any, digits: int = 4) -> str:
    """A metric value as text (ints with separators, NaN as 'n/a')."""
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return f"{int(value):,}"
    if isinstance(value, (float, np.floating)):
        return "n/a" if not math.isfinite(float(value)) else f"{float(value):.{digits}f}"
    return str(value)


# ---------------------------------------------------------------- report
@st.cache_data(show_spinner=False, max_entries=4)
def _report(
    tkey: str,
    pkeys: tuple[str, ...],
    ckey: str,
    conv_key: str,
    names: tuple[str, ...],
    _conv: Conventions,
    _truth: Input,
    _preds: tuple[Input, ...],
    _coef: Input | None,
) -> str:
    from dashboard.outputs import report

    conv = _conv
    results = all_metrics(_truth, list(_preds), _coef, conv)
    active = _preds[0]
    coef_value = _coef.value if _coef is not None and _coef.n == _truth.n else None
    figures = report.standard_figures(
        _truth.value,
        active.value,
        coef_value,
        orientation=conv.orientation,
        noise_policy=conv.noise_policy,
    )
    inputs = [report.InputInfo(i.role, i.name, i.sha256, len(i.data)) for i in (_truth, *_preds)]
    if _coef is not None:
        inputs.append(report.InputInfo(_coef.role, _coef.name, _coef.sha256, len(_coef.data)))
    conventions = {
        "NMI/AMI normaliser": conv.average_method,
        "noise policy": conv.noise_policy,
        "C orientation": conv.orientation,
        "SRE/CONN preset": conv.preset or "none (documented default)",
    }
    notes = [f"figures are drawn for the prediction {active.name}"]
    return report.build_report(
        results, figures=figures, inputs=inputs, conventions=conventions, notes=notes
    )


def report_html(
    truth: Input, preds: list[Input], active: Input, coef: Input | None, conv: Conventions
) -> str:
    """The self-contained HTML report of the current analysis (figures for ``active``)."""
    ordered = (active, *[p for p in preds if p is not active and p.n == truth.n])
    return _report(
        truth.key,
        tuple(p.key for p in ordered),
        coef.key if coef is not None else "",
        repr(conv),
        tuple(p.name for p in ordered),
        conv,
        truth,
        ordered,
        coef,
    )
