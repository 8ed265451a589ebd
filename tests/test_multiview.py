"""Tests of the multi-view package (SSF, simplex projection, baselines, protocol, CLI)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from scipy.optimize import minimize

from metrics_core import evaluate
from metrics_core.cli import main as cli_main
from metrics_core.datasets import make_multiview
from metrics_core.multiview import (
    METRIC_KEYS,
    _ssf,
    latex_table,
    load_hw,
    project_simplex,
    run_protocol,
    scale_features,
    spectral_clustering,
    ssf_fit,
    summarise,
)
from metrics_core.multiview._baselines import knn_graph


@pytest.fixture(scope="module")
def synth():
    views, y = make_multiview(n_per_cluster=25, n_clusters=4, n_views=3, noise=0.3, seed=3)
    return views, y


@pytest.fixture(scope="module")
def fitted(synth):
    views, _ = synth
    return ssf_fit(views, 4, alpha=10.0, beta=1e-3, gamma=6.0, max_iter=15, tol=1e-9)


# --- simplex projection -------------------------------------------------------------------


def _bisection_projection(v: np.ndarray) -> np.ndarray:
    """Sort-free oracle: bisection on tau in sum(max(v - tau, 0)) = 1."""
    lo, hi = v.min() - 1.0, v.max()
    for _ in range(200):
        mid = (lo + hi) / 2
        if np.maximum(v - mid, 0).sum() > 1:
            lo = mid
        else:
            hi = mid
    return np.maximum(v - (lo + hi) / 2, 0)


@pytest.mark.parametrize("scale", [0.01, 0.3, 3.0])
def test_simplex_projection_matches_bisection(scale):
    rng = np.random.default_rng(0)
    V = rng.normal(size=(40, 25)) * scale
    P = project_simplex(V, axis=0)
    ref = np.column_stack([_bisection_projection(V[:, j]) for j in range(V.shape[1])])
    np.testing.assert_allclose(P, ref, atol=1e-10)
    np.testing.assert_allclose(P.sum(axis=0), 1.0)
    assert (P >= 0).all()


def test_simplex_projection_matches_qp():
    rng = np.random.default_rng(1)
    cons = {"type": "eq", "fun": lambda s: s.sum() - 1}
    for _ in range(5):
        v = rng.normal(size=6)
        qp = minimize(
            lambda s, v=v: np.sum((s - v) ** 2),
            np.full(6, 1 / 6),
            method="SLSQP",
            bounds=[(0, None)] * 6,
            constraints=[cons],
            options={"ftol": 1e-14},
        )
        np.testing.assert_allclose(project_simplex(v), qp.x, atol=1e-6)


def test_simplex_partial_sort_path_equals_full_sort():
    rng = np.random.default_rng(2)
    V = rng.normal(size=(600, 30)) * np.array([0.001, 0.05, 1.0])[np.arange(30) % 3]
    fast = _ssf.project_simplex(V)
    full = np.column_stack([_bisection_projection(V[:, j]) for j in range(V.shape[1])])
    np.testing.assert_allclose(fast, full, atol=1e-10)


def test_simplex_rows_and_diagonal_exclusion():
    rng = np.random.default_rng(3)
    V = rng.normal(size=(7, 7))
    P = project_simplex(V, axis=1, exclude_diagonal=True)
    assert np.all(np.diag(P) == 0)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    off = ~np.eye(7, dtype=bool)
    np.testing.assert_allclose(P[0, off[0]], _bisection_projection(V[0, off[0]]), atol=1e-10)


# --- model pieces ---------------------------------------------------------------------------


@pytest.mark.parametrize("d", [5, 40])  # d < N: Woodbury (dual) form; d >= N: primal form
def test_z_update_matches_columnwise_solve(d):
    rng = np.random.default_rng(4)
    n, k, alpha, beta = 30, 3, 2.0, 0.7
    V = rng.normal(size=(n, d))  # points as rows; paper's X = V.T
    F = np.linalg.qr(rng.normal(size=(n, k)))[0]
    Z = _ssf._RidgeView(V, alpha).z_update(F, beta)
    X = V.T
    inv = np.linalg.inv(X.T @ X + alpha * np.eye(n))
    ref = np.empty((n, n))
    for i in range(n):
        k_i = np.sum((F - F[i]) ** 2, axis=1)
        ref[:, i] = inv @ (X.T @ X[:, i] - beta / 4 * k_i)
    np.fill_diagonal(ref, 0)
    np.testing.assert_allclose(Z, np.maximum(ref, 0), atol=1e-9)


def test_scale_features_range():
    X = np.random.default_rng(5).normal(size=(20, 4)) * [1, 10, 100, 0]
    Y = scale_features(X)
    np.testing.assert_allclose(Y[:, :3].min(axis=0), -1)
    np.testing.assert_allclose(Y[:, :3].max(axis=0), 1)
    assert np.all(Y[:, 3] == 0)


def test_xi_direction_more_components_with_larger_xi(synth):
    """The documented direction: a stronger rank penalty cuts more edges."""
    views, _ = synth
    Xs = [scale_features(v) for v in views]
    Fs = [_ssf._top_eigvecs(_ssf._RidgeView(x, 10.0).G, 4)[1] for x in Xs]
    w = np.full(3, 1 / 3)
    _, F0, *_ = _ssf._update_s(Fs, w, 6.0, 4, None, 0.0, 1)
    counts = [_ssf._update_s(Fs, w, 6.0, 4, F0, xi, 1)[3] for xi in (1e-3, 1e-1, 10.0, 1e3)]
    assert counts == sorted(counts)
    assert counts[-1] > counts[0]


# --- SSF end to end -------------------------------------------------------------------------


def test_ssf_recovers_clusters_no_single_view_does(synth, fitted):
    views, y = synth
    assert fitted.n_components == 4
    assert evaluate(y, fitted.labels)["acc"] >= 0.95
    # every view merges two clusters, so a single view cannot reach that accuracy
    for v in views:
        pred = spectral_clustering(knn_graph(scale_features(v), 10), 4, seed=0)
        assert evaluate(y, pred)["acc"] < 0.9


def test_ssf_labels_are_components_of_symmetric_s(fitted):
    S = fitted.S
    np.testing.assert_allclose(S, S.T)
    assert (S >= 0).all() and np.all(np.diag(S) == 0)
    n_comp, comp = _ssf._components(S)
    assert n_comp == fitted.n_components
    assert evaluate(comp, fitted.labels)["acc"] == 1.0


def test_weights_positive_and_as_defined(fitted):
    w = fitted.weights
    assert (w > 0).all()
    for wv, Fv in zip(w, fitted.F_views, strict=True):
        direct = 1.0 / (2.0 * np.linalg.norm(fitted.S - 6.0 * Fv @ Fv.T))
        assert wv == pytest.approx(direct, rel=1e-9)


def test_objective_non_increasing(fitted):
    obj = np.asarray(fitted.objective)
    assert obj.size == fitted.n_iter + 1
    assert np.all(np.diff(obj) <= 1e-8 * np.abs(obj[:-1]))


def test_ssf_on_dense_sizes_is_the_same_fit_whatever_the_seed(synth):
    """Up to 500 points every eigenproblem is dense LAPACK (no start vector): the fit is the
    same bit for bit, which is what lets the protocol fit once for all its runs."""
    views, _ = synth
    assert not _ssf.seed_matters(views[0].shape[0], 4)
    a = ssf_fit(views, 4, max_iter=4, seed=0)
    b = ssf_fit(views, 4, max_iter=4, seed=12345)
    np.testing.assert_array_equal(a.labels, b.labels)
    np.testing.assert_array_equal(a.S, b.S)
    np.testing.assert_array_equal(a.weights, b.weights)
    assert a.objective == b.objective and a.xi_history == b.xi_history


@pytest.mark.parametrize("depends", [False, True])
def test_protocol_fits_ssf_once_when_the_seed_cannot_matter(synth, monkeypatch, depends):
    import metrics_core.multiview._protocol as protocol

    views, y = synth
    calls: list[int] = []

    def counted(*args, seed, **kw):
        calls.append(seed)
        return ssf_fit(*args, seed=seed, **kw)

    monkeypatch.setattr(protocol, "ssf_fit", counted)
    if depends:  # as on more than 500 points
        monkeypatch.setattr(protocol, "seed_matters", lambda n, k: True)
    res = run_protocol(views, y, runs=3, seeds=[4, 5, 6], methods=["ssf"],
                       ssf_params={"max_iter": 3})  # fmt: skip
    assert calls == ([4, 5, 6] if depends else [4])
    Xs = [scale_features(v) for v in views]
    params = {**_ssf.DEFAULT_SSF, "max_iter": 3}
    alone = [ssf_fit(Xs, 4, seed=s, scale=False, **params) for s in (4, 5, 6)]
    assert list(res.runs["seed"]) == [4, 5, 6]
    for (_, row), fit in zip(res.runs.iterrows(), alone, strict=True):
        assert row["acc"] == evaluate(y, fit.labels)["acc"]
    note = next(n for n in res.notes if n.startswith("SSF"))
    assert ("fitted once" in note) is (not depends)


def test_ssf_rejects_bad_views():
    with pytest.raises(ValueError):
        ssf_fit([np.zeros((5, 2)), np.zeros((6, 2))], 2)


# --- protocol and tables ---------------------------------------------------------------------


def test_protocol_table_and_latex(synth, tmp_path):
    views, y = synth
    res = run_protocol(
        views, y, runs=2, seeds=[11, 12], knn_grid=(5, 10), ssf_params={"max_iter": 3}
    )
    assert set(res.runs["seed"]) == {11, 12}
    assert list(res.table.index) == [
        "SSF", "SC_1", "SC_2", "SC_3", "SC_avg", "SC_concat", "AMGL", "SwMC",
        "Co-reg (pairwise)", "Co-reg (centroid)",
    ]  # fmt: skip
    for k in METRIC_KEYS:
        assert {f"{k}_mean", f"{k}_std"} <= set(res.table.columns)
    # every baseline says how its setting was chosen, in the table and in the notes
    assert res.table.loc["AMGL", "selected_by"].startswith("chosen by the best mean ACC against")
    assert any("Kumar, Rai & Daumé" in n for n in res.notes)
    path = res.to_csv(tmp_path / "t.csv")
    back = pd.read_csv(path, index_col=0)
    cols = [c for c in res.table.columns if c.endswith(("_mean", "_std"))]
    np.testing.assert_allclose(back[cols].values, res.table[cols].values, atol=1e-6)
    assert not res.convergence.empty and not res.weights.empty


def test_latex_booktabs_and_bold_best():
    runs = pd.DataFrame(
        {
            "method": ["A", "A", "B_x", "B_x"],
            **{k: [0.2, 0.4, 0.5, 0.5] for k in METRIC_KEYS},
        }
    )
    runs.loc[runs.method == "A", "nmi"] = [0.9, 0.9]
    tex = latex_table(summarise(runs))
    assert tex.count("{") == tex.count("}")
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert tex.count(rule) == 1
    rows = {line.split(" & ")[0]: line for line in tex.splitlines() if " & " in line}
    assert r"\textbf{0.9000 $\pm$ 0.0000}" in rows["A"]  # best NMI
    assert rows["B\\_x"].count(r"\textbf") == len(METRIC_KEYS) - 1  # best elsewhere
    assert rows["A"].count(r"\textbf") == 1


# --- data and CLI -----------------------------------------------------------------------------


def test_load_hw_shapes():
    views, y, names = load_hw()
    assert names == ["fou", "fac", "kar", "pix", "zer", "mor"]
    assert [v.shape[1] for v in views] == [76, 216, 64, 240, 47, 6]
    assert all(v.shape[0] == 2000 for v in views)
    assert np.bincount(y).tolist() == [200] * 10


def _write_views(folder, views, y):
    folder.mkdir()
    for i, v in enumerate(views):
        np.save(folder / f"view{i}.npy", v)
    np.savetxt(folder / "labels.csv", y, fmt="%d")


def test_cli_runs_and_writes_tables(tmp_path, capsys):
    views, y = make_multiview(n_per_cluster=10, n_clusters=3, n_views=2, seed=0)
    _write_views(tmp_path / "d", views, y)
    out = tmp_path / "out"
    code = cli_main(
        [
            "multiview",
            "--data-dir",
            str(tmp_path / "d"),
            "--labels",
            str(tmp_path / "d" / "labels.csv"),
            "--runs",
            "2",
            "--knn-grid",
            "5",
            "--max-iter",
            "3",
            "--out",
            str(out),
        ]
    )
    assert code == 0
    for name in (
        "table.csv",
        "table.tex",
        "runs.csv",
        "convergence.csv",
        "weights.json",
        "run.json",
    ):
        assert (out / name).is_file()
    assert "SSF" in capsys.readouterr().out


def test_cli_bad_input_exit_codes(tmp_path, capsys):
    views, y = make_multiview(n_per_cluster=5, n_clusters=2, n_views=2, seed=0)
    _write_views(tmp_path / "d", views, y)
    base = ["multiview", "--runs", "1", "--out", str(tmp_path / "o")]
    assert cli_main([*base, "--data-dir", str(tmp_path / "nope"), "--labels", "x"]) == 2
    assert cli_main([*base, "--data-dir", str(tmp_path / "d")]) == 2  # no labels
    np.save(tmp_path / "d" / "view9.npy", np.zeros((3, 2)))  # wrong row count
    assert (
        cli_main(
            [
                *base,
                "--data-dir",
                str(tmp_path / "d"),
                "--labels",
                str(tmp_path / "d" / "labels.csv"),
            ]
        )
        == 2
    )
    err = capsys.readouterr().err
    assert "view9.npy" in err and "Traceback" not in err
    with pytest.raises(SystemExit) as exc:  # argparse: neither --data-dir nor --dataset
        cli_main(["multiview"])
    assert exc.value.code == 2
