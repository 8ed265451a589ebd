"""Sweeps: grids, the SRE–CONN trade-off on synthetic subspaces, bundles, the CLI."""

from __future__ import annotations

import io
import zipfile

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from scipy.stats import spearmanr

from metrics_core.cli import main
from metrics_core.datasets import union_of_subspaces
from metrics_core.models import ssc_omp
from metrics_core.sweep import parse_grid, run_sweep, score_bundle
from metrics_core.sweep._bundle import BundleLimits, load_bundle
from metrics_core.validation._errors import ClustlensInputError

# --------------------------------------------------------------------------------------------
# grids


def test_parse_grid_linear_log_list_and_product():
    assert parse_grid("lambda=0.05:0.95:10").values("lambda") == tuple(
        round(v, 2) for v in np.linspace(0.05, 0.95, 10)
    )
    assert parse_grid("gamma=1e-2:1e2:9:log").values("gamma")[::2] == (0.01, 0.1, 1.0, 10.0, 100.0)
    g = parse_grid(["k=5,10", "metric=cosine,euclidean"])
    assert len(g) == 4 and g.settings()[1] == {"k": 5, "metric": "euclidean"}
    assert g.log == {"k": False, "metric": False}
    assert parse_grid("gamma=1:100:3:log").log["gamma"] is True
    assert parse_grid({"k": [1, 2]}).settings() == [{"k": 1}, {"k": 2}]
    assert parse_grid("x=7").values("x") == (7,)


@pytest.mark.parametrize(
    "bad",
    [
        "lambda",
        "lambda=",
        "lambda=0:1",
        "lambda=0:1:0",
        "lambda=0:1:2.5",
        "g=0:1:3:log",
        "g=1:2:3:cubic",
        "k=1,1",
        "k=1;k=2",
        "=3",
        "k=1,,2",
    ],
)
def test_parse_grid_rejects_bad_specs(bad):
    with pytest.raises(ClustlensInputError):
        parse_grid(bad)


# --------------------------------------------------------------------------------------------
# the trade-off


@pytest.fixture(scope="module")
def dependent():
    # 5 subspaces of dimension 3 in R^9: dependent, noisy — where sparse and dense codes differ.
    return union_of_subspaces(9, 3, 5, 40, noise=0.05, seed=0)


@pytest.fixture(scope="module")
def ensc_sweep(dependent):
    X, y = dependent
    return run_sweep(X, y, "ensc", "lambda=0.05:0.95:6; gamma=50")


def test_ensc_sweep_sre_and_conn_rise_with_the_l2_weight(ensc_sweep):
    l2 = 1.0 - ensc_sweep.column("lambda")
    for metric in ("sre", "conn_min", "conn_mean"):
        rho = spearmanr(l2, ensc_sweep.column(metric))[0]
        assert rho > 0.8, (metric, rho)
    assert ensc_sweep.column("sparsity")[0] > ensc_sweep.column("sparsity")[-1]


def test_omp_and_lsr_sit_at_the_two_ends(dependent, ensc_sweep):
    X, y = dependent
    omp = run_sweep(X, y, "ssc_omp", "k=3")
    lsr = run_sweep(X, y, "lsr", "lambda=0.1,1,10")
    ens_sre, ens_conn = ensc_sweep.column("sre"), ensc_sweep.column("conn_min")
    # SSC-OMP: the sparse, low-SRE / low-CONN corner.
    assert omp.column("conn_min").max() <= ens_conn.min()
    assert omp.column("sre").max() < ens_sre.max() < lsr.column("sre").min()
    # LSR: the dense, high-CONN end.
    assert lsr.column("conn_min").min() > ens_conn.max()
    assert lsr.column("conn_mean").min() > ensc_sweep.column("conn_mean").max()


