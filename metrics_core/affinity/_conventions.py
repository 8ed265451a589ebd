"""The conventions of the affinity diagnostics and the presets that bundle them (no numpy here).

Kept apart from :mod:`metrics_core.affinity._diagnostics` so that a command line can list the
presets among its choices without importing numpy/scipy's linear algebra: ``clustlens evaluate``
starts in about the time of importing numpy and scipy.sparse.
"""

from __future__ import annotations

import sys
from typing import Any

from metrics_core.validation._errors import ClustlensInputError

ORIENTATIONS = ("rows", "columns")
ZERO_ROW_POLICIES = ("zero", "one", "nan", "propagate")
LAPLACIANS = ("normalized", "unnormalized")
SINGLETON_POLICIES = ("skip", "zero")
ISOLATED_POLICIES = ("zero", "nan")
REPORTS = ("min", "mean")

# Function defaults; a preset replaces every argument left at its default.
_SRE_DEFAULTS: dict[str, Any] = {
    "orientation": "rows",
    "zero_rows": "zero",
    "normalize_rows": False,
    "zero_tol": 0.0,
    "sre_offset": 0.0,
}
_CONN_DEFAULTS: dict[str, Any] = {
    "orientation": "rows",
    "normalize_rows": False,
    "cap": False,
    "laplacian": "normalized",
    "singletons": "skip",
    "isolated": "zero",
    "zero_tol": 0.0,
    "affinity_scale": 1.0,
    "self_loops": "keep",
    "sparse_pairs": "lambda2",
}
NORMALIZE_ROWS = (False, True, "sklearn")
SELF_LOOPS = ("keep", "drop")
SPARSE_PAIRS = ("lambda2", "zero")
_EPS = sys.float_info.epsilon  # = np.finfo(np.float64).eps, without importing numpy

# Commits of the reference codes the presets reproduce (read there, re-implemented here).
_TOOLBOX = (
    "github.com/ChongYou/subspace-clustering, metrics/cluster/accuracy.py "
    "(self_representation_loss, self_representation_connectivity), "
    "commit 55e330e38415951f140e74739c869306acdb7a98"
)
_SENET = (
    "github.com/zhangsz1998/Self-Expressive-Network, utils.py "
    "(subspace_preserving_error, connectivity), commit 3ba118301c1ea25655e5cd416c86ecafa9f50e0e"
)

