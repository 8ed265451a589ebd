"""Tests of metrics_core.io.worker: round trips, crashes, limits, untrusted results."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp

from metrics_core import io as mio
from metrics_core.io.worker import TEST_HOOK_ENV, _read_result, parse_in_worker
from metrics_core.validation._errors import ClustlensInputError

try:
    from tests import io_fixtures as fx
except ImportError:  # tests/ is not a package: pytest put it on sys.path
    import io_fixtures as fx

SPARSE = sp.random(30, 30, density=0.2, format="csr", random_state=3)


def _same(a, b) -> None:
    if sp.issparse(a) or sp.issparse(b):
        assert sp.issparse(a) and sp.issparse(b)
        a, b = a.toarray(), b.toarray()
    np.testing.assert_array_equal(np.asarray(a), np.asarray(b))


GOOD = [
    ("labels_true", b"id,label\n0,cat\n1,dog\n", "y.csv", {}),
    ("labels_pred", fx.npy_bytes(np.array([[1.0, 2.0, 2.0]])), "p.npy", {}),
    (
        "labels_true",
        fx.savemat_bytes({"gnd": np.arange(4.0), "grps": np.ones(4)}),
        "d.mat",
        {},
    ),
    ("labels_pred", fx.npz_bytes(gnd=np.arange(3), grps=np.ones(3, int)), "r.npz", {}),
    ("coef", fx.sparse_npz_bytes(SPARSE), "C.npz", {}),
    ("coef", fx.npy_bytes(np.eye(4)), "C.npy", {}),
    ("coef", fx.savemat_bytes({"C": SPARSE.tocsc(), "Z": np.eye(30)}), "c.mat", {"variable": "Z"}),
    ("data", b"1,2\n3,4\n5,6\n", "X.csv", {}),
    ("table", b"class,cluster,count\na,0,3\nb,1,4\n", "t.csv", {}),
]


@pytest.mark.parametrize(("kind", "data", "name", "kw"), GOOD, ids=[g[2] for g in GOOD])
def test_round_trip_matches_in_process(kind, data, name, kw):
    got = parse_in_worker(kind, data, name, **kw)
    if kind.startswith("labels"):
        want = mio.load_labels(data, name=name, kind=kind.removeprefix("labels_"), **kw)
        _same(got.labels, want.labels)
        assert got.labels.dtype.kind == want.labels.dtype.kind
    elif kind == "table":
        want = mio.load_table(data, name=name)
        for g, w in zip(got, want, strict=True):
            _same(g, w)
    else:
        loader = mio.load_coef if kind == "coef" else mio.load_data_matrix
        want = loader(data, name=name, **kw)
        _same(got.matrix, want.matrix)
        assert got.matrix.dtype == np.float64
        if sp.issparse(want.matrix):
            assert got.matrix.format == "csr"
    assert got.notes == want.notes
    assert got.source == name
    if kind != "table":
        assert (got.variable, got.candidates) == (want.variable, want.candidates)


def test_variables_round_trip():
    data = fx.savemat_bytes({"C": SPARSE.tocsc(), "gnd": np.arange(30)})
    assert parse_in_worker("variables", data, "a.mat") == mio.list_variables(data, name="a.mat")


def test_bad_file_gives_the_loader_message():
    with pytest.raises(ClustlensInputError, match=r"ragged.*line 3") as info:
        parse_in_worker("coef", b"1,2\n3,4\n5\n", "C.csv")
    assert info.value.source == "C.csv" and info.value.where == "line 3"
    with pytest.raises(ClustlensInputError, match="unknown kind"):
        parse_in_worker("pickle", b"", "x.npy")


def test_hostile_files_in_worker(tmp_path):
    flag = tmp_path / "unpickled"
    evil = fx.npy_bytes(np.array([fx.Boom(str(flag))], dtype=object), allow_pickle=True)
    with pytest.raises(ClustlensInputError, match=r"evil.npy: holds an object array"):
        parse_in_worker("labels_true", evil, "evil.npy")
    assert not flag.exists()
    bad = fx.raw_sparse_npz(data=[1.0], indices=[10**6], indptr=[0, 1, 1], shape=[2, 2])
    with pytest.raises(ClustlensInputError, match="out of range"):
        parse_in_worker("coef", bad, "C.npz")
    link = fx.hdf5_external_link(tmp_path / "l.mat")
    with pytest.raises(ClustlensInputError, match="external link"):
        parse_in_worker("variables", link.read_bytes(), "l.mat")


@pytest.mark.parametrize(
    ("hook", "match"),
    [("segfault", r"crashed \(SIGSEGV\)"), ("abort", r"crashed \(SIGABRT\)")],
)
def test_crash_is_reported_and_parent_keeps_working(monkeypatch, hook, match):
    monkeypatch.setenv(TEST_HOOK_ENV, hook)
    with pytest.raises(ClustlensInputError, match=f"C.npy: could not be parsed safely: .*{match}"):
        parse_in_worker("coef", fx.npy_bytes(np.eye(2)), "C.npy")
    monkeypatch.delenv(TEST_HOOK_ENV)
    assert parse_in_worker("coef", fx.npy_bytes(np.eye(2)), "C.npy").matrix.shape == (2, 2)


def test_time_limit(monkeypatch):
    monkeypatch.setenv(TEST_HOOK_ENV, "sleep")
    with pytest.raises(ClustlensInputError, match=r"longer than the 0.5 s time limit"):
        parse_in_worker("labels_true", b"1\n", "y.txt", timeout=0.5, wall_timeout=0.5)


def test_memory_limit_from_a_real_file():
    # 160 MiB of zeros in a ~160 KB archive: declared size is within the 2 GiB default, so the
    # loader goes ahead; the child's RLIMIT_AS stops it and the parent reports it.
    bomb = fx.zip_bomb_npz(160 << 20)
    assert len(bomb) < 1 << 20
    with pytest.raises(ClustlensInputError, match=r"bomb.npz: .*more memory than the 64 MiB"):
        parse_in_worker("labels_true", bomb, "bomb.npz", memory_limit_bytes=64 << 20)


def test_memory_limit_hook(monkeypatch):
    monkeypatch.setenv(TEST_HOOK_ENV, "allocate")
    with pytest.raises(ClustlensInputError, match="memory limit"):
        parse_in_worker("labels_true", b"1\n", "y.txt", memory_limit_bytes=64 << 20)


# ---- the parent does not trust what the child wrote -------------------------------------------


def _result_dir(tmp_path, meta, **arrays):
    out = tmp_path / "out"
    out.mkdir()
    (out / "result.json").write_text(json.dumps(meta))
    for k, v in arrays.items():
        np.save(out / f"{k}.npy", v, allow_pickle=isinstance(v, np.ndarray) and v.dtype == object)
    return out


def test_parent_revalidates_sparse_indices(tmp_path):
    out = _result_dir(
        tmp_path,
        {"ok": True, "matrix_sparse_shape": [2, 2]},
        matrix_data=np.ones(1),
        matrix_indices=np.array([99]),
        matrix_indptr=np.array([0, 1, 1]),
    )
    with pytest.raises(ClustlensInputError, match="index 99 is out of range"):
        _read_result(out, "coef", "C.npz", mio.DEFAULT_LIMITS)


def test_parent_refuses_pickles_and_garbage(tmp_path):
    flag = tmp_path / "unpickled"
    (tmp_path / "a").mkdir()
    out = _result_dir(
        tmp_path / "a", {"ok": True}, labels=np.array([fx.Boom(str(flag))], dtype=object)
    )
    with pytest.raises(ClustlensInputError, match="object array"):
        _read_result(out, "labels_true", "y.npy", mio.DEFAULT_LIMITS)
    assert not flag.exists()
    (tmp_path / "b").mkdir()
    out = _result_dir(tmp_path / "b", {"ok": True}, matrix=np.array([["x"]]))
    with pytest.raises(ClustlensInputError, match="parsed safely"):
        _read_result(out, "coef", "C.npy", mio.DEFAULT_LIMITS)
    (tmp_path / "c" / "out").mkdir(parents=True)
    (tmp_path / "c" / "out" / "result.json").write_text("[not json")
    with pytest.raises(ClustlensInputError, match="damaged result"):
        _read_result(tmp_path / "c" / "out", "coef", "C.npy", mio.DEFAULT_LIMITS)


def _kill_next_worker(found: list[int], seconds: float = 30.0) -> None:
    """SIGKILL the first upload worker that appears (a child of the fork server), from outside
    — as an administrator, the OOM killer or a crash would."""
    import os
    import signal
    import time
    from multiprocessing import forkserver

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        server = getattr(forkserver._forkserver, "_forkserver_pid", None)
        if server:
            for entry in os.listdir("/proc"):
                if not entry.isdigit():
                    continue
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        ppid = int(f.read().rsplit(")", 1)[1].split()[1])
                except (OSError, ValueError, IndexError):
                    continue
                if ppid == server:
                    os.kill(int(entry), signal.SIGKILL)
                    found.append(int(entry))
                    return
        time.sleep(0.05)


def _killing(monkeypatch):
    import threading

    monkeypatch.setenv(TEST_HOOK_ENV, "sleep")  # the worker parses "forever" until killed
    found: list[int] = []
    t = threading.Thread(target=_kill_next_worker, args=(found,), daemon=True)
    t.start()
    return t, found


def test_worker_killed_mid_parse_is_a_message_and_the_next_parse_works(monkeypatch):
    t, found = _killing(monkeypatch)
    with pytest.raises(ClustlensInputError, match=r"C\.npy: could not be parsed safely: the "
                       r"parser was killed"):  # fmt: skip
        parse_in_worker("coef", fx.npy_bytes(np.eye(2)), "C.npy", timeout=60)
    t.join(5)
    assert found
    monkeypatch.delenv(TEST_HOOK_ENV)
    assert parse_in_worker("coef", fx.npy_bytes(np.eye(3)), "C.npy").matrix.shape == (3, 3)


def test_worker_killed_mid_upload_in_the_dashboard_keeps_the_session(monkeypatch):
    from pathlib import Path

    from streamlit.testing.v1 import AppTest

    app = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"
    at = AppTest.from_file(str(app), default_timeout=120).run()
    before = at.session_state["clustlens"].coef.name
    t, found = _killing(monkeypatch)
    at.file_uploader(key="up_coef").set_value(
        ("big.npy", fx.npy_bytes(np.eye(400)), "application/octet-stream")
    )
    at.run()
    t.join(5)
    assert found and not at.exception
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert "big.npy was not loaded" in errors and "killed" in errors
    assert at.session_state["clustlens"].coef.name == before  # nothing lost
    monkeypatch.delenv(TEST_HOOK_ENV)
    at.file_uploader(key="up_coef_1").set_value(
        ("good.npy", fx.npy_bytes(np.eye(400)), "application/octet-stream")
    )
    at.run()
    assert not at.exception
    assert at.session_state["clustlens"].coef.name == "good.npy"


def test_the_worker_is_warmed_once_per_process_not_on_every_rerun(monkeypatch):
    """The app calls warm_up_worker after every script run; only the first may start the fork
    server (each call used to spawn a parse child 3 s later, competing with the next page)."""
    import threading

    import dashboard.inputs._build as build

    started = []
    monkeypatch.setattr(build, "_warm_up_started", False)
    monkeypatch.setattr(threading, "Thread", lambda **kw: started.append(kw) or _NoThread())
    assert build.warm_up_worker() is True
    assert build.warm_up_worker() is False
    assert build.warm_up_worker() is False
    assert len(started) == 1


class _NoThread:
    def start(self) -> None:
        pass


def test_the_warm_up_makes_way_for_page_runs():
    """The warm-up's steps wait while a page is being built (a thread named as Streamlit's
    script thread is alive), and go ahead once none has been for ``idle_s``, or after their
    timeout."""
    import threading
    import time

    import dashboard.inputs._build as build
    from dashboard.session import scripts

    assert not scripts.building() and build.wait_quiet(timeout_s=1.0, idle_s=0.05)
    assert build.wait_quiet(timeout_s=0.1, idle_s=0.5) is False  # not quiet long enough yet
    release = threading.Event()
    run = threading.Thread(target=release.wait, name=scripts.SCRIPT_THREAD, daemon=True)
    run.start()
    try:
        assert scripts.building()
        assert build.wait_quiet(timeout_s=0.1) is False  # still building: timed out
        threading.Timer(0.1, release.set).start()
        t0 = time.monotonic()
        assert build.wait_quiet(timeout_s=5.0, idle_s=0.3) is True  # the run ended: go ahead,
        assert time.monotonic() - t0 >= 0.1 + 0.3 - 0.05  # once quiet for idle_s
    finally:
        release.set()
        run.join()
    assert list(build.SKLEARN_STEPS)[-1] == "sklearn.cluster"


def test_the_warm_up_sleeps_through_a_page_run(monkeypatch):
    """While a page is being built, a warm-up step blocks until the run ends instead of
    looking every ``poll_s`` (each look took the interpreter lock from the page's computing:
    ~500 of them during the demo's 2.5-s "Run comparison")."""
    import threading

    import dashboard.inputs._build as build
    from dashboard.session import scripts

    release = threading.Event()
    run = threading.Thread(target=release.wait, name=scripts.SCRIPT_THREAD, daemon=True)
    run.start()
    looks: list[int] = []
    real, me = threading.enumerate, threading.current_thread()

    def counted() -> list[threading.Thread]:
        if threading.current_thread() is me:  # not other tests' threads
            looks.append(1)
        return real()

    monkeypatch.setattr(threading, "enumerate", counted)
    try:
        threading.Timer(0.4, release.set).start()
        assert build.wait_quiet(timeout_s=5.0, poll_s=0.005, idle_s=0.0) is True
        assert not run.is_alive()
    finally:
        release.set()
        run.join()
    assert len(looks) <= 5, f"{len(looks)} looks while one page was built for 0.4 s"


def test_streamlit_still_names_its_script_thread_so():
    """Should a Streamlit release rename it, the warm-up would stop making way, silently."""
    import inspect

    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

    from dashboard.session import scripts

    assert f'"{scripts.SCRIPT_THREAD}"' in inspect.getsource(ScriptRunner)


def test_the_warm_up_hurries_once_the_sessions_first_page_is_done():
    """Before: a warm-up step waits for a pause (no page built for QUIET_IDLE_S). Once a session
    runs its script a second time (a click: its first page is done), only for no page being
    built — whichever page it opens, on a click on the first page too."""
    import threading
    import time

    from streamlit.testing.v1 import AppTest

    import dashboard.inputs._build as build

    hurry = threading.Event()
    assert build.wait_quiet(timeout_s=0.2, idle_s=5.0, hurry=hurry) is False
    hurry.set()
    t0 = time.monotonic()
    assert build.wait_quiet(timeout_s=5.0, idle_s=5.0, hurry=hurry) is True
    assert time.monotonic() - t0 < 1.0

    app = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"
    for page in ("views/contingency.py", "views/sweep.py", None):
        build._HURRY.clear()
        at = AppTest.from_file(str(app), default_timeout=120).run()
        assert not build._HURRY.is_set()  # the first page is still being drawn
        (at.switch_page(page) if page else at).run()
        assert build._HURRY.is_set(), page


def test_the_warm_up_imports_fits_once_reads_the_hw_views_then_starts_the_fork_server(
    monkeypatch,
):
    """Its steps, in order: scikit-learn's k-NN graphs and k-means, one fit
    (:func:`first_fit`), the six HW views (the demo pages' first Run reads them: the pages open
    on shipped results), then the fork server."""
    import threading

    import dashboard.inputs._build as build
    import metrics_core.datasets as datasets
    import metrics_core.io.worker as worker

    done: list[str] = []

    class _Now:
        def __init__(self, target, **_kw):
            self.target = target

        def start(self) -> None:
            self.target()

    monkeypatch.setattr(build, "_warm_up_started", False)
    monkeypatch.setattr(threading, "Thread", _Now)
    monkeypatch.setattr(build, "wait_quiet", lambda **_kw: True)
    monkeypatch.setattr(build, "import_module", lambda name: done.append(name))
    monkeypatch.setattr(datasets, "load_view", lambda name: done.append(f"view {name}"))
    monkeypatch.setattr(worker, "warm_up", lambda: done.append("fork server"))
    monkeypatch.setattr(build, "first_fit", lambda: done.append("first fit"))
    assert build.warm_up_worker() is True
    views = [f"view {v}" for v in datasets.VIEWS]
    assert done == [*build.SKLEARN_STEPS, "first fit", *views, "fork server"]


def test_the_warm_up_fit_runs_the_code_a_run_takes(monkeypatch):
    """first_fit goes through the sweep's runner with the registry's first model (the Sweep
    page's default) and finishes without error (the warm-up would swallow one, silently)."""
    import threading

    import dashboard.inputs._build as build
    import metrics_core.sweep as sweep
    from metrics_core.models import MODELS

    seen = []
    real, me = sweep.run_sweep, threading.current_thread()

    def spy(*args, **kwargs):
        res = real(*args, **kwargs)
        if threading.current_thread() is me:  # not a warm-up thread an earlier test started
            seen.append((args[2], res.errors, len(res.rows)))
        return res

    monkeypatch.setattr(sweep, "run_sweep", spy)
    build.first_fit()
    assert seen == [(next(iter(MODELS)), [], 1)]
