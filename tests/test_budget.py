"""Memory budgets: each session's and the server's, charged per input, said when refused."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp
from streamlit.testing.v1 import AppTest
from test_dashboard_apptest import APP, errors, npy, ok, unescape, upload
from test_dashboard_apptest import npz_sparse as npz

from dashboard import inputs
from dashboard.compute import sweep as cs
from dashboard.session import budget
from dashboard.session.state import AppState
from metrics_core.validation import ClustlensInputError


def labels_txt(n: int, k: int = 4) -> bytes:
    return ("\n".join(str(i % k) for i in range(n)) + "\n").encode()


# ------------------------------------------------------------------ accounting
def test_each_array_is_charged_once_with_its_working_factor_and_the_demo_is_free() -> None:
    s = AppState()
    s.truth = inputs.from_array("truth", "t", np.arange(1000) % 3)
    c = np.ones((100, 100))
    s.coef = inputs.from_array("coef", "C", c)
    s.preds = [inputs.from_array("pred", "p", np.arange(1000) % 2)]
    s.preds[0].own_coef = s.coef  # the same C twice is held once
    assert budget.held(s) == 8000 + 3 * 80_000 + 8000
    s.truth.demo = True
    assert budget.held(s) == 3 * 80_000 + 8000
    m = sp.random_array((50, 50), density=0.1, format="csr", random_state=0)
    assert budget.array_bytes(m) == m.data.nbytes + m.indices.nbytes + m.indptr.nbytes


def test_budgets_come_from_the_environment_and_bad_sizes_are_named(monkeypatch) -> None:
    monkeypatch.setenv(budget.SESSION_ENV, "2MB")
    monkeypatch.setenv(budget.SERVER_ENV, "1.5GiB")
    assert budget.session_budget() == 2_000_000
    assert budget.server_budget() == int(1.5 * 2**30)
    monkeypatch.setenv(budget.SESSION_ENV, "lots")
    with pytest.raises(ClustlensInputError, match="not a memory size") as exc:
        budget.session_budget()
    assert exc.value.source == budget.SESSION_ENV


def test_cli_refuses_a_bad_size_before_starting_anything() -> None:
    r = subprocess.run(
        [sys.executable, "-m", "dashboard.cli", "dashboard", "--session-memory", "lots"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert r.returncode == 2
    assert "not a memory size" in r.stderr and "Traceback" not in r.stderr


def test_the_session_budget_refuses_with_what_is_held(monkeypatch) -> None:
    monkeypatch.setenv(budget.SESSION_ENV, "100KB")
    s = AppState()
    s.truth = inputs.from_array("truth", "my labels", np.arange(5000) % 3)
    budget.admit(s, "small.npy", 50_000, what="this prediction")
    with pytest.raises(ClustlensInputError) as exc:
        budget.admit(s, "big.npy", 80_000, what="this prediction (10,000)")
    msg = str(exc.value)
    assert exc.value.source == "big.npy"
    assert "78.1 KiB" in msg and "already holds 39.1 KiB of its 97.7 KiB budget" in msg
    assert "my labels: 39.1 KiB" in msg and "--session-memory" in msg
    # what the new input replaces is given back first
    budget.admit(s, "big.npy", 80_000, what="the ground truth", replacing=40_000)


def test_the_server_budget_counts_every_live_session(monkeypatch) -> None:
    monkeypatch.setenv(budget.SESSION_ENV, "1GB")
    monkeypatch.setenv(budget.SERVER_ENV, "1MB")
    # only this test's sessions: AppTest sessions of earlier tests may still be alive
    import weakref

    monkeypatch.setattr(budget, "_live", weakref.WeakValueDictionary())
    other = AppState()
    other.coef = inputs.from_array("coef", "their C", np.ones((200, 200)))  # 960 KB charged
    budget.register(other)
    me = AppState()
    budget.register(me)
    with pytest.raises(ClustlensInputError, match=r"taken \(937.5 KiB by 1 other session"):
        budget.admit(me, "mine.npy", 100_000, what="this C")
    del other  # a session Streamlit forgot is no longer counted
    import gc

    gc.collect()
    budget.admit(me, "mine.npy", 100_000, what="this C")


def test_worker_refuses_an_array_the_session_has_no_room_for_before_reading_it() -> None:
    with pytest.raises(ClustlensInputError) as exc:
        inputs.build_input("coef", "C.npy", npy(np.ones((300, 300))), room=300_000)
    msg = str(exc.value)
    assert "C.npy" in msg and "declares 703.1 KiB of data, more than the 97.7 KiB this " in msg
    assert "session's memory budget leaves for one array of the coef (charged 3x" in msg


# ------------------------------------------------------------------ no densifying first
def _peak_mb(fn) -> float:
    tracemalloc.start()
    try:
        fn()
    except ClustlensInputError:
        pass
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def test_a_sparse_x_for_other_points_is_refused_before_it_is_made_dense() -> None:
    """The issue's case: 12,000 x 12,000 with one non-zero (1.1 GB dense) for 50 labels."""
    x = sp.csr_array(([1.0], ([0], [0])), shape=(12_000, 12_000))
    with pytest.raises(ClustlensInputError, match=r"has 12,000 rows but y\.txt has 50 labels"):
        cs.uploaded("x.npz", npz(x), "y.txt", labels_txt(50))
    assert _peak_mb(lambda: cs.uploaded("x.npz", npz(x), "y.txt", labels_txt(50))) < 20


