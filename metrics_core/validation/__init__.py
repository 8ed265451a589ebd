"""Validation: one validator per input kind, and the one exception for bad input.

Every public function of :mod:`metrics_core` checks its inputs here before computing:
:func:`check_labels` / :func:`check_label_pair` for label vectors, :func:`check_contingency` for
a counted table, :func:`check_coef` for a coefficient matrix C. Each raises
:class:`ClustlensInputError` naming the input, what is wrong and where.
"""

from metrics_core._lazy import lazy_exports
from metrics_core.validation._errors import ClustlensInputError

# The validators need numpy/scipy; the exception does not (every command line imports it).
_EXPORTS: dict[str, str] = {
    "check_coef": "metrics_core.validation._coef",
    "check_coef_magnitude": "metrics_core.validation._coef",
    "check_data_magnitude": "metrics_core.validation._coef",
    "MAX_SAMPLES": "metrics_core.validation._labels",
    "check_contingency": "metrics_core.validation._labels",
    "check_label_pair": "metrics_core.validation._labels",
    "check_labels": "metrics_core.validation._labels",
}
__getattr__, __dir__ = lazy_exports(__name__, globals(), _EXPORTS)

__all__ = [
    "MAX_SAMPLES",
    "ClustlensInputError",
    "check_coef",
    "check_coef_magnitude",
    "check_contingency",
    "check_data_magnitude",
    "check_label_pair",
    "check_labels",
]
