"""Every point on a 2-D layout, and what a selection of points holds (the Points page's data).

UI-free (numpy/scipy only). Three layouts, chosen by what was loaded:

- **affinity map** (C given): each ground-truth class has its own anchor; a point sits at the
  mean of the anchors of the points that represent it, weighted by |c_ij| (its row of C in the
  orientation in force), so a point whose coefficients stay in its class sits on its class's
  anchor and a point that leans on other classes (its SRE) is pulled toward them. Around that
  position, each class is spread by diffusion on its own subgraph of W = |C| + |C|ᵀ (block power
  iteration of the lazy random walk, re-centred and orthogonalised per class: an approximation
  of the class's own spectral embedding, the one whose λ₂ is CONN). A class that C leaves in
  disconnected pieces falls apart into separate blobs there.
- **PCA of X** (a data matrix uploaded): the first two principal components.
- **classes as blocks** (neither): each class a block of points sorted by cluster.

Nothing here densifies a sparse C: the layout costs a few sparse products with C and W.

Examples
--------
>>> import numpy as np
>>> c = np.kron(np.eye(2), np.ones((3, 3))) - np.eye(6)
>>> pa = analyse_points([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 1], coef=c)
>>> pa.layout.kind, int(pa.correct.sum()), pa.pred_names[pa.pred[2]]
('affinity', 5, '1')
>>> [r["coefficients by class"] for r in point_details(pa, [2], coef=c)]
['0: 100%']
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from dashboard.analysis.focus import Focus

#: Above this many points the page draws a stated, deterministic sample (WebGL holds this many).
MAX_DRAWN = 200_000
#: Diffusion steps of the within-class spread (enough for the slow directions to dominate).
SPREAD_STEPS = 40
#: Power of the eigenvalues in the diffusion-map scaling of the within-class spread.
DIFFUSION_TIME = 8
#: Rows of the selected-points table (the selection itself may be larger; the page says so).
MAX_DETAIL_ROWS = 500


@dataclass(frozen=True, eq=False)
class Layout:
    """2-D positions of every point and, in words, what they mean."""

    x: np.ndarray
    y: np.ndarray
    kind: str  # "affinity" | "data" | "classes"
    title: str
    description: str
    x_title: str = ""
    y_title: str = ""


@dataclass(frozen=True, eq=False)
class PointsAnalysis:
    """The layout plus what each point is: its class, cluster, correctness and SRE.

    ``matched[j]`` is the class code that ACC's optimal matching gives cluster ``j`` (-1:
    unmatched cluster); a point is *correct* when its cluster is matched to its class.
    """

    layout: Layout
    truth: np.ndarray
    truth_names: list[str]
    pred: np.ndarray | None
    pred_names: list[str]
    matched: np.ndarray | None
    correct: np.ndarray | None
    sre: np.ndarray | None
    drawn: np.ndarray  # indices drawn (all points, or a stated sample)
    sample_note: str = ""

    @property
    def n(self) -> int:
        return len(self.truth)


# ------------------------------------------------------------------------------ helpers


def _codes(labels: Any) -> tuple[np.ndarray, list[str]]:
    uniq, codes = np.unique(np.asarray(labels).reshape(-1), return_inverse=True)
    return codes.reshape(-1).astype(np.int64), [str(u) for u in uniq]


def anchors(k: int) -> np.ndarray:
    """Class anchors: a circle of radius 1 up to 16 classes, a square grid (spacing 1) above."""
    if k <= 1:
        return np.zeros((max(k, 1), 2))
    if k <= 16:
        t = np.pi / 2 - 2 * np.pi * np.arange(k) / k  # first class at the top, clockwise
        return np.column_stack([np.cos(t), np.sin(t)])
    side = math.ceil(math.sqrt(k))
    i = np.arange(k)
    return np.column_stack([i % side, -(i // side)]).astype(np.float64)


def _spacing(a: np.ndarray) -> float:
    if len(a) < 2:
        return 1.0
    if len(a) <= 16:
        return float(2 * math.sin(math.pi / len(a)))
    return 1.0


def _abs_csr(c: Any) -> sp.csr_array | np.ndarray:
    if sp.issparse(c):
        m = sp.csr_array(c, copy=True)
        m.data = np.abs(m.data)
        return m
    return np.abs(np.asarray(c, dtype=np.float64))


def _segment(v: np.ndarray, codes: np.ndarray, k: int) -> np.ndarray:
    return np.bincount(codes, weights=v, minlength=k)


def _within_class_w(c_abs: Any, codes: np.ndarray) -> sp.csr_array:
    """W = |C| + |C|ᵀ restricted to same-class pairs, as CSR (sparse C stays sparse)."""
    if isinstance(c_abs, np.ndarray):
        n = len(codes)
        rows, cols, vals = [], [], []
        for k in np.unique(codes):
            idx = np.flatnonzero(codes == k)
            block = c_abs[np.ix_(idx, idx)]
            block = block + block.T
            r, q = np.nonzero(block)
            rows.append(idx[r])
            cols.append(idx[q])
            vals.append(block[r, q])
        return sp.csr_array(
            (np.concatenate(vals), (np.concatenate(rows), np.concatenate(cols))), shape=(n, n)
        )
    w = sp.csr_array(c_abs + c_abs.T)
    w = w.tocoo()
    keep = codes[w.row] == codes[w.col]
    return sp.csr_array((w.data[keep], (w.row[keep], w.col[keep])), shape=w.shape)


def class_spread(
    c_abs: Any, codes: np.ndarray, k: int, *, steps: int = SPREAD_STEPS, seed: int = 0
) -> np.ndarray:
    """Two within-class coordinates per point (each class scaled to radius ≤ 1).

    Block power iteration of the lazy random walk ``(I + D⁻¹W)/2`` on each class's subgraph,
    started from a fixed random pair, with the degree-weighted mean of each class removed and the
    second coordinate orthogonalised against the first (per class) at every step: it converges to
    the class's slowest-mixing directions, i.e. its spectral embedding.
    """
    n = len(codes)
    w = _within_class_w(c_abs, codes)
    d = np.asarray(w.sum(axis=1)).reshape(-1)
    isolated = d <= 0
    dinv = np.where(isolated, 0.0, 1.0 / np.where(isolated, 1.0, d))
    dw = np.where(isolated, 1.0, d)  # weights of the per-class means (isolated: weight 1)
    mass = _segment(dw, codes, k)
    rng = np.random.default_rng(seed)
    v = rng.standard_normal((n, 2))

    def centre(u: np.ndarray) -> np.ndarray:
        return u - (_segment(u * dw, codes, k) / np.maximum(mass, 1e-300))[codes]

    def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        return _segment(a * b * dw, codes, k)

    for _ in range(steps):
        walked = dinv[:, None] * (w @ v)
        v = np.where(isolated[:, None], v, 0.5 * (v + walked))
        v[:, 0] = centre(v[:, 0])
        v[:, 1] = centre(v[:, 1])
        n0 = np.sqrt(np.maximum(dot(v[:, 0], v[:, 0]), 1e-300))
        v[:, 0] /= n0[codes]
        proj = dot(v[:, 1], v[:, 0])
        v[:, 1] -= proj[codes] * v[:, 0]
        n1 = np.sqrt(np.maximum(dot(v[:, 1], v[:, 1]), 1e-300))
        v[:, 1] /= n1[codes]
    # diffusion-map scaling: each direction shrunk by its eigenvalue (Rayleigh quotient of the
    # lazy walk, per class) to the power DIFFUSION_TIME, so directions that mix fast (noise inside
    # a tightly knit piece) collapse and the slow ones (pieces, weak cuts) keep their extent
    lazy = np.where(isolated[:, None], v, 0.5 * (v + dinv[:, None] * (w @ v)))
    for j in range(2):
        lam = np.clip(dot(v[:, j], lazy[:, j]), 0.0, 1.0)  # v_j has unit D-norm per class
        v[:, j] *= (lam**DIFFUSION_TIME)[codes]
    # scale each class to radius 1 (robustly: its 98th-percentile radius)
    r = np.hypot(v[:, 0], v[:, 1])
    order = np.lexsort((r, codes))
    counts = np.bincount(codes, minlength=k)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    q = np.minimum(starts + np.floor(0.98 * np.maximum(counts - 1, 0)).astype(np.int64), n - 1)
    scale = np.where(counts > 0, r[order][q], 1.0)
    scale = np.where(scale > 0, scale, 1.0)
    v = v / scale[codes][:, None]
    rr = np.hypot(v[:, 0], v[:, 1])
    v[rr > 1] /= rr[rr > 1][:, None]
    v[counts[codes] == 1] = 0.0
    return v


def affinity_layout(
    labels_true: Any, coef: Any, *, orientation: str = "rows", seed: int = 0
) -> Layout:
    """The affinity map (see the module docstring); C dense or sparse, never densified."""
    codes, names = _codes(labels_true)
    k = len(names)
    a = anchors(k)
    c_abs = _abs_csr(coef)
    rows = c_abs if orientation == "rows" else c_abs.T
    per_point = a[codes]
    pulled = rows @ per_point
    mass = np.asarray(rows.sum(axis=1)).reshape(-1)
    zero = mass <= 0
    pos = np.where(zero[:, None], per_point, pulled / np.where(zero, 1.0, mass)[:, None])
    spread = class_spread(c_abs, codes, k, seed=seed)
    pos = pos + 0.3 * _spacing(a) * spread
    zero_note = (
        f" {int(zero.sum()):,} points with an all-zero row stay on their class's place."
        if zero.any()
        else ""
    )
    return Layout(
        x=pos[:, 0].astype(np.float32),
        y=pos[:, 1].astype(np.float32),
        kind="affinity",
        title="Affinity map of C",
        description=(
            "Each class has its own place (its label is written there). A point sits at the "
            "mean of the places of the points that represent it, weighted by |c_ij| (its row "
            f"of C, C read by {orientation}): on its class's place when its coefficients stay "
            "in its class, pulled toward other classes by the share it puts on them (its SRE). "
            "Around that, each class is spread by its own spectral embedding (40 diffusion "
            "steps on its subgraph of W = |C| + |C|ᵀ, the graph whose λ₂ is CONN): a class "
            "that C leaves in disconnected pieces falls apart into separate blobs." + zero_note
        ),
    )


def data_layout(X: Any) -> Layout:
    """First two principal components of X (points as rows)."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1:
        raise ValueError(f"X must be a 2-D matrix with points as rows, got shape {X.shape}")
    mean = X.mean(axis=0)
    xc = X - mean
    if X.shape[1] == 1:
        pcs = np.column_stack([xc[:, 0], np.zeros(len(X))])
        share = np.array([1.0, 0.0])
    else:
        cov = xc.T @ xc
        vals, vecs = np.linalg.eigh(cov)
        top = np.argsort(vals)[::-1][:2]
        pcs = xc @ vecs[:, top]
        total = float(vals.clip(min=0).sum())
        share = vals[top].clip(min=0) / total if total > 0 else np.zeros(2)
        # a deterministic sign: the largest loading of each component is positive
        signs = np.sign(vecs[np.abs(vecs[:, top]).argmax(axis=0), top])
        pcs = pcs * np.where(signs == 0, 1, signs)
    return Layout(
        x=pcs[:, 0].astype(np.float32),
        y=pcs[:, 1].astype(np.float32),
        kind="data",
        title="PCA of the data matrix X",
        description=(
            f"The first two principal components of X ({X.shape[1]:,} features, centred, not "
            f"scaled): {share[0]:.0%} and {share[1]:.0%} of the variance."
        ),
        x_title=f"PC 1 ({share[0]:.0%})",
        y_title=f"PC 2 ({share[1]:.0%})",
    )


