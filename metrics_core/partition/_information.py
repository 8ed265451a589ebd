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
# First guess of how far each sum reaches past its mean, in standard deviations: k0 with
# e^(−k0²/2) · sd / k0 (a Gaussian tail and the tail bound's 1 / (1 − r) ≈ sd / k0) at
# _TAIL_REL, stretched on the skewed side by the Cornish-Fisher term γ k0² / 6, plus
# _WINDOW_PAD points. Sums whose tail bound is not met there are redone on a window twice as
# wide, so this only sets the speed.
_WINDOW_LOG_TAIL = 43.0  # > −ln(_TAIL_REL) = 41.4
_WINDOW_PAD = 2
# Weights computed per block of a group (cells, 1 MB): wide rows for the scan loop, and small
# enough for its passes to stay in cache (measured best of 2**15 .. 2**19).
_BLOCK_CELLS = 1 << 17
# Below this many pairs in a block np.cumprod beats a Python loop over the rows.
_ROW_SCAN_MIN = 64
# (a, b) pairs per batch of _emi: bounds the per-pair arrays (~20 of them) to a few MB each.
_PAIR_BATCH = 1 << 18
# Up to this population the ratio recurrence's numerators and denominators are computed as
# matrix products (exact: every integer involved stays within 4(n+1)² < 2^53).
_EXACT_PRODUCTS_MAX_N = 1 << 25


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
    # the table's non-zero cells, found once when it was counted (no scan of a dense table)
    rows, cols, vals = c.nz_rows, c.nz_cols, c.counts
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


