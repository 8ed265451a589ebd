"""Information-theoretic metrics: entropy, MI, NMI, AMI, homogeneity, completeness, V-measure.

All in nats. Degenerate cases follow scikit-learn (``sklearn.metrics.cluster``) where it has a
convention; each is spelled out in the function that meets it.
"""

from __future__ import annotations

from typing import Any, Literal

import numpy as np

from metrics_core.partition._contingency import Contingency, as_contingency
from metrics_core.partition._registry import (
    AVERAGE_METHODS,
    INFO,
    MetricInfo,
    TableStats,
    metric,
    score,
)

AverageMethod = Literal["min", "geometric", "arithmetic", "max"]
_REF_SK = "scikit-learn sklearn.metrics.cluster"
_REF_VINH = "Vinh, Epps & Bailey 2010, JMLR 11"
_REF_RH = "Rosenberg & Hirschberg 2007, EMNLP"

_EPS = float(np.finfo(np.float64).eps)
# |normaliser − E[MI]| below this (relative) is a 0/0 in AMI: both are the same number up to
# the rounding of their sums.
_DEGENERATE_REL = 1e-10
# The unvisited tail of each hypergeometric sum is kept below this fraction of the mode's
# weight: far under double-precision rounding of the total.
_TAIL_REL = 1e-18
_PAIR_BATCH = 200_000
_STEP_BLOCK = 16
_MAX_STEP_BLOCK = 1024


def _entropy_from_counts(counts: np.ndarray) -> float:
    counts = counts[counts > 0].astype(np.float64)
    if counts.size <= 1:
        return 0.0
    n = counts.sum()
    return float(-np.sum((counts / n) * (np.log(counts) - np.log(n))))


def entropy(labels: Any) -> float:
    """Shannon entropy (nats) of a labeling; 0 for one label, 1.0 for an empty one (sklearn).

    Examples
    --------
    >>> round(entropy([0, 0, 1, 1]), 6)
    0.693147
    """
    from metrics_core.partition._contingency import _factorize
    from metrics_core.validation._labels import check_labels

    arr = check_labels(labels)
    if arr.size == 0:
        return 1.0
    _, codes = _factorize(arr)
    return _entropy_from_counts(np.bincount(codes))


def _mi(c: Contingency) -> float:
    if c.n_classes <= 1 or c.n_clusters <= 1:
        return 0.0
    t = c.table
    if c.is_sparse:
        coo = t.tocoo()
        rows, cols, vals = coo.row, coo.col, coo.data
    else:
        rows, cols = np.nonzero(t)
        vals = t[rows, cols]
    n = float(c.n_samples)
    p = vals / n
    log_outer = -np.log(c.row_sums[rows].astype(np.float64) * c.col_sums[cols]) + 2 * np.log(n)
    terms = p * (np.log(vals) - np.log(n)) + p * log_outer
    terms = np.where(np.abs(terms) < _EPS, 0.0, terms)
    return float(max(terms.sum(), 0.0))


def _generalized_mean(u: float, v: float, method: str) -> float:
    if method == "min":
        return min(u, v)
    if method == "geometric":
        return float(np.sqrt(u * v))
    if method == "arithmetic":
        return (u + v) / 2.0
    if method == "max":
        return max(u, v)
    raise ValueError(f"unknown average_method {method!r}; choose one of {AVERAGE_METHODS}")


