"""Issue 15: the PKN start, the ξ shatter guard, the baselines of the comparison and the
paper's F-measure — each checked against a hand-worked case or an easy data set."""

from __future__ import annotations

import numpy as np
import pytest

from metrics_core import evaluate, f_measure_score
from metrics_core.datasets import make_multiview
from metrics_core.multiview import run_protocol, ssf_fit
from metrics_core.multiview._baselines import (
    amgl_embedding,
    coreg_embedding,
    coreg_start,
    gaussian_kernel,
    kmeans_labels,
    knn_graph,
    swmc_labels,
)
from metrics_core.multiview._ssf import _update_s, pkn_graph, scale_features


@pytest.fixture(scope="module")
def easy():
    """Four clusters seen through three views, each of which merges two of them."""
    views, y = make_multiview(n_per_cluster=25, n_clusters=4, n_views=3, seed=3)
    return [scale_features(v) for v in views], y


# ------------------------------------------------------------------------------ PKN start
def test_pkn_weights_hand_worked():
    # Points 0, 1, 3, 4 on a line, k = 2. Point 0: squared distances 1 (to 1), 9 (to 3),
    # 16 (to 4); weights (16 - 1, 16 - 9) / (2 * 16 - (1 + 9)) = (15/22, 7/22).
    W = pkn_graph(np.array([[0.0], [1.0], [3.0], [4.0]]), 2)
    np.testing.assert_allclose(W[:, 0], [0.0, 15 / 22, 7 / 22, 0.0])
    # Point 1: distances 1 (to 0), 4 (to 3), 9 (to 4) -> (9 - 1, 9 - 4) / (18 - 5).
    np.testing.assert_allclose(W[:, 1], [8 / 13, 0.0, 5 / 13, 0.0])


def test_pkn_columns_are_k_sparse_distributions():
    X = np.random.default_rng(0).standard_normal((50, 4))
    W = pkn_graph(X, 7)
    np.testing.assert_allclose(W.sum(axis=0), 1.0)
    assert (W >= 0).all() and np.all((W > 0).sum(axis=0) <= 7)
    assert np.all(np.diag(W) == 0)


def test_pkn_ties_get_uniform_weights():
    W = pkn_graph(np.zeros((5, 2)), 2)  # every distance ties: 1/k on the k nearest
    np.testing.assert_allclose(np.sort(W[:, 0])[-2:], [0.5, 0.5])


def test_init_option_is_recorded_and_checked(easy):
    views, y = easy
    for init in ("pkn", "ridge"):
        res = ssf_fit(views, 4, init=init, max_iter=3, scale=False)
        assert res.init == init
        assert evaluate(y, res.labels)["acc"] == 1.0
    with pytest.raises(ValueError, match="init"):
        ssf_fit(views, 4, init="random")


# ------------------------------------------------------------------------------ ξ guard
def test_guard_refuses_shattered_structures_and_says_so():
    views, y = make_multiview(n_per_cluster=40, n_clusters=4, seed=0)
    res = ssf_fit(views, 4, xi_init=1e6, max_iter=4)  # a start strong enough to shatter S
    assert res.guard_fired
    first = res.xi_log[0]
    assert first["guard"] and len(first["steps"]) > 1 and first["xi"] < first["steps"][0]
    assert all(e["exact"] for e in res.xi_log)  # it recovered K proper components
    assert np.bincount(res.labels).min() >= res.min_component
    assert evaluate(y, res.labels)["acc"] == 1.0


def test_guard_unit_every_k_component_structure_too_small_is_rejected():
    views, _y = make_multiview(n_per_cluster=40, n_clusters=4, seed=0)
    base = ssf_fit(views, 4, max_iter=2)
    Fs, w = base.F_views, base.weights
    # Components of 40 points are "shattered" under min_component = 41: never kept as exact.
    _S, _F, _xi, n_comp, _ev, log = _update_s(
        Fs, w, 6.0, 4, base.F_views[0], 1.0, 12, None, min_component=41
    )
    assert log["guard"] and not log["exact"]
    assert n_comp < 4 or log["smallest"] < 41
    # ... and accepted with the default guard
    *_, log_ok = _update_s(Fs, w, 6.0, 4, base.F_views[0], 1.0, 12, None, min_component=2)
    assert log_ok["exact"] and not log_ok["guard"]