AFFINITY_PRESETS: dict[str, dict[str, Any]] = {
    "ssc_omp_matlab": {
        "orientation": "columns",
        "zero_rows": "one",
        "zero_tol": _EPS,
        "normalize_rows": False,
        "cap": False,
        "laplacian": "normalized",
        "singletons": "zero",
        "isolated": "zero",
        "affinity_scale": 1.0,
        "sre_scale": 1.0,
        "conn_report": "min",
        "reference": "Chong You's SSC-OMP MATLAB code, evalSSR_error.m and evalConn.m",
        "description": (
            "Chong You's SSC-OMP MATLAB code (evalSSR_error.m, evalConn.m). Points are "
            "COLUMNS (X = X*C). SRE: norm(C(s~=s(i),i),1)/norm(C(:,i),1), i.e. |C| column "
            "mass; a column with l1 norm < eps counts 1; a fraction. CONN: on A = |R|+|R|' "
            "(the scripts zero the diagonal first and some apply cnormalize(R, Inf) to the "
            "columns; do that yourself before calling); per class, if any degree < eps the "
            "class scores 0 (so a one-point class scores 0), else 1 - (2nd largest "
            "eigenvalue of the random-walk matrix D^-1 A by eigs 'LR', tol 1e-3), which "
            "equals lambda2 of the normalised Laplacian; reports the MIN over classes; not "
            "capped. Our solve is exact: the reference's tol 1e-3 can differ by ~1e-3."
        ),
    },
    "ensc_python": {
        "orientation": "rows",
        "zero_rows": "zero",
        "zero_tol": 0.0,
        "sre_offset": 1e-10,
        "normalize_rows": "sklearn",
        "self_loops": "drop",
        "cap": True,
        "laplacian": "normalized",
        "singletons": "zero",
        "isolated": "zero",
        "sparse_pairs": "zero",
        "affinity_scale": 0.5,
        "sre_scale": 1.0,
        "conn_report": "min",
        "reference": _TOOLBOX,
        "description": (
            "Chong You's Python toolbox (EnSC, SSC-OMP), " + _TOOLBOX + ". Points are ROWS. "
            "SRE: mean_i sum_{j off class} |C_ij| / (sum_j |C_ij| + 1e-10), so an all-zero row "
            "counts 0 and every ratio carries the 1e-10; a fraction. CONN: sklearn "
            "normalize(C, 'l2') on the whole matrix (dense rows with norm < 10*eps, sparse rows "
            "with norm 0, are left as they are), then per class A = 0.5*(|C_k| + |C_k|^T), "
            "scipy.sparse.csgraph.laplacian(A, normed=True), which IGNORES the diagonal, and "
            "1 - (2nd largest eigenvalue of I - L by eigsh 'LA') = lambda2; the result starts "
            "at 1 and takes the min over classes, so it is CAPPED at 1. A one-point class "
            "scores 0; on SPARSE C a two-point class scores 0 (eigsh refuses k = n, the "
            "reference catches the error and uses 0), on dense C its lambda2 (2, capped to 1). "
            "Where ARPACK fails to converge the reference scores 0; our solve is exact."
        ),
    },
    "senet": {
        "orientation": "rows",
        "zero_rows": "propagate",
        "zero_tol": 0.0,
        "normalize_rows": True,
        "cap": False,
        "laplacian": "normalized",
        "singletons": "skip",
        "isolated": "nan",
        "affinity_scale": 0.5,
        "sre_scale": 100.0,
        "conn_report": "min",
        "reference": _SENET,
        "description": (
            "SENet (Zhang et al. 2021), " + _SENET + ", dense torch code. Points are ROWS. SRE: "
            "mean_i(1 - ||mask_i * A_i||_1 / ||A_i||_1) * 100 - the l1 norms take |C|; a zero "
            "row gives 0/0 = NaN and the whole mean becomes NaN; reported in PERCENT (our "
            "`value` stays a fraction, `reported` is the percentage). CONN: torch.symeig of "
            "the dense normalised Laplacian I - D^-1/2 A D^-1/2 per class, eig_vals[1], MIN "
            "over classes; a zero-degree vertex makes D^-1/2 infinite and the result NaN; a "
            "one-point class crashes the reference (index error) - we skip it. A is SENet's "
            "'symmetric' affinity 0.5*(|normalize(C)| + |normalize(C)|^T) (l2 rows). Not "
            "capped (lambda2 can exceed 1; the seed's range [0,(n-1)/n] is a typo for "
            "[0, n/(n-1)])."
        ),
    },
    "unnormalized_mean": {
        "orientation": "rows",
        "zero_rows": "propagate",
        "zero_tol": 0.0,
        "normalize_rows": True,
        "cap": False,
        "laplacian": "unnormalized",
        "singletons": "skip",
        "isolated": "zero",
        "affinity_scale": 0.5,
        "sre_scale": 100.0,
        "conn_report": "mean",
        "reference": "",
        "description": (
            "A clustlens convention, NOT a reference code (no published code computes it; it "
            "was once called 'senet_sparse', which no commit of the SENet repository "
            "contains). SRE as in 'senet' (percent, NaN on a zero row). CONN: the "
            "UNNORMALISED Laplacian D - A of A = 0.5*(|normalize(C)| + |normalize(C)|^T) "
            "(what scipy.sparse.csgraph.laplacian returns without normed=True; its lambda2 is "
            "not in [0, 2] and scales with A), the MEAN over classes; an isolated vertex gives "
            "0; one-point classes are skipped."
        ),
    },
}
#: Old preset names that still work (they name the same conventions).
PRESET_ALIASES: dict[str, str] = {"senet_sparse": "unnormalized_mean"}


def preset_conventions(name: str) -> dict[str, Any]:
    """The conventions of preset ``name`` (an alias resolves to its preset).

    Examples
    --------
    >>> preset_conventions("senet_sparse")["laplacian"]
    'unnormalized'
    """
    key = PRESET_ALIASES.get(name, name)
    if key not in AFFINITY_PRESETS:
        raise ClustlensInputError(
            f"unknown preset {name!r}; choose one of "
            f"{sorted([*AFFINITY_PRESETS, *PRESET_ALIASES])}",
            source="preset",
        )
    return AFFINITY_PRESETS[key]
