"""Compute layer of the Multi-view view: data sources, one cached SSF fit, the method protocol.

Same rules as :mod:`dashboard.compute.evaluation`: caches keyed on strings and numbers (a source
key — HW
subset size and seed, synthetic generator parameters, or the SHA-256 of every uploaded file —
plus the model parameters); arrays travel as ``_``-prefixed arguments. Loaded data sits in
``cache_resource`` (read-only arrays, no copy per rerun); results are small (pooled displays
of the N x N matrices, never the matrices themselves) and sit in ``cache_data``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import scipy.sparse as sp
import streamlit as st

from dashboard import inputs
from dashboard.analysis import pooling
from dashboard.outputs import export
from dashboard.session import budget
from dashboard.session.budget import CACHE_TTL
from dashboard.session.state import sha256
from metrics_core.datasets import stratified_subset
from metrics_core.evaluation import mean_std_caption
from metrics_core.validation._errors import ClustlensInputError

#: HW points used by default (stratified: 20 per digit): SSF in a few seconds.
HW_DEFAULT_N = 200
#: Bins per side of each small affinity panel (pooled block-aware, never across a class).
PANEL_BINS = 120
#: The k-NN sizes the baselines try by default (the paper's 5..60 grid is an option).
QUICK_KNN = (10, 20, 40)
_CACHE = {"show_spinner": False, "max_entries": 32, "ttl": CACHE_TTL}
_log = logging.getLogger(__name__)


@dataclass(frozen=True)
class MVData:
    """Multi-view data: ``key`` names it for the caches, ``name`` for people.

    ``source`` holds the views, or a function that returns them: HW's views are read only when
    something is computed on them (the page's first visit shows the shipped SSF fit and needs
    the labels alone)."""

    key: str
    name: str
    source: tuple[np.ndarray, ...] | Callable[[], tuple[np.ndarray, ...]]
    labels: np.ndarray
    view_names: tuple[str, ...]
    notes: tuple[str, ...] = ()

    @property
    def views(self) -> tuple[np.ndarray, ...]:
        return self.source() if callable(self.source) else self.source

    @property
    def n(self) -> int:
        return int(self.labels.shape[0])

    @property
    def n_classes(self) -> int:
        return int(np.unique(self.labels).size)


def _frozen(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    a.setflags(write=False)
    return a


@st.cache_resource(show_spinner=False, max_entries=8, ttl=CACHE_TTL)
def _hw_views(n: int, seed: int) -> tuple[np.ndarray, ...]:
    from metrics_core.multiview import load_hw

    views, y, _names = load_hw()
    idx = stratified_subset(y, n, seed)
    return tuple(_frozen(v[idx]) for v in views)


@st.cache_resource(show_spinner=False, max_entries=8, ttl=CACHE_TTL)
def _hw_labels(n: int, seed: int) -> np.ndarray:
    # every view file carries the same label column (load_hw checks): the smallest is read
    from metrics_core.datasets import load_view

    _X, y = load_view("mor")
    return _frozen(np.asarray(y)[stratified_subset(y, n, seed)])


def hw_key(n: int, seed: int) -> str:
    """The cache key of HW's stratified subset of ``n`` points drawn with ``seed``."""
    return f"hw:{int(n)}:{int(seed)}"


def hw(n: int = HW_DEFAULT_N, seed: int = 0) -> MVData:
    """HW (six views of the UCI handwritten digits), a stratified subset of ``n`` points; its
    views are read when first used."""
    from metrics_core.multiview import HW_VIEWS

    n, seed = int(n), int(seed)
    y = _hw_labels(n, seed)
    size = "all 2,000 digits" if y.size >= 2000 else f"{y.size:,} digits (stratified, seed {seed})"
    return MVData(
        hw_key(n, seed),
        f"HW, six views: {size}",
        partial(_hw_views, n, seed),
        y,
        tuple(HW_VIEWS),
        ("UCI Multiple Features (R.P.W. Duin), CC BY 4.0",),
    )


@st.cache_resource(show_spinner=False, max_entries=8, ttl=CACHE_TTL)
def _synthetic(n_per: int, k: int, v: int, noise: float, seed: int):
    from metrics_core.datasets import make_multiview

    views, y = make_multiview(n_per, k, v, noise=noise, seed=seed)
    return tuple(_frozen(x) for x in views), _frozen(y)


