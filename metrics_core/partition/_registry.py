"""The metric registry: each partition metric is defined once, as a catalogue entry plus a kernel.

A kernel is a function of one :class:`TableStats` — a contingency table with lazily computed,
cached shared quantities (pair counts, the optimal matching, entropies, MI, E[MI]) — so
``evaluate`` computes every shared quantity once per table, and the public ``*_score`` function
of a metric calls the very kernel ``evaluate`` calls. Adding a metric is one ``@metric`` entry:
it then appears in ``evaluate``, the CLI, the dashboard's tables, the report, the README table
and the registry-driven property tests.

Examples
--------
>>> from metrics_core.partition._contingency import contingency_from_table
>>> t = TableStats(contingency_from_table([[3, 44, 3], [2, 4, 44]]))
>>> REGISTRY["acc"].kernel(t)
0.88
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from metrics_core.partition._contingency import Contingency, as_contingency

#: Families in the order tables list them.
SIZE = "sizes"
SET = "set matching"
PAIR = "pair counting"
INFO = "information theoretic"
AFF = "affinity (coefficient matrix)"
FAMILIES: tuple[str, ...] = (SIZE, SET, PAIR, INFO, AFF)
AVERAGE_METHODS: tuple[str, ...] = ("min", "geometric", "arithmetic", "max")


@dataclass(frozen=True)
class MetricInfo:
    """Description of one ``evaluate`` key.

    ``direction`` is ``"higher"`` (higher is better), ``"lower"`` or ``"info"`` (a count or a
    ratio with no better side). ``bounds`` is the (low, high) range, ``None`` for unbounded.
    ``symmetric``: swapping labels_true and labels_pred leaves it unchanged. ``short`` is the
    display name of tables and figure axes (the one table of short names).
    """

    key: str
    name: str
    family: str
    formula: str
    bounds: tuple[float | None, float | None]
    direction: str
    convention: str
    reference: str
    symmetric: bool = False
    adjusted: bool = False  # corrected for chance (≈ 0 for random labelings)
    short: str = ""

    @property
    def label(self) -> str:
        """The short display name (the key when none is given)."""
        return self.short or self.key


class TableStats:
    """A :class:`Contingency` with the quantities kernels share, each computed at most once.

    ``cached(fn)`` returns ``fn(contingency)`` and remembers it, so the pair counts, the
    matching, the entropies, MI and E[MI] are computed once however many kernels read them.
    ``average_method``, ``beta`` and ``fmi_alpha`` are the parameters of the metrics that take
    one (the headline NMI/AMI normaliser, the V-measure weight, the weighted FMI's α).
    """

    def __init__(
        self,
        c: Contingency,
        *,
        average_method: str = "arithmetic",
        beta: float = 1.0,
        fmi_alpha: float = 0.5,
    ) -> None:
        if average_method not in AVERAGE_METHODS:
            raise ValueError(
                f"unknown average_method {average_method!r}; choose one of {AVERAGE_METHODS}"
            )
        if not 0.0 <= fmi_alpha <= 1.0:
            raise ValueError("fmi_alpha must be in [0, 1]")
        if beta < 0:
            raise ValueError("beta must be non-negative")
        self.c = c
        self.average_method = average_method
        self.beta = beta
        self.fmi_alpha = fmi_alpha
        self._cache: dict[Callable[..., Any], Any] = {}

    def cached(self, fn: Callable[[Contingency], Any]) -> Any:
        """``fn(self.c)``, computed once per table."""
        if fn not in self._cache:
            self._cache[fn] = fn(self.c)
        return self._cache[fn]


Kernel = Callable[[TableStats], Any]


@dataclass(frozen=True)
class Metric:
    """One registered metric: its catalogue entry and its kernel."""

    info: MetricInfo
    kernel: Kernel


#: key -> Metric, in registration order (tables sort by family first).
REGISTRY: dict[str, Metric] = {}


def metric(info: MetricInfo) -> Callable[[Kernel], Kernel]:
    """Register ``info`` with the decorated kernel (a kernel returning ``None`` omits the key)."""

    def register(kernel: Kernel) -> Kernel:
        if info.key in REGISTRY:
            raise ValueError(f"metric {info.key!r} is registered twice")
        if info.family not in FAMILIES:
            raise ValueError(f"unknown family {info.family!r}")
        REGISTRY[info.key] = Metric(info, kernel)
        return kernel

    return register


def score(
    key: str,
    labels_true: Any = None,
    labels_pred: Any = None,
    contingency: Any = None,
    **params: Any,
) -> Any:
    """The registered metric ``key`` of two labelings or of a table (what ``*_score`` calls)."""
    c = as_contingency(labels_true, labels_pred, contingency=contingency)
    return REGISTRY[key].kernel(TableStats(c, **params))


def partition_metrics(
    c: Contingency,
    *,
    average_method: str = "arithmetic",
    beta: float = 1.0,
    fmi_alpha: float = 0.5,
    keys: Iterable[str] | None = None,
) -> dict[str, float | int]:
    """Every registered metric of one :class:`Contingency` (or those of ``keys``, in registry
    order; only what they need is computed), as plain Python numbers."""
    stats = TableStats(c, average_method=average_method, beta=beta, fmi_alpha=fmi_alpha)
    chosen = REGISTRY if keys is None else _known(keys)
    out: dict[str, float | int] = {}
    for key in chosen:
        value = REGISTRY[key].kernel(stats)
        if value is not None:
            out[key] = value
    return out


def _known(keys: Iterable[str]) -> list[str]:
    """``keys`` in registry order; an unknown key is an error naming the known ones."""
    if isinstance(keys, str):  # one key, not its letters
        keys = (keys,)
    wanted = set(keys)
    unknown = sorted(wanted - set(REGISTRY))
    if unknown:
        raise ValueError(f"unknown metric(s) {unknown}; choose from {sorted(REGISTRY)}")
    return [k for k in REGISTRY if k in wanted]


def registered_infos() -> list[MetricInfo]:
    """The registry's catalogue entries, grouped by family in table order."""
    infos = [m.info for m in REGISTRY.values()]
    return sorted(infos, key=lambda i: FAMILIES.index(i.family))