def mutual_info_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Mutual information MI = Σ_ij (n_ij/N) log(N n_ij / (a_i b_j)), in nats.

    Examples
    --------
    >>> round(mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0]), 6)
    0.693147
    """
    return score("mi", labels_true, labels_pred, contingency)


def normalized_mutual_info_score(
    labels_true: Any = None,
    labels_pred: Any = None,
    *,
    contingency: Any = None,
    average_method: AverageMethod = "arithmetic",
) -> float:
    """NMI = MI / mean(H(true), H(pred)), the mean chosen by ``average_method``.

    ``"arithmetic"`` (default, scikit-learn's; equals V-measure), ``"geometric"`` (Strehl &
    Ghosh 2002), ``"min"`` or ``"max"``. Degenerate cases as scikit-learn: both labelings a single
    group (or empty) → 1.0; otherwise MI = 0 → 0.0.

    Examples
    --------
    >>> normalized_mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> normalized_mutual_info_score([0, 0, 1, 1], [0, 0, 0, 0])
    0.0
    """
    return score("nmi", labels_true, labels_pred, contingency, average_method=average_method)


def _h_true(c: Contingency) -> float:
    return _entropy_from_counts(c.row_sums)


def _h_pred(c: Contingency) -> float:
    return _entropy_from_counts(c.col_sums)


def _nmi(t: TableStats, average_method: str) -> float:
    """NMI with one normaliser, from the table's cached MI and entropies."""
    _generalized_mean(0.0, 0.0, average_method)  # validates the name
    c = t.c
    if c.n_classes == c.n_clusters and c.n_classes <= 1:
        return 1.0
    mi = t.cached(_mi)
    if mi == 0:
        return 0.0
    return float(mi / _generalized_mean(t.cached(_h_true), t.cached(_h_pred), average_method))


def _log_ratio(x: np.ndarray, ab: np.ndarray, n: int) -> np.ndarray:
    """log(x / μ) with μ = ab/n, as log1p((x n − ab) / ab) with the difference taken exactly.

    Near x ≈ μ, log x − log μ (or even log(x/μ)) loses all but a few digits; the integer
    difference x·n − a·b does not. Where x = 0 the caller's factor x makes the term 0.
    """
    diff = np.asarray(x, dtype=np.float64).astype(np.int64) * np.int64(n) - ab
    with np.errstate(divide="ignore"):
        return np.log1p(diff / ab.astype(np.float64))


