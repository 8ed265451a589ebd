"""Precompute SSF on the Multi-view demo and ship it: ``python -m demo_data.make_multiview_ssf``.

The page opens on SSF fitted to a stratified subset of HW (200 digits, seed 0, six views) with
the paper's parameters. Fitting takes 0.3-0.6 s here — most of the page's first visit — and
gives the same numbers every time, so the fit is shipped: ``hw_ssf_demo.npz`` beside this file
holds what :class:`metrics_core.multiview.SSFResult` says about the fit (labels, S, the per-view
Z, weights, objective, the ξ search; not the per-view embeddings), as arrays and one JSON text —
no pickles. The page reads it when its data and parameters are these; any other choice fits.
A test refits and compares, so a change to SSF that moves the result fails until this is rerun.
"""

from __future__ import annotations

import datetime as _dt
import json
from pathlib import Path
from typing import Any

import numpy as np

OUT = Path(__file__).resolve().parent / "hw_ssf_demo.npz"
#: The page's default HW subset (``dashboard.compute.multiview.HW_DEFAULT_N``, seed 0).
N, SEED = 200, 0
#: The parameters the page passes to SSF (its form's fields), in the library's defaults.
PARAMS = ("alpha", "beta", "gamma", "max_iter", "tol", "init")
_SCALARS = ("n_components", "seconds", "n_iter", "converged", "init", "guard_fired",
            "min_component")  # fmt: skip
_LISTS = ("objective", "xi_history", "rank_penalty", "xi_log")


def params() -> dict[str, Any]:
    """The fitted parameters: the library's defaults for the page's fields."""
    from metrics_core.multiview._ssf import DEFAULT_SSF

    return {k: DEFAULT_SSF[k] for k in PARAMS}


def fit() -> tuple[Any, dict[str, Any]]:
    """SSF on the demo subset, as the page fits it; returns the result and what it was fit on."""
    from metrics_core.datasets import stratified_subset
    from metrics_core.multiview import load_hw, ssf_fit

    views, y, names = load_hw()
    idx = stratified_subset(y, N, SEED)
    labels = np.asarray(y)[idx]
    p = params()
    res = ssf_fit([np.ascontiguousarray(v[idx]) for v in views], int(np.unique(labels).size), **p)
    meta = {
        "data": f"HW: {N} digits (stratified, seed {SEED}), six views ({', '.join(names)})",
        "n": N,
        "seed": SEED,
        "params": p,
        "view_names": list(names),
        "created": _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d"),
    }
    return res, meta | {"indices": idx.tolist(), "truth": labels.tolist()}


def _plain(v: Any) -> Any:
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, np.ndarray):
        return v.tolist()
    if isinstance(v, dict):
        return {k: _plain(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_plain(x) for x in v]
    return v


def save(res: Any, meta: dict[str, Any], path: Path = OUT) -> None:
    """Write ``res`` (an ``SSFResult``) and ``meta`` as one compressed ``.npz``."""
    text = {k: _plain(getattr(res, k)) for k in _SCALARS + _LISTS}
    text["weight_history"] = _plain(res.weight_history)
    S = np.asarray(res.S)
    rows, cols = np.nonzero(S)
    np.savez_compressed(
        path,
        meta=np.array(json.dumps({"meta": meta, "fit": text})),
        labels=np.asarray(res.labels),
        weights=np.asarray(res.weights, dtype=float),
        S_shape=np.array(S.shape),
        S_rows=rows.astype(np.int32),
        S_cols=cols.astype(np.int32),
        S_values=S[rows, cols],
        Z=np.stack([np.asarray(z) for z in res.Z]),
    )


def load(path: Path = OUT) -> tuple[Any, dict[str, Any]] | None:
    """The shipped fit as an ``SSFResult`` (``F_views`` empty) and its ``meta``; None if absent."""
    from metrics_core.multiview import SSFResult

    if not path.is_file():
        return None
    with np.load(path, allow_pickle=False) as z:
        doc = json.loads(str(z["meta"]))
        S = np.zeros(tuple(int(s) for s in z["S_shape"]))
        S[z["S_rows"], z["S_cols"]] = z["S_values"]
        fit = doc["fit"]
        res = SSFResult(
            labels=z["labels"],
            S=S,
            Z=list(z["Z"]),
            weights=z["weights"],
            weight_history=[np.asarray(w) for w in fit.pop("weight_history")],
            **fit,
        )
    return res, doc["meta"]


if __name__ == "__main__":
    res, meta = fit()
    save(res, meta)
    print(f"wrote {OUT} ({OUT.stat().st_size / 1e6:.2f} MB; SSF {res.seconds:.2f} s, "
          f"{res.n_iter} iterations, {res.n_components} components)")  # fmt: skip
