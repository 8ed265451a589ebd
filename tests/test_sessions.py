"""Save a session as one file, restore it, and get the last one back after a reload."""

from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

import numpy as np
import pytest
from html_cards import card_values
from streamlit.testing.v1 import AppTest

from dashboard.inputs import _session_file as files

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"
DEMO = Path(__file__).resolve().parents[1] / "demo_data"


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    return at


def start(sid: str | None = None) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    at.session_state["sessions_box_open"] = True  # its uploader is built only while open
    if sid:
        at.query_params["sid"] = sid
    return ok(at.run())


def unescape(text: str) -> str:
    return text.replace("\\", "")


def upload(at: AppTest, key: str, name: str, data: bytes) -> AppTest:
    at.file_uploader(key=key).set_value((name, data, "application/octet-stream"))
    return ok(at.run())


def user_session() -> AppTest:
    """The user's own files (text labels, the demo's C re-uploaded), a non-default convention."""
    at = start()
    truth = (DEMO / "demo_true.txt").read_text().split()
    names = {"1": "cat", "2": "dog", "3": "emu", "4": "fox", "5": "gnu"}
    upload(at, "up_truth", "animals.txt", "\n".join(names[t] for t in truth).encode())
    upload(at, "up_preds", "run.txt", (DEMO / "demo_pred_run1.txt").read_bytes())
    upload(at, "up_coef", "c.npz", (DEMO / "demo_coef.npz").read_bytes())
    at.session_state["conv_average_method"] = "max"
    return ok(at.run())


def summary_cards(at: AppTest) -> dict[str, str]:
    ok(at.switch_page("views/summary.py").run())
    return card_values(at)


def test_save_and_restore_give_the_same_numbers_inputs_and_settings() -> None:
    at = user_session()
    s = at.session_state["clustlens"]
    widgets = {k: at.session_state[k] for k in files.WIDGET_KEYS if k in at.session_state}
    data = files.save(s, files.widget_values(widgets), "now")
    before = summary_cards(at)
    fresh = start()
    fresh.file_uploader(key="session_restore_upload").set_value(
        ("mine.zip", data, "application/zip")
    )
    ok(fresh.run())
    r = fresh.session_state["clustlens"]
    assert r.truth.name == "animals.txt"
    assert "run.txt" in [p.name for p in r.preds] and r.coef.name == "c.npz"
    assert list(np.unique(r.truth.value)) == ["cat", "dog", "emu", "fox", "gnu"]
    assert fresh.session_state["conv_average_method"] == "max"
    fresh.session_state["active_pred"] = "run.txt"
    at.session_state["active_pred"] = "run.txt"
    assert summary_cards(fresh) == summary_cards(at)
    assert before


def test_a_bad_session_file_is_refused_and_nothing_is_lost() -> None:
    at = start()
    before = [p.name for p in at.session_state["clustlens"].preds]
    bad = io.BytesIO()
    with zipfile.ZipFile(bad, "w") as z:
        z.writestr("manifest.json", json.dumps({"format": "clustlens-session", "version": 1,
                                                "inputs": [{"role": "truth", "name": "t",
                                                            "file": "inputs/9.npy"}]}))  # fmt: skip
    at.file_uploader(key="session_restore_upload").set_value(
        ("bad.zip", bad.getvalue(), "application/zip")
    )
    ok(at.run())
    errors = unescape(" ".join(e.value for e in at.error))
    assert "bad.zip was not restored" in errors and "inputs/9.npy" in errors
    assert "unchanged" in errors
    assert [p.name for p in at.session_state["clustlens"].preds] == before


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        (b"not a zip", "not a zip archive"),
        (b"PK\x05\x06" + b"\x00" * 18, "no manifest.json"),
    ],
)
def test_restore_refuses_what_is_not_a_session(payload: bytes, words: str) -> None:
    from metrics_core.validation import ClustlensInputError

    with pytest.raises(ClustlensInputError, match=words):
        files.restore(payload)


def test_restore_refuses_a_pickle_inside() -> None:
    import pickle

    from metrics_core.validation import ClustlensInputError

    buf = io.BytesIO()
    np.save(buf, np.array([{"a": 1}], dtype=object), allow_pickle=True)
    z = io.BytesIO()
    with zipfile.ZipFile(z, "w") as f:
        f.writestr("manifest.json", json.dumps({"format": "clustlens-session", "version": 1,
                                                "inputs": [{"role": "truth", "name": "t",
                                                            "file": "inputs/0.npy"}]}))  # fmt: skip
        f.writestr("inputs/0.npy", buf.getvalue())
    with pytest.raises(ClustlensInputError):
        files.restore(z.getvalue())
    assert pickle  # nothing was unpickled: the loader refuses object arrays


def test_after_a_reload_the_last_session_is_offered_and_restored() -> None:
    at = user_session()
    sid = at.query_params["sid"]
    sid = sid[0] if isinstance(sid, list) else sid
    again = start(sid)  # a reload: same address, new session
    assert any(b.key == "sessions_restore_last" for b in again.button)
    assert again.session_state["clustlens"].truth.demo
    ok(again.button(key="sessions_restore_last").click().run())
    s = again.session_state["clustlens"]
    assert s.truth.name == "animals.txt" and s.coef.name == "c.npz"
    assert not any(b.key == "sessions_restore_last" for b in again.button)
    declined = start(sid)
    ok(declined.button(key="sessions_decline").click().run())
    assert not any(b.key == "sessions_restore_last" for b in declined.button)
    assert declined.session_state["clustlens"].truth.demo
