"""Counting on an engine vs reading into memory: time and peak memory, same files, same run.

    python tests/benchmarks/bench_engines.py            # 1e6, 1e7, 1e8 label rows; 2e7 edges
    python tests/benchmarks/bench_engines.py --quick    # 1e6 label rows; 2e6 edges

Each measurement is one ``clustlens evaluate --table ... --json`` in a fresh subprocess; peak
memory is that process's maximum resident set (``ru_maxrss`` of the child). The peer is the
in-memory path (``--engine memory``) on the same file in the same run: it reads the columns
into numpy and runs ``evaluate``; with the default ``--memory-limit 2GB`` it refuses up front
when its estimate is above the limit (shown as "refused"), so it is also run with a limit that
lets it through. Files are written once with DuckDB into a temporary folder (parquet, zstd).
Results must be equal: the script checks every key of the JSON against the peer's.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import resource
import subprocess
import sys
import tempfile
import time

import duckdb

AFFINITY = ("sre", "conn_min", "conn_mean")


def write_labels(path: str, n: int, k: int = 100) -> None:
    duckdb.sql(
        f"COPY (SELECT hash(r) % {k} AS truth, CASE WHEN hash(r + 7) % 10 < 8 THEN hash(r) % {k} "
        f"ELSE hash(r + 3) % {k + 10} END AS pred FROM range({n}) t(r)) "
        f"TO '{path}' (FORMAT parquet, COMPRESSION zstd)"
    )


def write_edges(path: str, n: int, nnz: int, k: int = 100) -> None:
    # ~85 % of a point's coefficients on its own class (points of class c: r with r % k = c).
    duckdb.sql(
        f"COPY (SELECT CAST((e // 20) % {n} AS BIGINT) AS i, CAST(CASE WHEN hash(e) % 100 < 85 "
        f"THEN (((e // 20) % {n}) + {k} * (1 + hash(e + 1) % ({n} // {k} - 1))) % {n} "
        f"ELSE hash(e + 2) % {n} END AS BIGINT) AS j, "
        f"(hash(e + 3) % 1000) / 1000.0 - 0.3 AS value "
        f"FROM range({nnz}) t(e)) TO '{path}' (FORMAT parquet, COMPRESSION zstd)"
    )
    duckdb.sql(
        f"COPY (SELECT r % {k} AS truth, r % {k} AS pred FROM range({n}) t(r)) "
        f"TO '{path}.labels.parquet' (FORMAT parquet)"
    )


def run(args: list[str]) -> tuple[float, float, dict | str]:
    """(seconds, peak GB, parsed JSON or the refusal's first line) of one CLI run."""
    code = (
        "import resource, sys, runpy; sys.argv = ['clustlens'] + sys.argv[1:]\n"
        "try:\n    runpy.run_module('metrics_core.cli', run_name='__main__')\n"
        "finally:\n"
        "    print('PEAK', resource.getrusage(resource.RUSAGE_SELF).ru_maxrss, file=sys.stderr)\n"
    )
    t0 = time.perf_counter()
    p = subprocess.run([sys.executable, "-c", code, "evaluate", *args, "--json"],
                       capture_output=True, text=True)  # fmt: skip
    dt = time.perf_counter() - t0
    peak_kb = max(
        [int(line.split()[1]) for line in p.stderr.splitlines() if line.startswith("PEAK")] or [0]
    )
    if p.returncode == 0:
        return dt, peak_kb / 1e6, json.loads(p.stdout)
    msg = [line for line in p.stderr.splitlines() if line and not line.startswith("PEAK")]
    return dt, peak_kb / 1e6, (msg[0] if msg else f"exit {p.returncode}")[:90]


def same(a: dict, b: dict) -> str:
    bad = []
    for key, va in a.items():
        if key in ("inputs", "affinity"):
            continue
        vb = b.get(key)
        if key in AFFINITY:
            ok = math.isclose(va, vb, rel_tol=1e-12, abs_tol=1e-15)
        else:
            ok = va == vb or (va != va and vb != vb)
        if not ok:
            bad.append(key)
    return "equal" if not bad else "DIFFER: " + ",".join(bad)


def row(case: str, engine: str, res: tuple, peer: tuple | None) -> str:
    dt, gb, out = res
    if isinstance(out, str):
        return f"| {case} | {engine} | {dt:7.2f} | {gb:5.2f} | – | refused: {out} |"
    ratio = "–"
    check = ""
    if peer is not None and not isinstance(peer[2], str):
        ratio = f"{dt / peer[0]:.2f}× time, {gb / peer[1]:.2f}× memory"
        check = same(peer[2], out)
    return f"| {case} | {engine} | {dt:7.2f} | {gb:5.2f} | {ratio} | {check} |"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true")
    ns = ap.parse_args()
    sizes = [10**6] if ns.quick else [10**6, 10**7, 10**8]
    edges = (10**5, 2 * 10**6) if ns.quick else (10**6, 2 * 10**7)
    print(f"cores {os.cpu_count()}, python {sys.version.split()[0]}, duckdb {duckdb.__version__}")
    print("| case | engine | seconds | peak GB | vs in-memory peer | values |")
    print("|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="clustlens-bench-") as d:
        for n in sizes:
            path = os.path.join(d, f"labels_{n}.parquet")
            write_labels(path, n)
            base = ["--table", path, "--true-col", "truth", "--pred-col", "pred"]
            case = f"{n:.0e} label rows"
            peer = run([*base, "--engine", "memory", "--memory-limit", "20GB"])
            print(row(case, "memory (limit 20GB)", peer, None), flush=True)
            print(row(case, "memory (limit 2GB)", run([*base, "--engine", "memory"]), peer))
            print(row(case, "duckdb (limit 2GB)", run([*base, "--engine", "duckdb"]), peer))
            os.remove(path)
        n, nnz = edges
        path = os.path.join(d, "edges.parquet")
        write_edges(path, n, nnz)
        base = ["--table", path + ".labels.parquet", "--true-col", "truth", "--pred-col", "pred",
                "--edges", path]  # fmt: skip
        case = f"{n:.0e} points, {nnz:.0e} edges"
        peer = run([*base, "--engine", "memory", "--memory-limit", "20GB"])
        print(row(case, "memory (limit 20GB)", peer, None), flush=True)
        print(row(case, "memory (limit 2GB)", run([*base, "--engine", "memory"]), peer))
        print(row(case, "duckdb (limit 2GB)", run([*base, "--engine", "duckdb"]), peer))
    _ = resource  # (the child reports its own peak)


if __name__ == "__main__":
    main()
