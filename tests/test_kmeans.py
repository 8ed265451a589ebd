"""``metrics_core.models.kmeans`` against scikit-learn's ``KMeans``, the oracle it reproduces.

Labels, centers and iteration counts must be scikit-learn's, ties included: rounded and
integer-valued data, duplicated points, more clusters than distinct points. Up to 256 points
(scikit-learn's chunk) whatever its thread count; beyond, scikit-learn sums over its OpenMP
threads, so exactly on one thread (as the dashboard's server runs it) and to rounding on more.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.cluster import KMeans
from threadpoolctl import threadpool_limits

import metrics_core.models._kmeans as km_module
from metrics_core.models import kmeans, kmeans_seeds, spectral_clustering
from metrics_core.multiview._baselines import kmeans_labels, kmeans_labels_seeds


def _problem(rng: np.random.Generator, n: int, k: int, d: int, kind: str) -> np.ndarray:
    centers = rng.standard_normal((k, d)) * rng.uniform(0.2, 4.0)
    X = centers[rng.integers(0, k, n)] + rng.standard_normal((n, d))
    if kind == "rounded":
        X = np.round(X, 1)
    elif kind == "integer":  # exact ties between candidate centers and between distances
        X = np.round(X)
    elif kind == "duplicated":  # half the points on one spot: empty clusters to relocate
        X[: n // 2] = X[0]
    return X


def _sklearn(X: np.ndarray, k: int, seed: int, n_init: int = 10) -> KMeans:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "fewer distinct clusters than n_clusters"
        return KMeans(n_clusters=k, n_init=n_init, random_state=seed).fit(X)


@pytest.mark.parametrize("kind", ["plain", "rounded", "integer", "duplicated"])
@pytest.mark.parametrize("block", range(4))
def test_same_labels_centers_and_iterations_as_scikit_learn(kind: str, block: int) -> None:
    rng = np.random.default_rng(100 + block)
    for _ in range(25):
        n = int(rng.integers(5, 257))
        k = min(n, int(rng.integers(1, 21)))
        d = int(rng.integers(1, 40))
        X = _problem(rng, n, k, d, kind)
        seed = int(rng.integers(0, 10_000))
        ref = _sklearn(X, k, seed)
        ours = kmeans(X, k, seed=seed)
        context = f"{kind}: n={n} k={k} d={d} seed={seed}"
        assert np.array_equal(ours.labels, ref.labels_), context
        np.testing.assert_allclose(ours.centers, ref.cluster_centers_, atol=1e-12, err_msg=context)
        assert ours.n_iter == ref.n_iter_, context
        assert ours.inertia == pytest.approx(ref.inertia_, rel=1e-12, abs=1e-12), context


def test_more_clusters_than_distinct_points() -> None:
    X = np.repeat(np.array([[0.0, 0.0], [1.0, 1.0], [5.0, 0.0]]), 4, axis=0)
    for seed in range(20):
        ref = _sklearn(X, 5, seed)
        ours = kmeans(X, 5, seed=seed)
        assert np.array_equal(ours.labels, ref.labels_)
        np.testing.assert_allclose(ours.centers, ref.cluster_centers_, atol=1e-12)


@pytest.mark.parametrize("n_init", [1, 3, 10])
@pytest.mark.parametrize("max_iter", [1, 2, 300])
def test_restarts_and_iteration_cap_as_scikit_learn(n_init: int, max_iter: int) -> None:
    rng = np.random.default_rng(n_init * 1000 + max_iter)
    for _ in range(10):
        X = _problem(rng, 150, 8, 5, "plain")
        seed = int(rng.integers(0, 1000))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ref = KMeans(8, n_init=n_init, max_iter=max_iter, random_state=seed).fit(X)
        ours = kmeans(X, 8, seed=seed, n_init=n_init, max_iter=max_iter)
        assert np.array_equal(ours.labels, ref.labels_)
        assert ours.n_iter == ref.n_iter_


@pytest.mark.parametrize("kind", ["plain", "integer", "duplicated"])
def test_beyond_256_points_as_scikit_learn_on_one_thread(kind: str) -> None:
    rng = np.random.default_rng(7)
    for _ in range(8):
        n = int(rng.integers(257, 2500))
        k = int(rng.integers(2, 16))
        X = _problem(rng, n, k, int(rng.integers(1, 20)), kind)
        seed = int(rng.integers(0, 1000))
        with threadpool_limits(limits=1, user_api="openmp"):
            ref = _sklearn(X, k, seed)
        ours = kmeans(X, k, seed=seed, side_by_side=True)
        context = f"{kind}: n={n} k={k} seed={seed}"
        assert np.array_equal(ours.labels, ref.labels_), context
        assert np.array_equal(ours.centers, ref.cluster_centers_), context
        assert ours.n_iter == ref.n_iter_ and ours.inertia == ref.inertia_, context


def test_beyond_256_points_on_several_threads_to_rounding() -> None:
    rng = np.random.default_rng(8)
    for _ in range(6):
        n = int(rng.integers(257, 2500))
        k = int(rng.integers(2, 12))
        X = _problem(rng, n, k, 5, "plain")
        with threadpool_limits(limits=2, user_api="openmp"):
            ref = _sklearn(X, k, 1)
        ours = kmeans(X, k, seed=1, side_by_side=True)
        assert np.array_equal(ours.labels, ref.labels_)
        assert ours.inertia == pytest.approx(ref.inertia_, rel=1e-12)


@pytest.mark.parametrize("kind", ["plain", "integer", "duplicated"])
def test_several_seeds_at_once_give_each_seeds_own_fit_bit_for_bit(kind: str) -> None:
    """``kmeans_seeds`` runs every seed's restarts in one Lloyd loop (a comparison clusters each
    embedding once per run): each seed's result is the one ``kmeans`` gives it alone —
    labels, centers, inertia and iterations, ties and empty clusters included — and so
    scikit-learn's."""
    rng = np.random.default_rng(7)
    for _ in range(40):
        n = int(rng.integers(5, 300))
        k = min(n, int(rng.integers(1, 16)))
        d = int(rng.integers(1, 30))
        X = _problem(rng, n, k, d, kind)
        seeds = [int(s) for s in rng.integers(0, 10_000, int(rng.integers(1, 5)))]
        n_init = int(rng.integers(1, 11))
        together = kmeans_seeds(X, k, seeds=seeds, n_init=n_init)
        assert len(together) == len(seeds)
        for seed, ours in zip(seeds, together, strict=True):
            alone = kmeans(X, k, seed=seed, n_init=n_init)
            context = f"{kind}: n={n} k={k} d={d} seed={seed} n_init={n_init}"
            assert np.array_equal(ours.labels, alone.labels), context
            assert np.array_equal(ours.centers, alone.centers), context
            assert (ours.inertia, ours.n_iter) == (alone.inertia, alone.n_iter), context
    E = _problem(rng, 200, 10, 10, "plain")
    ref = [_sklearn(E, 10, s).labels_ for s in (0, 1, 2)]
    for ours, theirs in zip(kmeans_labels_seeds(E, 10, seeds=[0, 1, 2]), ref, strict=True):
        assert np.array_equal(ours, theirs)


