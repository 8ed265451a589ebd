"""Each prediction may carry its own C: SRE/CONN per prediction everywhere, shared C otherwise."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import scipy.sparse as sp
from html_tables import static_tables
from streamlit.testing.v1 import AppTest

import metrics_core as mc
from demo_data import make_demo

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"
DEMO = Path(__file__).resolve().parents[1] / "demo_data"


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    return at


def unescape(text: str) -> str:
    return text.replace("\\", "")


def block_c(truth: np.ndarray) -> sp.csr_array:
    """A C with every coefficient inside the point's class (SRE 0, each class connected)."""
    same = (truth[:, None] == truth[None, :]).astype(float)
    np.fill_diagonal(same, 0.0)
    return sp.csr_array(same)


def npz(m) -> bytes:
    buf = io.BytesIO()
    sp.save_npz(buf, sp.csr_matrix(m))
    return buf.getvalue()


def _app() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.session_state["sidebar_own_coef_open"] = True  # its uploader is built only while open
    return ok(at.run())


def with_second_prediction_owning_a_clean_c() -> tuple[AppTest, np.ndarray]:
    at = _app()
    truth = make_demo.build()["truth"]
    run2 = (DEMO / "demo_pred_run2.txt").read_bytes()
    assert at.selectbox(key="active_pred").value.endswith("run1.txt")
    at.selectbox(key="active_pred").set_value(at.selectbox(key="active_pred").options[1])
    ok(at.run())
    at.file_uploader(key="up_pred_coef").set_value(("clean.npz", npz(block_c(truth)),
                                                    "application/octet-stream"))  # fmt: skip
    ok(at.run())
    assert run2  # the demo's second run is the one given its own C
    return at, truth


def test_own_c_scores_that_prediction_only_and_the_table_shows_both() -> None:
    at, truth = with_second_prediction_owning_a_clean_c()
    s = at.session_state["clustlens"]
    run1, run2 = s.preds
    assert run1.own_coef is None and run2.own_coef is not None
    assert s.coef_for(run1) is s.coef and s.coef_for(run2) is run2.own_coef
    ok(at.switch_page("views/summary.py").run())
    table = next(t for t in static_tables(at) if "prediction" in t.columns)
    sre = dict(zip(table["prediction"], table["SRE"], strict=True))
    shared = mc.subspace_preserving_error(s.coef.value, truth).value
    assert sre[run1.name] == f"{shared:.4f}" and shared > 0.001
    assert sre[run2.name] == "0.0000"
    caps = unescape(" ".join(c.value for c in at.caption))
    assert "clean.npz (this prediction's own)" in caps


def test_compare_page_gives_sre_and_conn_per_prediction() -> None:
    at, _ = with_second_prediction_owning_a_clean_c()
    ok(at.switch_page("views/compare.py").run())
    at.selectbox(key="cmp_a").set_value(at.selectbox(key="cmp_a").options[0])
    ok(at.run())
    assert not at.table  # one static table (ui.static_table), not st.table
    rows = [r for t in static_tables(at) for r in t.to_dict("records") if "B − A" in r]
    sre = next(r for r in rows if r["metric"] == "SRE")
    assert float(sre["B"]) == 0.0 and float(sre["A"]) > 0.0
    assert "A's is demo: demo_coef.npz, B's is clean.npz" in unescape(
        " ".join(c.value for c in at.caption)
    )


def test_affinity_and_points_use_the_active_predictions_own_c() -> None:
    at, _ = with_second_prediction_owning_a_clean_c()
    ok(at.switch_page("views/affinity.py").run())
    assert not at.error
    assert "clean.npz (this prediction's own)" in unescape(" ".join(c.value for c in at.caption))
    ok(at.switch_page("views/points.py").run())
    assert not at.error


def test_own_c_of_the_wrong_size_is_refused_and_nothing_is_lost() -> None:
    at = _app()
    at.file_uploader(key="up_pred_coef").set_value(("small.npz", npz(sp.eye(7)),
                                                    "application/octet-stream"))  # fmt: skip
    ok(at.run())
    s = at.session_state["clustlens"]
    assert all(p.own_coef is None for p in s.preds) and s.coef is not None
    errors = unescape(" ".join(e.value for e in at.error))
    assert "small.npz" in errors and "7 x 7" in errors and "400 points" in errors


def test_dropping_the_own_c_goes_back_to_the_shared_one() -> None:
    at, _ = with_second_prediction_owning_a_clean_c()
    ok(at.button(key="drop_own_coef").click().run())
    s = at.session_state["clustlens"]
    assert all(p.own_coef is None for p in s.preds)
