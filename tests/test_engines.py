"""Engines count, clustlens scores: DuckDB, Spark and the in-memory reader against ``evaluate``.

The partition metrics must come out bit for bit equal to the in-memory path (integer counts,
same scoring code); SRE and CONN within 1e-12 relative (the engine adds the same floats in
another order). Every malformed table is refused with the file, the column and the row.
"""

from __future__ import annotations

import json
import math
import os
import shutil
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from metrics_core import ClustlensInputError, evaluate
from metrics_core.engines import evaluate_table

pytest.importorskip("duckdb")
pytest.importorskip("pyarrow")

AFFINITY_KEYS = ("sre", "sre_zero_rows", "conn_min", "conn_mean", "conn_skipped_singletons")


def _case(seed: int = 0, n: int = 600, k: int = 5, per_row: int = 8):
    rng = np.random.default_rng(seed)
    t = rng.integers(0, k, n)
    p = np.where(rng.random(n) < 0.8, t, rng.integers(-1, k + 1, n))
    nnz = per_row * n
    i = rng.integers(0, n, nnz)
    order = np.argsort(t, kind="stable")
    cnt = np.bincount(t, minlength=k)
    starts = np.concatenate([[0], np.cumsum(cnt)])
    same = order[starts[t[i]] + (rng.random(nnz) * cnt[t[i]]).astype(int)]
    j = np.where(rng.random(nnz) < 0.85, same, rng.integers(0, n, nnz))
    v = rng.standard_normal(nnz)
    return t, p, i, j, v


def _write(tmp_path, t, p, i, j, v, fmt: str, ids=None):
    labels = {"truth": t, "pred": p}
    if ids is not None:
        labels = {"id": ids, **labels}
    lf, ef = tmp_path / f"labels.{fmt}", tmp_path / f"edges.{fmt}"
    writer = "to_parquet" if fmt == "parquet" else "to_csv"
    kw = {} if fmt == "parquet" else {"index": False}
    getattr(pd.DataFrame(labels), writer)(lf, **kw)
    getattr(pd.DataFrame({"i": i, "j": j, "value": v}), writer)(ef, **kw)
    return str(lf), str(ef)


def _assert_same(ref: dict, got: dict) -> None:
    assert set(ref) == set(got)
    for key, want in ref.items():
        have = got[key]
        if key in AFFINITY_KEYS:
            assert have == pytest.approx(want, rel=1e-12, abs=1e-15, nan_ok=True), key
        elif isinstance(want, float) and math.isnan(want):
            assert math.isnan(have), key
        else:
            assert have == want, key  # bit for bit


@pytest.mark.parametrize("engine", ["duckdb", "memory"])
@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"noise_policy": "singletons"},
        {"noise_policy": "exclude", "average_method": "geometric"},
        {"affinity_preset": "ensc_python"},
        {"affinity_preset": "ssc_omp_matlab"},
        {"affinity_preset": "senet"},
        {"coef_orientation": "columns", "normalize_rows": True},
    ],
    ids=["defaults", "singletons", "exclude", "ensc", "ssc_omp", "senet", "columns"],
)
def test_engine_equals_in_memory_evaluate(tmp_path, engine, fmt, options):
    t, p, i, j, v = _case()
    labels, edges = _write(tmp_path, t, p, i, j, v, fmt)
    c = sp.coo_array((v, (i, j)), shape=(t.size, t.size)).tocsr()
    ref = evaluate(t, p, c, **options)
    got = evaluate_table(labels, "truth", "pred", edges=edges, engine=engine, **options)
    _assert_same(ref, got.metrics)
    assert len(got.affinity["leakage"]) == 5


def test_ids_map_edges_to_points(tmp_path):
    t, p, i, j, v = _case(1)
    ids = np.arange(t.size) * 7 + 1_000_003
    labels, edges = _write(tmp_path, t, p, ids[i], ids[j], v, "parquet", ids=ids)
    c = sp.coo_array((v, (i, j)), shape=(t.size, t.size)).tocsr()
    ref = evaluate(t, p, c)
    for engine in ("duckdb", "memory"):
        got = evaluate_table(labels, "truth", "pred", edges=edges, id_col="id", engine=engine)
        _assert_same(ref, got.metrics)