def test_run_sweep_progress_stop_determinism_and_csv(tmp_path):
    X, y = union_of_subspaces(10, 2, 3, 15, noise=0.05, seed=1)
    calls = []

    def progress(i, n, elapsed, remaining, row):
        calls.append((i, n, row["lambda"]))
        assert elapsed >= 0 and remaining >= 0

    full = run_sweep(X, y, "lsr", "lambda=1e-2:1e1:4:log", on_progress=progress, seed=3)
    assert [c[:2] for c in calls] == [(1, 4), (2, 4), (3, 4), (4, 4)]
    assert full.log_params == {"lambda": True} and not full.stopped
    again = run_sweep(X, y, "lsr", "lambda=1e-2:1e1:4:log", seed=3)
    for a, b in zip(full.rows, again.rows, strict=True):
        assert {k: v for k, v in a.items() if not k.startswith("seconds")} == {
            k: v for k, v in b.items() if not k.startswith("seconds")
        }
    stops = iter([False, False, True])
    part = run_sweep(X, y, "lsr", "lambda=1e-2:1e1:4:log", should_stop=lambda: next(stops))
    assert part.stopped and len(part.rows) == 2 and part.n_settings == 4
    text = full.to_csv()
    header = text.splitlines()[0].split(",")
    assert header[:2] == ["setting", "lambda"] and {"acc", "sre", "conn_min", "sparsity"} <= set(
        header
    )
    assert len(text.splitlines()) == 5
    assert full.best("acc") is not None and full.best("sre") is not None


def test_run_sweep_rejects_bad_input():
    X, y = union_of_subspaces(6, 2, 2, 5, seed=0)
    with pytest.raises(ClustlensInputError, match="unknown parameter"):
        run_sweep(X, y, "lsr", "k=1,2")
    with pytest.raises(ClustlensInputError, match="labels"):
        run_sweep(X, y[:-1], "lsr", "lambda=1")
    with pytest.raises(ClustlensInputError, match="outside"):
        run_sweep(X, y, "ensc", "lambda=0.5,2")


# --------------------------------------------------------------------------------------------
# bundles


@pytest.fixture(scope="module")
def small():
    X, y = union_of_subspaces(10, 2, 3, 12, noise=0.05, seed=4)
    coefs = [ssc_omp(X, k).coef for k in (2, 3, 4)]
    return X, y, coefs


def _npz(m) -> bytes:
    buf = io.BytesIO()
    sp.save_npz(buf, sp.csr_array(m))
    return buf.getvalue()


def _npy(m) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.asarray(m.toarray() if sp.issparse(m) else m))
    return buf.getvalue()


