"""Compute layer of the Sweep view: data sources, one cached sweep setting at a time, bundles.

Same rules as :mod:`dashboard.compute.evaluation`: caches are keyed on strings (a source key
naming the
data — generator parameters, an mfeat view, or the SHA-256 of uploaded bytes — the model, the
parameters as JSON, the seed); arrays travel as ``_``-prefixed arguments that Streamlit does not
hash. Each setting is scored by :func:`metrics_core.sweep.run_sweep` on a one-setting grid, so
the dashboard's numbers are exactly the CLI's (row normalisation, spectral clustering seed,
metric set).

Two caches per setting: the full result with C (``cache_resource``, few entries: C is N x N)
and the small table row + prediction (``cache_data``, many entries). A sweep is run by the view
one setting per call, so it can show progress, be stopped and keep what is finished.
"""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import streamlit as st

from dashboard import inputs
from dashboard.outputs import export
from dashboard.session import budget
from dashboard.session.budget import CACHE_TTL
from dashboard.session.state import Input, sha256
from metrics_core.datasets import stratified_subset
from metrics_core.evaluation import column_label
from metrics_core.validation._errors import ClustlensInputError

#: Largest grid the view runs (settings); bigger grids are refused with a message.
MAX_SETTINGS = 400
#: Points of an mfeat view used by default (stratified subset; 2,000 is the whole view).
MFEAT_DEFAULT_N = 400
#: Synthetic defaults: small and *dependent* subspaces (5 x 4 > 15), so the trade-off shows.
SYNTHETIC_DEFAULTS: dict[str, Any] = {
    "ambient_dim": 15,
    "subspace_dim": 4,
    "n_subspaces": 5,
    "points_per_subspace": 40,
    "noise": 0.1,
    "seed": 0,
}
#: The sweep shown on a first visit: LSR over a log grid of λ on the synthetic defaults.
_SMALL = {"show_spinner": False, "max_entries": 4096, "ttl": CACHE_TTL}
_BIG = {"show_spinner": False, "max_entries": 8, "ttl": CACHE_TTL}


# ---------------------------------------------------------------- data sources
class SweepData:
    """Data a sweep runs on: ``key`` names it for the caches, ``name`` for people.

    ``X`` (points as rows) and ``labels`` are given, or read by ``load`` (no arguments, returns
    both) the first time either is used: the Sweep page's first visit shows the demo's shipped
    rows and reads its points only when a setting is opened (reading the digits took ~25 ms of
    that visit).
    """

    __slots__ = ("_arrays", "_load", "key", "name", "notes")

    def __init__(
        self,
        key: str,
        name: str,
        X: np.ndarray | None = None,
        labels: np.ndarray | None = None,
        notes: tuple[str, ...] = (),
        *,
        load: Callable[[], tuple[np.ndarray, np.ndarray]] | None = None,
    ) -> None:
        self.key = key
        self.name = name
        self.notes = tuple(notes)
        self._arrays = None if load is not None else (X, labels)
        self._load = load

    def __repr__(self) -> str:
        return f"SweepData({self.key!r}, {self.name!r})"

    def _read(self) -> tuple[np.ndarray | None, np.ndarray | None]:
        if self._arrays is None:
            self._arrays = self._load()
        return self._arrays

    @property
    def X(self) -> np.ndarray | None:
        return self._read()[0]

    @property
    def labels(self) -> np.ndarray | None:
        return self._read()[1]

    @property
    def loaded(self) -> bool:
        """Whether ``X`` and ``labels`` are in memory (read, or given)."""
        return self._arrays is not None

    @property
    def n(self) -> int:
        if self.labels is not None:
            return int(self.labels.shape[0])
        return 0 if self.X is None else int(self.X.shape[0])

    @property
    def n_classes(self) -> int:
        return 0 if self.labels is None else int(np.unique(self.labels).size)


@st.cache_resource(show_spinner=False, max_entries=16, ttl=CACHE_TTL)
def _synthetic(
    ambient_dim: int,
    subspace_dim: int,
    n_subspaces: int,
    points_per_subspace: int,
    noise: float,
    seed: int,
) -> tuple[np.ndarray, np.ndarray]:
    from metrics_core.datasets import union_of_subspaces

    try:
        X, y = union_of_subspaces(
            ambient_dim, subspace_dim, n_subspaces, points_per_subspace, noise, seed=seed
        )
    except ValueError as exc:  # the generator's own size checks
        raise ClustlensInputError(str(exc), source="synthetic data") from None
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