def synthetic(
    n_per_cluster: int = 30,
    n_clusters: int = 4,
    n_views: int = 3,
    noise: float = 0.3,
    seed: int = 0,
) -> MVData:
    """The synthetic multi-view set (every view merges two clusters; together they separate)."""
    args = (int(n_per_cluster), int(n_clusters), int(n_views), float(noise), int(seed))
    views, y = _synthetic(*args)
    return MVData(
        "synthetic:" + ":".join(str(a) for a in args),
        f"synthetic: {args[1]} clusters x {args[0]} points, {args[2]} partial views, "
        f"noise {args[3]:g}, seed {args[4]}",
        views,
        y,
        tuple(f"view {i + 1}" for i in range(args[2])),
    )


def uploaded(
    files: list[tuple[str, bytes]], labels: tuple[str, bytes], *, room: int | None = None
) -> MVData:
    """The user's views (one file each, points as rows, parsed in the sandboxed worker) and
    ground-truth labels. Views are used in upload order. The labels come first, so a view for
    other points is refused before it is made dense; with ``room`` (bytes the session may still
    be charged) views whose SSF would not fit are refused too."""
    if len(files) < 2:
        raise ClustlensInputError("upload at least two view files", source="views")
    truth = inputs.build_input("truth", labels[0], labels[1], room=room)
    n = truth.n
    left = None if room is None else room - budget.input_charge(truth)
    # SSF holds one N x N graph per view, S and scratch: charged once for all views
    left = None if left is None else left - budget.data_charge((n, 0), "multiview",
                                                              n_views=len(files))  # fmt: skip
    views, names = [], []
    for name, data in files:
        X = inputs.data_matrix(
            name,
            data,
            n_points=n,
            labels_name=labels[0],
            charge=lambda shape: budget.data_charge(shape, "multiview", n_views=0),
            room=None if left is None else max(left, 0),
        )
        if left is not None:
            left -= X.nbytes
        views.append(_frozen(X))
        names.append(name)
    # the names are in the key: the cached result carries them (same bytes, other names must
    # not show the first upload's names)
    key = "upload:" + ":".join(f"{sha256(d)}={nm}" for nm, d in files) + ":" + truth.key
    return MVData(
        key,
        f"{len(views)} uploaded views, {n:,} points, labels {labels[0]}",
        tuple(views),
        _frozen(np.asarray(truth.value)),
        tuple(names),
    )


# ---------------------------------------------------------------- SSF
def _codes(labels: np.ndarray) -> tuple[np.ndarray, list[str]]:
    uniq, codes = np.unique(np.asarray(labels), return_inverse=True)
    return codes.reshape(-1), [str(u) for u in uniq]


def panel_display(M: np.ndarray, labels: np.ndarray, *, symmetrise: bool = True) -> dict:
    """Block-aware pooled display of ``|M| + |M|ᵀ`` (or of ``M`` itself when
    ``symmetrise=False``: S is symmetric already), points sorted by ground-truth class."""
    codes, names = _codes(labels)
    order = np.argsort(codes, kind="stable")
    groups = codes[order]
    bounds = pooling.group_bounds(groups)
    edges = pooling.bin_edges(bounds, PANEL_BINS)
    values = pooling.pooled_affinity(M, order, edges)
    if not symmetrise:
        values = values / 2.0  # pooled_affinity returns |M| + |M|ᵀ = 2M for symmetric M >= 0
    return {
        "values": values.astype(np.float32),
        "edges": edges,
        "bounds": bounds,
        "group_names": [names[g] for g in groups[bounds[:-1]]],
        "n": len(order),
        "pooled": len(edges) - 1 < len(order),
    }


@st.cache_data(**_CACHE)
def _ssf(
    key: str,
    alpha: float,
    beta: float,
    gamma: float,
    max_iter: int,
    tol: float,
    init: str,
    _views,
    _labels,
    _names,
) -> dict[str, Any]:
    from metrics_core.multiview import ssf_fit

    y = np.asarray(_labels)
    res = ssf_fit(
        [np.asarray(v) for v in _views],
        int(np.unique(y).size),
        alpha=alpha,
        beta=beta,
        gamma=gamma,
        max_iter=max_iter,
        tol=tol,
        init=init,
    )
    return _shown(res, y, _names)


