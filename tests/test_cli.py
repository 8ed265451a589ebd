"""The ``clustlens`` console script: output formats and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

import metrics_core as mc
from metrics_core.cli import main


@pytest.fixture()
def files(tmp_path: Path) -> dict[str, Path]:
    rng = np.random.default_rng(0)
    t = np.repeat(np.arange(3), 20)
    p = np.where(rng.random(60) < 0.8, t, rng.integers(0, 4, 60))
    c = sp.random(60, 60, density=0.1, random_state=0, format="csr")
    out = {
        "true": tmp_path / "gnd.txt",
        "pred": tmp_path / "pred.npy",
        "coef": tmp_path / "C.npz",
        "table": tmp_path / "counts.csv",
    }
    np.savetxt(out["true"], t, fmt="%d")
    np.save(out["pred"], p)
    sp.save_npz(out["coef"], c)
    out["table"].write_text("class,cluster,count\na,x,3\na,y,44\na,z,3\nb,x,2\nb,y,4\nb,z,44\n")
    return out


def test_evaluate_json_has_exactly_the_evaluate_keys(files, capsys) -> None:
    assert (
        main(["evaluate", "--true", str(files["true"]), "--pred", str(files["pred"]), "--json"])
        == 0
    )
    got = json.loads(capsys.readouterr().out)
    inputs = got.pop("inputs")
    t = np.loadtxt(files["true"], dtype=int)
    p = np.load(files["pred"])
    assert got == pytest.approx(mc.evaluate(t, p))
    # every input named: role, file, variable, shape
    assert [i["role"] for i in inputs] == ["ground truth", "prediction"]
    assert inputs[0]["file"] == str(files["true"]) and inputs[0]["shape"] == [len(t)]


def test_evaluate_with_coef_and_table_output(files, capsys) -> None:
    code = main(
        [
            "evaluate",
            "--true",
            str(files["true"]),
            "--pred",
            str(files["pred"]),
            "--coef",
            str(files["coef"]),
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "accuracy (ACC)" in out and "(sre)" in out and "(conn_min)" in out


def test_evaluate_columns_orientation_equals_transpose(files, tmp_path, capsys) -> None:
    c = sp.load_npz(files["coef"])
    sp.save_npz(tmp_path / "Ct.npz", c.T.tocsr())
    args = ["evaluate", "--true", str(files["true"]), "--pred", str(files["pred"]), "--json"]
    main([*args, "--coef", str(files["coef"])])
    rows = json.loads(capsys.readouterr().out)
    main([*args, "--coef", str(tmp_path / "Ct.npz"), "--coef-orientation", "columns"])
    cols = json.loads(capsys.readouterr().out)
    assert rows.pop("inputs")[-1]["orientation"] == "rows"
    assert cols.pop("inputs")[-1]["orientation"] == "columns"
    aff_rows, aff_cols = rows.pop("affinity"), cols.pop("affinity")
    assert rows == pytest.approx(cols)
    np.testing.assert_allclose(aff_rows["leakage"], aff_cols["leakage"], rtol=1e-12)
    assert aff_rows["sre_per_class"] == pytest.approx(aff_cols["sre_per_class"])


def test_evaluate_contingency_file(files, capsys) -> None:
    assert main(["evaluate", "--contingency", str(files["table"]), "--csv"]) == 0
    lines = dict(line.split(",", 1) for line in capsys.readouterr().out.splitlines()[1:])
    assert float(lines["acc"]) == pytest.approx(0.88)


@pytest.mark.parametrize(
    ("content", "fname", "fragment"),
    [
        (b"", "empty.txt", "empty"),
        (b"\x00\x01\x02garbage\xff" * 10, "junk.npy", "junk.npy"),
        (b"1\n2\nnan\n", "nan.txt", "nan.txt"),
        (b"1,2\n3\n", "ragged.csv", "ragged.csv"),
    ],
)
def test_bad_true_file_exits_2(files, tmp_path, capsys, content, fname, fragment) -> None:
    bad = tmp_path / fname
    bad.write_bytes(content)
    code = main(["evaluate", "--true", str(bad), "--pred", str(files["pred"])])
    err = capsys.readouterr().err
    assert code == 2
    assert fragment in err and "Traceback" not in err


def test_length_mismatch_exits_2(files, tmp_path, capsys) -> None:
    short = tmp_path / "short.txt"
    np.savetxt(short, np.arange(5), fmt="%d")
    assert main(["evaluate", "--true", str(short), "--pred", str(files["pred"])]) == 2
    assert "ground truth" in (err := capsys.readouterr().err) and "has 5" in err


def test_coef_size_mismatch_exits_2(files, tmp_path, capsys) -> None:
    sp.save_npz(tmp_path / "small.npz", sp.random(10, 10, density=0.3, format="csr"))
    code = main(
        [
            "evaluate",
            "--true",
            str(files["true"]),
            "--pred",
            str(files["pred"]),
            "--coef",
            str(tmp_path / "small.npz"),
        ]
    )
    assert code == 2
    assert "10 x 10" in capsys.readouterr().err


def test_missing_file_and_bad_usage_exit_2(files, capsys) -> None:
    assert main(["evaluate", "--true", "/no/such/file.txt", "--pred", str(files["pred"])]) == 2
    assert main(["evaluate", "--pred", str(files["pred"])]) == 2
    with pytest.raises(SystemExit) as exc:
        main(["evaluate", "--coef-orientation", "diagonal"])
    assert exc.value.code == 2


def test_console_script_runs_as_a_process(files) -> None:
    proc = subprocess.run(
        [
            sys.executable,
            "-m",
            "metrics_core.cli",
            "evaluate",
            "--true",
            str(files["true"]),
            "--pred",
            "/no/such.txt",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert "Traceback" not in proc.stderr and "such.txt" in proc.stderr


# --- every malformed or hostile file of the loader tests, through the console script --------
import io_fixtures as fx  # noqa: E402
from test_io import BAD_SPARSE, MALFORMED  # noqa: E402

from metrics_core.io import load_coef, load_labels, load_table  # noqa: E402

_FLAG = {load_labels: "--true", load_coef: "--coef", load_table: "--contingency"}
_BAD_FILES = [c for c in MALFORMED if c[3] is not None]


def _run_bad(files: dict[str, Path], flag: str, path: Path, capsys) -> tuple[int, str]:
    args = {
        "--true": ["evaluate", "--true", str(path), "--pred", str(files["pred"])],
        "--coef": [
            "evaluate",
            "--true",
            str(files["true"]),
            "--pred",
            str(files["pred"]),
            "--coef",
            str(path),
        ],
        "--contingency": ["evaluate", "--contingency", str(path)],
    }[flag]
    code = main(args)
    return code, capsys.readouterr().err


@pytest.mark.parametrize(
    ("fname", "data", "fn", "match"), _BAD_FILES, ids=[c[0] for c in _BAD_FILES]
)
def test_cli_exits_2_on_every_malformed_file(files, tmp_path, capsys, fname, data, fn, match):
    bad = tmp_path / fname
    bad.write_bytes(data)
    code, err = _run_bad(files, _FLAG[fn], bad, capsys)
    assert code == 2, err
    assert fname in err and "Traceback" not in err


@pytest.mark.parametrize(("label", "members", "match"), BAD_SPARSE, ids=[c[0] for c in BAD_SPARSE])
def test_cli_exits_2_on_every_bad_sparse_file(files, tmp_path, capsys, label, members, match):
    bad = tmp_path / "C.npz"
    bad.write_bytes(fx.raw_sparse_npz(**members))
    code, err = _run_bad(files, "--coef", bad, capsys)
    assert code == 2, err
    assert "C.npz" in err and "Traceback" not in err


@pytest.mark.parametrize(
    "make",
    [
        lambda p: fx.hdf5_external_link(p),
        lambda p: fx.hdf5_soft_link(p),
        lambda p: fx.hdf5_sparse_with_external_child(p),
        lambda p: fx.hdf5_huge_declared(p),
        lambda p: fx.mat73_sparse_bad(p, ir=[0, 1, 2, 40]),
        lambda p: p.write_bytes(fx.mat5_declaring_huge_dims()),
        lambda p: p.write_bytes(fx.mat5_sparse_bad_index()),
        lambda p: p.write_bytes(fx.pickled_object_npy()),
        lambda p: p.write_bytes(fx.npz_with_pickled_member()),
        lambda p: p.write_bytes(fx.zip_bomb_npz(3 * 2**30)),
        lambda p: p.write_bytes(fx.many_members_npz(100)),
    ],
    ids=[
        "hdf5-external-link",
        "hdf5-soft-link",
        "hdf5-external-child",
        "hdf5-huge",
        "mat73-bad-index",
        "mat5-huge-dims",
        "mat5-bad-index",
        "pickled-npy",
        "pickled-npz",
        "zip-bomb",
        "many-members",
    ],
)
def test_cli_exits_2_on_hostile_files(files, tmp_path, capsys, make):
    bad = tmp_path / "hostile.mat"
    make(bad)
    if bad.suffix == ".mat" and bad.read_bytes()[:6] in (b"\x93NUMPY", b"PK\x03\x04"[:6]):
        bad = bad.rename(bad.with_suffix(".npz" if bad.read_bytes()[:2] == b"PK" else ".npy"))
    code, err = _run_bad(files, "--coef", bad, capsys)
    assert code == 2, err
    assert bad.name in err and "Traceback" not in err