@pytest.mark.parametrize(
    "truth",
    [
        ["cat", "dog", "cat", "emu", "dog", "cat"],
        [10000000000000000001, 5, 10000000000000000001, 7, 5, 7],  # within uint64
        [1.0, 2.0, 1.0, 3.0, 2.0, 3.0],
        [-5, 2**40, -5, 3, 3, 2**40],
    ],
    ids=["text", "uint64", "whole-floats", "wide-ints"],
)
@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_label_kinds_count_like_in_memory(tmp_path, truth, fmt):
    pred = [0, 1, 0, 1, 2, -1]
    path = tmp_path / f"l.{fmt}"
    df = pd.DataFrame({"a": pd.Series(truth, dtype=object if fmt == "csv" else None), "b": pred})
    if fmt == "parquet":
        df.to_parquet(path)
    else:
        df.to_csv(path, index=False)
    ref = evaluate(truth, pred)
    for engine in ("duckdb", "memory"):
        _assert_same(ref, evaluate_table(str(path), "a", "b", engine=engine).metrics)


def _refusal(tmp_path, engine, **frames) -> str:
    paths = {}
    for name, frame in frames.items():
        paths[name] = str(tmp_path / f"{name}.parquet")
        frame.to_parquet(paths[name])
    with pytest.raises(ClustlensInputError) as err:
        evaluate_table(
            paths["labels"],
            "truth",
            "pred",
            edges=paths.get("edges"),
            id_col="id" if "id" in frames["labels"] else None,
            engine=engine,
        )
    return str(err.value)


GOOD = pd.DataFrame({"truth": [0, 0, 1, 1], "pred": [0, 0, 1, 0]})


@pytest.mark.parametrize("engine", ["duckdb", "memory"])
@pytest.mark.parametrize(
    ("frames", "words"),
    [
        ({"labels": pd.DataFrame({"truth": [0, None, 1], "pred": [0, 1, 1]})}, ["missing"]),
        ({"labels": pd.DataFrame({"truth": [0, 1.5, 1], "pred": [0, 1, 1]})}, ["1.5", "whole"]),
        ({"labels": GOOD, "edges": pd.DataFrame({"i": [0, 9], "j": [1, 1], "value": [1.0, 2]})},
         ["names a point", "row 1"]),
        ({"labels": GOOD, "edges": pd.DataFrame({"i": [0, 1], "j": [1, 0],
                                                 "value": [1.0, np.nan]})}, ["finite", "row 1"]),
        ({"labels": GOOD, "edges": pd.DataFrame({"i": [0, 1], "j": [1, 0],
                                                 "value": [1.0, 1e308]})}, ["too large"]),
        ({"labels": GOOD, "edges": pd.DataFrame({"i": [0], "value": [1.0]})}, ["j"]),
        ({"labels": GOOD.assign(id=[5, 6, 6, 7]),
          "edges": pd.DataFrame({"i": [5], "j": [6], "value": [1.0]})}, ["6", "unique"]),
    ],
    ids=["null", "non-whole", "out-of-range", "nan-value", "1e308", "no-j", "dup-id"],
)  # fmt: skip
def test_malformed_tables_are_refused_with_where(tmp_path, engine, frames, words):
    msg = _refusal(tmp_path, engine, **frames)
    for w in words:
        assert w in msg, msg


@pytest.mark.parametrize("engine", ["duckdb", "memory"])
def test_unknown_column_lists_the_columns(tmp_path, engine):
    path = tmp_path / "l.csv"
    GOOD.to_csv(path, index=False)
    with pytest.raises(ClustlensInputError, match=r"truth.*pred|columns"):
        evaluate_table(str(path), "truth", "nope", engine=engine)