def _shown(res: Any, y: np.ndarray, names: tuple[str, ...]) -> dict[str, Any]:
    """An SSF fit as the page shows it: small pooled panels, never the N x N matrices (but S,
    sparse, which opens as the SSF prediction's own C)."""
    import metrics_core as mc

    metrics = mc.evaluate(y, res.labels)
    w = np.asarray(res.weights, dtype=float)
    return {
        "labels": np.asarray(res.labels),
        "weights": w,
        "weights_normalised": w / w.sum() if w.sum() > 0 else w,
        "objective": [float(o) for o in res.objective],
        "n_components": int(res.n_components),
        "n_clusters": int(np.unique(y).size),
        "n_iter": int(res.n_iter),
        "converged": bool(res.converged),
        "seconds": float(res.seconds),
        "metrics": {m: metrics[m] for m in ("acc", "nmi", "ari", "purity", "pair_f1")},
        "panels": [panel_display(Z, y) for Z in res.Z],
        "fused": panel_display(res.S, y, symmetrise=False),
        "S": sp.csr_array(np.asarray(res.S)),
        "view_names": list(names),
        "init": res.init,
        "guard_fired": bool(res.guard_fired),
        "min_component": int(res.min_component),
        "xi_log": [
            {k: e[k] for k in ("iteration", "xi", "n_components", "smallest", "guard", "exact")}
            | {"steps": len(e["steps"])}
            for e in res.xi_log
        ],
        "shipped": None,
    }


def _params(alpha, beta, gamma, max_iter, tol, init) -> tuple[float, float, float, int, float, str]:
    return float(alpha), float(beta), float(gamma), int(max_iter), float(tol), str(init)


@st.cache_resource(show_spinner=False)
def _shipped_fit() -> tuple[Any, dict[str, Any]] | None:
    from demo_data import make_multiview_ssf as mk

    try:
        return mk.load()
    except Exception:  # a damaged file: the page fits, as for any other data
        _log.warning("the shipped SSF fit %s could not be read; fitting instead", mk.OUT,
                     exc_info=True)  # fmt: skip
        return None


@st.cache_data(show_spinner=False, ttl=CACHE_TTL)
def _shipped_shown(key: str, _labels) -> dict[str, Any] | None:
    """The shipped fit of the page's demo, shown (None if absent or fit on other data)."""
    shipped = _shipped_fit()
    if shipped is None:
        return None
    res, meta = shipped
    y = np.asarray(_labels)
    if key != hw_key(meta["n"], meta["seed"]) or not np.array_equal(meta["truth"], y):
        return None
    return _shown(res, y, tuple(meta["view_names"])) | {"shipped": meta}


def ssf(
    data: MVData,
    *,
    alpha: float,
    beta: float,
    gamma: float,
    max_iter: int = 30,
    tol: float = 1e-5,
    init: str = "pkn",
) -> dict[str, Any]:
    """One SSF fit on ``data`` (features scaled to [-1, 1] as in the paper), cached. The page's
    demo (its default HW subset and parameters) is fit once, by ``python -m
    demo_data.make_multiview_ssf``, and shipped; its ``"shipped"`` entry then says so."""
    p = _params(alpha, beta, gamma, max_iter, tol, init)
    shipped = _shipped_fit()
    if shipped is not None and p == _params(**shipped[1]["params"]):
        out = _shipped_shown(data.key, data.labels)
        if out is not None:
            return out
    return _ssf(data.key, *p, data.views, data.labels, data.view_names)


# ---------------------------------------------------------------- protocol
@st.cache_data(**_CACHE)
def _protocol(
    key: str,
    runs: int,
    params: tuple[tuple[str, Any], ...],
    knn: tuple[int, ...],
    kmeans_n_init: int,
    selection: str,
    _views,
    _labels,
    _names,
    _progress=None,
) -> dict[str, Any]:
    return _run_protocol(
        runs, params, knn, kmeans_n_init, selection, _views, _labels, _names, _progress
    )


def _run_protocol(
    runs, params, knn, kmeans_n_init, selection, views, labels, names, progress
) -> dict[str, Any]:
    from metrics_core.multiview import run_protocol

    res = run_protocol(
        [np.asarray(v) for v in views],
        np.asarray(labels),
        runs=runs,
        view_names=list(names),
        ssf_params=dict(params),
        knn_grid=knn,
        kmeans_n_init=kmeans_n_init,
        selection=selection,
        progress=progress,
    )
    return present(res.table, list(res.notes), res.to_latex(caption=mean_std_caption(runs)),
                   runs, list(knn))  # fmt: skip


#: SSF's parameters by the letters the page's note above the table uses
_GREEK = {"alpha": "α", "beta": "β", "gamma": "γ"}


