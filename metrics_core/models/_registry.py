"""The model catalogue (:data:`MODELS`) and the one entry point :func:`fit_coef`."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from metrics_core.models._common import CoefResult, ParamSpec, check_data
from metrics_core.models._ensc import fit_ensc
from metrics_core.models._knn import fit_knn
from metrics_core.models._lsr import fit_lsr
from metrics_core.models._ssc_omp import fit_ssc_omp
from metrics_core.validation._errors import ClustlensInputError


@dataclass(frozen=True)
class ModelSpec:
    """A self-expressive model: its parameters and how to fit it.

    Attributes
    ----------
    name : str
        Registry key (``"lsr"``, ``"ensc"``, ``"ssc_omp"``, ``"knn"``).
    label : str
        Display name.
    params : tuple of ParamSpec
        Parameters, the swept ones first.
    description : str
        One paragraph: what the model is, where it sits on the SRE–CONN trade-off.
    reference : str
        Paper.
    fit : callable
        ``fit(X, params) -> CoefResult`` with coerced, complete params.
    """

    name: str
    label: str
    params: tuple[ParamSpec, ...]
    description: str
    reference: str
    fit: Callable[[np.ndarray, dict[str, Any]], CoefResult]

    @property
    def param_names(self) -> tuple[str, ...]:
        return tuple(p.name for p in self.params)

    def param(self, name: str) -> ParamSpec:
        for p in self.params:
            if p.name == name:
                return p
        raise ClustlensInputError(
            f"unknown parameter {name!r}; {self.name} takes {', '.join(self.param_names)}",
            source=f"model {self.name}",
        )

    def resolve(self, params: Mapping[str, Any] | None) -> dict[str, Any]:
        """Complete ``params`` with defaults and coerce every value; unknown names raise."""
        params = dict(params or {})
        out = {}
        for name in params:
            self.param(name)
        for p in self.params:
            out[p.name] = p.coerce(params.get(p.name, p.default), model=self.name)
        return out


MODELS: dict[str, ModelSpec] = {
    "lsr": ModelSpec(
        name="lsr",
        label="LSR (least squares, zero diagonal)",
        params=(
            ParamSpec(
                "lambda",
                "float",
                1.0,
                low=0.0,
                low_open=True,
                log=True,
                grid="lambda=1e-3:1e2:11:log",
                description="ridge weight λ on ||C||² (larger: smaller, denser coefficients)",
            ),
        ),
        description=(
            "Dense ridge-regression self-representation, closed form. Well connected (high CONN) "
            "but leaks across subspaces unless they are independent (higher SRE)."
        ),
        reference="Lu et al., Robust and efficient subspace segmentation via least squares "
        "regression, ECCV 2012",
        fit=fit_lsr,
    ),
    "ensc": ModelSpec(
        name="ensc",
        label="EnSC (elastic net)",
        params=(
            ParamSpec(
                "lambda",
                "float",
                0.9,
                low=0.0,
                high=1.0,
                low_open=True,
                grid="lambda=0.05:0.95:10",
                description=(
                    "ℓ1 weight λ (1: sparse, SSC; towards 0: dense, LSR-like); ℓ2 weight 1-λ"
                ),
            ),
            ParamSpec(
                "gamma",
                "float",
                50.0,
                low=0.0,
                low_open=True,
                log=True,
                grid="gamma=5:500:5:log",
                description="weight of the data term (relative: multiples of the smallest "
                "value giving non-zero coefficients)",
            ),
            ParamSpec(
                "gamma_scale",
                "choice",
                "relative",
                choices=("relative", "absolute"),
                description="read gamma relative to the non-zero threshold or as is",
            ),
        ),
        description=(
            "Elastic net between sparse (ℓ1: low SRE, low CONN) and dense (ℓ2: higher CONN, "
            "higher SRE) self-representation; exact per-point active-set solver."
        ),
        reference="You, Li, Robinson & Vidal, Oracle based active set algorithm for scalable "
        "elastic net subspace clustering, CVPR 2016",
        fit=fit_ensc,
    ),
    "ssc_omp": ModelSpec(
        name="ssc_omp",
        label="SSC-OMP (orthogonal matching pursuit)",
        params=(
            ParamSpec(
                "k",
                "int",
                10,
                low=1,
                grid="k=2,4,6,8,10,15,20",
                description="maximum non-zeros per point",
            ),
            ParamSpec(
                "thr",
                "float",
                1e-6,
                low=0.0,
                log=True,
                grid="thr=1e-6",
                description="stop when the relative residual norm is this small",
            ),
        ),
        description=(
            "At most k greedily chosen neighbours per point: very sparse, subspace preserving "
            "(low SRE) but weakly connected (low CONN)."
        ),
        reference="You, Robinson & Vidal, Scalable sparse subspace clustering by orthogonal "
        "matching pursuit, CVPR 2016",
        fit=fit_ssc_omp,
    ),
    "knn": ModelSpec(
        name="knn",
        label="k nearest neighbours",
        params=(
            ParamSpec("k", "int", 10, low=1, grid="k=3,5,10,20,40", description="neighbours"),
            ParamSpec(
                "metric",
                "choice",
                "cosine",
                choices=("cosine", "euclidean"),
                description="distance used to rank neighbours",
            ),
            ParamSpec(
                "weights",
                "choice",
                "binary",
                choices=("binary", "similarity"),
                description="entries 1, or the similarity (cosine, or heat kernel)",
            ),
        ),
        description="The classical graph baseline, no self-expression.",
        reference="e.g. von Luxburg, A tutorial on spectral clustering, 2007",
        fit=fit_knn,
    ),
}
"""Every built-in model by name."""


def get_model(model: str) -> ModelSpec:
    """Look a model up by name (case and ``-``/``_`` insensitive), or raise.

    Examples
    --------
    >>> get_model("SSC-OMP").name
    'ssc_omp'
    """
    key = str(model).strip().lower().replace("-", "_")
    if key not in MODELS:
        raise ClustlensInputError(
            f"unknown model {model!r}; choose one of {', '.join(MODELS)}", source="model"
        )
    return MODELS[key]


def fit_coef(model: str, X: Any, params: Mapping[str, Any] | None = None) -> CoefResult:
    """Fit a self-expressive model; the one entry point for every built-in model.

    Parameters
    ----------
    model : str
        A key of :data:`MODELS`.
    X : array-like of shape (N, D)
        Data, points as rows (used as given: normalise rows beforehand if wanted).
    params : dict, optional
        Parameter values; missing ones take their defaults.

    Returns
    -------
    CoefResult
        ``coef`` (N x N, rows represent points, zero diagonal), the resolved ``params``,
        ``objective_history``, ``seconds``, ``info``.

    Examples
    --------
    >>> X = np.array([[1.0, 0.0], [2.0, 0.0], [0.0, 1.0], [0.0, 3.0]])
    >>> res = fit_coef("ssc_omp", X, {"k": 1})
    >>> res.params, res.coef.nnz
    ({'k': 1, 'thr': 1e-06}, 4)
    """
    spec = get_model(model)
    resolved = spec.resolve(params)
    X = check_data(X)
    t0 = time.perf_counter()
    res = spec.fit(X, resolved)
    res.params = resolved
    res.seconds = time.perf_counter() - t0
    return res
