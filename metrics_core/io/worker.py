"""Parse untrusted uploads in a separate, memory- and time-limited child process.

A crafted file can crash a parser (a segfault in compiled code), declare more memory than the
machine has, or take forever. :func:`parse_in_worker` runs the matching :mod:`metrics_core.io`
loader in a child process forked from a ``multiprocessing`` forkserver (which has numpy, scipy
and h5py imported already, so a parse starts in tens of milliseconds), with

- ``RLIMIT_AS`` capping the address space the parse may add to the worker's baseline,
- ``RLIMIT_CPU`` and a wall-clock timeout after which the child is killed,
- ``RLIMIT_CORE = 0`` (no core dumps of hostile input).

Results come back without pickle: the child writes arrays with ``np.save(allow_pickle=False)``
and a small JSON file into a private temporary directory; the parent reads them with the same
header-checked, pickle-free reader the loaders use and validates them again (sparse indices
included) before building anything. If the child dies, times out or runs out of memory, a
:class:`~metrics_core.ClustlensInputError` says the file could not be parsed safely and
why; the parent process is unaffected.

As with any ``multiprocessing`` start method other than fork, the program's main script must
be import-safe (``if __name__ == "__main__":``); Streamlit, pytest and console scripts are.

For tests only: when the environment variable ``CLUSTLENS_UPLOAD_WORKER_TEST_HOOK`` is set in
the parent to ``segfault``, ``abort``, ``sleep`` or ``allocate``, the child does that before
parsing.
"""

from __future__ import annotations

import json
import math
import multiprocessing
import os
import resource
import shutil
import signal
import sys
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp

from metrics_core import io as mio
from metrics_core.io._common import IOLimits, Source, VariableInfo
from metrics_core.io._numpy import load_npy
from metrics_core.io._sparse import build_csr
from metrics_core.validation._errors import ClustlensInputError
from metrics_core.validation._labels import check_labels

__all__ = ["KINDS", "TEST_HOOK_ENV", "parse_in_worker", "warm_up"]

KINDS = ("labels_true", "labels_pred", "coef", "data", "table", "variables")
TEST_HOOK_ENV = "CLUSTLENS_UPLOAD_WORKER_TEST_HOOK"
_EXIT_MEMORY = 3
_EXIT_INTERNAL = 4
_MAX_META_BYTES = 16 * 1024 * 1024
_lock = threading.Lock()
_context: Any = None


def _get_context() -> Any:
    """The forkserver context, with the heavy modules preloaded once in the server."""
    global _context
    with _lock:
        if _context is None:
            ctx = multiprocessing.get_context("forkserver")
            # "__main__" first so the server imports the main script once instead of every child
            ctx.set_forkserver_preload(
                ["__main__", "metrics_core.io.worker", "scipy.io.matlab", "h5py"]
            )
            _context = ctx
        return _context


def warm_up() -> None:
    """Start the forkserver now (it imports numpy/scipy/h5py once, about two seconds here).

    Call it at application start so the first upload does not pay for it.
    """
    parse_in_worker("labels_true", b"0\n", "warm_up.txt")


