"""Parameter sweeps: grids, running a model over a grid, scoring each setting.

A sweep maps every setting of a parameter grid to one row of a table: the parameters, the full
metric set of :func:`metrics_core.evaluate` (ACC, NMI, ARI, ... and SRE, CONN min/mean from the
coefficient matrix), ``sparsity`` (mean non-zeros per point, i.e. per row of C) and timings.
Predictions come from spectral clustering of ``|C| + |C|ᵀ`` (:mod:`metrics_core.models`).

Results are deterministic given (data bytes, model, parameters, seed): the solvers are exact or
deterministic, each setting is fitted from scratch (no warm start across settings, so the grid
order does not matter) and the same ``seed`` drives spectral clustering of every setting.
"""

from __future__ import annotations

import csv
import io
import itertools
import math
import os
import re
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from metrics_core.models import LSRPath, check_data, get_model, normalize_rows, spectral_clustering
from metrics_core.validation._errors import ClustlensInputError
from metrics_core.validation._labels import check_labels

ProgressCallback = Callable[[int, int, float, float, dict[str, Any]], None]

_SPEC_RE = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)\s*=\s*(.+?)\s*$")
# Columns a sweep row holds besides the parameters and the evaluate() metrics.
EXTRA_COLUMNS = ("setting", "sparsity", "seconds_fit", "seconds_cluster", "seconds")


# --------------------------------------------------------------------------------------------
# Grids
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Grid:
    """A cartesian grid of parameter values.

    Attributes
    ----------
    axes : tuple of (name, values) pairs
        In the order given; the first parameter varies slowest.
    log : dict
        ``name -> True`` when the values were given as a logarithmic range.

    Examples
    --------
    >>> g = parse_grid(["lambda=0.1:0.3:3", "k=5,10"])
    >>> len(g), g.settings()[1]
    (6, {'lambda': 0.1, 'k': 10})
    """

    axes: tuple[tuple[str, tuple[Any, ...]], ...]
    log: dict[str, bool] = field(default_factory=dict)

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self.axes)

    def values(self, name: str) -> tuple[Any, ...]:
        return dict(self.axes)[name]

    def settings(self) -> list[dict[str, Any]]:
        """Every setting as a dict, in cartesian order (last parameter fastest)."""
        names = self.names
        return [
            dict(zip(names, combo, strict=True))
            for combo in itertools.product(*(v for _, v in self.axes))
        ]

    def __len__(self) -> int:
        return math.prod(len(v) for _, v in self.axes) if self.axes else 0


def _clean(x: float) -> float:
    # 12 significant digits: linspace's 0.15000000000000002 becomes 0.15, so CSVs and cache keys
    # stay readable and stable.
    return float(f"{x:.12g}")


def _token(text: str) -> Any:
    t = text.strip()
    if not t:
        raise ValueError("empty value")
    if re.fullmatch(r"[+-]?\d+", t):
        return int(t)
    try:
        return _clean(float(t))
    except ValueError:
        return t


def _parse_one(spec: str) -> tuple[str, tuple[Any, ...], bool]:
    m = _SPEC_RE.match(spec)
    if not m:
        raise ClustlensInputError(
            "expected name=start:stop:count[:log] or name=v1,v2,...", source="grid", where=spec
        )
    name, body = m.group(1), m.group(2)
    try:
        if ":" in body:
            parts = [p.strip() for p in body.split(":")]
            scale = "lin"
            if len(parts) == 4:
                scale = parts.pop().lower()
                if scale not in ("log", "lin", "linear"):
                    raise ValueError(f"unknown scale {scale!r} (log or lin)")
            if len(parts) != 3:
                raise ValueError("a range is start:stop:count[:log]")
            start, stop = float(parts[0]), float(parts[1])
            count = float(parts[2])
            if count != int(count) or count < 1:
                raise ValueError(f"count must be a positive whole number, got {parts[2]!r}")
            count = int(count)
            if count > 10_000:
                raise ValueError(f"count {count} is too large (at most 10000)")
            if not (np.isfinite(start) and np.isfinite(stop)):
                raise ValueError("start and stop must be finite")
            if scale == "log":
                if start <= 0 or stop <= 0:
                    raise ValueError("a log range needs positive start and stop")
                vals = np.geomspace(start, stop, count)
            else:
                vals = np.linspace(start, stop, count)
            values = tuple(_clean(v) for v in vals)
            if count == 1:
                values = (_clean(start),)
            return name, values, scale == "log"
        values = tuple(_token(v) for v in body.split(","))
    except ValueError as exc:
        raise ClustlensInputError(str(exc), source="grid", where=spec) from None
    if len(set(values)) != len(values):
        raise ClustlensInputError("a value is repeated", source="grid", where=spec)
    return name, values, False