def test_several_seeds_in_restart_groups_and_beyond_the_side_by_side_size(monkeypatch) -> None:
    """Restarts grouped to bound memory (a group may hold restarts of two seeds) and inputs
    past :data:`SIDE_BY_SIDE_MAX` (scikit-learn, a seed at a time) give the same answers."""
    rng = np.random.default_rng(8)
    X = _problem(rng, 120, 5, 3, "rounded")
    whole = kmeans_seeds(X, 5, seeds=[3, 4], n_init=4)
    monkeypatch.setattr(km_module, "_BLOCK", 120 * 5 * 3)  # groups of 3 restarts
    grouped = kmeans_seeds(X, 5, seeds=[3, 4], n_init=4)
    for a, b in zip(whole, grouped, strict=True):
        assert np.array_equal(a.labels, b.labels) and np.array_equal(a.centers, b.centers)
    monkeypatch.setattr(km_module, "SIDE_BY_SIDE_MAX", 50)
    big = kmeans_seeds(X, 5, seeds=[3, 4], n_init=4)
    for seed, ours in zip([3, 4], big, strict=True):
        assert np.array_equal(ours.labels, _sklearn(X, 5, seed, n_init=4).labels_)


def test_chunked_large_problems_give_the_unchunked_answer(monkeypatch) -> None:
    """Memory is bounded by grouping the restarts and chunking the points; neither may change
    the answer (a block of 300 elements forces one restart at a time, 256-point chunks)."""
    rng = np.random.default_rng(3)
    X = _problem(rng, 900, 6, 4, "plain")
    whole = kmeans(X, 6, seed=11, side_by_side=True)
    monkeypatch.setattr(km_module, "_BLOCK", 300)
    chunked = kmeans(X, 6, seed=11, side_by_side=True)
    assert np.array_equal(chunked.labels, whole.labels)
    np.testing.assert_allclose(chunked.centers, whole.centers, rtol=0, atol=1e-12)
    assert chunked.inertia == pytest.approx(whole.inertia, rel=1e-13)