def class_layout(truth: np.ndarray, pred: np.ndarray | None, k: int) -> Layout:
    """Each class a block of points (square grid), sorted by cluster inside; blocks in rows."""
    n = len(truth)
    order = np.lexsort((np.arange(n), pred if pred is not None else np.zeros(n), truth))
    counts = np.bincount(truth, minlength=k)
    starts = np.concatenate([[0], np.cumsum(counts)[:-1]])
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n) - starts[truth[order]]
    side = np.maximum(np.ceil(np.sqrt(counts)), 1).astype(np.int64)
    cell = float(side.max()) + 2.0
    per_row = max(1, math.ceil(math.sqrt(k)))
    bx = (np.arange(k) % per_row) * cell
    by = -(np.arange(k) // per_row) * cell
    x = bx[truth] + rank % side[truth]
    y = by[truth] - rank // side[truth]
    return Layout(
        x=x.astype(np.float32),
        y=y.astype(np.float32),
        kind="classes",
        title="Points grouped by class",
        description=(
            "No C and no data matrix: each class is a block of its points (its label above it), "
            "sorted by their cluster, so a split shows as bands of colour inside a block and a "
            "merge as one colour across blocks. Upload C (sidebar) or a data matrix X (below) "
            "for a layout of the points themselves."
        ),
    )


def _sample(n: int, correct: np.ndarray | None, limit: int, seed: int) -> tuple[np.ndarray, str]:
    if n <= limit:
        return np.arange(n), ""
    rng = np.random.default_rng(seed)
    wrong = np.flatnonzero(~correct) if correct is not None else np.empty(0, np.int64)
    wrong = wrong[:limit]
    rest = np.setdiff1d(np.arange(n), wrong)
    take = rng.choice(rest, size=limit - len(wrong), replace=False)
    drawn = np.sort(np.concatenate([wrong, take]))
    return drawn, (
        f"{limit:,} of {n:,} points drawn: every misassigned point "
        f"({len(wrong):,}) and a uniform random sample of the rest (seed {seed}); "
        "selections and tables use the drawn points"
    )


def analyse_points(
    labels_true: Any,
    labels_pred: Any | None = None,
    *,
    coef: Any | None = None,
    X: Any | None = None,
    sre: Any | None = None,
    orientation: str = "rows",
    layout: str | None = None,
    max_drawn: int = MAX_DRAWN,
    seed: int = 0,
) -> PointsAnalysis:
    """The Points page's data: a layout plus each point's class, cluster, correctness and SRE.

    Parameters
    ----------
    labels_true, labels_pred : array-like of shape (n_samples,)
        Ground truth and (optional) prediction.
    coef : array-like or sparse matrix of shape (n_samples, n_samples), optional
        C; gives the affinity map.
    X : array-like of shape (n_samples, n_features), optional
        Data matrix; gives the PCA layout.
    sre : array-like of shape (n_samples,), optional
        Per-point SRE (computed under the conventions in force by the caller).
    layout : {"affinity", "data", "classes"}, optional
        Which layout; default: the affinity map with C, else PCA with X, else classes.
    """
    truth, t_names = _codes(labels_true)
    pred = matched = correct = None
    p_names: list[str] = []
    if labels_pred is not None:
        import metrics_core as mc

        pred, p_names = _codes(labels_pred)
        m = mc.best_matching(truth, pred)
        matched = np.full(len(p_names), -1, dtype=np.int64)
        matched[np.asarray(m.cluster_index, dtype=np.int64)] = np.asarray(
            m.class_index, dtype=np.int64
        )
        correct = matched[pred] == truth
    if layout is None:
        layout = "affinity" if coef is not None else "data" if X is not None else "classes"
    if layout == "affinity" and coef is not None:
        lay = affinity_layout(truth, coef, orientation=orientation, seed=seed)
    elif layout == "data" and X is not None:
        lay = data_layout(X)
    else:
        lay = class_layout(truth, pred, len(t_names))
    drawn, note = _sample(len(truth), correct, max_drawn, seed)
    return PointsAnalysis(
        layout=lay,
        truth=truth,
        truth_names=t_names,
        pred=pred,
        pred_names=p_names,
        matched=matched,
        correct=correct,
        sre=None if sre is None else np.asarray(sre, dtype=np.float64).reshape(-1),
        drawn=drawn,
        sample_note=note,
    )


# ------------------------------------------------------------------------------ selections


def focus(pa: PointsAnalysis, where: Focus) -> np.ndarray:
    """Indices of the points in any class of ``where`` and, when it names clusters, in any of
    its clusters (labels compared as text; an unknown label matches nothing)."""
    mask = np.ones(pa.n, dtype=bool)
    if where.classes:
        mask &= np.isin(pa.truth, where.class_positions(pa.truth_names))
    if where.clusters and pa.pred is not None:
        mask &= np.isin(pa.pred, where.cluster_positions(pa.pred_names))
    return np.flatnonzero(mask)


def rank_selection(pa: PointsAnalysis, indices: Any) -> np.ndarray:
    """The selected points, most telling first: misassigned before correct, then by SRE
    (highest first), then by index."""
    idx = np.unique(np.asarray(indices, dtype=np.int64).reshape(-1))
    ok = pa.correct[idx] if pa.correct is not None else np.zeros(len(idx), dtype=bool)
    sre = pa.sre[idx] if pa.sre is not None else np.zeros(len(idx))
    return idx[np.lexsort((idx, -np.nan_to_num(sre, nan=-1.0), ok))]


def _row(m: Any, i: int) -> tuple[np.ndarray, np.ndarray]:
    """(values, column indices) of the stored or non-zero entries of row ``i``."""
    if sp.issparse(m):
        r = sp.csr_array(m[[i]])
        return r.data, r.indices
    cols = np.flatnonzero(m[i])
    return m[i][cols], cols


def _top(values: np.ndarray, idx: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    if len(values) > k:
        part = np.argpartition(-values, k)[:k]
        values, idx = values[part], idx[part]
    o = np.argsort(-values, kind="stable")
    return values[o], idx[o]


def point_details(
    pa: PointsAnalysis,
    indices: Any,
    *,
    coef: Any | None = None,
    orientation: str = "rows",
    n_neighbours: int = 5,
    max_rows: int = MAX_DETAIL_ROWS,
) -> list[dict[str, Any]]:
    """One row per selected point: labels, correctness, SRE, where its coefficient mass goes
    (grouped by class, largest first) and its nearest neighbours in W = |C| + |C|ᵀ."""
    idx = np.asarray(indices, dtype=np.int64).reshape(-1)[:max_rows]
    rows_c = w = None
    if coef is not None:
        c_abs = _abs_csr(coef)
        rows_c = c_abs if orientation == "rows" else c_abs.T
        if sp.issparse(rows_c):
            rows_c = sp.csr_array(rows_c)
            sub = sp.csr_array(c_abs[idx])  # rows of |C| for the selection only
            sub_t = sp.csr_array(c_abs.T.tocsr()[idx]) if sp.issparse(c_abs) else None
            w = (sub + sub_t) if sub_t is not None else None
        else:
            w = c_abs[idx] + c_abs[:, idx].T
    out = []
    for r, i in enumerate(idx):
        row: dict[str, Any] = {"point": int(i), "class": pa.truth_names[pa.truth[i]]}
        if pa.pred is not None:
            row["cluster"] = pa.pred_names[pa.pred[i]]
            row["correct"] = bool(pa.correct[i])
        if pa.sre is not None:
            row["SRE"] = float(pa.sre[i])
        if rows_c is not None:
            vals, cols = _row(rows_c, i)
            total = float(vals.sum())
            if total > 0:
                by = np.bincount(pa.truth[cols], weights=vals, minlength=len(pa.truth_names))
                nz = np.flatnonzero(by)
                o = nz[np.argsort(-by[nz], kind="stable")][:4]
                row["coefficients by class"] = " · ".join(
                    f"{pa.truth_names[k]}: {by[k] / total:.0%}" for k in o
                )
            else:
                row["coefficients by class"] = "all zero"
            wv, wj = _row(w, r)
            keep = wj != i
            wv, wj = _top(wv[keep], wj[keep], n_neighbours)
            row["nearest in W"] = ", ".join(f"{int(j)} ({pa.truth_names[pa.truth[j]]})" for j in wj)
        out.append(row)
    return out


def image_mosaic(
    X: Any, indices: Any, shape: tuple[int, int], *, per_row: int = 12, limit: int = 48
) -> np.ndarray:
    """The selected rows of X drawn as ``shape`` images side by side (uint8, 0 = black)."""
    h, w = shape
    idx = np.asarray(indices, dtype=np.int64).reshape(-1)[:limit]
    X = np.asarray(X)
    if h * w != X.shape[1]:
        raise ValueError(f"image shape {h} x {w} = {h * w} pixels, but X has {X.shape[1]} columns")
    imgs = X[idx].astype(np.float64).reshape(-1, h, w)
    lo, hi = float(X.min()), float(X.max())
    imgs = (imgs - lo) / (hi - lo) if hi > lo else np.zeros_like(imgs)
    cols = min(per_row, max(len(idx), 1))
    rows = max(math.ceil(len(idx) / cols), 1)
    pad = 2
    out = np.ones(((h + pad) * rows + pad, (w + pad) * cols + pad))
    for t in range(len(idx)):
        r, c = divmod(t, cols)
        out[pad + r * (h + pad) : pad + r * (h + pad) + h,
            pad + c * (w + pad) : pad + c * (w + pad) + w] = 1 - imgs[t]  # fmt: skip
    return (out * 255).round().astype(np.uint8)