def parse_grid(spec: str | Sequence[str] | Mapping[str, Any] | Grid) -> Grid:
    """Parse a parameter grid.

    Syntax, one parameter per spec (several specs, as a list or joined by ``;``, give their
    cartesian product):

    - ``name=start:stop:count`` — ``count`` evenly spaced values, ends included (``linspace``);
    - ``name=start:stop:count:log`` — evenly spaced on a log scale (``geomspace``);
    - ``name=v1,v2,...`` — a list (numbers or words); ``name=v`` — a single value.

    A mapping ``{name: values}`` is accepted too. Values are rounded to 12 significant digits.

    Parameters
    ----------
    spec : str, sequence of str, mapping or Grid

    Returns
    -------
    Grid

    Examples
    --------
    >>> parse_grid("lambda=0.05:0.95:10").values("lambda")[:3]
    (0.05, 0.15, 0.25)
    >>> parse_grid("gamma=1e-2:1e2:5:log").values("gamma")
    (0.01, 0.1, 1.0, 10.0, 100.0)
    >>> parse_grid("k=5,10; metric=cosine").settings()
    [{'k': 5, 'metric': 'cosine'}, {'k': 10, 'metric': 'cosine'}]
    """
    if isinstance(spec, Grid):
        return spec
    axes: list[tuple[str, tuple[Any, ...]]] = []
    log: dict[str, bool] = {}
    if isinstance(spec, Mapping):
        for name, vals in spec.items():
            if isinstance(vals, (str, bytes)) or not isinstance(vals, Iterable):
                vals = [vals]
            values = tuple(_clean(v) if isinstance(v, float) else v for v in vals)
            if not values:
                raise ClustlensInputError("no values", source="grid", where=str(name))
            axes.append((str(name), values))
            log[str(name)] = False
    else:
        specs = [spec] if isinstance(spec, str) else list(spec)
        pieces = [p for s in specs for p in str(s).split(";") if p.strip()]
        if not pieces:
            raise ClustlensInputError("empty grid", source="grid")
        for piece in pieces:
            name, values, is_log = _parse_one(piece)
            axes.append((name, values))
            log[name] = is_log
    names = [n for n, _ in axes]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        raise ClustlensInputError(f"parameter {sorted(dup)[0]!r} is given twice", source="grid")
    return Grid(tuple(axes), log)


# --------------------------------------------------------------------------------------------
# Results
# --------------------------------------------------------------------------------------------


