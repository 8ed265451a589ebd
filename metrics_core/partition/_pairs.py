"""Pair-counting metrics: every pair of points is a positive when both labelings join it.

Convention: pairs are **unordered** (TP + FP + FN + TN = N(N−1)/2); scikit-learn's
``pair_confusion_matrix`` counts ordered pairs (twice as many). Ratios are the same either way.
All counts are exact Python ints (no overflow at any N).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np

from metrics_core.partition._contingency import Contingency, as_contingency
from metrics_core.partition._registry import PAIR, MetricInfo, TableStats, metric, score


class PairConfusion(NamedTuple):
    """Pair confusion over unordered pairs (or ordered, if asked for: all doubled).

    tp: same class, same cluster; fp: different classes, same cluster (merged);
    fn: same class, different clusters (split); tn: different classes, different clusters.
    """

    tp: int
    fp: int
    fn: int
    tn: int

    @property
    def total(self) -> int:
        return self.tp + self.fp + self.fn + self.tn


def _sum_comb2(counts: np.ndarray) -> int:
    """Σ C(n, 2) exactly: int64 products (n ≤ 3e9 fits), summed as a Python int."""
    c = counts.astype(np.int64, copy=False)
    # n(n-1) fits int64 for n < 3e9; sum in Python ints chunk-wise to avoid overflow of the sum.
    prod = c * (c - 1)
    if prod.size and prod.max() > 2**62 // max(prod.size, 1):
        return sum(int(v) for v in prod) // 2
    return int(prod.sum()) // 2


def _pairs(c: Contingency) -> PairConfusion:
    n = c.n_samples
    tp = _sum_comb2(c.counts)
    same_cluster = _sum_comb2(c.col_sums)
    same_class = _sum_comb2(c.row_sums)
    fp = same_cluster - tp
    fn = same_class - tp
    tn = n * (n - 1) // 2 - tp - fp - fn
    return PairConfusion(tp, fp, fn, tn)


def pair_confusion(
    labels_true: Any = None,
    labels_pred: Any = None,
    *,
    contingency: Any = None,
    ordered: bool = False,
) -> PairConfusion:
    """Count TP, FP, FN, TN over pairs of points, from the contingency table in O(cells).

    TP = Σ_ij C(n_ij, 2); FP = Σ_j C(b_j, 2) − TP; FN = Σ_i C(a_i, 2) − TP;
    TN = C(N, 2) − TP − FP − FN, with a_i the class sizes and b_j the cluster sizes.

    Parameters
    ----------
    ordered : bool, default=False
        Count ordered pairs (every count doubled), as scikit-learn's ``pair_confusion_matrix``.

    Examples
    --------
    >>> pair_confusion([0, 0, 1, 1], [0, 0, 0, 1])
    PairConfusion(tp=1, fp=2, fn=1, tn=2)
    """
    p = _pairs(as_contingency(labels_true, labels_pred, contingency=contingency))
    if ordered:
        return PairConfusion(2 * p.tp, 2 * p.fp, 2 * p.fn, 2 * p.tn)
    return p


def _ratio(num: int, den: int) -> float:
    # Every pair-overlap ratio is 0 when TP = 0, following scikit-learn's Fowlkes–Mallows.
    return 0.0 if num == 0 or den == 0 else num / den


def _info(key, name, formula, convention, *, symmetric=False, reference="", **kw) -> MetricInfo:
    return MetricInfo(key, name, PAIR, formula, kw.pop("bounds", (0, 1)), kw.pop("direction",
                      "higher"), convention, reference, symmetric=symmetric, **kw)  # fmt: skip


_COUNT = {"bounds": (0, None), "direction": "info"}


@metric(_info("pair_tp", "pairs TP", "Σ_ij C(n_ij, 2)",
              "unordered pairs (sklearn counts ordered: ×2)", symmetric=True, short="TP",
              **_COUNT))  # fmt: skip
def _tp(t: TableStats) -> int:
    return t.cached(_pairs).tp


@metric(_info("pair_fp", "pairs FP (merged)", "Σ_j C(b_j, 2) − TP",
              "same cluster, different classes: many → under-segmentation", short="FP",
              **_COUNT))  # fmt: skip
def _fp(t: TableStats) -> int:
    return t.cached(_pairs).fp


@metric(_info("pair_fn", "pairs FN (split)", "Σ_i C(a_i, 2) − TP",
              "same class, different clusters: many → over-segmentation", short="FN",
              **_COUNT))  # fmt: skip
def _fn(t: TableStats) -> int:
    return t.cached(_pairs).fn


@metric(_info("pair_tn", "pairs TN", "C(N, 2) − TP − FP − FN", "unordered pairs",
              symmetric=True, short="TN", **_COUNT))  # fmt: skip
def _tn(t: TableStats) -> int:
    return t.cached(_pairs).tn


@metric(_info("pair_precision", "pair precision", "TP / (TP + FP)", "0 when TP = 0",
              short="pair precision"))  # fmt: skip
def _precision(t: TableStats) -> float:
    p = t.cached(_pairs)
    return _ratio(p.tp, p.tp + p.fp)


@metric(_info("pair_recall", "pair recall", "TP / (TP + FN)", "0 when TP = 0",
              short="pair recall"))  # fmt: skip
def _recall(t: TableStats) -> float:
    p = t.cached(_pairs)
    return _ratio(p.tp, p.tp + p.fn)


@metric(_info("pair_f1", "pair F1", "2 TP / (2 TP + FP + FN)", "0 when TP = 0",
              symmetric=True, short="pair F1"))  # fmt: skip
def _f1(t: TableStats) -> float:
    p = t.cached(_pairs)
    return _ratio(2 * p.tp, 2 * p.tp + p.fp + p.fn)


@metric(_info("rand", "Rand index", "(TP + TN) / C(N, 2)", "1 when N < 2", symmetric=True,
              reference="Rand 1971", short="RI"))  # fmt: skip
def _rand(t: TableStats) -> float:
    p = t.cached(_pairs)
    if p.total == 0 or p.tp + p.tn == p.total:
        return 1.0
    return (p.tp + p.tn) / p.total


@metric(_info("ari", "adjusted Rand index",
              "2(TP·TN − FN·FP) / ((TP+FN)(FN+TN) + (TP+FP)(FP+TN))", "1 when FP = FN = 0",
              symmetric=True, reference="Hubert & Arabie 1985, J. Classification",
              bounds=(-0.5, 1), adjusted=True, short="ARI"))  # fmt: skip
def _ari(t: TableStats) -> float:
    tp, fp, fn, tn = t.cached(_pairs)
    if fn == 0 and fp == 0:
        return 1.0
    return 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))


def _fmi(tp: int, fp: int, fn: int, alpha: float) -> float:
    if tp == 0:
        return 0.0
    if alpha == 0.5:
        return float(np.sqrt(tp / (tp + fp)) * np.sqrt(tp / (tp + fn)))
    return float((tp / (tp + fp)) ** alpha * (tp / (tp + fn)) ** (1.0 - alpha))


@metric(_info("fmi", "Fowlkes–Mallows", "TP / √((TP+FP)(TP+FN))", "0 when TP = 0",
              symmetric=True, reference="Fowlkes & Mallows 1983", short="FMI"))  # fmt: skip
def _fmi_kernel(t: TableStats) -> float:
    p = t.cached(_pairs)
    return _fmi(p.tp, p.fp, p.fn, 0.5)


@metric(_info("fmi_weighted", "weighted Fowlkes–Mallows", "P^α R^(1−α)",
              "α = fmi_alpha (0.5 gives FMI)", reference="Fowlkes & Mallows 1983",
              short="weighted FMI"))  # fmt: skip
def _fmi_weighted(t: TableStats) -> float:
    p = t.cached(_pairs)
    return _fmi(p.tp, p.fp, p.fn, t.fmi_alpha)


@metric(_info("jaccard", "pair Jaccard", "TP / (TP + FP + FN)",
              "0 when TP = 0; never above FMI", symmetric=True, reference="Jaccard 1912",
              short="Jaccard"))  # fmt: skip
def _jaccard(t: TableStats) -> float:
    p = t.cached(_pairs)
    return _ratio(p.tp, p.tp + p.fp + p.fn)


def pair_precision_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Pair precision TP / (TP + FP): of the pairs a cluster joins, the share that share a class.

    0 when TP = 0 (scikit-learn's Fowlkes–Mallows convention), including the 0/0 case.

    Examples
    --------
    >>> pair_precision_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.3333333333333333
    """
    return score("pair_precision", labels_true, labels_pred, contingency)


