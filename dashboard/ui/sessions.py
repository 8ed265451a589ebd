"""Save and restore a whole session; after a reload, offer the last one back.

A session file (:mod:`dashboard.inputs._session_file`) holds the inputs, each prediction's own
C, X, the conventions and the page settings. The last state of each browser session is also kept
on the server under an unguessable id in the page's URL (``?sid=``), which a reload keeps: a new
session opened with that id is offered its last state back. Those files live in a private
temporary folder, are replaced as the session changes, are skipped above
:data:`AUTOSAVE_MAX_BYTES` of inputs (said in the sidebar) and are deleted after a week.
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
import logging
import os
import secrets
import tempfile
import time
from pathlib import Path

import streamlit as st

from dashboard.inputs import _session_file as files
from dashboard.session import budget, state
from dashboard.ui import widgets as ui
from metrics_core.validation import ClustlensInputError

log = logging.getLogger("clustlens.dashboard")

SID = "sid"
AUTOSAVE_MAX_BYTES = 256 * 2**20
KEEP_SECONDS = 7 * 24 * 3600
K_FINGERPRINT = "sessions_saved_fingerprint"
K_OFFER = "sessions_offer"  # None: not decided; True: offered; False: declined or restored
K_MESSAGE = "sessions_message"
K_UPLOAD = "session_restore_upload"
K_BOX_OPEN = "sessions_box_open"


def _dir() -> Path:
    d = Path(tempfile.gettempdir()) / f"clustlens-sessions-{os.getuid()}"
    d.mkdir(mode=0o700, exist_ok=True)
    return d


def _sid() -> str:
    sid = st.query_params.get(SID, "")
    if not (len(sid) == 32 and all(c in "0123456789abcdef" for c in sid)):
        sid = secrets.token_hex(16)
        st.query_params[SID] = sid
    return sid


def _path(sid: str) -> Path:
    return _dir() / f"{sid}.zip"


def _now() -> str:
    return _dt.datetime.now(_dt.UTC).strftime("%Y-%m-%d %H:%M UTC")


def _inputs(s: state.AppState) -> list[state.Input]:
    items = [s.truth, *s.preds, *(p.own_coef for p in s.preds), s.coef, s.data]
    return [i for i in items if i is not None]


def session_bytes() -> bytes:
    """This session as a session file (for the download button, built on click)."""
    s = state.get()
    return files.save(s, files.widget_values(st.session_state), _now())


def _room() -> int:
    """What a restored session may be charged: its inputs replace the ones held now."""
    s = state.get()
    return budget.room(s, replacing=sum(budget.input_charge(i) for i in _inputs(s)))


def _apply(r: files.Restored) -> None:
    s = state.get()
    s.truth, s.preds, s.coef, s.data = r.truth, list(r.preds), r.coef, r.data
    s.from_counts = None
    s.points.image_shape = r.image_shape
    s.uncertainty_request = None
    for k, v in r.widgets.items():
        st.session_state[k] = v
    s.messages = [("success", f"session restored ({r.created or 'undated'}): "
                   f"{len(_inputs(s))} inputs, {len(r.widgets)} settings")]  # fmt: skip
    s.messages_for = None
    st.session_state[K_OFFER] = False


def _restore_upload() -> None:
    """Uploader callback (runs before any widget exists, so settings can be set)."""
    f = st.session_state.get(K_UPLOAD)
    if f is None:
        return
    try:
        _apply(files.restore(f.getvalue(), room=_room()))
        st.session_state[K_MESSAGE] = None
    except ClustlensInputError as exc:
        st.session_state[K_MESSAGE] = (
            f"{f.name} was not restored: {exc.reason}"
            + (f" (at {exc.where})" if exc.where else "")
            + ". Everything loaded before is unchanged."
        )


def _restore_last() -> None:
    path = _path(_sid())
    try:
        _apply(files.restore(path.read_bytes(), room=_room()))
    except (OSError, ClustlensInputError) as exc:
        st.session_state[K_OFFER] = False
        st.session_state[K_MESSAGE] = f"the last session could not be restored ({exc})"


def _decline() -> None:
    st.session_state[K_OFFER] = False


def offer_last() -> None:
    """At the top of the page of a new session: offer the last saved state of this URL."""
    if st.session_state.get(K_OFFER) is False:
        return
    path = _path(_sid())
    if st.session_state.get(K_OFFER) is None:
        st.session_state[K_OFFER] = path.is_file()
    if not st.session_state[K_OFFER]:
        return
    try:
        import zipfile

        with zipfile.ZipFile(path) as z:
            m = json.loads(z.read("manifest.json"))
        names = [e["name"] for e in m.get("inputs", [])][:4]
        what = f"saved {m.get('created', '')}: " + ", ".join(names)
    except Exception:  # an unreadable leftover: offer nothing
        st.session_state[K_OFFER] = False
        return
    box = st.container(border=True)
    box.markdown("**Restore your last session?** " + ui.md_escape(what))
    c1, c2, _ = box.columns([1, 1, 4])
    c1.button("Restore", key="sessions_restore_last", on_click=_restore_last, type="primary")
    c2.button("Start fresh", key="sessions_decline", on_click=_decline)


def controls() -> None:
    """Sidebar: save the session as one file, restore one by upload (built only while its box
    is open: its uploader was mounted on every visit of every page)."""
    box = st.expander("Session: save / restore", key=K_BOX_OPEN, on_change="rerun")
    if not box.open:
        return
    with box:
        st.download_button(
            "Save session",
            session_bytes,
            "clustlens_session.zip",
            "application/zip",
            key="session_save",
            icon=":material/download:",
            help="one file with the inputs, each prediction's own C, X, the conventions and the "
            "page settings; upload it below to come back to exactly this",
        )
        st.file_uploader(
            "Restore a session file",
            type=["zip"],
            key=K_UPLOAD,
            on_change=_restore_upload,
            help="a file saved with 'Save session' (checked like any upload)",
        )
        msg = st.session_state.get(K_MESSAGE)
        if msg:
            ui.error(msg)
        ui.note("The last state of this page's address is also kept on the server for a week, "
                "so a reload offers it back.")  # fmt: skip


def autosave() -> None:
    """Keep this session's last state on the server (when it changed and is not too big)."""
    s = state.get()
    items = _inputs(s)
    if not items or all(i.demo for i in items):
        return  # nothing of the user's: keep what an earlier visit left on offer
    if sum(_nbytes(i.value) for i in items) > AUTOSAVE_MAX_BYTES:
        return
    widgets = files.widget_values(st.session_state)
    fp = hashlib.sha256(
        json.dumps([[i.key, i.name] for i in items] + [widgets], sort_keys=True).encode()
    ).hexdigest()
    if st.session_state.get(K_FINGERPRINT) == fp:
        return
    try:
        path = _path(_sid())
        tmp = path.with_suffix(".part")
        tmp.write_bytes(files.save(s, widgets, _now()))
        tmp.replace(path)
        st.session_state[K_FINGERPRINT] = fp
        _cleanup()
    except OSError:
        log.exception("autosave failed")


def _nbytes(v) -> int:
    if hasattr(v, "indptr"):  # scipy sparse
        return int(v.data.nbytes + v.indices.nbytes + v.indptr.nbytes)
    return int(getattr(v, "nbytes", 0))


def _cleanup() -> None:
    cutoff = time.time() - KEEP_SECONDS
    for p in _dir().glob("*.zip"):
        try:
            if p.stat().st_mtime < cutoff:
                p.unlink()
        except OSError:
            pass