@dataclass
class SweepResult:
    """The table of a sweep: one flat row per finished setting.

    Attributes
    ----------
    model : str
        Model name (``"bundle"`` for uploaded sweeps).
    param_names : tuple of str
        Parameter columns, in grid order.
    rows : list of dict
        ``setting`` (index in the grid), the parameters, every :func:`metrics_core.evaluate`
        key, ``sparsity`` (mean non-zeros per point), ``seconds_fit``, ``seconds_cluster``,
        ``seconds`` — plain Python values.
    predictions : list of numpy.ndarray or None
        Predicted labels per row (None for results-only rows).
    coefs : list
        Coefficient matrices per row when ``keep_coef`` was asked, else empty.
    n_settings : int
        Settings in the grid (``len(rows) < n_settings`` after a stop or errors).
    stopped : bool
        Whether ``should_stop`` ended the sweep early.
    errors : list of str
        Settings that could not be scored, each message naming the entry.
    log_params : dict
        ``name -> True`` for parameters on a logarithmic grid (plot them on a log axis).
    seconds : float
        Wall-clock time of the whole sweep.
    seed : int
        Seed of spectral clustering.
    """

    model: str
    param_names: tuple[str, ...]
    rows: list[dict[str, Any]] = field(default_factory=list)
    predictions: list[np.ndarray | None] = field(default_factory=list)
    coefs: list[Any] = field(default_factory=list)
    n_settings: int = 0
    stopped: bool = False
    errors: list[str] = field(default_factory=list)
    log_params: dict[str, bool] = field(default_factory=dict)
    seconds: float = 0.0
    seed: int = 0

    def __len__(self) -> int:
        return len(self.rows)

    @property
    def columns(self) -> list[str]:
        """All column names: parameters first, then the others in first-seen order."""
        cols = ["setting", *self.param_names]
        for row in self.rows:
            for key in row:
                if key not in cols:
                    cols.append(key)
        return cols

    def column(self, name: str) -> np.ndarray:
        """One column as a float array (NaN where missing)."""
        return np.array([_as_float(row.get(name)) for row in self.rows], dtype=float)

    def best(self, metric: str = "acc", *, higher_is_better: bool | None = None) -> int | None:
        """Index (into ``rows``) of the best row by ``metric``; None when no row has it.

        ``higher_is_better`` defaults to False for ``*_error``, ``sre``, ``sparsity`` and
        ``seconds*`` and True otherwise.
        """
        vals = self.column(metric)
        if not np.isfinite(vals).any():
            return None
        if higher_is_better is None:
            higher_is_better = not (
                metric.endswith("error")
                or metric in ("sre", "sparsity")
                or metric.startswith("seconds")
            )
        vals = np.where(np.isfinite(vals), vals, -np.inf if higher_is_better else np.inf)
        return int(np.argmax(vals) if higher_is_better else np.argmin(vals))

    def to_frame(self) -> Any:
        """The table as a pandas DataFrame."""
        import pandas as pd

        return pd.DataFrame(self.rows, columns=self.columns)

    def to_csv(self, path: str | os.PathLike[str] | None = None) -> str | None:
        """Write the table as CSV to ``path``, or return it as a string when ``path`` is None."""
        buf = io.StringIO()
        cols = self.columns
        writer = csv.DictWriter(buf, fieldnames=cols, lineterminator="\n", extrasaction="ignore")
        writer.writeheader()
        for row in self.rows:
            writer.writerow({k: _csv_value(row.get(k)) for k in cols})
        text = buf.getvalue()
        if path is None:
            return text
        Path(path).write_text(text, encoding="utf-8")
        return None


def _as_float(v: Any) -> float:
    try:
        return float(v)
    except (TypeError, ValueError):
        return float("nan")


def _csv_value(v: Any) -> Any:
    if v is None:
        return ""
    if isinstance(v, float):
        return repr(v)  # shortest round-tripping form
    return v


# --------------------------------------------------------------------------------------------
# Scoring one setting
# --------------------------------------------------------------------------------------------


def sparsity(coef: Any) -> float:
    """Mean number of non-zeros per point (per row of C; the same mean for columns).

    Examples
    --------
    >>> sparsity(np.array([[0.0, 1.0], [0.0, 0.0]]))
    0.5
    """
    n = coef.shape[0]
    if sp.issparse(coef):
        c = sp.csr_array(coef)
        nnz = int(np.count_nonzero(c.data))
    else:
        nnz = int(np.count_nonzero(coef))
    return nnz / n if n else 0.0