def parse_in_worker(
    kind: str,
    data: bytes,
    name: str,
    *,
    variable: str | None = None,
    column: str | int | None = None,
    timeout: float = 20.0,
    wall_timeout: float | None = None,
    memory_limit_bytes: int = 2 * 1024**3,
    limits: IOLimits | None = None,
    n_rows: int | None = None,
    rows_for: str = "the labels",
) -> Any:
    """Run the io loader for ``kind`` on ``data`` in a limited child process.

    Parameters
    ----------
    kind : {"labels_true", "labels_pred", "coef", "data", "table", "variables"}
        Which loader: ``load_labels(kind="true"|"pred")``, ``load_coef``, ``load_data_matrix``,
        ``load_table`` or ``list_variables``.
    data : bytes
        The uploaded file's content.
    name : str
        The uploaded file's name (its extension picks the format; messages name it).
    variable, column : optional
        Passed to the loader (``variable`` for .mat/.npz, ``column`` for text labels).
    timeout : float
        CPU seconds the parse may use (``RLIMIT_CPU``): what a hostile file can cost.
    wall_timeout : float, optional
        Wall-clock seconds before the child is killed (default ``4 * timeout``): generous,
        because on a busy server (many sessions on few cores) a fair file waits for the CPU.
    memory_limit_bytes : int
        Address space the parse may use on top of the worker's baseline (``RLIMIT_AS``).
    limits : IOLimits, optional
        Declared-size limits for the loaders (and for reading the results back).
    n_rows, rows_for : optional
        The points the matrix must have, one per label of ``rows_for``: ``kind="data"``, the
        rows of X (checked before a sparse X is densified); ``kind="coef"``, N of C (checked
        in the child, so a C for other points never reaches this process).

    Returns
    -------
    LoadedLabels, LoadedMatrix, LoadedTable or list of VariableInfo
        Exactly what the in-process loader returns.

    Raises
    ------
    ClustlensInputError
        For a bad file (the loader's own message), or when the file could not be parsed safely
        (the child crashed, hit the memory limit or the time limit).
    """
    if kind not in KINDS:
        raise ClustlensInputError(f"unknown kind {kind!r}; use one of {KINDS}", source="kind")
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ClustlensInputError("upload data must be bytes", source=str(name))
    name = str(name)
    limits = limits or mio.DEFAULT_LIMITS
    tmp = Path(tempfile.mkdtemp(prefix="clustlens-upload-"))
    try:
        inp = tmp / "input"
        inp.write_bytes(bytes(data))
        out = tmp / "out"
        out.mkdir()
        job = {
            "kind": kind,
            "name": name,
            "variable": variable,
            "column": column,
            "input": str(inp),
            "out": str(out),
            "memory_limit": int(memory_limit_bytes),
            "cpu_seconds": max(1, math.ceil(timeout)),
            "limits": limits.__dict__,
            "n_rows": n_rows,
            "rows_for": str(rows_for),
            "hook": os.environ.get(TEST_HOOK_ENV),
        }
        proc = _get_context().Process(
            target=_child_main, args=(json.dumps(job),), daemon=True, name="clustlens-upload"
        )
        proc.start()
        wall = 4 * timeout if wall_timeout is None else wall_timeout
        proc.join(wall)
        if proc.is_alive():
            proc.kill()
            proc.join(5)
            raise _unsafe(name, f"parsing took longer than the {wall:g} s time limit")
        code = proc.exitcode
        proc.close()
        if code == _EXIT_MEMORY:
            raise _unsafe(name, _memory_words(memory_limit_bytes))
        if code is not None and code < 0:
            sig = -code
            if sig == signal.SIGXCPU:
                raise _unsafe(name, f"parsing used more than {job['cpu_seconds']} s of CPU time")
            if sig == signal.SIGKILL:
                raise _unsafe(name, "the parser was killed (out of memory, or stopped from "
                              "outside)")  # fmt: skip
            raise _unsafe(name, f"the parser crashed ({_signame(sig)})")
        if code != 0:
            raise _unsafe(name, f"the parser stopped with exit code {code}")
        return _read_result(out, kind, name, limits)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _unsafe(name: str, why: str) -> ClustlensInputError:
    return ClustlensInputError(
        f"could not be parsed safely: {why}; the file is probably malformed, hostile or too "
        "large — check it or convert it to another format",
        source=name,
    )


def _memory_words(limit: int) -> str:
    return f"parsing needed more memory than the {limit / 1024**2:.0f} MiB memory limit"


def _signame(sig: int) -> str:
    try:
        return signal.Signals(sig).name
    except ValueError:
        return f"signal {sig}"


# --------------------------------------------------------------------------------------------
# child side
# --------------------------------------------------------------------------------------------