def test_memory_path_refuses_up_front_when_it_would_not_fit(tmp_path):
    path = tmp_path / "l.parquet"
    pd.DataFrame({"truth": np.zeros(100_000, int), "pred": np.zeros(100_000, int)}).to_parquet(path)
    with pytest.raises(ClustlensInputError, match="--engine duckdb"):
        evaluate_table(str(path), "truth", "pred", engine="memory", memory_limit="1MB")
    # DuckDB counts the same file under the same limit (it spills to disk past it).
    got = evaluate_table(str(path), "truth", "pred", engine="duckdb", memory_limit="64MB")
    assert got.metrics["acc"] == 1.0


def test_not_parquet_despite_the_name(tmp_path):
    path = tmp_path / "l.parquet"
    path.write_text("truth,pred\n0,0\n")
    with pytest.raises(ClustlensInputError, match="PAR1"):
        evaluate_table(str(path), "truth", "pred")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "metrics_core.cli", "evaluate", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_cli_table_json_equals_the_in_memory_cli(tmp_path):
    t, p, i, j, v = _case(2, n=300)
    labels, edges = _write(tmp_path, t, p, i, j, v, "parquet")
    np.savetxt(tmp_path / "t.txt", t, fmt="%d")
    np.savetxt(tmp_path / "p.txt", p, fmt="%d")
    sp.save_npz(tmp_path / "C.npz", sp.coo_array((v, (i, j)), shape=(t.size, t.size)).tocsr())
    ref = _cli("--true", str(tmp_path / "t.txt"), "--pred", str(tmp_path / "p.txt"),
               "--coef", str(tmp_path / "C.npz"), "--json")  # fmt: skip
    got = _cli("--table", labels, "--true-col", "truth", "--pred-col", "pred",
               "--edges", edges, "--json")  # fmt: skip
    assert ref.returncode == 0 and got.returncode == 0, got.stderr
    a, b = json.loads(ref.stdout), json.loads(got.stdout)
    assert set(a) == set(b)
    a.pop("inputs"), b.pop("inputs")
    aff_a, aff_b = a.pop("affinity"), b.pop("affinity")
    _assert_same(a, b)
    assert aff_a["classes"] == aff_b["classes"]
    np.testing.assert_allclose(aff_a["leakage"], aff_b["leakage"], rtol=1e-12)


def test_cli_refusals_exit_2_with_a_message(tmp_path):
    path = tmp_path / "l.csv"
    pd.DataFrame({"truth": [0, "", 1], "pred": [0, 1, 1]}).to_csv(path, index=False)
    r = _cli("--table", str(path), "--true-col", "truth", "--pred-col", "pred")
    assert r.returncode == 2 and "Traceback" not in r.stderr
    assert "missing" in r.stderr and "row 1" in r.stderr
    r = _cli("--table", str(path), "--true-col", "truth")
    assert r.returncode == 2 and "--pred-col" in r.stderr
    r = _cli("--true", str(path), "--true-col", "truth")
    assert r.returncode == 2 and "--table" in r.stderr


def _spark_ready() -> bool:
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return False
    return shutil.which("java") is not None


@pytest.mark.spark
@pytest.mark.slow
@pytest.mark.skipif(
    not _spark_ready() and not os.environ.get("CLUSTLENS_REQUIRE_SPARK"),
    reason="pyspark or Java missing (CI installs both and sets CLUSTLENS_REQUIRE_SPARK)",
)
def test_spark_local_equals_in_memory(tmp_path):
    t, p, i, j, v = _case(3, n=400)
    ids = np.arange(t.size) * 3 + 11
    labels, edges = _write(tmp_path, t, p, ids[i], ids[j], v, "parquet", ids=ids)
    c = sp.coo_array((v, (i, j)), shape=(t.size, t.size)).tocsr()
    for options in ({}, {"noise_policy": "singletons", "affinity_preset": "ensc_python"}):
        ref = evaluate(t, p, c, **options)
        got = evaluate_table(labels, "truth", "pred", edges=edges, id_col="id", engine="spark",
                             **options)  # fmt: skip
        _assert_same(ref, got.metrics)
    # CSV and positions instead of ids
    labels, edges = _write(tmp_path, t, p, i, j, v, "csv")
    got = evaluate_table(labels, "truth", "pred", edges=edges, engine="spark")
    _assert_same(evaluate(t, p, c), got.metrics)