def score_coef(
    coef: Any,
    labels_true: Any,
    *,
    n_clusters: int | None = None,
    pred: Any = None,
    seed: int = 0,
    n_init: int = 10,
    coef_orientation: str = "rows",
    evaluate_kwargs: Mapping[str, Any] | None = None,
) -> tuple[dict[str, Any], np.ndarray, float]:
    """Metrics of one coefficient matrix: spectral clustering (unless ``pred`` given) + evaluate.

    Returns
    -------
    metrics : dict
        :func:`metrics_core.evaluate` keys plus ``sparsity``.
    pred : numpy.ndarray
        The predictions scored.
    seconds_cluster : float
        Time spent in spectral clustering (0 when ``pred`` was given).
    """
    from metrics_core import evaluate

    y = check_labels(labels_true, "labels_true")
    t0 = time.perf_counter()
    if pred is None:
        k = int(n_clusters) if n_clusters else int(np.unique(y).size)
        pred = spectral_clustering(coef, k, seed=seed, n_init=n_init).labels
    seconds_cluster = time.perf_counter() - t0
    metrics = dict(
        evaluate(y, pred, coef, coef_orientation=coef_orientation, **dict(evaluate_kwargs or {}))
    )
    metrics["sparsity"] = sparsity(coef)
    return metrics, np.asarray(pred), seconds_cluster


def _progress_times(t_start: float, done: int, total: int) -> tuple[float, float]:
    elapsed = time.perf_counter() - t_start
    remaining = elapsed / done * (total - done) if done else float("nan")
    return elapsed, remaining


# --------------------------------------------------------------------------------------------
# Running a sweep
# --------------------------------------------------------------------------------------------


def _save_setting(directory: Path, index: int, coef: Any, pred: np.ndarray) -> tuple[str, str]:
    if sp.issparse(coef):
        fname = f"coef_{index:04d}.npz"
        sp.save_npz(directory / fname, sp.csr_array(coef), compressed=True)
    else:
        fname = f"coef_{index:04d}.npy"
        np.save(directory / fname, np.asarray(coef), allow_pickle=False)
    pname = f"pred_{index:04d}.txt"
    np.savetxt(directory / pname, np.asarray(pred).astype(np.int64), fmt="%d")
    return fname, pname


def _write_manifest(directory: Path, param_names: Sequence[str], entries: list[dict]) -> None:
    with open(directory / "params.csv", "w", newline="", encoding="utf-8") as fh:
        writer = csv.DictWriter(fh, fieldnames=["file", *param_names, "pred"], lineterminator="\n")
        writer.writeheader()
        for e in entries:
            writer.writerow({k: _csv_value(v) for k, v in e.items()})