def _vm_size() -> int:
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _set_limits(memory_limit: int, cpu_seconds: int) -> None:
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
    _soft, hard = resource.getrlimit(resource.RLIMIT_CPU)
    cpu = cpu_seconds if hard == resource.RLIM_INFINITY else min(cpu_seconds, hard)
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, hard))
    limit = _vm_size() + memory_limit
    _, hard_as = resource.getrlimit(resource.RLIMIT_AS)
    if hard_as != resource.RLIM_INFINITY:
        limit = min(limit, hard_as)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard_as))


def _test_hook(hook: str | None) -> None:
    if not hook:
        return
    if hook == "segfault":
        import ctypes

        ctypes.string_at(0)
    elif hook == "abort":
        os.abort()
    elif hook == "sleep":
        import time

        time.sleep(3600)
    elif hook == "allocate":
        np.ones(1 << 40, dtype=np.uint8)


def _child_main(job_json: str) -> None:
    job = json.loads(job_json)
    out = Path(job["out"])
    try:
        _set_limits(job["memory_limit"], job["cpu_seconds"])
        _test_hook(job.get("hook"))
        meta = _run(job, out)
        meta["ok"] = True
    except ClustlensInputError as exc:
        meta = {"ok": False, "reason": exc.reason, "where": exc.where}
    except MemoryError:
        sys.exit(_EXIT_MEMORY)
    except Exception as exc:  # a loader bug, not the user's fault: say so without a traceback
        meta = {"ok": False, "reason": f"internal error while parsing ({type(exc).__name__})"}
        try:
            (out / "result.json").write_text(json.dumps(meta))
        finally:
            sys.exit(_EXIT_INTERNAL)
    try:
        (out / "result.json").write_text(json.dumps(meta))
    except MemoryError:
        sys.exit(_EXIT_MEMORY)


def _save(out: Path, key: str, arr: np.ndarray) -> None:
    np.save(out / f"{key}.npy", np.ascontiguousarray(arr), allow_pickle=False)


def _save_matrix(out: Path, prefix: str, m: Any, meta: dict[str, Any]) -> None:
    if sp.issparse(m):
        meta[f"{prefix}_sparse_shape"] = [int(d) for d in m.shape]
        _save(out, f"{prefix}_data", m.data)
        _save(out, f"{prefix}_indices", m.indices.astype(np.int64))
        _save(out, f"{prefix}_indptr", m.indptr.astype(np.int64))
    else:
        _save(out, prefix, m)


def _run(job: dict[str, Any], out: Path) -> dict[str, Any]:
    kind, name = job["kind"], job["name"]
    limits = IOLimits(**job["limits"])
    src = Path(job["input"])
    meta: dict[str, Any] = {}
    if kind == "variables":
        infos = mio.list_variables(src, name=name, limits=limits)
        meta["variables"] = [
            {
                "name": v.name,
                "shape": list(v.shape),
                "dtype": v.dtype,
                "sparse": v.sparse,
                "nnz": v.nnz,
            }
            for v in infos
        ]
        return meta
    if kind in ("labels_true", "labels_pred"):
        res = mio.load_labels(
            src,
            name=name,
            variable=job["variable"],
            column=job["column"],
            kind="true" if kind == "labels_true" else "pred",
            limits=limits,
        )
        labels = res.labels
        if labels.dtype.kind == "U":
            meta["labels_str"] = True
        _save(out, "labels", labels)
    elif kind == "table":
        res = mio.load_table(src, name=name, limits=limits)
        _save_matrix(out, "table", res.table, meta)
        _save(out, "classes", res.classes)
        _save(out, "clusters", res.clusters)
        meta["notes"] = res.notes
        return meta
    else:
        if kind == "coef":
            res = mio.load_coef(src, name=name, variable=job["variable"], limits=limits)
            _check_coef_rows(res, name, job.get("n_rows"), job.get("rows_for", "the labels"))
        else:
            res = mio.load_data_matrix(src, name=name, variable=job["variable"], limits=limits,
                                       n_rows=job.get("n_rows"),
                                       rows_for=job.get("rows_for", "the labels"))  # fmt: skip
        _save_matrix(out, "matrix", res.matrix, meta)
    meta.update(variable=res.variable, candidates=list(res.candidates), notes=list(res.notes))
    return meta