def _hypergeometric_expectation(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """E[X log(X / μ)] for X ~ Hypergeometric(population n, a successes, b draws), μ = ab/n.

    Exact to double precision: starts at the mode with weight 1, walks both ways with the
    pmf's ratio recurrence P(x+1)/P(x) = (a−x)(b−x) / ((x+1)(n−a−b+x+1)), normalises by the sum
    of the weights it visited, and stops in each direction once the bound w·r/(1 − r) on the
    unvisited tail (w the last weight, r the last ratio; the pmf is log-concave, so later ratios
    are smaller) is below
    ``_TAIL_REL`` of the mode's weight. A test checks it against the full sum in 50-digit
    arithmetic.
    No log-gamma differences are taken, so there is no cancellation at large n.
    """
    a = a.astype(np.float64)
    b = b.astype(np.float64)
    nf = float(n)
    lo = np.maximum(0.0, a + b - nf)
    hi = np.minimum(a, b)
    mode = np.clip(np.floor((a + 1) * (b + 1) / (nf + 2)), lo, hi)
    ab = a.astype(np.int64) * b.astype(np.int64)  # exact: a, b <= n <= 3e9
    # weight sum and Σ w x log(x/μ), starting at the mode (weight 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        first = np.where(mode > 0, mode * _log_ratio(mode, ab, n), 0.0)
    wsum = np.ones_like(a)
    acc = first
    rest = nf - a - b
    sd2 = a * b * (nf - a) * (nf - b) / (nf * nf * max(nf - 1.0, 1.0))  # hypergeometric variance
    for direction in (1, -1):
        idx = np.flatnonzero(mode < hi if direction == 1 else mode > lo)
        x = mode[idx].copy()
        w = np.ones(idx.size)
        while idx.size:
            ai, bi, ri, abi = a[idx], b[idx], rest[idx], ab[idx]
            # Walk in blocks as wide as the widest remaining distribution needs (a few sds).
            block = int(min(_MAX_STEP_BLOCK, max(_STEP_BLOCK, 4 * np.sqrt(sd2[idx].max()))))
            steps = np.arange(block, dtype=np.float64)
            xs = x[:, None] + direction * steps[None, :]  # the x each ratio starts from
            if direction == 1:
                ratio = (
                    (ai[:, None] - xs) * (bi[:, None] - xs) / ((xs + 1) * (ri[:, None] + xs + 1))
                )
                new_x = xs + 1
                valid = new_x <= hi[idx][:, None]
            else:
                ratio = xs * (ri[:, None] + xs) / ((ai[:, None] - xs + 1) * (bi[:, None] - xs + 1))
                new_x = xs - 1
                valid = new_x >= lo[idx][:, None]
            ratio = np.where(valid, ratio, 0.0)
            wk = w[:, None] * np.cumprod(ratio, axis=1)
            with np.errstate(divide="ignore", invalid="ignore"):
                lr = _log_ratio(np.where(valid, new_x, 1.0), abi[:, None], n)
                term = np.where(valid & (new_x > 0), new_x * lr, 0.0)
            np.add.at(wsum, idx, wk.sum(axis=1))
            np.add.at(acc, idx, (wk * term).sum(axis=1))
            w = wk[:, -1]
            x = new_x[:, -1]
            last_ratio = ratio[:, -1]
            # Log-concavity: later ratios are smaller, so the unvisited tail is at most
            # w r / (1 − r); stop once that is below _TAIL_REL of the mode's weight.
            more = valid[:, -1] & ~(
                (last_ratio < 1.0) & (w * last_ratio < _TAIL_REL * (1.0 - last_ratio))
            )
            idx, x, w = idx[more], x[more], w[more]
    return acc / wsum


def expected_mutual_info(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Expected MI under random labelings with the same group sizes (Vinh et al. 2010).

    EMI = Σ_i Σ_j Σ_x P(x | a_i, b_j, N) (x/N) log(N x / (a_i b_j)), P hypergeometric. Pairs
    of equal (a_i, b_j) are evaluated once, and each hypergeometric sum only over the terms that
    matter in double precision (the mass is concentrated around a_i b_j / N).

    Examples
    --------
    >>> round(expected_mutual_info([0, 0, 1, 1], [0, 1, 0, 1]), 6)
    0.231049
    """
    return score("emi", labels_true, labels_pred, contingency)


def _emi_used(c: Contingency) -> float:
    """E[MI] as AMI uses it: 0 when either side has a single group (MI is 0 then too)."""
    return _emi(c) if min(c.n_classes, c.n_clusters) > 1 else 0.0


def _emi(c: Contingency) -> float:
    n = c.n_samples
    if n == 0:
        return 0.0
    a_vals, a_mult = np.unique(c.row_sums, return_counts=True)
    b_vals, b_mult = np.unique(c.col_sums, return_counts=True)
    total = 0.0
    # Batches of (a, b) pairs keep the temporary arrays small at thousands of distinct sizes.
    rows_per_batch = max(1, _PAIR_BATCH // len(b_vals))
    for start in range(0, len(a_vals), rows_per_batch):
        av = a_vals[start : start + rows_per_batch]
        am = a_mult[start : start + rows_per_batch]
        aa = np.repeat(av, len(b_vals))
        bb = np.tile(b_vals, len(av))
        weight = np.repeat(am, len(b_vals)).astype(np.float64) * np.tile(b_mult, len(av))
        total += float(np.sum(weight * _hypergeometric_expectation(aa, bb, n)))
    return total / n


def adjusted_mutual_info_score(
    labels_true: Any = None,
    labels_pred: Any = None,
    *,
    contingency: Any = None,
    average_method: AverageMethod = "arithmetic",
) -> float:
    """AMI = (MI − E[MI]) / (mean(H(true), H(pred)) − E[MI]) (Vinh, Epps & Bailey 2010).

    Degenerate cases as scikit-learn: both labelings one group (or empty) → 1.0; exactly one of
    them one group → 0.0; numerator and denominator are kept at least machine epsilon away from
    0 with their sign. Where the normaliser equals E[MI] (to 1e-10 relative; e.g. the ``"min"``
    normaliser when one labeling is all singletons) AMI is 0/0: we return 1.0 if the partitions
    are identical and 0.0 otherwise, where scikit-learn returns whatever the rounding gives.

    Examples
    --------
    >>> adjusted_mutual_info_score([0, 0, 1, 1], [1, 1, 0, 0])
    1.0
    >>> adjusted_mutual_info_score([0, 0, 0, 0], [0, 1, 2, 3])
    0.0
    """
    return score("ami", labels_true, labels_pred, contingency, average_method=average_method)


def _ami(t: TableStats, average_method: str) -> float:
    """AMI with one normaliser, from the table's cached MI, entropies and E[MI]."""
    _generalized_mean(0.0, 0.0, average_method)
    c = t.c
    if c.n_classes == c.n_clusters and c.n_classes <= 1:
        return 1.0
    if c.n_classes == 1 or c.n_clusters == 1:
        return 0.0
    mi = t.cached(_mi)
    emi = t.cached(_emi_used)
    normaliser = _generalized_mean(t.cached(_h_true), t.cached(_h_pred), average_method)
    if abs(normaliser - emi) <= _DEGENERATE_REL * max(normaliser, 1.0):
        # 0/0: the normaliser equals E[MI], so no labeling can beat chance (e.g. the "min"
        # normaliser when one side is all singletons). The ratio is rounding noise; we call it
        # 1.0 for identical partitions and 0.0 otherwise. (scikit-learn returns the noise.)
        identical = c.n_classes == c.n_clusters == c.counts.size
        return 1.0 if identical else 0.0
    den = normaliser - emi
    den = min(den, -_EPS) if den < 0 else max(den, _EPS)
    num = mi - emi
    num = min(num, -_EPS) if num < 0 else max(num, _EPS)
    return float(num / den)


def homogeneity_completeness_v_measure(
    labels_true: Any = None,
    labels_pred: Any = None,
    *,
    contingency: Any = None,
    beta: float = 1.0,
) -> tuple[float, float, float]:
    """Homogeneity MI/H(true), completeness MI/H(pred) and their weighted harmonic mean.

    V_β = (1 + β) h c / (β h + c) (Rosenberg & Hirschberg 2007); β > 1 weighs completeness.
    A zero entropy makes its score 1.0; h + c = 0 gives V = 0 (scikit-learn).

    Examples
    --------
    >>> homogeneity_completeness_v_measure([0, 0, 1, 1], [0, 1, 2, 3])[0]
    1.0
    """
    c = as_contingency(labels_true, labels_pred, contingency=contingency)
    return _hcv(TableStats(c, beta=beta))


def _hcv(t: TableStats) -> tuple[float, float, float]:
    """(homogeneity, completeness, V_β) from the table's cached MI and entropies."""
    if t.c.n_samples == 0:
        return 1.0, 1.0, 1.0
    h_true, h_pred, mi = t.cached(_h_true), t.cached(_h_pred), t.cached(_mi)
    h = mi / h_true if h_true else 1.0
    comp = mi / h_pred if h_pred else 1.0
    v = 0.0 if h + comp == 0 else (1 + t.beta) * h * comp / (t.beta * h + comp)
    return float(h), float(comp), float(v)


def homogeneity_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Homogeneity: each cluster holds members of one class only (1 = fully homogeneous).

    Examples
    --------
    >>> homogeneity_score([0, 0, 1, 1], [0, 0, 0, 0])
    0.0
    """
    return score("homogeneity", labels_true, labels_pred, contingency)


def completeness_score(
    labels_true: Any = None, labels_pred: Any = None, *, contingency: Any = None
) -> float:
    """Completeness: all members of a class are in one cluster (1 = fully complete).

    Examples
    --------
    >>> completeness_score([0, 0, 1, 1], [0, 0, 0, 0])
    1.0
    """
    return score("completeness", labels_true, labels_pred, contingency)


def v_measure_score(
    labels_true: Any = None,
    labels_pred: Any = None,
    *,
    contingency: Any = None,
    beta: float = 1.0,
) -> float:
    """V-measure, the β-weighted harmonic mean of homogeneity and completeness.

    Examples
    --------
    >>> round(v_measure_score([0, 0, 1, 2], [0, 0, 1, 1]), 6)
    0.8
    """
    return score("v_measure", labels_true, labels_pred, contingency, beta=beta)


# --------------------------------------------------------------------------- the registry
# One entry per key: catalogue line + kernel. The kernels share the table's cached MI,
# entropies and E[MI] (computed once per table however many keys read them).


@metric(MetricInfo("mi", "mutual information", INFO, "Σ_ij (n_ij/N) ln(N n_ij / (a_i b_j))",
                   (0, None), "higher", "nats", _REF_SK, symmetric=True, short="MI"))  # fmt: skip
def _mi_kernel(t: TableStats) -> float:
    return t.cached(_mi)


_NMI_FORMULA = {
    "arithmetic": "MI / ((H(Y) + H(C)) / 2)",
    "min": "MI / min(H(Y), H(C))",
    "geometric": "MI / √(H(Y) H(C))",
    "max": "MI / max(H(Y), H(C))",
}
_AMI_FORMULA = {
    "arithmetic": "(MI − E[MI]) / (mean(H(Y), H(C)) − E[MI])",
    "min": "(MI − E[MI]) / (min(H) − E[MI])",
    "geometric": "(MI − E[MI]) / (√(H H) − E[MI])",
    "max": "(MI − E[MI]) / (max(H) − E[MI])",
}


@metric(MetricInfo("nmi", "NMI (headline normaliser)", INFO, "MI / mean(H(Y), H(C))", (0, 1),
                   "higher", "normaliser = average_method (default arithmetic; = V-measure)",
                   _REF_SK, symmetric=True, short="NMI"))  # fmt: skip
def _nmi_headline(t: TableStats) -> float:
    return _nmi(t, t.average_method)


def _nmi_fixed(method: str):
    def kernel(t: TableStats) -> float | None:
        # the arithmetic one is the headline by default: listed under its own name only when
        # the headline uses another normaliser
        if method == "arithmetic" and t.average_method == "arithmetic":
            return None
        return _nmi(t, method)

    return kernel


def _ami_fixed(method: str):
    def kernel(t: TableStats) -> float | None:
        if method == "arithmetic" and t.average_method == "arithmetic":
            return None
        return _ami(t, method)

    return kernel


for _m in ("min", "geometric", "max", "arithmetic"):
    metric(
        MetricInfo(
            f"nmi_{_m}", f"NMI ({_m})", INFO, _NMI_FORMULA[_m], (0, 1), "higher",
            "Strehl & Ghosh 2002" if _m == "geometric" else
            ("listed when the headline normaliser is not arithmetic" if _m == "arithmetic"
             else ""),
            _REF_SK, symmetric=True, short=f"NMI ({_m})",
        )
    )(_nmi_fixed(_m))  # fmt: skip


@metric(MetricInfo("ami", "AMI (headline normaliser)", INFO,
                   "(MI − E[MI]) / (mean(H(Y), H(C)) − E[MI])", (None, 1), "higher",
                   "exact E[MI] (hypergeometric); normaliser = average_method", _REF_VINH,
                   symmetric=True, adjusted=True, short="AMI"))  # fmt: skip
def _ami_headline(t: TableStats) -> float:
    return _ami(t, t.average_method)


for _m in ("min", "geometric", "max", "arithmetic"):
    metric(
        MetricInfo(
            f"ami_{_m}", f"AMI ({_m})", INFO, _AMI_FORMULA[_m], (None, 1), "higher",
            "listed when the headline normaliser is not arithmetic" if _m == "arithmetic"
            else "",
            _REF_VINH, symmetric=True, adjusted=True, short=f"AMI ({_m})",
        )
    )(_ami_fixed(_m))  # fmt: skip


@metric(MetricInfo("emi", "expected MI", INFO,
                   "Σ_ij Σ_x P(x | a_i, b_j, N) (x/N) ln(N x / (a_i b_j))", (0, None), "info",
                   "hypergeometric null (fixed group sizes); nats", _REF_VINH, symmetric=True,
                   short="E[MI]"))  # fmt: skip
def _emi_kernel(t: TableStats) -> float:
    return t.cached(_emi_used)


@metric(MetricInfo("homogeneity", "homogeneity", INFO, "MI / H(Y)", (0, 1), "higher",
                   "1 when H(Y) = 0", _REF_RH, short="homogeneity"))  # fmt: skip
def _homogeneity(t: TableStats) -> float:
    return _hcv(t)[0]


@metric(MetricInfo("completeness", "completeness", INFO, "MI / H(C)", (0, 1), "higher",
                   "1 when H(C) = 0", _REF_RH, short="completeness"))  # fmt: skip
def _completeness(t: TableStats) -> float:
    return _hcv(t)[1]


@metric(MetricInfo("v_measure", "V-measure", INFO, "(1+β) h c / (β h + c)", (0, 1), "higher",
                   "β = beta (default 1)", _REF_RH, short="V-measure"))  # fmt: skip
def _v_measure(t: TableStats) -> float:
    return _hcv(t)[2]