# ------------------------------------------------------------------------------ baselines
def test_amgl_recovers_easy_clusters_with_equal_weights_on_equal_views(easy):
    views, y = easy
    graphs = [knn_graph(v, 8) for v in views]
    F, _alpha = amgl_embedding(graphs, 4)
    assert evaluate(y, kmeans_labels(F, 4, seed=0))["acc"] == 1.0
    _F2, alpha2 = amgl_embedding([graphs[0], graphs[0]], 4)
    np.testing.assert_allclose(alpha2[0], alpha2[1])


def test_swmc_has_exactly_k_components_and_recovers_easy_clusters(easy):
    views, y = easy
    labels, weights, n_comp = swmc_labels([pkn_graph(v, 10) for v in views], 4)
    assert n_comp == 4 and (weights > 0).all()
    assert evaluate(y, labels)["acc"] == 1.0


@pytest.mark.parametrize("scheme", ["pairwise", "centroid"])
def test_coreg_recovers_easy_clusters(easy, scheme):
    views, y = easy
    E = coreg_embedding([gaussian_kernel(v) for v in views], 4, lam=0.03, scheme=scheme)
    assert evaluate(y, kmeans_labels(E, 4, seed=0))["acc"] == 1.0
    np.testing.assert_allclose(np.linalg.norm(E, axis=1), 1.0)


def test_coreg_shared_start_gives_the_same_embedding_bit_for_bit(easy):
    """The protocol makes the start once for its six settings: every λ and both schemes must
    come out as they do from their own start, and the centroid's first U* is computed once."""
    views, _ = easy
    kernels = [gaussian_kernel(v) for v in views]
    start = coreg_start(kernels, 4)
    for scheme in ("pairwise", "centroid", "pairwise"):
        for lam in (0.01, 0.05):
            own = coreg_embedding(kernels, 4, lam=lam, scheme=scheme)
            shared = coreg_embedding(kernels, 4, lam=lam, scheme=scheme, start=start)
            assert np.array_equal(own, shared)
    # the start is not changed by the runs that used it
    again = coreg_start(kernels, 4)
    for a, b in zip(start.single_view + start.affinities, again.single_view + again.affinities,
                    strict=True):  # fmt: skip
        assert np.array_equal(a, b)
    assert np.array_equal(start.star(), again.star())


def test_coreg_refuses_a_start_made_for_other_views_or_k(easy):
    views, _ = easy
    kernels = [gaussian_kernel(v) for v in views]
    with pytest.raises(ValueError, match="3 views and K = 3, not 3 views and K = 4"):
        coreg_embedding(kernels, 4, start=coreg_start(kernels, 3))
    with pytest.raises(ValueError, match="2 views and K = 4, not 3 views"):
        coreg_embedding(kernels, 4, start=coreg_start(kernels[:2], 4))


def test_coreg_pairwise_pulls_a_noisy_view_towards_the_clean_one():
    views, y = make_multiview(n_per_cluster=30, n_clusters=3, n_views=2, seed=3)
    rng = np.random.default_rng(0)
    noisy = views[1] + 3.0 * rng.standard_normal(views[1].shape)
    K = [gaussian_kernel(scale_features(views[0])), gaussian_kernel(scale_features(noisy))]
    alone = evaluate(y, kmeans_labels(coreg_embedding([K[1]], 3), 3, seed=0))["acc"]
    both = evaluate(y, kmeans_labels(coreg_embedding(K, 3, lam=0.05), 3, seed=0))["acc"]
    assert both >= alone


def test_protocol_unsupervised_selection_uses_no_labels(easy, monkeypatch):
    views, y = easy
    res = run_protocol(
        views, y, runs=1, methods=("sc", "amgl", "swmc"), knn_grid=(5, 10), selection="unsupervised"
    )
    assert set(res.table["selected_by"]) == {
        "chosen without the ground truth (best silhouette of the embedding)",
        "fixed by the authors (k=10)",
    }
    # every way of choosing has its few words for the page's table (said in full once)
    from metrics_core.multiview import SELECTED_BY_SHORT
    from metrics_core.multiview._protocol import BY_TRUTH, FIXED_SSF

    assert set(res.table["selected_by"]) | {BY_TRUTH, FIXED_SSF} == set(SELECTED_BY_SHORT)
    with pytest.raises(ValueError, match="selection"):
        run_protocol(views, y, runs=1, methods=("sc",), selection="oracle")
    with pytest.raises(ValueError, match="unknown method"):
        run_protocol(views, y, runs=1, methods=("mvsc",))


