"""Affinity diagnostics of a self-expressive coefficient matrix C, dense or sparse, never densified.

SRE (subspace-preserving error), CONN (connectivity: λ₂ of each class's normalised Laplacian of
W = |C| + |C|ᵀ) and the class × class leakage matrix. Every convention that differs across the
field (rows vs columns of C, zero rows, ℓ2-normalised rows, min vs mean CONN, ...) is a named
argument; :data:`AFFINITY_PRESETS` bundles the conventions of published reference codes.
"""

from metrics_core._lazy import lazy_exports
from metrics_core.affinity._conventions import (
    AFFINITY_PRESETS,
    ORIENTATIONS,
    PRESET_ALIASES,
    preset_conventions,
)

# The solvers need scipy's linear algebra; a command line that only lists the presets does not.
_EXPORTS: dict[str, str] = {
    name: "metrics_core.affinity._diagnostics"
    for name in (
        "ConnResult",
        "LeakageResult",
        "SREResult",
        "affinity_diagnostics",
        "connectivity",
        "leakage_matrix",
        "subspace_preserving_error",
    )
}
__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)

__all__ = [
    "AFFINITY_PRESETS",
    "ORIENTATIONS",
    "PRESET_ALIASES",
    "ConnResult",
    "LeakageResult",
    "SREResult",
    "affinity_diagnostics",
    "connectivity",
    "leakage_matrix",
    "preset_conventions",
    "subspace_preserving_error",
]