def _check_coef_rows(res: Any, name: str, n: int | None, rows_for: str) -> None:
    """A C for other points is refused here, so the server never receives it (an edge list
    with fewer rows is fine: it is padded to N)."""
    if n is None:
        return
    m = int(res.matrix.shape[0])
    if m == n or (mio.EDGE_LIST_NOTE in res.notes and m < n):
        return
    raise ClustlensInputError(
        f"C is {m:,} x {m:,} but {rows_for} has {n:,} points (expected {n:,} x {n:,})",
        source=name,
    )


# --------------------------------------------------------------------------------------------
# parent side: read the child's files back without trusting them
# --------------------------------------------------------------------------------------------


def _read_result(out: Path, kind: str, name: str, limits: IOLimits) -> Any:
    meta_path = out / "result.json"
    if not meta_path.is_file() or meta_path.stat().st_size > _MAX_META_BYTES:
        raise _unsafe(name, "the parser returned no usable result")
    try:
        meta = json.loads(meta_path.read_text())
        if not isinstance(meta, dict):
            raise ValueError("not an object")
    except ValueError:
        raise _unsafe(name, "the parser returned a damaged result") from None
    if not meta.get("ok"):
        where = meta.get("where")
        raise ClustlensInputError(
            str(meta.get("reason", "could not be read")),
            source=name,
            where=str(where) if where else None,
        )

    def arr(key: str, kinds: str) -> np.ndarray:
        path = out / f"{key}.npy"
        if not path.is_file():
            raise _unsafe(name, f"the parser returned no {key!r} array")
        a = load_npy(Source(path, name=f"{name} ({key})"), limits)
        if a.dtype.kind not in kinds:
            raise _unsafe(name, f"the parser returned a {a.dtype} {key!r} array")
        return a

    def matrix(prefix: str, kinds: str) -> Any:
        shape = meta.get(f"{prefix}_sparse_shape")
        if shape is None:
            return np.ascontiguousarray(arr(prefix, kinds))
        return build_csr(
            arr(f"{prefix}_data", kinds),
            arr(f"{prefix}_indices", "i"),
            arr(f"{prefix}_indptr", "i"),
            shape,
            source=name,
        )

    def strings(key: str) -> list[str]:
        value = meta.get(key) or []
        return [str(v) for v in value] if isinstance(value, list) else []

    if kind == "variables":
        return [
            VariableInfo(
                str(v["name"]),
                tuple(int(d) for d in v["shape"]),
                str(v["dtype"]),
                bool(v["sparse"]),
                None if v.get("nnz") is None else int(v["nnz"]),
            )
            for v in meta.get("variables", [])
        ]
    variable = meta.get("variable")
    variable = None if variable is None else str(variable)
    if kind in ("labels_true", "labels_pred"):
        labels = check_labels(arr("labels", "iubU"), name=name)
        return mio.LoadedLabels(labels, variable, strings("candidates"), strings("notes"), name)
    if kind == "table":
        table = matrix("table", "i")
        if sp.issparse(table):
            table = table.astype(np.int64)
        classes, clusters = arr("classes", "iubU"), arr("clusters", "iubU")
        if table.ndim != 2 or table.shape != (classes.shape[0], clusters.shape[0]):
            raise _unsafe(name, "the parser returned inconsistent table shapes")
        return mio.LoadedTable(table, classes, clusters, strings("notes"), name)
    m = matrix("matrix", "f")
    if m.ndim != 2 or (not sp.issparse(m) and m.dtype != np.float64):
        raise _unsafe(name, "the parser returned a malformed matrix")
    if not sp.issparse(m) and not np.isfinite(m).all():
        raise _unsafe(name, "the parser returned non-finite values")
    return mio.LoadedMatrix(m, variable, strings("candidates"), strings("notes"), name)


if __name__ == "__main__":  # pragma: no cover - manual debugging: python -m ... JOB_JSON
    _child_main(sys.argv[1])