def synthetic(
    ambient_dim: int = 15,
    subspace_dim: int = 4,
    n_subspaces: int = 5,
    points_per_subspace: int = 40,
    noise: float = 0.1,
    seed: int = 0,
) -> SweepData:
    """A union of random subspaces from :func:`metrics_core.datasets.union_of_subspaces`."""
    args = (
        int(ambient_dim),
        int(subspace_dim),
        int(n_subspaces),
        int(points_per_subspace),
        float(noise),
        int(seed),
    )
    X, y = _synthetic(*args)
    key = "synthetic:" + ":".join(str(a) for a in args)
    name = (
        f"synthetic: {args[2]} subspaces of dim {args[1]} in R^{args[0]}, "
        f"{args[3]} points each, noise {args[4]:g}, seed {args[5]}"
    )
    return SweepData(key, name, X, y)


@st.cache_resource(show_spinner=False, max_entries=12, ttl=CACHE_TTL)
def _mfeat(view: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    from metrics_core.datasets import load_view

    X, y = load_view(view)
    idx = stratified_subset(y, n, seed)
    X, y = np.ascontiguousarray(X[idx]), np.asarray(y[idx])
    X.setflags(write=False)
    y.setflags(write=False)
    return X, y


def mfeat_views() -> dict[str, str]:
    """The handwritten-digit views: name -> description."""
    from metrics_core.datasets import VIEWS

    return dict(VIEWS)


def mfeat(view: str, n: int = MFEAT_DEFAULT_N, seed: int = 0) -> SweepData:
    """One view of the UCI handwritten digits (a stratified subset of ``n`` points)."""
    X, y = _mfeat(str(view), int(n), int(seed))
    return SweepData(*_mfeat_names(view, n, seed, X.shape[0]), X, y, MFEAT_NOTES)


def mfeat_later(view: str, n: int, seed: int, points: int) -> SweepData:
    """:func:`mfeat`'s data, its points read only when first used; ``points``: the subset's size
    (known beforehand, e.g. from shipped results, for the name)."""
    return SweepData(
        *_mfeat_names(view, n, seed, points),
        notes=MFEAT_NOTES,
        load=functools.partial(_mfeat_arrays, str(view), int(n), int(seed)),
    )


#: Where the handwritten digits come from (shown with any sweep on them).
MFEAT_NOTES = ("UCI Multiple Features (R.P.W. Duin), CC BY 4.0",)


def _mfeat_names(view: str, n: int, seed: int, points: int) -> tuple[str, str]:
    """The cache key and the name of a subset of ``points`` digits."""
    whole = points >= 2000
    size = "all 2,000 digits" if whole else f"{points:,} digits (stratified, seed {seed})"
    return f"mfeat:{view}:{int(n)}:{int(seed)}", f"handwritten digits, view {view}: {size}"


def _mfeat_arrays(view: str, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    # a module function, so a lazy SweepData's loader pickles by name (st.cache_data pickles the
    # demo's data; the cached _mfeat itself is not picklable)
    return _mfeat(view, n, seed)


def uploaded(
    x_name: str, x_bytes: bytes, y_name: str, y_bytes: bytes, *, room: int | None = None
) -> SweepData:
    """The user's own data X (points as rows) and labels, parsed in the sandboxed worker.

    The labels come first, so an X for other points is refused before it is made dense; with
    ``room`` (bytes the session may still be charged) an X whose sweep would not fit is refused
    too (:func:`dashboard.session.budget.data_charge`).
    """
    truth = inputs.build_input("truth", y_name, y_bytes, room=room)
    y = truth.value
    X = inputs.data_matrix(
        x_name,
        x_bytes,
        n_points=int(y.shape[0]),
        labels_name=y_name,
        charge=lambda shape: budget.data_charge(shape, "sweep"),
        room=None if room is None else room - budget.input_charge(truth),
    )
    return SweepData(
        f"upload:{sha256(x_bytes)}:{truth.key}",
        f"{x_name} ({X.shape[0]:,} points x {X.shape[1]:,} features), labels {y_name}",
        X,
        y,
        truth.notes,
    )


# ---------------------------------------------------------------- models and grids
def models() -> dict[str, Any]:
    """The model registry (``metrics_core.models.MODELS``)."""
    from metrics_core.models import MODELS

    return dict(MODELS)


def default_spec(model: str) -> list[str]:
    """Grid text per parameter: the first parameter swept on its default grid, others fixed."""
    spec = models()[model]
    out = []
    for i, p in enumerate(spec.params):
        if i == 0 and p.grid:
            out.append(p.grid)
        else:
            out.append(f"{p.name}={_fmt_value(p.default)}")
    return out


def _fmt_value(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:g}"
    return str(v)


@dataclass
class GridInfo:
    """A parsed grid: the settings in order, the swept parameters and which are logarithmic."""

    settings: list[dict[str, Any]]
    swept: tuple[str, ...]
    log: dict[str, bool]
    fixed: dict[str, Any] = field(default_factory=dict)


def parse_grid(model: str, specs: list[str]) -> GridInfo:
    """Parse the per-parameter grid texts (``metrics_core.sweep.parse_grid`` syntax) and check
    every setting against the model before anything runs."""
    from metrics_core.sweep import parse_grid as _parse

    spec = models()[model]
    grid = _parse([s for s in specs if s.strip()])
    for name in grid.names:
        spec.param(name)
    n = len(grid)
    if n > MAX_SETTINGS:
        raise ClustlensInputError(
            f"{n:,} settings; the dashboard runs at most {MAX_SETTINGS} (use `clustlens sweep` "
            "for bigger grids)",
            source="grid",
        )
    settings = grid.settings()
    for s in settings:
        spec.resolve(s)
    swept = tuple(nm for nm in grid.names if len(grid.values(nm)) > 1)
    fixed = {nm: grid.values(nm)[0] for nm in grid.names if len(grid.values(nm)) == 1}
    log = {nm: bool(grid.log.get(nm)) or spec.param(nm).log for nm in grid.names}
    return GridInfo(settings, swept, log, fixed)


def setting_label(model: str, params: dict[str, Any], swept: tuple[str, ...] | None = None) -> str:
    """'lsr λ=0.5' — the parameters that vary (all when ``swept`` is None).

    Examples
    --------
    >>> setting_label("ensc", {"lambda": 0.5, "gamma": 50.0}, ("lambda",))
    'ensc λ=0.5'
    """
    names = [k for k in params if swept is None or k in swept] or list(params)
    greek = {"lambda": "λ", "gamma": "γ"}
    parts = [f"{greek.get(k, k)}={_fmt_value(params[k])}" for k in names]
    return f"{model} " + " ".join(parts)


# ---------------------------------------------------------------- one setting
def _params_key(params: dict[str, Any]) -> str:
    return json.dumps(params, sort_keys=True, default=str)


@st.cache_resource(**_BIG)
def _setting_full(
    data_key: str, model: str, params_key: str, seed: int, n_clusters: int, _X, _y
) -> dict[str, Any]:
    from metrics_core.sweep import run_sweep

    params = json.loads(params_key)
    grid = {k: [v] for k, v in params.items()}
    res = run_sweep(_X, _y, model, grid, n_clusters=n_clusters, seed=seed, keep_coef=True)
    if res.errors or not res.rows:
        raise ClustlensInputError("; ".join(res.errors) or "no result", source=model)
    coef = res.coefs[0]
    if isinstance(coef, np.ndarray):
        coef.setflags(write=False)  # shared by every session: nobody may change it
    return {"row": dict(res.rows[0]), "pred": np.asarray(res.predictions[0]), "coef": coef}


@st.cache_data(**_SMALL)
def _setting(
    data_key: str, model: str, params_key: str, seed: int, n_clusters: int, _X, _y
) -> tuple[dict[str, Any], np.ndarray]:
    full = _setting_full(data_key, model, params_key, seed, n_clusters, _X, _y)
    return dict(full["row"]), full["pred"]


def run_setting(
    data: SweepData, model: str, params: dict[str, Any], *, seed: int, n_clusters: int
) -> tuple[dict[str, Any], np.ndarray]:
    """Fit, cluster and score one setting (cached on data key, model, params, seed, K)."""
    return _setting(
        data.key, model, _params_key(params), int(seed), int(n_clusters), data.X, data.labels
    )


def setting_coef(
    data: SweepData, model: str, params: dict[str, Any], *, seed: int, n_clusters: int
) -> Any:
    """C of one setting (recomputed if it left the small cache)."""
    full = _setting_full(
        data.key, model, _params_key(params), int(seed), int(n_clusters), data.X, data.labels
    )
    return full["coef"]


@st.cache_data(show_spinner=False, max_entries=8, ttl=CACHE_TTL)
def demo_sweep() -> dict[str, Any]:
    """The first-visit sweep: LSR over λ on 400 handwritten digits (pixel view), its rows read
    from the file shipped in ``demo_data`` (computed there by the same ``run_sweep`` call a
    setting runs here; a test checks they match), computed now if that file is missing. With
    the shipped rows the digits are read only when a setting is opened (``mfeat_later``)."""
    from demo_data import make_sweep_demo as demo

    grid = parse_grid(demo.MODEL, [demo.GRID])
    rows = _shipped_rows(len(grid.settings))
    if rows is None:
        data = mfeat(demo.VIEW, demo.N, demo.SEED)
        n_classes = data.n_classes
        rows = []
        for params in grid.settings:
            row, _ = run_setting(data, demo.MODEL, params, seed=demo.SEED, n_clusters=n_classes)
            rows.append(row)
    else:
        first = rows[0]
        data = mfeat_later(demo.VIEW, demo.N, demo.SEED, int(first["n_samples"]))
        n_classes = int(first["n_classes"])
    return {"rows": [{**r, "setting": i} for i, r in enumerate(rows)], "grid": grid,
            "data": data, "model": demo.MODEL, "seed": demo.SEED,
            "n_classes": n_classes}  # fmt: skip


@st.cache_resource(show_spinner=False)
def _shipped_rows(n: int) -> list[dict[str, Any]] | None:
    from demo_data import make_sweep_demo as demo

    try:
        raw = json.loads(demo.OUT.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    rows = raw.get("rows") if isinstance(raw, dict) else None
    if not (isinstance(rows, list) and len(rows) == n and all(isinstance(r, dict) for r in rows)):
        return None
    # the demo's size and class count come from them (its points are read only when needed)
    sizes = (rows[0].get("n_samples"), rows[0].get("n_classes"))
    return rows if all(isinstance(v, int) and v > 0 for v in sizes) else None


# ---------------------------------------------------------------- bundles
@st.cache_resource(show_spinner=False, max_entries=4, ttl=CACHE_TTL)
def _bundle(
    name: str, digest: str, n_samples: int | None, _data: bytes, _room: int | None = None
) -> Any:
    from metrics_core.sweep._bundle import BundleLimits, load_bundle

    limits = BundleLimits()
    if _room is not None:  # what inflates may not exceed the session's room
        limits = BundleLimits(
            max_member_bytes=min(limits.max_member_bytes, _room),
            max_total_bytes=min(limits.max_total_bytes, _room),
        )
    return load_bundle(_data, name, n_samples=n_samples, limits=limits)


@st.cache_data(show_spinner=False, max_entries=16, ttl=CACHE_TTL)
def _bundle_scored(
    name: str,
    digest: str,
    tkey: str,
    n_clusters: int,
    seed: int,
    orientation: str,
    _data: bytes,
    _labels,
    _room: int | None = None,
) -> dict[str, Any]:
    from metrics_core.sweep import score_bundle

    n = None if _labels is None else int(_labels.shape[0])
    bundle = _bundle(name, digest, n, _data, _room)
    res = score_bundle(bundle, _labels, n_clusters or None, seed=seed, coef_orientation=orientation)
    entries = {s.name: i for i, s in enumerate(bundle.settings)}
    return {
        "rows": [dict(r) for r in res.rows],
        "preds": [None if p is None else np.asarray(p) for p in res.predictions],
        "entry_index": [entries.get(r.get("entry"), -1) for r in res.rows],
        "errors": list(res.errors),
        "param_names": tuple(res.param_names),
        "log": dict(res.log_params),
        "kind": bundle.kind,
        "n_settings": res.n_settings,
        "held": sum(budget.array_bytes(st_.coef) for st_ in bundle.settings),
    }


def bundle(
    name: str,
    data: bytes,
    truth: Input | None,
    *,
    n_clusters: int = 0,
    seed: int = 0,
    orientation: str = "rows",
    room: int | None = None,
) -> dict[str, Any]:
    """Load and score an uploaded sweep bundle; per-entry errors come back in ``errors``.

    ``room``: bytes the session may still be charged; a bundle whose matrices inflate past it
    is refused before they are read. ``held`` in the result: the bytes its matrices take.
    """
    return _bundle_scored(
        name,
        sha256(data),
        "" if truth is None else truth.key,
        int(n_clusters),
        int(seed),
        str(orientation),
        data,
        None if truth is None else truth.value,
        room,
    )


def bundle_coef(name: str, data: bytes, truth: Input | None, entry_index: int) -> Any:
    """C of one bundle entry (None for results-only rows)."""
    n = None if truth is None else truth.n
    b = _bundle(name, sha256(data), n, data)
    if entry_index < 0 or entry_index >= len(b.settings):
        return None
    return b.settings[entry_index].coef


def parse_labels(name: str, data: bytes) -> Input:
    """Ground-truth labels for a bundle (the sidebar's parser)."""
    return inputs.build_input("truth", name, data)


# ---------------------------------------------------------------- opening a setting
def make_inputs(
    label: str, source_name: str, labels_true: np.ndarray, pred: np.ndarray, coef: Any | None
) -> tuple[Input, Input, Input | None]:
    """``Input`` objects for one sweep setting, built by the one input builder.

    Their bytes are the arrays serialised as ``.npy`` (labels, dense C) or ``.npz`` (sparse C),
    so their SHA-256 keys the existing caches exactly as an upload of those files would.
    """
    truth = inputs.from_array("truth", f"sweep: ground truth of {source_name}", labels_true)
    pred_in = inputs.from_array("pred", f"sweep: {label}", np.asarray(pred).reshape(-1))
    coef_in = None if coef is None else inputs.from_array("coef", f"sweep: C of {label}", coef)
    return truth, pred_in, coef_in


# ---------------------------------------------------------------- table helpers
#: Metrics offered for colouring and plotting, in this order, with display names.
#: The metric columns a sweep table offers, in this order; names from the catalogue.
METRIC_KEYS: tuple[str, ...] = (
    "acc", "nmi", "ari", "ami", "purity", "f_measure", "pair_f1", "sre", "conn_min",
    "conn_mean", "sparsity", "seconds",
)  # fmt: skip
METRIC_LABELS: dict[str, str] = {k: column_label(k) for k in METRIC_KEYS}
LOWER_IS_BETTER = ("sre", "sparsity", "seconds")


def available_metrics(rows: list[dict[str, Any]]) -> list[str]:
    """Metric columns present (finite somewhere) in ``rows``, in :data:`METRIC_LABELS` order."""
    out = []
    for k in METRIC_LABELS:
        vals = [r.get(k) for r in rows]
        if any(isinstance(v, (int, float)) and math.isfinite(float(v)) for v in vals):
            out.append(k)
    return out


def best_index(rows: list[dict[str, Any]], metric: str) -> int | None:
    """Position in ``rows`` of the best value of ``metric`` (lowest for SRE, sparsity, time)."""
    vals = np.array([_num(r.get(metric)) for r in rows], dtype=float)
    if not np.isfinite(vals).any():
        return None
    low = metric in LOWER_IS_BETTER or metric.endswith("error")
    vals = np.where(np.isfinite(vals), vals, np.inf if low else -np.inf)
    return int(np.argmin(vals) if low else np.argmax(vals))


def trade_off_story(rows: list[dict[str, Any]], param: str, conn_key: str = "conn_min") -> str:
    """Where a one-parameter sweep's SRE is lowest (best) and its CONN lowest (worst), and where
    ACC is best, with SRE and CONN at that setting: the sentence the demo sweep opens with, read
    off its rows (one written by hand had said ACC peaked between the two, where it dips).

    Examples
    --------
    >>> rows = [{"lambda": 0.1, "sre": 0.9, "conn_min": 0.8, "acc": 0.5},
    ...         {"lambda": 1.0, "sre": 0.7, "conn_min": 0.5, "acc": 0.6},
    ...         {"lambda": 10.0, "sre": 0.75, "conn_min": 0.7, "acc": 0.8}]
    >>> trade_off_story(rows, "lambda")
    'SRE is lowest (best) at λ = 1 (0.7000) and CONN (min) lowest (worst) at λ = 1 (0.5000); ACC is best at λ = 10 (0.8000), where SRE is 0.7500 and CONN (min) 0.7000'
    """  # noqa: E501
    name = "λ" if param == "lambda" else param
    conn = METRIC_LABELS.get(conn_key, conn_key)

    def lowest(key: str) -> int | None:
        vals = np.array([_num(r.get(key)) for r in rows], dtype=float)
        return int(np.nanargmin(vals)) if np.isfinite(vals).any() else None

    at = {"sre": lowest("sre"), conn_key: lowest(conn_key), "acc": best_index(rows, "acc")}
    if any(i is None for i in at.values()):
        return ""

    def where(key: str) -> str:
        r = rows[at[key]]  # type: ignore[index]
        # the digits of the sweep table (fmt_value), so the sentence reads as the table does
        return f"at {name} = {fmt_value(r.get(param), None)} ({fmt_value(float(r[key]))})"

    text = (f"SRE is lowest (best) {where('sre')} and {conn} lowest (worst) {where(conn_key)}; "
            f"ACC is best {where('acc')}")  # fmt: skip
    best = rows[at["acc"]]  # type: ignore[index]
    if at["acc"] not in (at["sre"], at[conn_key]):
        sre, c = fmt_value(float(best["sre"])), fmt_value(float(best[conn_key]))
        text += f", where SRE is {sre} and {conn} {c}"
    return text


def fmt_value(value: Any, digits: int | None = 4) -> str:
    """A sweep table's cell as text: a float with ``digits`` decimals (``None``: four
    significant digits, for parameters, counts and times), NaN as "n/a", an integer or a string
    as it is, nothing as "".

    Examples
    --------
    >>> fmt_value(0.123456), fmt_value(0.0042169, digits=None), fmt_value(399.0, digits=None)
    ('0.1235', '0.004217', '399')
    >>> fmt_value(float("nan")), fmt_value(7), fmt_value(None)
    ('n/a', '7', '')
    """
    if value is None:
        return ""
    if isinstance(value, (bool, np.bool_)):
        return str(value)
    if isinstance(value, (int, np.integer)):
        return str(int(value))
    if isinstance(value, (float, np.floating)):
        v = float(value)
        if not math.isfinite(v):
            return "n/a"
        return f"{v:.4g}" if digits is None else f"{v:.{digits}f}"
    return str(value)


def best_positions(rows: list[dict[str, Any]], metric: str) -> set[int]:
    """Positions in ``rows`` holding the best value of ``metric`` (ties all count; a float
    within 1e-12 relative of the best is the best); none when every setting ties.

    Examples
    --------
    >>> rows = [{"acc": 0.5, "sre": 0.2}, {"acc": 0.9, "sre": 0.2}, {"acc": 0.9, "sre": 0.2}]
    >>> sorted(best_positions(rows, "acc")), best_positions(rows, "sre")
    ([1, 2], set())
    """
    at = best_index(rows, metric)
    if at is None:
        return set()
    best = _num(rows[at].get(metric))
    vals = [_num(r.get(metric)) for r in rows]
    out = {i for i, v in enumerate(vals) if math.isfinite(v) and math.isclose(v, best,
           rel_tol=1e-12, abs_tol=0.0)}  # fmt: skip
    return set() if len(out) == len(rows) else out


def _num(v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def table_csv(rows: list[dict[str, Any]], context: dict[str, Any]) -> str:
    """The sweep table as CSV, context columns first, every string formula-escaped."""
    out = [{**context, **r} for r in rows]
    return export.to_csv(out)