def _zip(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in members.items():
            zf.writestr(name, data)
    return buf.getvalue()


def test_zip_bundle_round_trip_with_predictions(small):
    X, y, coefs = small
    manifest = "file,k,pred\nc2.npz,2,\nsub/c3.npy,3,p3.txt\nc4.npz,4,\n"
    data = _zip(
        {
            "params.csv": manifest.encode(),
            "c2.npz": _npz(coefs[0]),
            "sub/c3.npy": _npy(coefs[1]),
            "p3.txt": "\n".join(map(str, y)).encode(),
            "c4.npz": _npz(coefs[2]),
        }
    )
    b = load_bundle(data, name="sweep.zip")
    assert b.errors == [] and b.kind == "zip" and b.param_names == ("k",)
    assert [s.params["k"] for s in b.settings] == [2, 3, 4]
    np.testing.assert_allclose(b.settings[1].coef, coefs[1].toarray())
    res = score_bundle(b, y)
    direct = run_sweep(X, y, "ssc_omp", "k=2,3,4")
    assert res.rows[1]["acc"] == 1.0  # given predictions are the truth
    for r, d in zip(res.rows, direct.rows, strict=True):
        assert r["sre"] == pytest.approx(d["sre"], abs=1e-12)
        assert r["conn_min"] == pytest.approx(d["conn_min"], abs=1e-9)
    assert res.rows[0]["acc"] == pytest.approx(direct.rows[0]["acc"])


def test_zip_in_a_top_folder_and_saved_sweep_dir_round_trip(small, tmp_path):
    X, y, _ = small
    res = run_sweep(X, y, "ssc_omp", "k=2,3", save_coef_dir=tmp_path / "out")
    b = load_bundle(tmp_path / "out")
    assert b.kind == "dir" and not b.errors and len(b.settings) == 2
    members = {f"run/{p.name}": p.read_bytes() for p in (tmp_path / "out").iterdir()}
    bz = load_bundle(_zip(members), name="run.zip")
    again = score_bundle(bz, y)
    for a, r in zip(again.rows, res.rows, strict=True):
        assert a["acc"] == r["acc"] and a["sre"] == pytest.approx(r["sre"], abs=1e-12)


def test_zip_bundle_bad_entries_are_named_and_good_ones_load(small):
    X, y, coefs = small
    big = ssc_omp(np.vstack([X, X[:3]]), 2).coef  # 39 x 39 among 36 x 36
    manifest = (
        "file,k\n"
        "good.npz,2\n"
        "missing.npz,3\n"
        "wrong_size.npz,4\n"
        "garbage.npz,5\n"
        "novalue.npz,\n"
        "good2.npz,6\n"
    )
    data = _zip(
        {
            "params.csv": manifest.encode(),
            "good.npz": _npz(coefs[0]),
            "wrong_size.npz": _npz(big),
            "garbage.npz": b"not a matrix at all",
            "novalue.npz": _npz(coefs[1]),
            "good2.npz": _npz(coefs[2]),
        }
    )
    b = load_bundle(data, name="sweep.zip")
    assert [s.name for s in b.settings] == ["good.npz", "good2.npz"]
    messages = "\n".join(map(str, b.errors))
    for entry in ("missing.npz", "wrong_size.npz", "garbage.npz", "novalue.npz"):
        assert entry in messages
    assert "no such file" in messages and "39 x 39" in messages and "parameter 'k'" in messages
    res = score_bundle(b, y)
    assert len(res.rows) == 2 and len(res.errors) == 4
    # With the expected N given, the check is against the labels.
    b2 = load_bundle(data, name="sweep.zip", n_samples=39)
    assert [s.name for s in b2.settings] == ["wrong_size.npz"]


@pytest.mark.parametrize(
    ("members", "message"),
    [
        ({"data.csv": b"x"}, "no params.csv"),
        ({"params.csv": b"name,k\na,1\n"}, "no 'file' column"),
        ({"params.csv": b"file,k\n", "../evil.npz": b"x"}, "unsafe member name"),
        ({"params.csv": b"file,k\n", "/abs.npz": b"x"}, "unsafe member name"),
    ],
)
def test_zip_bundle_whole_bundle_errors(members, message):
    with pytest.raises(ClustlensInputError, match=message):
        load_bundle(_zip(members), name="b.zip")


def test_zip_safety_limits_and_traversal_in_manifest(small):
    _, _, coefs = small
    many = {"params.csv": b"file,k\n", **{f"m{i}.txt": b"" for i in range(6)}}
    with pytest.raises(ClustlensInputError, match="members"):
        load_bundle(_zip(many), name="b.zip", limits=BundleLimits(max_members=5))
    bomb = {"params.csv": b"file,k\n", "z.npy": b"\0" * (3 * 2**20)}
    with pytest.raises(ClustlensInputError, match="zip bomb"):
        load_bundle(_zip(bomb), name="b.zip")
    with pytest.raises(ClustlensInputError, match="declare"):
        load_bundle(_zip(bomb), name="b.zip", limits=BundleLimits(max_member_bytes=1000))
    data = _zip({"params.csv": b"file,k\n../c.npz,1\nc.npz,2\n", "c.npz": _npz(coefs[0])})
    b = load_bundle(data, name="b.zip")
    assert len(b.settings) == 1 and "unsafe file name" in str(b.errors[0])


def test_mat_bundle_one_and_two_parameters(small, tmp_path):
    _, y, coefs = small
    cell = np.empty((1, 3), dtype=object)
    for i, c in enumerate(coefs):
        cell[0, i] = c.tocsc() if i != 1 else c.toarray()
    buf = io.BytesIO()
    scipy.io.savemat(buf, {"C": cell, "k": np.array([[2.0, 3.0, 4.0]])})
    b = load_bundle(buf.getvalue(), name="sweep.mat")
    assert b.kind == "mat" and not b.errors and b.param_names == ("k",)
    assert [s.params["k"] for s in b.settings] == [2, 3, 4]
    np.testing.assert_allclose(b.settings[2].coef.toarray(), coefs[2].toarray())
    assert len(score_bundle(b, y).rows) == 3

    grid = np.empty((2, 2), dtype=object)
    grid[0, 0], grid[1, 0], grid[0, 1] = coefs[0].toarray(), coefs[1].toarray(), coefs[2].toarray()
    grid[1, 1] = np.ones((5, 5))  # wrong size: reported, the other three load
    buf = io.BytesIO()
    scipy.io.savemat(
        buf, {"Cs": grid, "lambda": np.array([0.1, 0.2]), "gamma": np.array([[5, 50]])}
    )
    b = load_bundle(buf.getvalue(), name="grid.mat")
    assert b.param_names == ("lambda", "gamma") and len(b.settings) == 3
    assert b.settings[1].params == {"lambda": 0.2, "gamma": 5}
    assert len(b.errors) == 1 and "Cs{4}" in str(b.errors[0]) and "5 x 5" in str(b.errors[0])

    buf = io.BytesIO()
    scipy.io.savemat(buf, {"C": cell, "k": np.array([1.0, 2.0])})
    with pytest.raises(ClustlensInputError, match="parameter vector"):
        load_bundle(buf.getvalue(), name="bad.mat")


def test_results_only_csv_bundle():
    text = (
        b"lambda,gamma,acc,nmi,sre,conn_min\n"
        b"0.1,5,0.9,0.8,0.05,0.01\n0.5,5,x,0.7,0.1,0.2\n0.9,5,0.7,0.6,0.2,0.3\n"
    )
    b = load_bundle(text, name="results.csv")
    assert b.kind == "csv" and b.param_names == ("lambda", "gamma")
    assert len(b.settings) == 2 and "row 3" in str(b.errors[0]) and "'acc'" in str(b.errors[0])
    res = score_bundle(b)  # no labels needed
    assert [r["acc"] for r in res.rows] == [0.9, 0.7]
    with pytest.raises(ClustlensInputError, match="metric columns"):
        load_bundle(b"lambda,foo\n1,2\n", name="r.csv")


# --------------------------------------------------------------------------------------------
# CLI


def test_cli_sweep_exit_codes(tmp_path, small, capsys):
    _, y, coefs = small
    out = tmp_path / "s.csv"
    args = [
        "sweep",
        "--data",
        "synthetic",
        "--points-per-subspace",
        "10",
        "--ambient-dim",
        "12",
        "--subspace-dim",
        "2",
        "--n-subspaces",
        "3",
        "--model",
        "ssc_omp",
        "--grid",
        "k=2,3",
        "--out",
        str(out),
    ]
    assert main(args) == 0
    assert out.read_text().splitlines()[0].startswith("setting,k,")
    assert "[2/2]" in capsys.readouterr().err
    assert main(["sweep", "--data", "synthetic", "--model", "lsr", "--grid", "lambda=a:b:c"]) == 2
    assert "grid" in capsys.readouterr().err
    assert (
        main(
            [
                "sweep",
                "--data",
                str(tmp_path / "nope.npy"),
                "--labels",
                "y",
                "--model",
                "lsr",
                "--grid",
                "lambda=1",
            ]
        )
        == 2
    )
    np.save(tmp_path / "X.npy", np.ones((4, 3)))
    assert (
        main(["sweep", "--data", str(tmp_path / "X.npy"), "--model", "lsr", "--grid", "lambda=1"])
        == 2
    )
    assert "--labels" in capsys.readouterr().err

    (tmp_path / "y.txt").write_text("\n".join(map(str, y)))
    bundle = tmp_path / "b.zip"
    bundle.write_bytes(
        _zip({"params.csv": b"file,k\nc.npz,2\nmissing.npz,3\n", "c.npz": _npz(coefs[0])})
    )
    assert (
        main(
            [
                "sweep",
                "--bundle",
                str(bundle),
                "--labels",
                str(tmp_path / "y.txt"),
                "--out",
                str(out),
                "--quiet",
            ]
        )
        == 0
    )
    assert "missing.npz" in capsys.readouterr().err
    assert len(out.read_text().splitlines()) == 2
    assert (
        main(["sweep", "--bundle", str(tmp_path / "y.txt"), "--labels", str(tmp_path / "y.txt")])
        == 2
    )


def test_multiview_sensitivity_grid_loads_as_a_results_only_sweep() -> None:
    """`clustlens multiview --sensitivity` writes a table the Sweep view reads as a 2-D grid."""
    from metrics_core.sweep._bundle import load_bundle

    rows = ["alpha,beta,gamma,acc,nmi,purity,f_measure,pair_f1,ari,n_components,n_iter,seconds"]
    for b in (1e-4, 1e-3, 1e-2):
        for g in (4, 6, 8, 10):
            rows.append(f"10.0,{b},{g},0.9,0.8,0.9,0.9,0.85,0.8,10,5,1.0")
    bundle = load_bundle(("\n".join(rows) + "\n").encode(), name="sensitivity.csv")
    assert bundle.param_names == ("alpha", "beta", "gamma")
    assert len(bundle.settings) == 12 and not bundle.errors
    assert set(bundle.settings[0].metrics) >= {"acc", "nmi", "purity", "ari"}
