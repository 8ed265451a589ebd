"""Permutation-null bands: what NMI, ARI and AMI give for random labellings with k clusters.

UI-free. The null is the permutation model the adjusted scores are built on: the class sizes are
fixed, the prediction is a balanced k-cluster labelling and the points are shuffled. Under that
model the entropies are fixed, so the exact expectations are known: E[ARI] = 0, E[AMI] = 0 and
E[NMI] = E[MI] / norm(H(U), H(V)) (E[MI] exact, Vinh et al. 2010). The spread (standard
deviation and quantiles) comes from ``n_perm`` seeded shuffles.

Examples
--------
>>> b = permutation_null([20, 20, 20], [2, 10, 30], n_perm=30, seed=0)
>>> b.exact_mean["ari"].tolist()
[0.0, 0.0, 0.0]
>>> bool(b.exact_mean["nmi"][2] > b.exact_mean["nmi"][0])  # NMI of noise grows with k
True
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

import metrics_core as mc
from dashboard.analysis.explain import _entropy_terms, _normaliser, information_parts

NULL_METRICS = ("nmi", "ari", "ami")


@dataclass(frozen=True, eq=False)
class NullBands:
    """Per k: exact mean, Monte Carlo mean, standard deviation and quantile band of each metric."""

    ks: np.ndarray
    exact_mean: dict[str, np.ndarray]
    mean: dict[str, np.ndarray]
    std: dict[str, np.ndarray]
    lo: dict[str, np.ndarray]
    hi: dict[str, np.ndarray]
    quantiles: tuple[float, float]
    n_perm: int
    n_samples: int
    average_method: str


def balanced_labels(n: int, k: int) -> np.ndarray:
    """``n`` labels in ``k`` groups whose sizes differ by at most one.

    Examples
    --------
    >>> np.bincount(balanced_labels(10, 3)).tolist()
    [4, 3, 3]
    """
    if not 1 <= k <= max(n, 1):
        raise ValueError(f"k must be between 1 and n = {n}, got {k}")
    return np.arange(n) % k


def _truth(class_sizes: Sequence[int]) -> np.ndarray:
    sizes = np.asarray(class_sizes, dtype=np.int64)
    if sizes.ndim != 1 or sizes.size == 0 or (sizes <= 0).any():
        raise ValueError("class_sizes must be positive integers")
    return np.repeat(np.arange(sizes.size), sizes)


def _table(truth: np.ndarray, pred: np.ndarray, k_true: int, k_pred: int) -> np.ndarray:
    return np.bincount(truth * k_pred + pred, minlength=k_true * k_pred).reshape(k_true, k_pred)


def null_scores(table: np.ndarray, emi: float, average_method: str) -> dict[str, float]:
    """NMI, ARI, AMI of one table, reusing E[MI] (fixed under the permutation model)."""
    parts = information_parts(table)
    norm = _normaliser(parts["h_true"], parts["h_pred"], average_method)
    ari = mc.adjusted_rand_score(contingency=table)
    nmi = parts["mi"] / norm if norm > 0 else 0.0
    den = norm - emi
    ami = (parts["mi"] - emi) / den if abs(den) > 1e-12 else 0.0
    return {"nmi": float(nmi), "ari": float(ari), "ami": float(ami)}


def null_scores_of_shuffles(
    truth: np.ndarray,
    shuffled: np.ndarray,
    k_true: int,
    k: int,
    emi: float,
    average_method: str,
) -> dict[str, np.ndarray]:
    """:func:`null_scores` of every row of ``shuffled`` (R labellings of the same k clusters,
    each a permutation of one labelling) against ``truth``, all R tables at once.

    Under the permutation model every table has the same margins, so the entropies, the
    normaliser and E[MI] are computed once; only MI and the pairs counted together vary. One
    table at a time, the Learn page's default bands (12 k, 100 shuffles) took 0.16 s of a tab's
    opening (issue 14); the same values come out (the test compares them with
    :func:`null_scores`, table by table).
    """
    r, n = shuffled.shape
    cells = k_true * k
    flat = (np.arange(r, dtype=np.int64)[:, None] * cells + truth[None, :] * k + shuffled).ravel()
    t = np.bincount(flat, minlength=r * cells).reshape(r, k_true, k)
    a, b = t[0].sum(axis=1), t[0].sum(axis=0)  # the same margins in every table
    norm = _normaliser(_entropy_terms(a, n), _entropy_terms(b, n), average_method)
    v = t.astype(np.float64)
    outer = a[:, None].astype(np.float64) * b[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(t > 0, v / n * np.log(n * v / outer), 0.0)
    mi = np.maximum(terms.reshape(r, cells).sum(axis=1), 0.0)
    # ARI from the pair counts (integers: exact), as metrics_core's kernel
    tp = (t * (t - 1) // 2).reshape(r, cells).sum(axis=1)
    fp = int((b * (b - 1) // 2).sum()) - tp
    fn = int((a * (a - 1) // 2).sum()) - tp
    tn = n * (n - 1) // 2 - tp - fp - fn
    with np.errstate(divide="ignore", invalid="ignore"):
        ari = 2.0 * (tp * tn - fn * fp) / ((tp + fn) * (fn + tn) + (tp + fp) * (fp + tn))
    ari = np.where((fn == 0) & (fp == 0), 1.0, ari)
    zeros = np.zeros(r)
    den = norm - emi
    return {
        "nmi": mi / norm if norm > 0 else zeros,
        "ari": ari,
        "ami": (mi - emi) / den if abs(den) > 1e-12 else zeros,
    }


def permutation_null(
    class_sizes: Sequence[int],
    ks: Sequence[int],
    *,
    n_perm: int = 100,
    seed: int = 0,
    average_method: str = "arithmetic",
    quantiles: tuple[float, float] = (0.025, 0.975),
) -> NullBands:
    """Null bands of NMI/ARI/AMI for balanced random labellings with each k in ``ks``."""
    truth = _truth(class_sizes)
    n, k_true = truth.size, len(class_sizes)
    ks_arr = np.asarray(sorted(set(int(k) for k in ks)), dtype=np.int64)
    if ks_arr.size == 0 or ks_arr[0] < 2 or ks_arr[-1] > n:
        raise ValueError(f"every k must be in [2, {n}]")
    if n_perm < 2:
        raise ValueError("n_perm must be at least 2")
    rng = np.random.default_rng(seed)
    samples = {m: np.empty((ks_arr.size, n_perm)) for m in NULL_METRICS}
    exact = {m: np.zeros(ks_arr.size) for m in NULL_METRICS}
    for i, k in enumerate(ks_arr):
        base = balanced_labels(n, int(k))
        ref = _table(truth, base, k_true, int(k))
        emi = mc.expected_mutual_info(contingency=ref)
        parts = information_parts(ref)
        norm = _normaliser(parts["h_true"], parts["h_pred"], average_method)
        exact["nmi"][i] = emi / norm if norm > 0 else 0.0
        shuffled = np.stack([rng.permutation(base) for _ in range(n_perm)])
        scores = null_scores_of_shuffles(truth, shuffled, k_true, int(k), emi, average_method)
        for m in NULL_METRICS:
            samples[m][i] = scores[m]
    q_lo, q_hi = quantiles
    return NullBands(
        ks=ks_arr,
        exact_mean=exact,
        mean={m: samples[m].mean(axis=1) for m in NULL_METRICS},
        std={m: samples[m].std(axis=1, ddof=1) for m in NULL_METRICS},
        lo={m: np.quantile(samples[m], q_lo, axis=1) for m in NULL_METRICS},
        hi={m: np.quantile(samples[m], q_hi, axis=1) for m in NULL_METRICS},
        quantiles=(q_lo, q_hi),
        n_perm=n_perm,
        n_samples=n,
        average_method=average_method,
    )


def random_labelling_scores(
    class_sizes: Sequence[int],
    ks: Sequence[int],
    *,
    seed: int = 1,
    average_method: str = "arithmetic",
) -> dict[str, np.ndarray]:
    """NMI/ARI/AMI of ONE random balanced labelling per k, computed by ``metrics_core.evaluate``.

    This is the "observed" curve drawn against the bands (independent of the band's shuffles:
    a different seed, and the library's own AMI rather than the band's shortcut).
    """
    truth = _truth(class_sizes)
    rng = np.random.default_rng(seed)
    out = {m: np.empty(len(ks)) for m in NULL_METRICS}
    for i, k in enumerate(ks):
        pred = rng.permutation(balanced_labels(truth.size, int(k)))
        res = mc.evaluate(truth, pred, average_method=average_method)
        for m in NULL_METRICS:
            out[m][i] = res[m]
    return out


def default_ks(n: int, max_k: int | None = None) -> list[int]:
    """A growing list of cluster counts from 2 up to about n/2 (at most 14 values).

    Examples
    --------
    >>> default_ks(60)
    [2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, 30]
    """
    top = min(max_k or n // 2, n)
    cands = [2, 3, 4, 5, 6, 8, 10, 12, 15, 20, 24, 30, 40, 50, 60, 80, 100, 150, 200]
    ks = [k for k in cands if k <= top]
    return ks[:14]