def run_sweep(
    X: Any,
    labels_true: Any,
    model: str,
    grid: str | Sequence[str] | Mapping[str, Any] | Grid,
    *,
    n_clusters: int | None = None,
    seed: int = 0,
    on_progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | None = None,
    save_coef_dir: str | os.PathLike[str] | None = None,
    normalize: bool = True,
    n_init: int = 10,
    keep_coef: bool = False,
    base_params: Mapping[str, Any] | None = None,
    evaluate_kwargs: Mapping[str, Any] | None = None,
) -> SweepResult:
    """Fit ``model`` on ``X`` for every setting of ``grid`` and score each setting.

    Parameters
    ----------
    X : array-like of shape (N, D)
        Data, points as rows.
    labels_true : array-like of shape (N,)
        Ground truth.
    model : str
        A key of :data:`metrics_core.models.MODELS`.
    grid : str, list of str, mapping or Grid
        See :func:`parse_grid`. Parameters not in the grid take ``base_params`` or defaults.
    n_clusters : int, optional
        Clusters for spectral clustering; default the number of true classes.
    seed : int
        Seed of spectral clustering (the same for every setting).
    on_progress : callable, optional
        ``on_progress(i, n, elapsed, remaining_estimate, row)`` after each finished setting
        (``i`` finished of ``n``; seconds; ``row`` the new table row).
    should_stop : callable, optional
        Checked before each setting; when it returns True the sweep ends, keeping the rows
        already finished (``result.stopped`` is True).
    save_coef_dir : path, optional
        Write every setting's C (``coef_####.npz`` sparse / ``.npy`` dense), predictions
        (``pred_####.txt``) and a ``params.csv`` manifest there: a folder that, zipped, is a
        sweep bundle for :func:`metrics_core.sweep._bundle.load_bundle`.
    normalize : bool
        Scale the rows of ``X`` to unit ℓ2 norm first (the usual subspace-clustering setting).
    n_init : int
        k-means restarts in spectral clustering.
    keep_coef : bool
        Keep every C in ``result.coefs`` (memory: one N x N matrix per setting).
    base_params : mapping, optional
        Fixed values for parameters outside the grid.
    evaluate_kwargs : mapping, optional
        Extra keyword arguments for :func:`metrics_core.evaluate` (conventions).

    Returns
    -------
    SweepResult

    Examples
    --------
    >>> from metrics_core.datasets import union_of_subspaces
    >>> X, y = union_of_subspaces(10, 2, 2, 15, seed=0)
    >>> res = run_sweep(X, y, "ssc_omp", "k=2,3")
    >>> [(r["k"], r["acc"], r["sre"]) for r in res.rows]
    [(2, 1.0, 0.0), (3, 1.0, 0.0)]
    """
    spec = get_model(model)
    g = parse_grid(grid)
    for name in g.names:
        spec.param(name)  # unknown names raise, naming the model's parameters
    clash = set(g.names) & {"setting", "sparsity", "seconds", "seconds_fit", "seconds_cluster"}
    if clash:
        raise ClustlensInputError(f"parameter name {sorted(clash)[0]!r} is reserved", source="grid")
    Xc = check_data(X)
    y = check_labels(labels_true, "labels_true")
    if y.shape[0] != Xc.shape[0]:
        raise ClustlensInputError(
            f"has {y.shape[0]} labels but the data has {Xc.shape[0]} points", source="labels_true"
        )
    if normalize:
        Xc = normalize_rows(Xc)
    k = int(n_clusters) if n_clusters else int(np.unique(y).size)
    if not (1 <= k <= Xc.shape[0]):
        raise ClustlensInputError(f"must be in [1, {Xc.shape[0]}], got {k}", source="n_clusters")
    settings = g.settings()
    # Validate every setting before fitting anything, so a typo fails in a second, not an hour.
    resolved = [spec.resolve({**dict(base_params or {}), **s}) for s in settings]
    result = SweepResult(
        model=spec.name,
        param_names=g.names,
        n_settings=len(settings),
        log_params={n: bool(g.log.get(n)) or spec.param(n).log for n in g.names},
        seed=int(seed),
    )
    save_dir = Path(save_coef_dir) if save_coef_dir is not None else None
    manifest: list[dict[str, Any]] = []
    if save_dir is not None:
        save_dir.mkdir(parents=True, exist_ok=True)
    path = LSRPath(Xc) if spec.name == "lsr" else None  # one SVD serves every λ
    t_start = time.perf_counter()
    for i, (setting, params) in enumerate(zip(settings, resolved, strict=True)):
        if should_stop is not None and should_stop():
            result.stopped = True
            break
        t0 = time.perf_counter()
        if path is not None:
            from metrics_core.models._lsr import fit_lsr

            fit = fit_lsr(Xc, params, path=path)
        else:
            fit = spec.fit(Xc, params)
        t_fit = time.perf_counter() - t0
        metrics, pred, t_cluster = score_coef(
            fit.coef, y, n_clusters=k, seed=seed, n_init=n_init, evaluate_kwargs=evaluate_kwargs
        )
        row: dict[str, Any] = {"setting": i, **setting, **metrics}
        row["seconds_fit"] = t_fit
        row["seconds_cluster"] = t_cluster
        row["seconds"] = time.perf_counter() - t0
        result.rows.append(row)
        result.predictions.append(pred)
        if keep_coef:
            result.coefs.append(fit.coef)
        if save_dir is not None:
            fname, pname = _save_setting(save_dir, i, fit.coef, pred)
            manifest.append({"file": fname, **setting, "pred": pname})
            _write_manifest(save_dir, g.names, manifest)
        if on_progress is not None:
            elapsed, remaining = _progress_times(t_start, i + 1, len(settings))
            on_progress(i + 1, len(settings), elapsed, remaining, row)
    result.seconds = time.perf_counter() - t_start
    return result