@pytest.mark.parametrize(
    "methods", [None, ("ssf",), ("sc", "swmc"), ("sc_avg", "coreg_centroid", "sc_avg")]
)
def test_protocol_steps_counts_every_progress_report(easy, methods):
    """The Multi-view page's progress bar takes its total from ``protocol_steps``: it must be
    the number of reports the run makes, or the bar stops short of its end or runs past it."""
    from metrics_core.multiview import ALL_METHODS, protocol_steps

    views, y = easy
    said: list[str] = []
    run_protocol(views, y, runs=2, methods=methods or ALL_METHODS, knn_grid=(5,),
                 progress=said.append)  # fmt: skip
    assert len(said) == protocol_steps(2, len(views), methods or ALL_METHODS)


# ------------------------------------------------------------------------------ F-measure
def test_f_measure_is_the_papers_class_cluster_matching_f():
    # The paper's F-score: per class, the best F over clusters (harmonic mean of precision
    # n_ij / |cluster j| and recall n_ij / |class i|), weighted by class size. By hand on the
    # table [[3, 44, 3], [2, 4, 44]] (classes of 50; clusters of 5, 48, 47):
    #   class 0: max(6/55, 88/98, 6/97) = 88/98; class 1: max(4/55, 8/98, 88/97) = 88/97;
    #   F = (50 * 88/98 + 50 * 88/97) / 100.
    want = (88 / 98 + 88 / 97) / 2
    assert f_measure_score(contingency=[[3, 44, 3], [2, 4, 44]]) == pytest.approx(want, abs=1e-15)
    # ... which is not the pair-counting F1
    m = evaluate(contingency=[[3, 44, 3], [2, 4, 44]])
    assert abs(m["pair_f1"] - want) > 0.01


# ------------------------------------------------------------------------------ CLI
def test_cli_init_methods_and_selection(tmp_path, capsys):
    import json

    from metrics_core.cli import main as cli_main

    views, y = make_multiview(n_per_cluster=12, n_clusters=3, n_views=2, seed=0)
    d = tmp_path / "d"
    d.mkdir()
    for i, v in enumerate(views):
        np.savetxt(d / f"view{i}.csv", v, delimiter=",")
    np.savetxt(d / "labels.csv", y, fmt="%d")
    out = tmp_path / "o"
    base = ["multiview", "--data-dir", str(d), "--labels", str(d / "labels.csv"), "--runs", "1",
            "--knn-grid", "5", "--max-iter", "3", "--out", str(out)]  # fmt: skip
    code = cli_main([*base, "--init", "ridge", "--methods", "ssf,amgl,coreg_pairwise",
                     "--selection", "unsupervised"])  # fmt: skip
    assert code == 0
    meta = json.loads((out / "run.json").read_text())
    assert meta["ssf_params"]["init"] == "ridge" and meta["selection"] == "unsupervised"
    assert meta["methods"] == ["ssf", "amgl", "coreg_pairwise"]
    assert (out / "notes.txt").is_file()
    printed = capsys.readouterr().out
    assert "AMGL" in printed and "Co-reg (pairwise)" in printed and "note:" in printed
    assert cli_main([*base, "--methods", "ssf,mvsc"]) == 2
    assert "unknown method" in capsys.readouterr().err


def test_protocol_convergence_record_carries_the_xi_search():
    views, y = make_multiview(n_per_cluster=40, n_clusters=4, seed=0)
    res = run_protocol(views, y, runs=1, methods=("ssf",), ssf_params={"xi_init": 1e6})
    conv = res.convergence
    assert {"xi", "xi_steps", "n_components", "smallest_component", "guard_fired"} <= set(conv)
    assert conv["guard_fired"].any() and (conv.loc[conv.iteration > 0, "n_components"] == 4).all()