def short_setting(setting: str) -> str:
    """A setting as the table shows it: SSF's ``alpha=10.0 beta=0.001 gamma=6.0 init=pkn`` as
    ``α=10 β=0.001 γ=6 init=pkn`` (the CSV keeps the full text); others as they are.

    >>> short_setting("alpha=10.0 beta=0.001 gamma=6.0 init=pkn"), short_setting("k=10")
    ('α=10 β=0.001 γ=6 init=pkn', 'k=10')
    """
    words = []
    for word in setting.split():
        name, eq, value = word.partition("=")
        if eq and name in _GREEK:
            try:
                value = f"{float(value):g}"
            except ValueError:
                pass
            name = _GREEK[name]
        words.append(f"{name}{eq}{value}")
    return " ".join(words)


def present(table, notes: list[str], latex: str, runs: int, knn: list[int]) -> dict[str, Any]:
    """The comparison as the page shows it: mean ± std strings (★ the best mean per column),
    the chosen settings (how each was chosen in a few words; ``chosen`` maps them to the full
    text, for a caption), CSV (formula-escaped, the full text) and LaTeX texts."""
    from metrics_core.multiview import METRIC_KEYS, METRIC_LABELS, SELECTED_BY_SHORT

    best = {k: table[f"{k}_mean"].max() for k in METRIC_KEYS}
    shown = []
    chosen_in_full: dict[str, str] = {}
    for method, r in table.iterrows():
        row: dict[str, Any] = {"method": str(method)}
        for k in METRIC_KEYS:
            # a narrow column breaks the cell before "±" only: the std keeps its sign, the star
            # its value
            mark = "\u00a0★" if np.isclose(r[f"{k}_mean"], best[k]) else ""
            row[METRIC_LABELS[k]] = f"{r[f'{k}_mean']:.4f} ±\u00a0{r[f'{k}_std']:.4f}{mark}"
        shown.append(row)
    for row, (_m, r) in zip(shown, table.iterrows(), strict=True):
        row["setting"] = short_setting(str(r.get("setting", "")))
        how = str(r.get("selected_by", ""))
        row["chosen"] = SELECTED_BY_SHORT.get(how, how)
        if row["chosen"] != how:
            chosen_in_full[row["chosen"]] = how
    csv_rows = [
        {"method": str(m), **{c: (v if isinstance(v, str) else float(v)) for c, v in r.items()}}
        for m, r in table.iterrows()
    ]
    return {
        "shown": shown,
        "chosen": chosen_in_full,
        "notes": list(notes),
        "csv": export.to_csv(csv_rows),
        "latex": latex,
        "runs": runs,
        "knn": list(knn),
    }


@st.cache_resource(show_spinner=False)
def shipped_protocol() -> dict[str, Any] | None:
    """The comparison precomputed on all of HW and shipped in ``demo_data`` (None if absent)."""
    import json

    import pandas as pd

    from demo_data import make_multiview_table as mk

    path = mk.OUT
    if not path.is_file():
        return None
    raw = json.loads(path.read_text(encoding="utf-8"))
    table = pd.DataFrame(raw["table"]).set_index("method")
    out = present(table, raw["notes"], raw["latex"], raw["runs"], raw["knn"])
    out["shipped"] = {k: raw[k] for k in ("data", "created", "seconds", "selection", "params")}
    return out


def protocol(
    data: MVData,
    *,
    runs: int,
    params: dict[str, Any],
    knn: tuple[int, ...] = QUICK_KNN,
    kmeans_n_init: int = 10,
    selection: str = "truth",
    progress=None,
) -> dict[str, Any]:
    """SSF and every baseline (SC per view, SC_avg, SC_concat, AMGL, SwMC, co-regularised SC)
    over ``runs`` seeded runs: mean ± std table
    (★ marks the best mean per column), CSV (formula-escaped) and LaTeX (booktabs) texts.

    ``progress`` (a callable taking a message): run now, uncached, reporting each step — the
    page keeps the result in the session; without it the result is cached across sessions."""
    # a k-NN graph needs k < N: small user data would otherwise fail on the larger sizes
    sizes = tuple(int(k) for k in knn if int(k) < data.n) or (max(1, data.n - 1),)
    if progress is not None:  # st.* calls inside a cached function cannot be replayed
        return _run_protocol(
            int(runs), tuple(sorted(params.items())), sizes, int(kmeans_n_init),
            str(selection), data.views, data.labels, data.view_names, progress,
        )  # fmt: skip
    return _protocol(
        data.key,
        int(runs),
        tuple(sorted(params.items())),
        sizes,
        int(kmeans_n_init),
        str(selection),
        data.views,
        data.labels,
        data.view_names,
    )