def score_bundle(
    bundle: Any,
    labels_true: Any = None,
    n_clusters: int | None = None,
    *,
    seed: int = 0,
    n_init: int = 10,
    coef_orientation: str = "rows",
    on_progress: ProgressCallback | None = None,
    should_stop: Callable[[], bool] | None = None,
    evaluate_kwargs: Mapping[str, Any] | None = None,
) -> SweepResult:
    """Score every setting of an uploaded sweep bundle.

    Settings with a prediction file are scored on it; the others are clustered spectrally
    (``n_clusters`` default: the number of true classes). Results-only settings (a CSV bundle)
    pass their metric columns through unchanged and need no labels. Loading errors of the
    bundle and scoring errors of single settings end up in ``result.errors``; the other
    settings are still scored.

    Parameters
    ----------
    bundle : Bundle
        From :func:`metrics_core.sweep._bundle.load_bundle`.
    labels_true : array-like, optional
        Ground truth (required unless every setting is results-only).
    n_clusters, seed, n_init, on_progress, should_stop, evaluate_kwargs
        As in :func:`run_sweep`.
    coef_orientation : {"rows", "columns"}
        Which of C's rows or columns represent the points (MATLAB codes: columns).

    Returns
    -------
    SweepResult
    """
    y = None if labels_true is None else check_labels(labels_true, "labels_true")
    result = SweepResult(
        model="bundle",
        param_names=tuple(bundle.param_names),
        n_settings=len(bundle.settings),
        errors=[str(e) for e in bundle.errors],
        log_params=_guess_log(bundle),
        seed=int(seed),
    )
    t_start = time.perf_counter()
    n = len(bundle.settings)
    for i, s in enumerate(bundle.settings):
        if should_stop is not None and should_stop():
            result.stopped = True
            break
        t0 = time.perf_counter()
        row: dict[str, Any] = {"setting": i, **s.params}
        pred_out: np.ndarray | None = None
        if s.coef is None:
            row.update(s.metrics or {})
        else:
            if y is None:
                raise ClustlensInputError(
                    "needed to score coefficient matrices", source="labels_true"
                )
            try:
                metrics, pred_out, t_cluster = score_coef(
                    s.coef,
                    y,
                    n_clusters=n_clusters,
                    pred=s.pred,
                    seed=seed,
                    n_init=n_init,
                    coef_orientation=coef_orientation,
                    evaluate_kwargs=evaluate_kwargs,
                )
            except ClustlensInputError as exc:
                result.errors.append(f"{bundle.source}: entry {s.name!r}: {exc}")
                continue
            row.update(metrics)
            row["seconds_cluster"] = t_cluster
            row["seconds"] = time.perf_counter() - t0
        row["entry"] = s.name
        result.rows.append(row)
        result.predictions.append(pred_out)
        if on_progress is not None:
            elapsed, remaining = _progress_times(t_start, i + 1, n)
            on_progress(i + 1, n, elapsed, remaining, row)
    result.seconds = time.perf_counter() - t_start
    return result


def _guess_log(bundle: Any) -> dict[str, bool]:
    """A parameter looks logarithmic when its positive values are evenly spaced in log."""
    out = {}
    for name in bundle.param_names:
        vals = sorted({_as_float(s.params.get(name)) for s in bundle.settings})
        vals = [v for v in vals if np.isfinite(v)]
        is_log = False
        if len(vals) >= 3 and vals[0] > 0:
            ratios = np.diff(np.log(vals))
            is_log = bool(np.allclose(ratios, ratios[0], rtol=1e-3)) and vals[-1] / vals[0] >= 50
        out[name] = is_log
    return out


__all__ = [
    "Grid",
    "SweepResult",
    "parse_grid",
    "run_sweep",
    "score_bundle",
    "score_coef",
    "sparsity",
]