def pair_recall_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Pair recall TP / (TP + FN): of the same-class pairs, the share kept together.

    Examples
    --------
    >>> pair_recall_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.5
    """
    return score("pair_recall", labels_true, labels_pred, contingency)


def pair_f1_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Pair F1 = 2 TP / (2 TP + FP + FN), the harmonic mean of pair precision and recall.

    Examples
    --------
    >>> pair_f1_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.4
    """
    return score("pair_f1", labels_true, labels_pred, contingency)


def jaccard_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Pair-counting Jaccard index TP / (TP + FP + FN); never above Fowlkes–Mallows.

    Examples
    --------
    >>> jaccard_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.25
    """
    return score("jaccard", labels_true, labels_pred, contingency)


def rand_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Rand index (TP + TN) / C(N, 2): share of pairs on which the labelings agree.

    Fewer than two points (no pairs) gives 1.0, as scikit-learn does.

    Examples
    --------
    >>> rand_score([0, 0, 1, 1], [0, 0, 0, 1])
    0.5
    """
    return score("rand", labels_true, labels_pred, contingency)


def adjusted_rand_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Adjusted Rand index (Hubert & Arabie 1985): the Rand index corrected for chance.

    ARI = 2 (TP·TN − FN·FP) / ((TP + FN)(FN + TN) + (TP + FP)(FP + TN)); 1 for identical
    partitions (FP = FN = 0, which includes N < 2), about 0 for independent ones, can be < 0.

    Examples
    --------
    >>> adjusted_rand_score([0, 0, 1, 1], [0, 1, 0, 1])
    -0.5
    """
    return score("ari", labels_true, labels_pred, contingency)


def fowlkes_mallows_score(
    labels_true: Any = None,
    labels_pred: Any = None,
    *,
    contingency: Any = None,
    alpha: float = 0.5,
) -> float:
    """Fowlkes–Mallows index P^α R^(1−α) of pair precision P and recall R.

    ``alpha=0.5`` (default) is the classical geometric mean TP / sqrt((TP+FP)(TP+FN)); other
    values give the weighted form (α → 1 weighs precision, α → 0 recall). 0 when TP = 0.

    Examples
    --------
    >>> round(fowlkes_mallows_score([0, 0, 1, 1], [0, 0, 0, 1]), 6)
    0.408248
    """
    if not 0.0 <= alpha <= 1.0:
        raise ValueError("alpha must be in [0, 1]")
    return score("fmi_weighted", labels_true, labels_pred, contingency, fmi_alpha=alpha)
