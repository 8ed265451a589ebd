"""Data sets the library needs: the UCI handwritten digits (HW) and synthetic generators.

:func:`load_view` reads one of the six HW views shipped in ``mfeat/`` (UCI Multiple Features,
CC BY 4.0, attribution in ``mfeat/README.md``); :func:`union_of_subspaces` and
:func:`make_multiview` draw the synthetic data the sweeps, tests and examples use.
"""

from metrics_core.datasets._mfeat import MFEAT_DIR, VIEWS, load_view, stratified_subset
from metrics_core.datasets._multiview_synthetic import make_multiview
from metrics_core.datasets._synthetic import union_of_subspaces

__all__ = [
    "MFEAT_DIR",
    "VIEWS",
    "load_view",
    "make_multiview",
    "stratified_subset",
    "union_of_subspaces",
]
