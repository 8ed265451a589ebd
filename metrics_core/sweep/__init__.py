"""Parameter sweeps: grids, running a model over a grid, scoring each setting, sweep bundles.

A sweep maps every setting of a parameter grid to one row of a table (parameters, the full
:func:`metrics_core.evaluate` set, sparsity, timings). :func:`load_bundle` reads sweeps computed
elsewhere (a zip or folder of coefficient matrices / predictions with a ``params.csv``).
"""

from metrics_core.sweep._bundle import Bundle, BundleLimits, BundleSetting, load_bundle
from metrics_core.sweep._runner import (
    EXTRA_COLUMNS,
    Grid,
    SweepResult,
    parse_grid,
    run_sweep,
    score_bundle,
    score_coef,
    sparsity,
)

__all__ = [
    "EXTRA_COLUMNS",
    "Bundle",
    "BundleLimits",
    "BundleSetting",
    "Grid",
    "SweepResult",
    "load_bundle",
    "parse_grid",
    "run_sweep",
    "score_bundle",
    "score_coef",
    "sparsity",
]