def _hypergeometric_expectation(a: np.ndarray, b: np.ndarray, n: int) -> np.ndarray:
    """E[X log(X / μ)] for X ~ Hypergeometric(population n, a successes, b draws), μ = ab/n.

    Exact to double precision, vectorised over the pairs (a, b) (each a, b >= 1). The pmf is
    never evaluated from log-gammas (their differences cancel at large n): each pair's weights
    come from the ratio recurrence P(x+1)/P(x) = (a−x)(b−x) / ((x+1)(n−a−b+x+1)), walked both
    ways from a reference point c near the mean, and normalised by their sum. The window first
    reaches about 9.5 standard deviations past the mean (see ``_WINDOW_LOG_TAIL``); the pmf is
    log-concave, so the unvisited tail past a last weight w reached with ratio r is at most
    w r / (1 − r), and a pair whose bound is not below ``_TAIL_REL`` of its mode's weight is
    redone on a window twice as wide. Tests check it against the full sum in 50-digit
    arithmetic.

    Pairs with the same c (chosen on a grid coarse enough that most pairs share it) share the x
    grid, so the functions of x are one vector per group and every sum over a group's weights is
    one matrix product. The expectation is taken as Σw f(x) / Σw + μ (log(c/μ) − (c/μ − 1)),
    f(x) = x log(x/c) − (x − c) >= 0, using E[X] = μ exactly (see :func:`_expectation_group`):
    no terms of size |x − μ| are summed, so it stays exact where the variance is far below μ
    (both groups near N), where summing x log(x/μ) itself loses digits.
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    out = np.zeros(a.shape, dtype=np.float64)
    if a.size == 0:
        return out
    af, bf, nf = a.astype(np.float64), b.astype(np.float64), float(n)
    mu = af * bf / nf
    sd = np.sqrt(af * bf * (nf - af) * (nf - bf) / (nf * nf * max(nf - 1.0, 1.0)))
    lo = np.maximum(a + b - n, 0)
    hi = np.minimum(a, b)
    mode = np.clip((a + 1) * (b + 1) // (n + 2), lo, hi)  # exact: (a+1)(b+1) < 2**63
    # The reference c: an integer near μ inside the support, >= 1. For sd >= 2, any integer
    # within tau = sd of μ will do ((c − μ)² <= var: the two parts of the centred form then
    # cancel at most 2:1), and we take a multiple of g (a power of two <= tau) so that pairs of
    # similar μ share it: [μ − tau, μ + tau] holds 2 tau >= 2g integers and lies inside the
    # support (hi − μ and μ − lo are at least the variance, >= 2 sd). For sd < 2, c = round(μ)
    # (then (c − μ)² <= 2 var, as for any integer variable of mean μ).
    wide = sd >= 2.0
    tau = np.where(wide, sd, 0.5)
    g = np.where(wide, np.exp2(np.floor(np.log2(tau))), 1.0).astype(np.int64)
    c_lo = np.maximum(np.maximum(np.ceil(mu - tau).astype(np.int64), lo), 1)
    c_hi = np.minimum(np.floor(mu + tau).astype(np.int64), hi)
    c = np.minimum(-(-c_lo // g) * g, c_hi)
    c = np.minimum(np.maximum(c, np.maximum(lo, 1)), hi)
    # Group by c and by sd to within 2^(1/4), so a group's common window wastes little.
    sd_key = np.round(4.0 * np.log2(np.maximum(sd, 1.0))).astype(np.int64)
    group = c * 128 + sd_key  # sd < 2**31, so sd_key < 128
    order = np.argsort(group, kind="stable")
    bounds = np.flatnonzero(np.diff(group[order])) + 1
    # skewness of each hypergeometric, stretching the window on its heavier side
    with np.errstate(divide="ignore", invalid="ignore"):
        skew = (
            (nf - 2 * af)
            * np.sqrt(max(nf - 1.0, 0.0))
            * (nf - 2 * bf)
            / (np.sqrt(af * bf * (nf - af) * (nf - bf)) * max(nf - 2.0, 1.0))
        )
    skew = np.where(np.isfinite(skew), skew, 0.0)
    k0 = np.sqrt(2.0 * (_WINDOW_LOG_TAIL + np.log1p(sd)))
    k_up = k0 * np.maximum(1.0 + skew * k0 / 6.0, 0.5)
    k_down = k0 * np.maximum(1.0 - skew * k0 / 6.0, 0.5)
    for idx in np.split(order, bounds):
        ci = int(c[idx[0]])
        n_up = int(np.ceil((mu[idx] + k_up[idx] * sd[idx] - ci).max())) + _WINDOW_PAD
        n_down = int(np.ceil((ci - mu[idx] + k_down[idx] * sd[idx]).max())) + _WINDOW_PAD
        _expectation_group(out, idx, a, b, lo, hi, mode, ci, n_up, n_down, n)
    return out


def _quadratic(x: np.ndarray) -> np.ndarray:
    """The rows [1, x, x²] of the column vector ``x`` (a C-contiguous matrix, for BLAS)."""
    return np.hstack([np.ones_like(x), x, x * x])


def _phi(t: np.ndarray) -> np.ndarray:
    """(1 + t) log(1 + t) − t, accurate to rounding also where it is ~t²/2 (small t)."""
    t = np.asarray(t, dtype=np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(t > -1.0, (1.0 + t) * np.log1p(t) - t, 1.0)  # t = −1: 0 log 0 + 1
    small = np.abs(t) < 0.25
    if small.any():
        # Σ_{k>=2} (−1)^k t^k / (k (k−1)), to k = 2 + the terms that |t| needs to fall below
        # 1e-17 of the first (30 at |t| = 1/4)
        ts = t[small]
        acc = np.zeros_like(ts)
        for k in range(_series_terms(ts), 1, -1):
            acc = acc * ts + (-1.0) ** k / (k * (k - 1))
        out[small] = acc * ts * ts
    return out


def _series_terms(x: np.ndarray) -> int:
    """The last power a series in x (|x| < 1/4) needs for 1e-17 relative: 2 + 17 / −log10|x|."""
    top = float(np.abs(x).max())
    return 3 if top == 0 else min(31, 3 + int(np.ceil(17.0 / -np.log10(top))))


def _log1p_minus(d: np.ndarray) -> np.ndarray:
    """log(1 + d) − d, accurate to rounding also where it is ~−d²/2 (small d)."""
    d = np.asarray(d, dtype=np.float64)
    out = np.log1p(d) - d
    small = np.abs(d) < 0.25
    if small.any():
        # Σ_{k>=2} (−1)^(k+1) d^k / k
        ds = d[small]
        acc = np.zeros_like(ds)
        for k in range(_series_terms(ds), 1, -1):
            acc = acc * ds + (-1.0) ** (k + 1) / k
        out[small] = acc * ds * ds
    return out


def _expectation_group(
    out: np.ndarray,
    idx: np.ndarray,
    a: np.ndarray,
    b: np.ndarray,
    lo: np.ndarray,
    hi: np.ndarray,
    mode: np.ndarray,
    c: int,
    n_up: int,
    n_down: int,
    n: int,
) -> None:
    """E[X log(X/μ)] of the pairs ``idx`` sharing the reference c, into ``out[idx]``.

    With w the weights (relative to x = c), S0 = Σw, d = c/μ − 1 and E[X] = μ exactly:

    - centred (|d| <= 1/2): E = Σw f(x) / S0 + μ (log(1 + d) − d), f(x) = x log(x/c) − (x − c)
      = c φ((x − c)/c) >= 0. No term of size |x − μ| is ever summed: the first sum has positive
      terms only and the second is a small number computed directly, so nothing cancels but
      the mild (c − μ)²/(2μ) between the two;
    - plain (|d| > 1/2, μ < 2 only): E = Σw x log(x/c) / S0 + μ log(1 + d); here c = 1 or 2,
      and both terms are positive (or O(1) with no large cancellation).
    """
    n_up = max(0, min(n_up, int(hi[idx].max()) - c))
    n_down = max(0, min(n_down, c - int(lo[idx].min())))
    nf = float(n)
    # x on the grid above c (x = c+1 .. c+n_up) and below it (x = c−1 .. c−n_down), and the
    # rows [1, x log(x/c), c φ((x−c)/c)] of the three sums. 0 log 0 = 0.
    x_up = c + np.arange(1, n_up + 1, dtype=np.float64)
    x_dn = c - np.arange(1, n_down + 1, dtype=np.float64)
    x = np.concatenate([x_up, x_dn])
    t = (x - c) / c
    with np.errstate(divide="ignore", invalid="ignore"):
        xlog = np.where(x > 0, x * np.log1p(t), 0.0)
    grid = np.stack([np.ones(x.size), xlog, c * _phi(t)])
    grids = (grid[:, :n_up], grid[:, n_up:])
    # Each side's ratios, as columns over the x they step from: going up, x = c .. c+n_up−1 and
    # P(x+1)/P(x) = (a−x)(b−x) / ((x+1)(n−a−b+x+1)); going down, x = c .. c−n_down+1 and
    # P(x−1)/P(x) = x(n−a−b+x) / ((a+1−x)(b+1−x)).
    sides = []
    if n_up:
        xs = (x_up - 1.0)[:, None]
        sides.append((True, xs, xs + 1.0, grids[0]))
    if n_down:
        xs = (x_dn + 1.0)[:, None]
        sides.append((False, xs, None, grids[1]))
    step = max(1, _BLOCK_CELLS // max(n_up, n_down, 1))
    # Every product and partial sum in the ratios' numerators and denominators is an integer
    # of magnitude at most 4(n+1)² < 2^53 here, so exact in doubles in any order: a matrix
    # product each (one pass over the block, not four) gives the same numbers, to the bit.
    exact_products = n <= _EXACT_PRODUCTS_MAX_N
    redo = []
    for start in range(0, idx.size, step):
        sel = idx[start : start + step]
        af = a[sel].astype(np.float64)
        bf = b[sel].astype(np.float64)
        rest = nf - af - bf  # n − a − b
        sums = np.zeros((3, sel.size))
        sums[0] = 1.0  # the weight of x = c (where both other rows are 0)
        ok = np.ones(sel.size, dtype=bool)
        w_mode = np.ones(sel.size)
        m_off = mode[sel] - c  # where the mode is: its weight is the largest
        cols = np.arange(sel.size)
        ends = []
        if exact_products:
            zeros = np.zeros(sel.size)
            ones = np.ones(sel.size)
            # (a−x)(b−x) = ab − (a+b)x + x², (x+1)(n−a−b+x+1) = (n−a−b)(x+1) + (x+1)², and
            # going down x(n−a−b+x) = (n−a−b)x + x², (a+1−x)(b+1−x) = (a+1)(b+1) − (a+b+2)x + x²
            up_num = np.stack([af * bf, -(af + bf), ones])
            up_den = np.stack([zeros, rest, ones])
            down_num = up_den
            down_den = np.stack([(af + 1.0) * (bf + 1.0), -(af + bf + 2.0), ones])
        for up, xs, xs1, rows in sides:
            if up:
                at_end = c + xs.size >= hi[sel]
                if exact_products:
                    w = _quadratic(xs) @ up_num
                    den = _quadratic(xs1) @ up_den
                else:
                    w = af - xs
                    w *= bf - xs
                    den = rest + xs1
                    den *= xs1
            else:
                at_end = c - xs.size <= lo[sel]
                if exact_products:
                    q = _quadratic(xs)
                    w = q @ down_num
                    den = q @ down_den
                else:
                    w = rest + xs
                    w *= xs
                    den = (af + 1.0) - xs
                    den *= (bf + 1.0) - xs
            w /= den
            last_ratio = w[-1].copy()
            if sel.size < _ROW_SCAN_MIN:
                np.cumprod(w, axis=0, out=w)
            else:  # np.cumprod along either axis is ~8x slower than this loop at this width
                for i in range(1, w.shape[0]):
                    np.multiply(w[i], w[i - 1], out=w[i])
            sums += rows @ w
            here = m_off > 0 if up else m_off < 0
            w_mode[here] = w[np.abs(m_off[here]) - 1, cols[here]]
            ends.append((w[-1].copy(), last_ratio, at_end))
        for last, ratio, at_end in ends:
            # Log-concavity: later ratios are smaller, so the unvisited tail is at most
            # w r / (1 − r); done once that is below _TAIL_REL of the mode's weight.
            small = last * ratio < _TAIL_REL * (1.0 - ratio) * w_mode
            ok &= (last == 0) | at_end | ((ratio < 1.0) & small)
        ab = a[sel] * b[sel]
        d = (np.int64(c) * np.int64(n) - ab) / ab.astype(np.float64)  # c/μ − 1, exactly
        mu = ab / nf
        centred = np.abs(d) <= 0.5
        out[sel] = np.where(
            centred,
            sums[2] / sums[0] + mu * _log1p_minus(d),
            sums[1] / sums[0] + mu * np.log1p(d),
        )
        if not ok.all():
            redo.append(sel[~ok])
    for sel in redo:
        _expectation_group(out, sel, a, b, lo, hi, mode, c, 2 * n_up + 1, 2 * n_down + 1, n)


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
