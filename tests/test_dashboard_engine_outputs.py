"""What an engine produces, uploaded to the dashboard: a counts table and an edge-list C.

A counts table (class, cluster, count) drives Summary, Contingency, Pair confusion and Learn with
the table's own numbers; the Affinity page says why it cannot run. An edge list (i, j, value) is
a sparse C, padded to the number of labels.
"""

from __future__ import annotations

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

import metrics_core as mc
from tests.test_dashboard_apptest import APP, cards, errors, ok, txt, upload

COUNTS = b"class,cluster,n\na,0,30\na,1,5\nb,1,40\nb,2,3\nc,2,22\n"


def _start() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.session_state["sidebar_counts_open"] = True  # its uploader is built only while open
    at.run()
    return ok(at)


def _labels_of(table: bytes) -> tuple[list, list]:
    t, p = [], []
    for line in table.decode().splitlines()[1:]:
        a, b, n = line.split(",")
        t += [a] * int(n)
        p += [int(b)] * int(n)
    return t, p


def test_counts_table_drives_the_count_pages_with_its_own_numbers():
    at = _start()
    upload(at, "up_counts", "counts.csv", COUNTS)
    assert not errors(at), errors(at)
    want = mc.evaluate(*_labels_of(COUNTS))
    got = cards(at)
    assert float(got["ACC"]) == pytest.approx(want["acc"], abs=5e-4)
    assert float(got["ARI"]) == pytest.approx(want["ari"], abs=5e-4)
    assert "SRE" not in got  # the rebuilt points carry no C
    for page in ("views/contingency.py", "views/pairs.py", "views/learn.py"):
        at.switch_page(page).run()
        ok(at)
        assert not at.error, (page, errors(at))
    at.switch_page("views/affinity.py").run()
    ok(at)
    info = " ".join(i.value for i in at.info)
    assert "unavailable" in info and "counts table" in info


def test_c_is_refused_while_labels_come_from_counts_and_data_survive():
    at = _start()
    upload(at, "up_counts", "counts.csv", COUNTS)
    before = cards(at)
    upload(at, "up_coef", "C.csv", b"i,j,value\n0,1,1.0\n")
    assert any("counts table" in e for e in errors(at)), errors(at)
    assert cards(at) == before


def test_oversized_or_malformed_counts_table_is_refused_and_nothing_is_lost():
    at = _start()
    before = cards(at)
    upload(at, "up_counts", "bad.csv", b"class,cluster,n\na,0,x\n")
    msg = " ".join(errors(at))
    assert "bad.csv" in msg and "line 2" in msg, msg
    assert cards(at) == before


def test_edge_list_c_is_sparse_and_padded_to_the_labels():
    rng = np.random.default_rng(0)
    t = np.repeat([0, 1, 2], 20)
    at = _start()
    upload(at, "up_truth", "t.txt", txt(t))
    upload(at, "up_preds", "p.txt", txt(t))
    i = rng.integers(0, 50, 300)  # the last 10 points have no stored coefficient
    j = np.where(
        rng.random(300) < 0.8, (i // 20) * 20 + rng.integers(0, 20, 300), rng.integers(0, 60, 300)
    )
    v = rng.random(300)
    body = "i,j,value\n" + "".join(f"{a},{b},{c}\n" for a, b, c in zip(i, j, v, strict=True))
    upload(at, "up_coef", "C_edges.csv", body.encode())
    assert not errors(at), errors(at)
    import scipy.sparse as sp

    c = sp.coo_array((v, (i, j)), shape=(60, 60)).tocsr()
    want = mc.evaluate(t, t, c)
    assert float(cards(at)["SRE"]) == pytest.approx(want["sre"], abs=5e-4)


@pytest.mark.parametrize(
    ("body", "words"),
    [(b"i,j,value\n0,1,nan\n", ["not finite", "line 2"]),
     (b"i,j,value\n0,-3,1\n", ["0-based", "line 2"])],
)  # fmt: skip
def test_bad_edge_lists_are_refused_with_the_line(body, words):
    at = _start()
    before = cards(at)
    upload(at, "up_coef", "C.csv", body)
    msg = " ".join(errors(at))
    for w in words:
        assert w in msg, msg
    assert cards(at) == before


def test_counts_table_too_big_to_rebuild_points_to_the_cli():
    at = _start()
    before = cards(at)
    upload(at, "up_counts", "huge.csv", b"class,cluster,n\na,0,30000000\nb,1,5\n")
    msg = " ".join(errors(at))
    assert "clustlens evaluate --contingency huge.csv" in msg, msg
    assert cards(at) == before


def test_wrong_length_prediction_or_c_is_refused_at_upload_and_pages_keep_working():
    at = _start()
    upload(at, "up_truth", "t.txt", txt([0, 0, 1, 1, 2, 2]))
    upload(at, "up_preds", "p.txt", txt([0, 0, 1, 1, 2, 2]))
    before = cards(at)
    upload(at, "up_preds", "short.txt", txt([0, 1, 2]))
    msg = " ".join(errors(at))
    assert "short.txt" in msg and "3 labels" in msg and "expected 6" in msg, msg
    assert "unchanged" in msg
    assert cards(at) == before
    upload(at, "up_coef", "C.npy", __import__("tests.test_dashboard_apptest",
                                               fromlist=["npy"]).npy(np.eye(4)))  # fmt: skip
    msg = " ".join(errors(at))
    assert "C.npy" in msg and "expected 6 x 6" in msg, msg
    for page in ("views/contingency.py", "views/pairs.py"):
        at.switch_page(page).run()
        ok(at)
        assert not at.main.error, [e.value for e in at.main.error]
