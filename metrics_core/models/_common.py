"""What the self-expressive models share: the result record, parameter specs, input checks."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.sparse as sp

from metrics_core.validation._errors import ClustlensInputError


@dataclass
class CoefResult:
    """A coefficient matrix and how it was obtained.

    Attributes
    ----------
    coef : numpy.ndarray or scipy.sparse.csr_array of shape (N, N)
        Row ``i`` holds the coefficients that represent point ``i`` (the clustlens default
        orientation, ``"rows"``); the diagonal is zero.
    params : dict
        The parameters actually used (defaults filled in, types coerced).
    objective_history : list of numpy.ndarray
        Convergence record of iterative solvers, one array per solve (for the per-point solvers of
        EnSC and SSC-OMP: one array per point, the objective / residual norm after each
        iteration). Empty for closed-form models (LSR, kNN).
    seconds : float
        Wall-clock time of the fit.
    info : dict
        Solver details (iteration counts per point, final objective, ...), plain values or arrays.
    """

    coef: np.ndarray | sp.csr_array
    params: dict[str, Any]
    objective_history: list[np.ndarray] = field(default_factory=list)
    seconds: float = 0.0
    info: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class ParamSpec:
    """One parameter of a model, as the sweep grid and the dashboard need it.

    Attributes
    ----------
    name : str
        Key in the ``params`` dict (and column name in a sweep table).
    kind : {"float", "int", "choice"}
        Value type.
    default : float, int or str
        Value used when the parameter is not given.
    low, high : float or None
        Inclusive bounds (``None``: unbounded); ``low_open`` / ``high_open`` make them exclusive.
    log : bool
        Whether the parameter is naturally swept on a logarithmic scale.
    grid : str
        A default grid in :func:`metrics_core.sweep.parse_grid` syntax.
    choices : tuple of str
        Allowed values of a ``"choice"`` parameter.
    description : str
        One line for help texts.
    """

    name: str
    kind: str
    default: Any
    low: float | None = None
    high: float | None = None
    log: bool = False
    grid: str = ""
    choices: tuple[str, ...] = ()
    description: str = ""
    low_open: bool = False
    high_open: bool = False

    def coerce(self, value: Any, *, model: str = "") -> Any:
        """Return ``value`` converted to this parameter's type, or raise ``ClustlensInputError``."""
        where = f"{model} parameter {self.name!r}" if model else f"parameter {self.name!r}"
        if self.kind == "choice":
            text = str(value).strip().lower()
            if text not in self.choices:
                raise ClustlensInputError(
                    f"{value!r} is not one of {', '.join(self.choices)}", source=where
                )
            return text
        try:
            number = float(value)
        except (TypeError, ValueError):
            raise ClustlensInputError(f"{value!r} is not a number", source=where) from None
        if not np.isfinite(number):
            raise ClustlensInputError(f"{value!r} is not finite", source=where)
        if self.kind == "int":
            if number != round(number):
                raise ClustlensInputError(f"{value!r} is not a whole number", source=where)
            number = round(number)
        bad_low = self.low is not None and (
            number < self.low or (self.low_open and number == self.low)
        )
        bad_high = self.high is not None and (
            number > self.high or (self.high_open and number == self.high)
        )
        if bad_low or bad_high:
            lo = "(" if self.low_open else "["
            hi = ")" if self.high_open else "]"
            rng = f"{lo}{self.low if self.low is not None else '-inf'}, "
            rng += f"{self.high if self.high is not None else 'inf'}{hi}"
            raise ClustlensInputError(f"{value!r} is outside {rng}", source=where)
        return number


def check_data(X: Any, name: str = "X") -> np.ndarray:
    """Return the data matrix as a C-contiguous float64 array with points as rows, or raise.

    Examples
    --------
    >>> check_data([[1, 0], [0, 1]]).dtype
    dtype('float64')
    """
    if sp.issparse(X):
        X = X.toarray()
    try:
        arr = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ClustlensInputError(
            f"cannot be read as a numeric matrix ({exc})", source=name
        ) from None
    if arr.ndim != 2:
        raise ClustlensInputError(
            f"expected a 2-D matrix (points as rows), got shape {arr.shape}", source=name
        )
    if arr.shape[0] < 2 or arr.shape[1] < 1:
        raise ClustlensInputError(
            f"need at least 2 points and 1 feature, got shape {arr.shape}", source=name
        )
    bad = ~np.isfinite(arr)
    if bad.any():
        r, c = np.argwhere(bad)[0]
        raise ClustlensInputError("contains NaN or inf", source=name, where=f"row {r}, column {c}")
    return np.ascontiguousarray(arr)


def normalize_rows(X: np.ndarray) -> np.ndarray:
    """Scale every row to unit ℓ2 norm (all-zero rows stay zero).

    Examples
    --------
    >>> normalize_rows(np.array([[3.0, 4.0], [0.0, 0.0]])).tolist()
    [[0.6, 0.8], [0.0, 0.0]]
    """
    norms = np.linalg.norm(X, axis=1, keepdims=True)
    return X / np.where(norms > 0, norms, 1.0)
