"""Validation: one validator per input kind, and the one exception for bad input.

Every public function of :mod:`metrics_core` checks its inputs here before computing:
:func:`check_labels` / :func:`check_label_pair` for label vectors, :func:`check_contingency` for
a counted table, :func:`check_coef` for a coefficient matrix C. Each raises
:class:`ClustlensInputError` naming the input, what is wrong and where.
"""

from metrics_core.validation._coef import check_coef, check_coef_magnitude, check_data_magnitude
from metrics_core.validation._errors import ClustlensInputError
from metrics_core.validation._labels import (
    MAX_SAMPLES,
    check_contingency,
    check_label_pair,
    check_labels,
)

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
