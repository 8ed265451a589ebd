"""Precompute the Sweep page's first-visit demo: ``python -m demo_data.make_sweep_demo``.

LSR (ridge self-expression, then spectral clustering) over λ = 1e-3 … 1e2 (9 values, log) on a
stratified subset of the handwritten digits' pixel view (400 digits, seed 0): a real trade-off —
SRE falls from 0.88 to its lowest (0.77) at λ ≈ 5.6, CONN (min) from 0.77 to its lowest (0.51) at
λ ≈ 1.3, both turn back after, and ACC is best (0.80) at λ ≈ 24, where neither is at its extreme
(it dips to 0.70 between them), so the SRE–CONN plot has something to teach.
Each setting is run exactly as the page runs one
(:func:`metrics_core.sweep.run_sweep` on a one-setting grid), and its row of metrics is written to
``hw_sweep_demo.json`` beside this file; the page shows them at once and recomputes a setting
(a fraction of a second) only when it is opened. A test checks the shipped rows against a fresh run.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

OUT = Path(__file__).resolve().parent / "hw_sweep_demo.json"
VIEW, N, SEED, MODEL, GRID = "pix", 400, 0, "lsr", "lambda=1e-3:1e2:9:log"


def data() -> tuple[np.ndarray, np.ndarray]:
    """The demo's points: the stratified subset the page's HW source draws with these values."""
    from metrics_core.datasets import load_view, stratified_subset

    X, y = load_view(VIEW)
    idx = stratified_subset(y, N, SEED)
    return np.ascontiguousarray(X[idx]), np.asarray(y[idx])


def build() -> dict:
    from metrics_core.sweep import parse_grid, run_sweep

    X, y = data()
    k = int(np.unique(y).size)
    rows = []
    for params in parse_grid([GRID]).settings():
        res = run_sweep(X, y, MODEL, {p: [v] for p, v in params.items()}, n_clusters=k,
                        seed=SEED)  # fmt: skip
        if res.errors or not res.rows:
            raise RuntimeError(f"{params}: {res.errors}")
        rows.append({c: (v.item() if isinstance(v, np.generic) else v)
                     for c, v in res.rows[0].items()})  # fmt: skip
    return {"view": VIEW, "n": N, "seed": SEED, "model": MODEL, "grid": GRID, "rows": rows}


if __name__ == "__main__":
    out = build()
    OUT.write_text(json.dumps(out, indent=1), encoding="utf-8")
    print(f"wrote {OUT}: {len(out['rows'])} settings")
