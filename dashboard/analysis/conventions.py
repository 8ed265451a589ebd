"""The conventions every surface computes with: one frozen value, one string key for caches.

The pages, the HTML report, the exports and ``clustlens report`` all take a
:class:`Conventions`; two surfaces that hold equal conventions compute the same numbers.

Examples
--------
>>> Conventions(preset="senet").key
'arithmetic|keep|senet|rows'
>>> Conventions(min_share=0.2).diagnosis_key
'arithmetic|keep||rows|0.2,0.05,0.05'
>>> Conventions(preset="ssc_omp_matlab").effective_orientation
'columns'
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import metrics_core as mc
from metrics_core.diagnosis import Thresholds

_TH = Thresholds()

AVERAGE_METHODS: tuple[str, ...] = ("arithmetic", "geometric", "min", "max")
NOISE_POLICIES: tuple[str, ...] = ("keep", "exclude", "singletons")
ORIENTATIONS: tuple[str, ...] = ("rows", "columns")


@dataclass(frozen=True)
class Conventions:
    """NMI/AMI normaliser, noise policy, SRE/CONN preset, the orientation of C and the
    diagnosis thresholds.

    ``orientation`` is what the user chose; a preset that fixes its own orientation
    (``ssc_omp_matlab``: columns) wins, and :attr:`effective_orientation` says which applies.
    ``min_share``, ``weak_conn`` and ``leak_share`` are the thresholds of the diagnosis
    (:class:`metrics_core.diagnosis.Thresholds`): every page, the report and the exports read
    splits and merges with the same ones.
    """

    average_method: str = "arithmetic"
    noise_policy: str = "keep"
    preset: str | None = None
    orientation: str = "rows"
    min_share: float = _TH.min_share
    weak_conn: float = _TH.weak_conn
    leak_share: float = _TH.leak_share

    @property
    def key(self) -> str:
        """A stable string for cache keys (without the diagnosis thresholds, which change no
        metric: moving one recomputes the diagnosis only)."""
        return f"{self.average_method}|{self.noise_policy}|{self.preset or ''}|{self.orientation}"

    @property
    def diagnosis_key(self) -> str:
        """:attr:`key` with the diagnosis thresholds: the cache key of a diagnosis."""
        return f"{self.key}|{self.min_share:g},{self.weak_conn:g},{self.leak_share:g}"

    def thresholds(self) -> Thresholds:
        """The diagnosis thresholds in force."""
        return Thresholds(
            min_share=float(self.min_share),
            weak_conn=float(self.weak_conn),
            leak_share=float(self.leak_share),
        )

    @property
    def preset_spec(self) -> dict[str, Any]:
        """The preset's conventions (empty without a preset)."""
        return mc.affinity.preset_conventions(self.preset) if self.preset else {}

    @property
    def effective_orientation(self) -> str:
        """The orientation SRE/CONN/leakage actually use (the preset's when it has one)."""
        return str(self.preset_spec.get("orientation", self.orientation))

    @property
    def orientation_from_preset(self) -> bool:
        """True when the preset overrides the orientation the user chose."""
        return self.effective_orientation != self.orientation

    def affinity_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of the metrics_core affinity functions for these conventions."""
        if self.preset:
            return {"preset": self.preset}
        return {"orientation": self.orientation}

    def evaluate_kwargs(self) -> dict[str, Any]:
        """Keyword arguments of :func:`metrics_core.evaluate` (partition part)."""
        return {"average_method": self.average_method, "noise_policy": self.noise_policy}

    def table(self) -> dict[str, str]:
        """The conventions as the report and the exports print them."""
        return {
            "NMI/AMI normaliser": self.average_method,
            "noise policy": self.noise_policy,
            "C orientation": self.effective_orientation
            + (" (set by the preset)" if self.orientation_from_preset else ""),
            "SRE/CONN preset": self.preset or "none (documented defaults)",
            "diagnosis thresholds": f"piece/part share ≥ {self.min_share:g}, weak CONN < "
            f"{self.weak_conn:g}, leakage ≥ {self.leak_share:g}",
        }
