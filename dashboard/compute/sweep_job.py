"""The Sweep page's job: advance a sweep a chunk at a time, report progress, open a setting.

UI-free (no ``st.*``): the page calls :func:`advance` inside its progress box and re-runs
itself while settings are pending, so progress shows, the Stop button works and finished
settings survive a stop or a page switch. A run is the plain dict kept in
``AppState.sweep.run`` (data source, model, grid, rows finished so far, errors, timings).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np

from dashboard.compute import sweep as cs
from dashboard.figures.sweep import is_log_grid


def rows(run: dict[str, Any]) -> list[dict[str, Any]]:
    """Finished rows in grid order (bundle rows as scored)."""
    if run["kind"] == "bundle":
        return run["rows"]
    return [run["rows"][i] for i in sorted(run["rows"])]


def swept(run: dict[str, Any]) -> tuple[str, ...]:
    if run["kind"] == "bundle":
        rows = run["rows"]
        names = run["param_names"]
        return tuple(n for n in names if len({str(r.get(n)) for r in rows}) > 1) or tuple(names)
    grid = run["grid"]
    if grid.swept:
        return grid.swept
    return tuple(grid.settings[0]) if grid.settings else ()


def is_log(run: dict[str, Any], name: str, rows: list[dict[str, Any]]) -> bool:
    flag = run["log"].get(name) if run["kind"] == "bundle" else run["grid"].log.get(name)
    return bool(flag) or is_log_grid([r.get(name) for r in rows])


def fraction(run: dict[str, Any]) -> float:
    """Share of the grid's settings finished."""
    return len(run["rows"]) / max(len(run["grid"].settings), 1)


def advance(
    run: dict[str, Any], seconds: float, on_progress: Callable[[], None] = lambda: None
) -> str:
    """Compute pending settings for about ``seconds``; returns ``"more"`` (settings left),
    ``"done"`` or ``"stopped"``. A setting that fails is recorded as an error row; the sweep
    goes on. ``on_progress`` is called after each setting (the page updates its bar)."""
    n = len(run["grid"].settings)
    t_chunk = time.perf_counter()
    for i in [i for i in range(n) if i not in run["rows"]]:
        if run["status"] != "running":
            return "stopped"
        params = run["grid"].settings[i]
        t0 = time.perf_counter()
        try:
            row, _pred = cs.run_setting(
                run["data"], run["model"], params, seed=run["seed"], n_clusters=run["n_clusters"]
            )
            run["rows"][i] = {**row, "setting": i}
        except Exception as exc:  # one bad setting must not end the sweep
            label = cs.setting_label(run["model"], params)
            run["errors"].append(f"{label}: {exc}")
            run["rows"][i] = {"setting": i, **params, "error": str(exc)}
        run["seconds"] += time.perf_counter() - t0
        on_progress()
        if time.perf_counter() - t_chunk > seconds and len(run["rows"]) < n:
            return "more"
    run["status"] = "done"
    return "done"


def progress_text(run: dict[str, Any]) -> str:
    """ "setting 3 of 20 · 4.1 s elapsed · ~23 s left"."""
    n = len(run["grid"].settings)
    done = len(run["rows"])
    el = run["seconds"]
    rem = el / done * (n - done) if done else float("nan")
    rem_s = f"~{rem:.0f} s left" if np.isfinite(rem) else "estimating time left"
    return f"setting {done} of {n} · {el:.1f} s elapsed · {rem_s}"


def stop(run: dict[str, Any] | None) -> None:
    """Ask a running sweep to stop after the setting in progress."""
    if run is not None and run.get("status") == "running":
        run["status"] = "stopped"


def inputs_for(run: dict[str, Any], pos: int):
    """Inputs (truth, prediction, C) of the ``pos``-th finished setting, built by the one input
    builder, to open it in the Evaluate pages."""
    row = rows(run)[pos]
    names = swept(run)
    if run["kind"] == "bundle":
        truth = run["truth"]
        if truth is None:
            raise ValueError("a results-only sweep has no labels or C to open")
        pred = run["preds"][pos]
        if pred is None:
            raise ValueError("this setting has no prediction to open")
        params = {p: row.get(p) for p in run["param_names"]}
        label = f"{run['name']} " + " ".join(f"{k}={row.get(k)}" for k in names or params)
        coef = cs.bundle_coef(run["name"], run["bytes"], truth, run["entry_index"][pos])
        return cs.make_inputs(label, run["name"], truth.value, pred, coef)
    params = run["grid"].settings[row["setting"]]
    data = run["data"]
    kw = {"seed": run["seed"], "n_clusters": run["n_clusters"]}
    _row, pred = cs.run_setting(data, run["model"], params, **kw)
    coef = cs.setting_coef(data, run["model"], params, **kw)
    label = cs.setting_label(run["model"], params, names)
    return cs.make_inputs(label, data.name, data.labels, pred, coef)
