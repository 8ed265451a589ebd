"""The seed paper's experiment protocol: repeated runs, mean ± std tables, sensitivity grids."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from metrics_core.evaluation import LatexCell, best_rows, column_label, mean_std, to_latex
from metrics_core.multiview._baselines import (
    KNN_GRID,
    average_graph,
    kmeans_labels,
    knn_graph,
    spectral_embedding,
)
from metrics_core.multiview._ssf import scale_features, ssf_fit

METRIC_KEYS: tuple[str, ...] = ("acc", "nmi", "purity", "f_measure", "pair_f1", "ari")
"""Metrics of the tables (keys of :func:`metrics_core.evaluate`)."""

METRIC_LABELS: dict[str, str] = {k: column_label(k) for k in METRIC_KEYS}
"""Column headings, from the metric catalogue (the one table of short names): ``f_measure`` is
the class-weighted best-match F-measure (the seed paper's "F-score"), ``pair_f1`` the F1 of pair
counting."""

DEFAULT_SSF = {"alpha": 10.0, "beta": 1e-3, "gamma": 6.0, "max_iter": 30, "tol": 1e-6}


def _default_metric_fn() -> Callable[[np.ndarray, np.ndarray], dict[str, Any]]:
    from metrics_core import evaluate

    return evaluate


def _scores(fn, y, pred) -> dict[str, float]:
    out = fn(y, pred)
    return {k: float(out[k]) for k in METRIC_KEYS}


@dataclass
class ProtocolResult:
    """Outcome of :func:`run_protocol`.

    Attributes
    ----------
    runs : pandas.DataFrame
        One row per (method, run): ``method, run, seed, setting`` and the metrics.
    table : pandas.DataFrame
        One row per method: ``<metric>_mean`` and ``<metric>_std`` (sample std, ``ddof = 1``,
        :data:`metrics_core.evaluation.STD_DDOF`; 0 for a single run).
    sweep : pandas.DataFrame
        Every k-NN size tried by the SC baselines (method, n_neighbors, run, metrics); the
        reported row per method is the size with the best mean Acc.
    convergence : pandas.DataFrame
        SSF objective per (run, iteration).
    weights : pandas.DataFrame
        SSF view weights per (run, view).
    timings : pandas.DataFrame
        Seconds per (method, run).
    """

    runs: pd.DataFrame
    table: pd.DataFrame
    sweep: pd.DataFrame = field(default_factory=pd.DataFrame)
    convergence: pd.DataFrame = field(default_factory=pd.DataFrame)
    weights: pd.DataFrame = field(default_factory=pd.DataFrame)
    timings: pd.DataFrame = field(default_factory=pd.DataFrame)

    def to_csv(self, path: str | Path) -> Path:
        """Write :attr:`table` (method, mean and std of every metric) as CSV; returns the path."""
        path = Path(path)
        self.table.to_csv(path, index=True, float_format="%.6f")
        return path

    def to_latex(
        self, path: str | Path | None = None, *, digits: int = 4, caption: str = ""
    ) -> str:
        """The table as LaTeX ``booktabs`` (mean ± std, best mean per column in bold).

        Returns the LaTeX text; also writes it when ``path`` is given.
        """
        text = latex_table(self.table, digits=digits, caption=caption)
        if path is not None:
            Path(path).write_text(text, encoding="utf-8")
        return text

    def save(self, out_dir: str | Path, prefix: str = "") -> list[Path]:
        """Write every table of the result into ``out_dir`` (CSV, LaTeX, JSON of the weights)."""
        out = Path(out_dir)
        out.mkdir(parents=True, exist_ok=True)
        written = [self.to_csv(out / f"{prefix}table.csv")]
        p = out / f"{prefix}table.tex"
        self.to_latex(p)
        written.append(p)
        for name in ("runs", "sweep", "convergence", "weights", "timings"):
            frame = getattr(self, name)
            if not frame.empty:
                p = out / f"{prefix}{name}.csv"
                frame.to_csv(p, index=False)
                written.append(p)
        if not self.weights.empty:
            p = out / f"{prefix}weights.json"
            self.weights.to_json(p, orient="records", indent=1)
            written.append(p)
        return written


def summarise(runs: pd.DataFrame) -> pd.DataFrame:
    """Mean and sample std (``ddof = 1``; 0 for one run) of every metric per method, in order of
    first appearance: :func:`metrics_core.evaluation.mean_std` per method.

    Examples
    --------
    >>> runs = pd.DataFrame({"method": ["a", "a"], **{k: [0.5, 1.0] for k in METRIC_KEYS}})
    >>> [round(v, 6) for v in summarise(runs).loc["a", ["acc_mean", "acc_std"]].tolist()]
    [0.75, 0.353553]
    """
    order = list(dict.fromkeys(runs["method"]))
    rows = {}
    for method in order:
        group = runs[runs["method"] == method][list(METRIC_KEYS)].to_dict("records")
        stats = mean_std(group, METRIC_KEYS)
        row = {}
        for k in METRIC_KEYS:
            ms = stats.get(k)
            row[f"{k}_mean"] = ms.mean if ms else float("nan")
            row[f"{k}_std"] = ms.std if ms else float("nan")
        rows[method] = row
    table = pd.DataFrame.from_dict(rows, orient="index")
    table.index.name = "method"
    return table


def latex_table(table: pd.DataFrame, *, digits: int = 4, caption: str = "") -> str:
    r"""Render a :func:`summarise` table with the project's one LaTeX writer (mean $\pm$ std).

    The best mean of every metric column is set in ``\textbf`` (ties all bold).

    Examples
    --------
    >>> runs = pd.DataFrame({"method": ["SC_avg", "SSF"], **{k: [0.5, 0.9] for k in METRIC_KEYS}})
    >>> tex = latex_table(summarise(runs))
    >>> r"\textbf{0.9000 $\pm$ 0.0000}" in tex, "SC\\_avg" in tex
    (True, True)
    """
    metrics = [k for k in METRIC_KEYS if f"{k}_mean" in table.columns]
    bold = {
        k: best_rows([float(table.loc[m, f"{k}_mean"]) for m in table.index], "higher")
        for k in metrics
    }
    rows = []
    for method, row in table.iterrows():
        cells: dict[str, Any] = {"method": str(method)}
        for k in metrics:
            m, sd = float(row[f"{k}_mean"]), float(row[f"{k}_std"])
            cells[k] = LatexCell(f"{m:.{digits}f} $\\pm$ {sd:.{digits}f}")
        rows.append(cells)
    return (
        to_latex(
            rows,
            ["method", *metrics],
            headers={"method": "Method", **METRIC_LABELS},
            digits=digits,
            bold=bold,
            caption=caption or None,
        )
        + "\n"
    )


def run_protocol(
    views: Sequence[np.ndarray],
    labels: np.ndarray,
    *,
    runs: int = 20,
    seeds: Sequence[int] | None = None,
    methods: Sequence[str] = ("ssf", "sc", "sc_avg"),
    view_names: Sequence[str] | None = None,
    n_clusters: int | None = None,
    ssf_params: dict[str, Any] | None = None,
    knn_grid: Sequence[int] = KNN_GRID,
    scale: bool = True,
    kmeans_n_init: int = 10,
    metric_fn: Callable[[np.ndarray, np.ndarray], dict[str, Any]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> ProtocolResult:
    """Run SSF and the baselines ``runs`` times and summarise mean ± std (the seed's protocol).

    Parameters
    ----------
    views : sequence of numpy.ndarray
        ``(n_samples, d_v)`` per view, points as rows.
    labels : numpy.ndarray
        Ground truth, one per point.
    runs : int
        Repetitions (the paper: 20).
    seeds : sequence of int, optional
        One seed per run (default ``0 .. runs-1``); recorded in :attr:`ProtocolResult.runs`.
    methods : sequence of str
        ``"ssf"``; ``"sc"`` (spectral clustering on every single view, rows ``SC_<view>``);
        ``"sc_avg"`` (on the mean of the views' k-NN graphs).
    view_names : sequence of str, optional
        Names for the ``SC_<view>`` rows (default ``1 .. V``).
    n_clusters : int, optional
        Default: the number of distinct labels.
    ssf_params : dict, optional
        Keyword arguments of :func:`ssf_fit` (default :data:`DEFAULT_SSF`).
    knn_grid : sequence of int
        k-NN sizes tried by the SC baselines (the paper: 5, 10, ..., 60); the size with the best
        mean Acc over the runs is reported (selection on the ground truth, as in the paper).
    scale : bool
        Scale every feature to ``[-1, 1]`` for all methods (the same input for everyone).
    kmeans_n_init : int
        k-means restarts inside one SC run (the run's seed seeds them).
    metric_fn : callable, optional
        ``(labels_true, labels_pred) -> dict``; default :func:`metrics_core.evaluate`.
    progress : callable, optional
        Called with a short message after every step.

    Returns
    -------
    ProtocolResult

    Notes
    -----
    SSF has no random step (deterministic initialisation, labels from connected components), so
    its 20 runs differ at most through the seeded eigensolver start vector; its std is ~0. The SC
    baselines vary through k-means initialisation, which is what the paper's repetitions average.
    """
    fn = metric_fn or _default_metric_fn()
    say = progress or (lambda _m: None)
    y = np.asarray(labels)
    k = int(n_clusters or np.unique(y).size)
    seeds = list(seeds) if seeds is not None else list(range(runs))
    if len(seeds) != runs:
        raise ValueError("need one seed per run")
    names = list(view_names) if view_names is not None else [str(i + 1) for i in range(len(views))]
    Xs = [scale_features(v) if scale else np.asarray(v, float) for v in views]
    rows: list[dict[str, Any]] = []
    sweep_rows: list[dict[str, Any]] = []
    conv_rows: list[dict[str, Any]] = []
    w_rows: list[dict[str, Any]] = []
    t_rows: list[dict[str, Any]] = []

    if "ssf" in methods:
        params = {**DEFAULT_SSF, **(ssf_params or {})}
        for r, seed in enumerate(seeds):
            res = ssf_fit(Xs, k, seed=seed, scale=False, **params)
            sc = _scores(fn, y, res.labels)
            rows.append(
                {"method": "SSF", "run": r, "seed": seed, "setting": _fmt_params(params), **sc}
            )
            conv_rows += [
                {"run": r, "seed": seed, "iteration": i, "objective": o}
                for i, o in enumerate(res.objective)
            ]
            w_rows += [
                {
                    "run": r,
                    "seed": seed,
                    "view": nm,
                    "weight": float(wv),
                    "weight_normalised": float(wv / res.weights.sum()),
                }
                for nm, wv in zip(names, res.weights, strict=True)
            ]
            t_rows.append({"method": "SSF", "run": r, "seconds": res.seconds})
            say(
                f"SSF run {r} seed {seed}: acc={sc['acc']:.4f} nmi={sc['nmi']:.4f} "
                f"components={res.n_components} {res.seconds:.1f}s"
            )

    graph_sets: dict[str, list] = {}
    if "sc" in methods or "sc_avg" in methods:
        for nm, X in zip(names, Xs, strict=True):
            graph_sets[nm] = [knn_graph(X, kk) for kk in knn_grid]
    candidates: list[tuple[str, list]] = []
    if "sc" in methods:
        candidates += [(f"SC_{nm}", graph_sets[nm]) for nm in names]
    if "sc_avg" in methods:
        avg = [average_graph([graph_sets[nm][i] for nm in names]) for i in range(len(knn_grid))]
        candidates.append(("SC_avg", avg))
    for method, graphs in candidates:
        per_k = []
        for kk, W in zip(knn_grid, graphs, strict=True):
            t0 = time.perf_counter()
            E = spectral_embedding(W, k, seed=0)
            t_embed = time.perf_counter() - t0
            recs = []
            for r, seed in enumerate(seeds):
                t1 = time.perf_counter()
                pred = kmeans_labels(E, k, seed=seed, n_init=kmeans_n_init)
                recs.append(
                    {
                        "method": method,
                        "n_neighbors": kk,
                        "run": r,
                        "seed": seed,
                        "seconds": t_embed + time.perf_counter() - t1,
                        **_scores(fn, y, pred),
                    }
                )
            sweep_rows += recs
            per_k.append(recs)
        means = [
            (np.mean([x["acc"] for x in recs]), np.mean([x["nmi"] for x in recs])) for recs in per_k
        ]
        best = max(range(len(per_k)), key=lambda i: means[i])
        for rec in per_k[best]:
            rows.append(
                {
                    "method": method,
                    "run": rec["run"],
                    "seed": rec["seed"],
                    "setting": f"k={knn_grid[best]}",
                    **{m: rec[m] for m in METRIC_KEYS},
                }
            )
            t_rows.append({"method": method, "run": rec["run"], "seconds": rec["seconds"]})
        say(f"{method}: best k={knn_grid[best]} mean acc={means[best][0]:.4f}")

    runs_df = pd.DataFrame(rows)
    return ProtocolResult(
        runs=runs_df,
        table=summarise(runs_df),
        sweep=pd.DataFrame(sweep_rows),
        convergence=pd.DataFrame(conv_rows),
        weights=pd.DataFrame(w_rows),
        timings=pd.DataFrame(t_rows),
    )


def _fmt_params(p: dict[str, Any]) -> str:
    return " ".join(f"{k}={p[k]}" for k in ("alpha", "beta", "gamma") if k in p)


def sensitivity_grid(
    views: Sequence[np.ndarray],
    labels: np.ndarray,
    *,
    n_clusters: int | None = None,
    alpha: float = 10.0,
    betas: Sequence[float] = (1e-4, 1e-3, 1e-2),
    gammas: Sequence[float] = (4.0, 6.0, 8.0, 10.0),
    seed: int = 0,
    ssf_params: dict[str, Any] | None = None,
    metric_fn: Callable[[np.ndarray, np.ndarray], dict[str, Any]] | None = None,
    progress: Callable[[str], None] | None = None,
) -> pd.DataFrame:
    """SSF over a (β, γ) grid at fixed α: the seed's parameter-sensitivity study.

    Returns
    -------
    pandas.DataFrame
        Tidy, one row per (β, γ): ``alpha, beta, gamma``, every metric of :data:`METRIC_KEYS`,
        ``n_components``, ``n_iter``, ``seconds`` — pivot ``beta`` x ``gamma`` for a heatmap.
    """
    fn = metric_fn or _default_metric_fn()
    say = progress or (lambda _m: None)
    y = np.asarray(labels)
    k = int(n_clusters or np.unique(y).size)
    Xs = [scale_features(v) for v in views]
    base = {**DEFAULT_SSF, **(ssf_params or {})}
    rows = []
    for beta in betas:
        for gamma in gammas:
            params = {**base, "alpha": alpha, "beta": beta, "gamma": gamma}
            res = ssf_fit(Xs, k, seed=seed, scale=False, **params)
            rows.append(
                {
                    "alpha": alpha,
                    "beta": beta,
                    "gamma": gamma,
                    **_scores(fn, y, res.labels),
                    "n_components": res.n_components,
                    "n_iter": res.n_iter,
                    "seconds": res.seconds,
                }
            )
            say(
                f"beta={beta} gamma={gamma}: acc={rows[-1]['acc']:.4f} "
                f"components={res.n_components}"
            )
    return pd.DataFrame(rows)