def test_the_callers_give_scikit_learns_labels() -> None:
    """The multi-view baselines and spectral clustering end in this k-means."""
    rng = np.random.default_rng(5)
    E = _problem(rng, 200, 10, 10, "plain")
    assert np.array_equal(kmeans_labels(E, 10, seed=4), _sklearn(E, 10, 4).labels_)
    C = np.kron(np.eye(3), np.ones((20, 20))) + 0.05 * rng.random((60, 60))
    np.fill_diagonal(C, 0.0)
    res = spectral_clustering(C, 3, seed=2)
    ref = _sklearn(res.embedding, 3, 2)
    assert np.array_equal(res.labels, ref.labels_)
    assert res.inertia == pytest.approx(ref.inertia_, rel=1e-12, abs=1e-12)


def test_input_checks() -> None:
    with pytest.raises(ValueError, match="between 1 and the number of points"):
        kmeans(np.zeros((3, 2)), 4, seed=0)
    with pytest.raises(ValueError, match="between 1 and the number of points"):
        kmeans(np.zeros((3, 2)), 0, seed=0)
    with pytest.raises(ValueError, match="2-D"):
        kmeans(np.zeros(5), 2, seed=0)
    with pytest.raises(ValueError, match="NaN or infinite"):
        kmeans(np.array([[0.0], [np.nan], [1.0]]), 2, seed=0)
    with pytest.raises(ValueError, match="at least 1"):
        kmeans(np.zeros((3, 2)), 2, seed=0, n_init=0)
    with pytest.raises(ValueError, match="at least 1"):
        kmeans(np.zeros((3, 2)), 2, seed=0, max_iter=0)


def test_input_is_not_modified_and_reruns_agree() -> None:
    rng = np.random.default_rng(9)
    X = _problem(rng, 120, 4, 3, "plain")
    before = X.copy()
    a = kmeans(X, 4, seed=1)
    b = kmeans(X, 4, seed=1)
    assert np.array_equal(X, before)
    assert np.array_equal(a.labels, b.labels) and a.inertia == b.inertia


def test_large_inputs_go_to_scikit_learn_and_agree_with_the_side_by_side_restarts() -> None:
    """Beyond ``SIDE_BY_SIDE_MAX`` points scikit-learn's compiled loop runs (faster there);
    both ways give the same answer on one OpenMP thread."""
    rng = np.random.default_rng(12)
    X = _problem(rng, km_module.SIDE_BY_SIDE_MAX + 300, 7, 6, "integer")
    with threadpool_limits(limits=1, user_api="openmp"):
        auto = kmeans(X, 7, seed=5)
        ref = _sklearn(X, 7, 5)
    forced = kmeans(X, 7, seed=5, side_by_side=True)
    assert np.array_equal(auto.labels, ref.labels_) and auto.inertia == ref.inertia_
    assert np.array_equal(forced.labels, auto.labels)
    assert np.array_equal(forced.centers, auto.centers) and forced.inertia == auto.inertia
    assert auto.labels.dtype == np.int64
