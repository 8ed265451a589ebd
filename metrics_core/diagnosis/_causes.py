"""Why, from the coefficient matrix C: is each error already in the representation?

- a **split** class: the connected components of its affinity subgraph W_k = |C_kk| + |C_kk|ᵀ
  (number and sizes), its λ2 (CONN of the class) and — when it is connected but weak — the cut of
  its Fiedler vector; "the split is already in C" when the subgraph is disconnected or weakly held
  (λ2 < ``weak_conn``); the evidence says whether the predicted pieces coincide with the
  components / the cut (agreement ≥ ``coincide``). A well-connected class that was split anyway
  is blamed on the clustering step.
- a **merge**: the leakage between the merged classes — the share of their ℓ1 coefficient mass
  that lies on each other — and the mean SRE of the merged points; "C leaks" when the share is
  ≥ ``leak_share``, else the clustering step merged classes C keeps apart.
- **misassigned** points: their mean SRE (ℓ1 mass off their own class); ≥ ``off_class`` means
  their representations already point elsewhere.

Only each class's diagonal block of C is built (never |C| + |C|ᵀ whole); dense or sparse C.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from metrics_core.affinity._diagnostics import (
    _prepare,
    _row_masses,
    connectivity,
    leakage_matrix,
    resolve_conventions,
)
from metrics_core.diagnosis._findings import Finding, Thresholds
from metrics_core.partition._matching import accuracy_score


def _class_block(c: Any, idx: np.ndarray) -> sp.csr_array:
    """W_k = |C_kk| + |C_kk|ᵀ for the points ``idx`` (points as rows), sparse."""
    block = c[idx][:, idx] if sp.issparse(c) else c[np.ix_(idx, idx)]
    a = abs(sp.csr_array(block))
    w = (a + a.T).tocsr()
    w.setdiag(0)
    w.eliminate_zeros()
    return w


def _fiedler_cut(w: sp.csr_array) -> np.ndarray:
    """Sides (0/1) of the Fiedler vector of the normalised Laplacian of a connected ``w``."""
    d = np.asarray(w.sum(axis=1)).ravel()
    inv = 1.0 / np.sqrt(np.where(d > 0, d, 1.0))
    m = (sp.diags(inv) @ w @ sp.diags(inv)).toarray()
    _vals, vecs = np.linalg.eigh(m)  # class blocks are small enough for a dense solve here
    f = vecs[:, -2] * inv
    return (f > np.median(f)).astype(int)


def add_causes(
    findings: list[Finding],
    labels_true: Any,
    labels_pred: Any,
    coef: Any,
    th: Thresholds,
    conventions: dict[str, Any],
) -> None:
    """Fill ``cause``, the C evidence and the words of every finding (in place)."""
    orientation = resolve_conventions(**conventions)[0]["orientation"]
    c, codes, classes, _counts = _prepare(coef, labels_true, orientation)
    pred = np.asarray(labels_pred)
    conn = connectivity(coef, labels_true, **conventions)
    lam = {classes[k].item() if hasattr(classes[k], "item") else classes[k]: conn.per_class[k]
           for k in range(classes.size)}  # fmt: skip
    leak = leakage_matrix(coef, labels_true, orientation=orientation).matrix
    total, outside = _row_masses(c, codes)
    with np.errstate(invalid="ignore", divide="ignore"):
        sre = np.where(total > 0, outside / np.where(total > 0, total, 1.0), np.nan)
    index = {(v.item() if hasattr(v, "item") else v): k for k, v in enumerate(classes)}
    for f in findings:
        if f.kind == "split":
            _split_cause(f, c, codes, pred, index, lam, th)
        elif f.kind == "merge":
            _merge_cause(f, codes, pred, index, leak, sre, th)
        else:
            _misassignment_cause(f, codes, pred, index, sre, th)


def _split_cause(f, c, codes, pred, index, lam, th) -> None:
    k = index[f.classes[0]]
    idx = np.flatnonzero(codes == k)
    w = _class_block(c, idx)
    n_comp, comp = connected_components(w, directed=False)
    sizes = sorted(np.bincount(comp).tolist(), reverse=True)
    lam2 = float(lam[f.classes[0]])
    in_pieces = np.isin(pred[idx], np.asarray(f.clusters, dtype=pred.dtype))
    if n_comp >= 2:
        parts, how = (
            comp,
            f"has {n_comp} connected components ({', '.join(map(str, sizes))} points)",
        )
    else:
        parts = _fiedler_cut(w) if idx.size > 2 else np.zeros(idx.size, dtype=int)
        how = f"is held together by weak links (λ2 = {lam2:.3g}, below {th.weak_conn:g})"
    agree = (
        float(accuracy_score(parts[in_pieces], pred[idx][in_pieces])) if in_pieces.any() else 0.0
    )
    weak = n_comp >= 2 or lam2 < th.weak_conn
    f.evidence.update(
        {
            "conn_lambda2": round(lam2, 6),
            "components": int(n_comp),
            "component_sizes": sizes,
            "agreement_with_C_cut": round(agree, 4),
            "thresholds": {"weak_conn": th.weak_conn, "coincide": th.coincide},
        }
    )
    if weak:
        f.cause = "representation"
        tail = (
            f"; the predicted pieces coincide with it on {agree:.0%} of the class"
            if agree >= th.coincide
            else f"; the predicted pieces follow that cut on only {agree:.0%} of the class"
        )
        f.text += f". The split is already in C: class {f.classes[0]}'s affinity subgraph {how}"
        f.text += tail
        f.link = {**f.link, "page": "affinity"}
    else:
        f.cause = "clustering"
        f.text += (
            f". C keeps class {f.classes[0]} connected (λ2 = {lam2:.3g} ≥ {th.weak_conn:g}): the "
            "clustering step split it"
        )


def _merge_cause(f, codes, pred, index, leak, sre, th) -> None:
    ks = [index[v] for v in f.classes]
    pairs = []
    for x in range(len(ks)):
        for y in range(x + 1, len(ks)):
            a, b = ks[x], ks[y]
            mass = leak[a].sum() + leak[b].sum()
            share = float((leak[a, b] + leak[b, a]) / mass) if mass > 0 else 0.0
            pairs.append((f.classes[x], f.classes[y], share))
    worst = max(pairs, key=lambda p: p[2])
    cluster = np.asarray(f.clusters, dtype=pred.dtype)[0]
    merged = np.isin(codes, ks) & (pred == cluster)
    merged_sre = float(np.nanmean(sre[merged])) if merged.any() else float("nan")
    f.evidence.update(
        {
            "leakage_shares": {f"{p[0]}~{p[1]}": round(p[2], 4) for p in pairs},
            "merged_points_sre": round(merged_sre, 4),
            "thresholds": {"leak_share": th.leak_share},
        }
    )
    if worst[2] >= th.leak_share:
        f.cause = "representation"
        f.text += (
            f". C leaks between {worst[0]} and {worst[1]}: {worst[2]:.0%} of their coefficient "
            f"mass lies on each other (threshold {th.leak_share:.0%}); mean SRE of the "
            f"{int(merged.sum()):,} merged points {merged_sre:.3f}"
        )
        # the merged cluster stays the link's focus (its label is not a class label)
        f.link = {**f.link, "page": "affinity"}
    else:
        f.cause = "clustering"
        f.text += (
            f". C keeps them apart (at most {worst[2]:.0%} of their mass on each other, below "
            f"{th.leak_share:.0%}): the clustering step merged them"
        )


def _misassignment_cause(f, codes, pred, index, sre, th) -> None:
    k = index[f.classes[0]]
    dest = np.asarray(f.clusters, dtype=pred.dtype)
    pts = (codes == k) & np.isin(pred, dest)
    mean = float(np.nanmean(sre[pts])) if pts.any() else float("nan")
    f.evidence.update({"points_sre": round(mean, 4), "thresholds": {"off_class": th.off_class}})
    them = "them" if f.points != 1 else "it"
    if mean >= th.off_class:
        f.cause = "representation"
        f.text += f". C already points them elsewhere (mean SRE {mean:.2f} ≥ {th.off_class:g})"
    else:
        f.cause = "clustering"
        f.text += (
            f". C keeps {them} mostly in class {f.classes[0]} (mean SRE {mean:.2f} < "
            f"{th.off_class:g}): the clustering step put {them} there"
        )
