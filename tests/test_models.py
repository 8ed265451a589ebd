"""Self-expressive models: closed forms against oracles, solvers against scikit-learn."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.linear_model import ElasticNet, orthogonal_mp

from metrics_core.datasets import union_of_subspaces
from metrics_core.models import (
    MODELS,
    LSRPath,
    ensc,
    fit_coef,
    get_model,
    knn_affinity,
    lsr,
    lsr_path,
    normalize_rows,
    spectral_clustering,
    ssc_omp,
)
from metrics_core.validation._errors import ClustlensInputError


@pytest.fixture(scope="module")
def noisy():
    return union_of_subspaces(12, 3, 4, 30, noise=0.1, seed=3)


def test_lsr_path_equals_direct_to_1e8():
    rng = np.random.default_rng(0)
    for shape in [(120, 20), (40, 60)]:  # rank-deficient Gram and full-rank Gram
        X = normalize_rows(rng.standard_normal(shape))
        lambdas = np.geomspace(1e-3, 1e2, 8)
        for lam, C in zip(lambdas, lsr_path(X, lambdas), strict=True):
            np.testing.assert_allclose(C, lsr(X, lam), rtol=0, atol=1e-8)
            assert np.all(np.diag(C) == 0)


def test_lsr_solves_the_constrained_problem_row_by_row():
    # Oracle: for each point, ridge regression on all *other* points (c_i = 0 by construction).
    rng = np.random.default_rng(1)
    X = rng.standard_normal((25, 6))
    lam = 0.3
    C = lsr(X, lam)
    for i in range(0, 25, 6):
        A = np.delete(X, i, axis=0)
        c = np.linalg.solve(A @ A.T + lam * np.eye(24), A @ X[i])
        np.testing.assert_allclose(np.delete(C[i], i), c, atol=1e-12)


@pytest.mark.parametrize("lam", [1.0, 0.7, 0.3])
def test_ensc_matches_sklearn_elastic_net(noisy, lam):
    X, _ = noisy
    n, d = X.shape
    res = ensc(X, lam, 20.0)
    C = res.coef.toarray()
    assert res.info["n_not_converged"] == 0
    assert np.all(C.diagonal() == 0)
    for i in range(0, n, 17):
        # Our objective divided by γ_i·D is scikit-learn's, with alpha = 1/(γ_i D), l1_ratio = λ.
        A = np.delete(X, i, axis=0).T
        ref = ElasticNet(
            alpha=1.0 / (res.info["gamma_i"][i] * d),
            l1_ratio=lam,
            fit_intercept=False,
            tol=1e-14,
            max_iter=100_000,
        ).fit(A, X[i])
        np.testing.assert_allclose(np.delete(C[i], i), ref.coef_, atol=1e-7)
        assert np.count_nonzero(np.delete(C[i], i)) == np.count_nonzero(ref.coef_)


def test_ensc_objective_history_decreases(noisy):
    X, _ = noisy
    res = ensc(X, 0.5, 20.0)
    assert len(res.objective_history) == X.shape[0]
    for h in res.objective_history:
        assert np.all(np.diff(h) <= 1e-12)


def test_ensc_gamma_below_threshold_gives_zero(noisy):
    X, _ = noisy
    assert ensc(X, 0.9, 0.99).coef.nnz == 0  # relative gamma <= 1: c = 0 is optimal


def test_ssc_omp_matches_sklearn(noisy):
    X, _ = noisy
    res = ssc_omp(X, 4)
    C = res.coef.toarray()
    assert np.all(C.diagonal() == 0)
    assert np.diff(res.coef.indptr).max() <= 4
    for i in range(0, X.shape[0], 13):
        ref = orthogonal_mp(np.delete(X, i, axis=0).T, X[i], n_nonzero_coefs=4)
        np.testing.assert_allclose(np.delete(C[i], i), ref, atol=1e-10)


def test_noiseless_independent_subspaces_lsr_and_omp_are_perfect():
    X, y = union_of_subspaces(30, 4, 5, 30, seed=2)  # 5 x 4 <= 30: independent
    from metrics_core import evaluate

    # The ridge term leaks O(λ) across non-orthogonal independent subspaces; λ -> 0 is the
    # block-diagonal minimum-norm solution of Lu et al. (their Theorem 2).
    path = LSRPath(X)
    sre = [evaluate(y, y, path.coef(lam))["sre"] for lam in (1e-3, 1e-5, 1e-7)]
    assert sre[0] > sre[1] > sre[2] and sre[2] < 1e-6
    for C in (path.coef(1e-7), ssc_omp(X, 4).coef):
        pred = spectral_clustering(C, 5, seed=0).labels
        out = evaluate(y, pred, C)
        assert out["sre"] < 1e-6
        assert out["acc"] == 1.0
    assert evaluate(y, y, ssc_omp(X, 4).coef)["sre"] < 1e-12


def test_knn_binary_and_similarity():
    X = np.array([[1.0, 0.0], [0.9, 0.1], [0.0, 1.0], [0.1, 0.9]])
    C = knn_affinity(X, 1).coef.toarray()
    np.testing.assert_array_equal(C, [[0, 1, 0, 0], [1, 0, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0]])
    S = knn_affinity(X, 1, weights="similarity").coef
    assert 0.9 < S[0, 1] <= 1.0 and sp.issparse(S)


def test_spectral_clustering_is_deterministic_and_handles_isolated_points():
    C = np.kron(np.eye(3), np.ones((4, 4))) - np.eye(12)
    C[11, :] = 0
    C[:, 11] = 0
    a = spectral_clustering(C, 3, seed=5)
    b = spectral_clustering(sp.csr_array(C), 3, seed=5)
    assert a.n_isolated == 1 and a.seed == 5
    np.testing.assert_array_equal(a.labels, b.labels)
    assert len(set(a.labels[:4])) == len(set(a.labels[4:8])) == 1


def test_spectral_eigsh_path_agrees_with_dense():
    X, _ = union_of_subspaces(20, 3, 3, 40, noise=0.05, seed=0)
    C = ssc_omp(X, 3).coef
    dense = spectral_clustering(C, 3, seed=0, dense_below=10_000)
    arpack = spectral_clustering(C, 3, seed=0, dense_below=10)
    assert arpack.solver.startswith("eigsh") and dense.solver == "eigh"
    np.testing.assert_allclose(arpack.eigenvalues, dense.eigenvalues, atol=1e-8)
    dense_w = spectral_clustering(C.toarray(), 3, seed=0, dense_below=10)  # float32 ARPACK
    assert dense_w.solver == "eigsh"
    np.testing.assert_allclose(dense_w.eigenvalues, dense.eigenvalues, atol=1e-5)
    # Many components (eigenvalue 1 repeated beyond K): shift-invert still finds 1s only.
    many = spectral_clustering(ssc_omp(X, 1).coef, 3, seed=0, dense_below=10)
    np.testing.assert_allclose(many.eigenvalues, 1.0, atol=1e-10)
    assert many.solver == "eigsh-shift-invert"


def test_registry_and_fit_coef():
    assert set(MODELS) == {"lsr", "ensc", "ssc_omp", "knn"}
    X, _ = union_of_subspaces(8, 2, 2, 10, seed=0)
    for name, spec in MODELS.items():
        assert spec.description and spec.params and spec.params[0].grid
        res = fit_coef(name, X)
        assert res.coef.shape == (20, 20) and res.seconds >= 0
        assert set(res.params) == set(spec.param_names)
    assert get_model("SSC-OMP").name == "ssc_omp"
    with pytest.raises(ClustlensInputError, match="unknown model"):
        fit_coef("nope", X)
    with pytest.raises(ClustlensInputError, match="lambda"):
        fit_coef("ensc", X, {"lambda": 1.5})
    with pytest.raises(ClustlensInputError, match="unknown parameter"):
        fit_coef("lsr", X, {"k": 3})
    with pytest.raises(ClustlensInputError, match="NaN"):
        fit_coef("lsr", np.array([[1.0, np.nan], [0.0, 1.0]]))
