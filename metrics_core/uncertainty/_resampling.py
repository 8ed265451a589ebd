"""Is 0.67 vs 0.69 a real difference? Bootstrap intervals and permutation p-values.

- **Bootstrap CI** (percentile, over points): draw N point indices with replacement, score the
  resampled (truth, prediction) pairs, take the 2.5 % and 97.5 % quantiles (``level`` 0.95) of
  the ``n_boot`` scores. Classes or clusters that a resample misses simply drop out of its table.
- **Permutation p-value** against the chance null with fixed group sizes: shuffle the predicted
  labels (cluster sizes kept) ``n_perm`` times; ``p = (1 + #{null ≥ observed}) / (1 + n_perm)``
  (one-sided: how often chance does at least as well; never 0).
- **Paired bootstrap** of two predictions of the same points: the same index draws score both,
  so the interval of the difference B − A accounts for their correlation; the two-sided p-value
  is ``min(1, 2 · (1 + #{diff on the far side of 0}) / (1 + n_boot))``.

Every draw comes from one ``numpy.random.default_rng(seed)`` stream, so results are
reproducible; the scores are the registry's kernels on one contingency table per draw.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics_core.partition._contingency import contingency_from_table
from metrics_core.partition._registry import REGISTRY, TableStats
from metrics_core.validation._errors import ClustlensInputError
from metrics_core.validation._labels import check_label_pair

#: Metrics the uncertainty is computed for by default (higher is better for each).
DEFAULT_METRICS: tuple[str, ...] = ("acc", "ari", "ami", "nmi")


@dataclass(frozen=True)
class Interval:
    """One metric: its value, the bootstrap interval and the permutation p-value."""

    metric: str
    value: float
    low: float
    high: float
    p_value: float | None

    def as_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _codes(labels: np.ndarray) -> tuple[np.ndarray, int]:
    uniq, codes = np.unique(labels, return_inverse=True)
    return codes.reshape(-1).astype(np.int64), int(uniq.size)


def _scores(ti: np.ndarray, pi: np.ndarray, k: int, c: int, metrics: Sequence[str],
            average_method: str) -> list[float]:  # fmt: skip
    table = np.bincount(ti * c + pi, minlength=k * c).reshape(k, c)
    stats = TableStats(contingency_from_table(table), average_method=average_method)
    return [float(REGISTRY[m].kernel(stats)) for m in metrics]


def _resample(rng: np.random.Generator, n: int, n_boot: int, width: int, score) -> np.ndarray:
    """``score(idx)`` for ``n_boot`` draws of N point indices with replacement (one stream)."""
    out = np.empty((n_boot, width))
    for b in range(n_boot):
        out[b] = score(rng.integers(0, n, n))
    return out


def _check(metrics: Sequence[str], n: int, n_boot: int, n_perm: int, level: float) -> None:
    unknown = [m for m in metrics if m not in REGISTRY]
    if unknown:
        raise ClustlensInputError(f"unknown metric(s) {unknown}", source="metrics")
    if n < 2:
        raise ClustlensInputError("resampling needs at least 2 points", source="labels")
    if n_boot < 1 or n_perm < 0:
        raise ClustlensInputError("n_boot must be >= 1 and n_perm >= 0", source="resamples")
    if not 0 < level < 1:
        raise ClustlensInputError("level must be in (0, 1)", source="level")


def bootstrap_intervals(
    labels_true: Any,
    labels_pred: Any,
    *,
    metrics: Sequence[str] = DEFAULT_METRICS,
    n_boot: int = 1000,
    n_perm: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    average_method: str = "arithmetic",
) -> list[Interval]:
    """Value, percentile-bootstrap interval and permutation p-value of each metric.

    Examples
    --------
    >>> y = [0] * 20 + [1] * 20
    >>> r = bootstrap_intervals(y, y, metrics=("ari",), n_boot=50, n_perm=50)[0]
    >>> r.value, r.low, r.high, round(r.p_value, 3)
    (1.0, 1.0, 1.0, 0.02)
    """
    t, p = check_label_pair(labels_true, labels_pred)
    n = t.shape[0]
    _check(metrics, n, n_boot, n_perm, level)
    ti, k = _codes(t)
    pi, c = _codes(p)
    rng = np.random.default_rng(seed)
    observed = _scores(ti, pi, k, c, metrics, average_method)

    def one(idx: np.ndarray) -> list[float]:
        return _scores(ti[idx], pi[idx], k, c, metrics, average_method)

    boot = _resample(rng, n, n_boot, len(metrics), one)
    exceed = np.zeros(len(metrics))
    for _ in range(n_perm):
        null = _scores(ti, rng.permutation(pi), k, c, metrics, average_method)
        exceed += np.asarray(null) >= np.asarray(observed) - 1e-12
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(boot, [alpha, 1.0 - alpha], axis=0)
    return [
        Interval(
            m,
            observed[j],
            float(lo[j]),
            float(hi[j]),
            float((1.0 + exceed[j]) / (1.0 + n_perm)) if n_perm else None,
        )
        for j, m in enumerate(metrics)
    ]


def paired_difference(
    labels_true: Any,
    pred_a: Any,
    pred_b: Any,
    *,
    metrics: Sequence[str] = DEFAULT_METRICS,
    n_boot: int = 1000,
    level: float = 0.95,
    seed: int = 0,
    average_method: str = "arithmetic",
) -> list[Interval]:
    """B − A for each metric on the same points: value, paired-bootstrap interval, p-value.

    Examples
    --------
    >>> y = [0] * 10 + [1] * 10
    >>> a = [0] * 10 + [1] * 10
    >>> b = [0] * 9 + [1] * 11
    >>> d = paired_difference(y, a, b, metrics=("acc",), n_boot=200)[0]
    >>> d.value, d.high <= 0
    (-0.05, True)
    """
    t, a = check_label_pair(labels_true, pred_a)
    _, b = check_label_pair(labels_true, pred_b)
    n = t.shape[0]
    _check(metrics, n, n_boot, 0, level)
    ti, k = _codes(t)
    ai, ca = _codes(a)
    bi, cb = _codes(b)
    rng = np.random.default_rng(seed)
    sb = _scores(ti, bi, k, cb, metrics, average_method)
    obs = np.subtract(sb, _scores(ti, ai, k, ca, metrics, average_method))

    def diff(idx: np.ndarray) -> np.ndarray:
        sb = _scores(ti[idx], bi[idx], k, cb, metrics, average_method)
        return np.subtract(sb, _scores(ti[idx], ai[idx], k, ca, metrics, average_method))

    diffs = _resample(rng, n, n_boot, len(metrics), diff)
    alpha = (1.0 - level) / 2.0
    lo, hi = np.quantile(diffs, [alpha, 1.0 - alpha], axis=0)
    out = []
    for j, m in enumerate(metrics):
        far = np.sum(diffs[:, j] <= 0) if obs[j] > 0 else np.sum(diffs[:, j] >= 0)
        p = min(1.0, 2.0 * (1.0 + far) / (1.0 + n_boot)) if obs[j] != 0 else 1.0
        out.append(Interval(m, float(obs[j]), float(lo[j]), float(hi[j]), float(p)))
    return out


def method_text(n_boot: int, n_perm: int, level: float, seed: int) -> str:
    """How the numbers were obtained, in one sentence (shown wherever they are)."""
    perm = (
        f"; p-value: {n_perm:,} permutations of the prediction (cluster sizes kept), one-sided "
        "against chance"
        if n_perm
        else ""
    )
    return f"{level:.0%} percentile bootstrap over points, {n_boot:,} resamples{perm}; seed {seed}"
