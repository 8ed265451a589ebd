"""Files that parse but would give inf/NaN or crash a parser are refused with a message."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

import metrics_core as mc
from metrics_core.io import load_coef, load_data_matrix, load_labels


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "dashboard.cli", "evaluate", *args],
        capture_output=True,
        text=True,
        check=False,
    )


def test_csv_field_past_the_csv_limit_is_a_message(tmp_path) -> None:
    coef = tmp_path / "C.csv"
    coef.write_text("1,2\n3," + "4" * 200_000 + "\n")
    with pytest.raises(mc.ClustlensInputError, match=r"C\.csv: cannot be split.*line 2"):
        load_coef(str(coef))
    labels = tmp_path / "y.csv"
    labels.write_text('y,z\n"' + "a" * 200_000 + '",1\nb,2\n')
    with pytest.raises(mc.ClustlensInputError, match=r"cannot be split.*line 2"):
        load_labels(str(labels))


@pytest.mark.parametrize("fmt", ["npy", "csv"])
def test_coefficients_that_would_overflow_are_refused(tmp_path, fmt) -> None:
    c = np.full((3, 3), 1e308)
    path = tmp_path / f"C.{fmt}"
    if fmt == "npy":
        np.save(path, c)
    else:
        np.savetxt(path, c, delimiter=",")
    truth = tmp_path / "y.txt"
    truth.write_text("1\n1\n2\n")
    out = _cli("--true", str(truth), "--pred", str(truth), "--coef", str(path))
    assert out.returncode == 2
    assert "Traceback" not in out.stderr
    assert f"C.{fmt}: coefficient magnitude 1e+308 is too large" in out.stderr
    # the library refuses it too, whatever the source
    with pytest.raises(mc.ClustlensInputError, match="overflow"):
        mc.evaluate([1, 1, 2], [1, 1, 2], c)


def test_data_that_would_overflow_is_refused(tmp_path) -> None:
    path = tmp_path / "X.csv"
    np.savetxt(path, np.full((3, 4), 1e308), delimiter=",")
    with pytest.raises(mc.ClustlensInputError, match=r"X\.csv: data magnitude .* too large"):
        load_data_matrix(str(path))


def test_large_but_safe_values_still_load() -> None:
    c = np.full((3, 3), 1e300)
    # rows of the class-1 points: 1 of 3 equal entries off class; the class-2 point: 2 of 3
    assert mc.evaluate([1, 1, 2], [1, 1, 2], c)["sre"] == pytest.approx((1 + 1 + 2) / 9)
