"""Bounded fuzzing in CI: a few hundred mutants of every input format through the upload path
(the sandboxed worker) and the command line, with a fixed seed; plus the corpus of past findings.

A mutant may load or be refused with a message (:class:`ClustlensInputError`, exit 2); any other
exception, a traceback, another exit code, a crash of the worker other than its own limits, or a
timeout fails the test.
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp

from metrics_core import ClustlensInputError
from metrics_core.io.worker import parse_in_worker

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT / "tests" / "fuzz_corpus"
SEED = 20261124
PER_SEED = 24  # mutants per seed file: 13 seeds -> ~300 through the worker


def _npy(a) -> bytes:
    buf = io.BytesIO()
    np.save(buf, a, allow_pickle=False)
    return buf.getvalue()


def _seeds() -> list[tuple[str, str, bytes]]:
    """(worker kind, file name, bytes) of one valid file per format."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 3, 12)
    c = sp.random(12, 12, density=0.3, random_state=1, format="csr")
    buf = io.BytesIO()
    sp.save_npz(buf, c)
    mat = io.BytesIO()
    scipy.io.savemat(mat, {"gnd": y.reshape(-1, 1), "C": c.toarray()})
    dense = c.toarray()
    table_csv = "id,label\n" + "".join(f"{i},{v}\n" for i, v in enumerate(y))
    edges_csv = "i,j,value\n" + "".join(
        f"{i},{j},{v:.3f}\n" for i, j, v in zip(*c.nonzero(), c.data, strict=True)
    )
    x_csv = "\n".join(",".join(f"{x:.3f}" for x in r) for r in rng.random((12, 4)))
    out = [
        ("labels_true", "y.txt", "".join(f"{v}\n" for v in y).encode()),
        ("labels_true", "y.csv", table_csv.encode()),
        ("labels_pred", "y.npy", _npy(y)),
        ("labels_true", "y.mat", mat.getvalue()),
        ("coef", "C.npz", buf.getvalue()),
        ("coef", "C.npy", _npy(dense)),
        ("coef", "C.csv", "\n".join(",".join(f"{x:.3f}" for x in r) for r in dense).encode()),
        ("coef", "C.mat", mat.getvalue()),
        ("coef", "C_edges.csv", edges_csv.encode()),
        ("table", "counts.csv", b"class,cluster,count\na,0,3\na,1,44\nb,1,4\nb,2,40\n"),
        ("data", "X.csv", x_csv.encode()),
        ("data", "X.npy", _npy(rng.random((12, 4)))),
        ("variables", "y.mat", mat.getvalue()),
    ]  # fmt: skip
    return out


def _mutate(data: bytes, rng: np.random.Generator) -> bytes:
    b = bytearray(data)
    op = int(rng.integers(0, 7))
    if op == 0 and b:  # flip bytes
        for _ in range(int(rng.integers(1, 9))):
            b[int(rng.integers(0, len(b)))] = int(rng.integers(0, 256))
    elif op == 1 and b:  # truncate
        del b[int(rng.integers(0, len(b))) :]
    elif op == 2 and b:  # duplicate a chunk
        i = int(rng.integers(0, len(b)))
        b[i:i] = b[i : i + int(rng.integers(1, 64))] * int(rng.integers(1, 50))
    elif op == 3:  # insert random bytes
        i = int(rng.integers(0, len(b) + 1))
        b[i:i] = rng.integers(0, 256, int(rng.integers(1, 32))).astype(np.uint8).tobytes()
    elif op == 4:  # poison a number
        token = [b"1e308", b"nan", b"-inf", b"-", b"99999999999999999999999", b'"', b"\x00"][
            int(rng.integers(0, 7))
        ]
        digits = [i for i, ch in enumerate(b) if 48 <= ch <= 57]
        if digits:
            i = digits[int(rng.integers(0, len(digits)))]
            b[i : i + 1] = token
    elif op == 5 and len(b) > 16:  # patch a 4-byte integer somewhere (sizes, offsets, dims)
        i = int(rng.integers(0, len(b) - 4))
        b[i : i + 4] = int(rng.choice([0, 1, 2**31 - 1, 2**32 - 1, 10**9])).to_bytes(4, "little")
    else:  # swap two halves
        h = len(b) // 2
        b = b[h:] + b[:h]
    return bytes(b)


def _mutants():
    rng = np.random.default_rng(SEED)
    for kind, name, data in _seeds():
        for k in range(PER_SEED):
            yield pytest.param(kind, name, _mutate(data, rng), id=f"{name}-{k}")


def _through_worker(kind: str, name: str, data: bytes) -> None:
    try:
        parse_in_worker(kind, data, name, timeout=20.0)
    except ClustlensInputError as exc:
        msg = str(exc)
        assert msg.strip(), "an empty refusal message"
        # The worker's own limits (memory, time) are refusals; a loader bug is not.
        assert "internal error" not in msg and "exit code" not in msg, msg


@pytest.mark.parametrize(("kind", "name", "data"), list(_mutants()))
def test_mutant_through_the_upload_worker(kind, name, data):
    _through_worker(kind, name, data)


@pytest.mark.parametrize("path", sorted(p for p in CORPUS.iterdir() if p.suffix != ".md"),
                         ids=lambda p: p.name)  # fmt: skip
def test_corpus_through_every_loader_kind(path):
    for kind in ("labels_true", "coef", "table", "data"):
        _through_worker(kind, path.name, path.read_bytes())


def _cli_cases():
    rng = np.random.default_rng(SEED + 1)
    seeds = _seeds()
    cases = []
    for k in range(24):
        kind, name, data = seeds[int(rng.integers(0, len(seeds)))]
        cases.append((kind, name, _mutate(data, rng), f"{name}-{k}"))
    cases += [("corpus", p.name, p.read_bytes(), p.name)
              for p in sorted(CORPUS.iterdir()) if p.suffix != ".md"]  # fmt: skip
    return cases


def test_cli_exits_0_or_2_without_traceback(tmp_path):
    truth = tmp_path / "y.txt"
    truth.write_text("".join(f"{v}\n" for v in np.random.default_rng(0).integers(0, 3, 12)))
    failures = []
    for kind, name, data, ident in _cli_cases():
        f = tmp_path / name
        f.write_bytes(data)
        if kind == "coef":
            args = ["--true", str(truth), "--pred", str(truth), "--coef", str(f)]
        else:
            args = ["--true", str(truth), "--pred", str(f)]
        if kind == "table":
            args = ["--contingency", str(f)]
        try:
            r = subprocess.run(
                [sys.executable, "-m", "metrics_core.cli", "evaluate", *args],
                capture_output=True, text=True, timeout=60, cwd=ROOT,
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            failures.append(f"{ident}: timeout")
            continue
        if r.returncode not in (0, 2) or "Traceback" in r.stderr:
            failures.append(f"{ident}: exit {r.returncode}: {r.stderr[-300:]}")
    assert not failures, "\n".join(failures)