def test_a_sparse_x_whose_sweep_would_not_fit_is_refused_before_it_is_made_dense() -> None:
    x = sp.csr_array(([1.0], ([0], [0])), shape=(20_000, 20_000))
    y = labels_txt(20_000)
    said = r"declares 3\.0 GiB of data, more than the 511\.9 MiB this session's memory budget"
    with pytest.raises(ClustlensInputError, match=said) as exc:
        cs.uploaded("x.npz", npz(x), "y.txt", y, room=budget.DEFAULT_SESSION)
    assert exc.value.source == "x.npz"
    assert _peak_mb(lambda: cs.uploaded("x.npz", npz(x), "y.txt", y, room=2**30)) < 20


# ------------------------------------------------------------------ through the pages
def test_a_c_past_the_session_budget_is_refused_in_the_sidebar_and_nothing_is_lost(
    monkeypatch,
) -> None:
    monkeypatch.setenv(budget.SESSION_ENV, "1MB")
    at = AppTest.from_file(str(APP), default_timeout=90)
    ok(at.run())
    upload(at, "up_truth", "truth.txt", labels_txt(400))
    s = at.session_state["clustlens"]
    demo_c = s.coef.name
    upload(at, "up_coef", "big C.npy", npy(np.ones((400, 400))))
    msgs = [e for e in errors(at) if "big C.npy" in e]
    assert msgs, errors(at)
    assert "memory budget" in msgs[0] and "unchanged" in msgs[0]
    s = at.session_state["clustlens"]
    assert s.truth.name == "truth.txt" and s.coef.name == demo_c
    # a sparse C of the same points fits (the refusal emptied the uploader: a new key)
    upload(at, "up_coef_1", "sparse C.npz", npz(sp.eye_array(400) * 0.5))
    assert at.session_state["clustlens"].coef.name == "sparse C.npz"


def test_multiview_refused_upload_keeps_what_was_shown() -> None:
    from test_multiview_view import _csv, page, submit

    from metrics_core.datasets import make_multiview

    views, y = make_multiview(n_per_cluster=10, n_clusters=3, n_views=2, seed=1)
    y_txt = ("\n".join(map(str, y)) + "\n").encode()
    at = page()
    ok(at.radio(key="mv_source").set_value("upload").run())
    at.file_uploader(key="mv_up_views").set_value(
        [("a.csv", _csv(views[0]), "text/csv"), ("b.csv", _csv(views[1]), "text/csv")]
    )
    at.file_uploader(key="mv_up_y").set_value(("y.txt", y_txt, "text/plain"))
    ok(submit(at))
    before = at.session_state["clustlens"].multiview.data
    assert before is not None and before.n == 30
    at.file_uploader(key="mv_up_views").set_value(
        [("a.csv", _csv(views[0]), "text/csv"), ("bad.csv", b"1,2\n3,x\n", "text/csv")]
    )
    ok(submit(at))
    assert any("bad.csv" in e and "unchanged" in e for e in errors(at)), errors(at)
    s = at.session_state["clustlens"]
    assert s.multiview.data is before
    assert s.multiview.config["args"]["files"] == ["a.csv", "b.csv"]
    caps = "\n".join(unescape(c.value) for c in at.caption)
    assert "2 uploaded views, 30 points" in caps


def test_a_c_for_other_points_is_refused_by_the_worker_with_both_sizes() -> None:
    """Checked in the parsing worker: the server never receives the wrong-size matrix."""
    at = AppTest.from_file(str(APP), default_timeout=90)
    ok(at.run())
    upload(at, "up_truth", "truth.txt", labels_txt(300))
    upload(at, "up_coef", "C400.npy", npy(np.ones((400, 400))))
    msgs = [e for e in errors(at) if "C400.npy" in e]
    assert msgs and "C is 400 x 400 but the ground truth truth.txt has 300 points" in msgs[0]
    assert at.session_state["clustlens"].coef is None  # the demo's C left with its labels
    # an edge list with fewer points than N is padded, not refused
    upload(at, "up_coef_1", "edges.csv", b"i,j,value\n0,1,0.5\n1,0,0.5\n")
    assert at.session_state["clustlens"].coef.value.shape == (300, 300)
