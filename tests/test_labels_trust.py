"""Labels are never silently misread: 64-bit ids, missing values, the bool rule (issue: trust)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import metrics_core as mc
from metrics_core.validation import check_labels

BIG = 2**63  # the first id past int64: float64 merges BIG, BIG + 1, BIG + 2 into one value


def test_uint64_ids_past_int64_stay_distinct() -> None:
    ids = np.array([BIG, BIG + 1, BIG + 2, BIG + 2, 5, 5], dtype=np.uint64)
    pred = [1, 2, 3, 3, 3, 4]
    m = mc.evaluate(ids, pred)
    # classes {BIG}, {BIG+1}, {BIG+2: 2 pts}, {5: 2 pts}; clusters 1, 2, 3 (3 pts), 4.
    # best matching: BIG→1, BIG+1→2, BIG+2→3 (2), 5→4 (1): 5 of 6 correct.
    assert m["n_classes"] == 4
    assert m["acc"] == pytest.approx(5 / 6)
    assert mc.evaluate([int(v) for v in ids], pred) == m  # Python ints: same numbers


@pytest.mark.parametrize(
    ("values", "kind"),
    [
        ([BIG, BIG + 1, 7], "u"),  # past int64, all non-negative: uint64
        ([-1, 2, 3], "i"),
        ([-1, BIG], "U"),  # no 64-bit type holds both: exact decimal text
    ],
)
def test_integer_labels_keep_their_exact_value(values, kind) -> None:
    out = check_labels(values)
    assert out.dtype.kind == kind
    assert [int(v) for v in out.tolist()] == values


def test_cli_text_file_of_hash_ids_is_read_as_integers(tmp_path) -> None:
    truth = tmp_path / "truth.txt"
    pred = tmp_path / "pred.txt"
    truth.write_text("\n".join(str(v) for v in [BIG, BIG + 1, BIG + 2, BIG + 2, 5, 5]) + "\n")
    pred.write_text("1\n2\n3\n3\n3\n4\n")
    out = subprocess.run(
        [sys.executable, "-m", "dashboard.cli", "evaluate", "--true", str(truth), "--pred",
         str(pred), "--json"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    m = json.loads(out.stdout)
    assert m["n_classes"] == 4 and m["acc"] == pytest.approx(5 / 6)


def test_text_floats_too_large_to_be_exact_are_refused() -> None:
    from metrics_core.io import load_labels

    with pytest.raises(mc.ClustlensInputError, match=r"too large.*line 2"):
        load_labels(b"1\n9.2233720368547758e18\n", name="t.txt")


@pytest.mark.parametrize(
    ("labels", "marker"),
    [
        ([1, None, 2], "None"),
        ([1.0, float("nan"), 2.0], "NaN"),
        (np.array([1.0, np.nan]), "NaN"),
        (np.array(["2020-01-01", "NaT"], dtype="datetime64[D]"), "NaT"),
        (np.array([1, "NaT"], dtype="timedelta64[s]"), "NaT"),
        ([1, pd.NA], "pandas NA"),
        (pd.array([1, None], dtype="Int64"), "pandas NA"),
        (pd.Series([1.0, np.nan]), "NaN"),
        (np.array(["a", None], dtype=object), "None"),
    ],
)
def test_every_missing_value_is_refused_alike(labels, marker) -> None:
    with pytest.raises(mc.ClustlensInputError, match=rf"missing label \({marker}\).*index 1"):
        check_labels(labels)


def test_bool_is_the_integer_it_equals_whatever_else_is_present() -> None:
    assert len(set(check_labels([True, 1, 0, 0]).tolist())) == 2
    assert sorted(set(check_labels([True, 1, 0, "a"]).tolist())) == ["0", "1", "a"]
    assert check_labels(["x", True]).tolist() == ["x", "1"]
    # an all-bool vector keeps its two values
    assert check_labels([True, False, True]).tolist() == [True, False, True]


def test_noise_singletons_keep_label_type_and_never_collide() -> None:
    from metrics_core.partition._contingency import NoiseSingleton

    c = mc.contingency_table([0, 0, 1, 1], [5, 5, -1, -1], noise_policy="singletons")
    assert c.clusters.tolist() == [5, NoiseSingleton(2), NoiseSingleton(3)]  # 5 stays an int
    # a real label spelled like a generated name is a different cluster
    c = mc.contingency_table(
        [0, 0, 1, 1, 1, 2], ["a", "a", "noise:3", -1, -1, "b"], noise_policy="singletons"
    )
    assert "noise:3" in c.clusters.tolist() and NoiseSingleton(3) in c.clusters.tolist()
    assert c.n_clusters == 5
    m = mc.best_matching(contingency=c)
    mapping = m.mapping(c.classes, c.clusters)
    assert len(mapping) == len(m.class_index)  # one key per matched pair


def test_nothing_left_after_excluding_noise_is_refused(tmp_path) -> None:
    with pytest.raises(mc.ClustlensInputError, match="all 3 predicted labels are noise"):
        mc.evaluate([0, 1, 1], [-1, -1, -1], noise_policy="exclude")
    truth, pred = tmp_path / "t.txt", tmp_path / "p.txt"
    truth.write_text("0\n1\n1\n")
    pred.write_text("-1\n-1\n-1\n")
    out = subprocess.run(
        [sys.executable, "-m", "dashboard.cli", "evaluate", "--true", str(truth), "--pred",
         str(pred), "--noise-policy", "exclude"],
        capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert out.returncode == 2 and "noise" in out.stderr and "Traceback" not in out.stderr


def test_one_orientation_rule_for_mat_files_everywhere(tmp_path, capsys) -> None:
    """A MATLAB-layout .mat C (points as columns, plus a decoy variable) gives the same SRE in
    the library (columns), the CLI and the report, and every surface says what it used."""
    import scipy.io

    from dashboard.cli import main
    from metrics_core.io import default_orientation

    rng = np.random.default_rng(0)
    y = np.repeat([1, 2, 3], 10)
    c_cols = rng.random((30, 30)) * (rng.random((30, 30)) < 0.2)
    scipy.io.savemat(tmp_path / "C.mat", {"C": c_cols, "X": rng.random((5, 30))})
    np.savetxt(tmp_path / "y.txt", y, fmt="%d")
    expected = mc.subspace_preserving_error(c_cols, y, orientation="columns").value
    assert default_orientation("C.mat") == "columns"
    args = ["--true", str(tmp_path / "y.txt"), "--pred", str(tmp_path / "y.txt"),
            "--coef", str(tmp_path / "C.mat")]  # fmt: skip
    assert main(["evaluate", *args, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["sre"] == pytest.approx(expected, abs=1e-12)
    coef_info = out["inputs"][-1]
    assert coef_info["variable"] == "C" and coef_info["orientation"] == "columns"
    assert coef_info["shape"] == [30, 30]
    assert main(["report", *args, "--out", str(tmp_path / "r.html"), "--quiet"]) == 0
    html_text = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert "columns are points" in html_text and "variable C" in html_text
