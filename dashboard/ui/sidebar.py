"""The sidebar: inputs (ground truth, predictions, C) that persist across every view.

Uploads are parsed once (tracked by the uploader's file id) through the sandboxed worker; a bad
file adds one message and changes nothing that was loaded before.
"""

from __future__ import annotations

import dataclasses
import logging
from typing import Any

import scipy.sparse as sp
import streamlit as st

from dashboard import inputs
from dashboard.session import budget, state
from dashboard.session.state import K_ACTIVE, K_ORIENT, AppState, Input
from dashboard.ui import widgets as ui
from metrics_core.io import default_orientation
from metrics_core.validation._errors import ClustlensInputError

log = logging.getLogger("clustlens.dashboard")

LABEL_TYPES = ["txt", "csv", "tsv", "npy", "npz", "mat"]
COEF_TYPES = ["npz", "npy", "mat", "txt", "csv", "tsv"]
HINTS = {
    "truth": "Upload one label per point: a .txt/.csv/.tsv column, a 1-D .npy, or a variable "
    "of a .mat/.npz file.",
    "pred": "Upload one predicted label per point: a .txt/.csv/.tsv column, a 1-D .npy, or a "
    "variable of a .mat/.npz file.",
    "coef": "Upload an N x N matrix: dense .npy, scipy sparse .npz (save_npz), a .mat variable, "
    "or an edge list (.csv with the header i,j,value).",
    "counts": "Upload (class, cluster, count) rows, e.g. the output of a SQL GROUP BY or of "
    "DuckDB/Spark.",
}
HINTS["pred_coef"] = HINTS["coef"]
UPLOADER_KEYS = {
    "truth": "up_truth",
    "pred": "up_preds",
    "coef": "up_coef",
    "counts": "up_counts",
    "pred_coef": "up_pred_coef",
}
#: role -> how many times its uploader was emptied after a rejected file
K_UPLOADER_VERSION = "sidebar_uploader_versions"
#: Open states of the sidebar's boxes (each built only while open).
K_COUNTS_OPEN = "sidebar_counts_open"
K_OWN_COEF_OPEN = "sidebar_own_coef_open"
FORMATS_HELP = {
    "labels": "Accepted: .txt, .csv, .tsv (one label per line, or a column of a table), "
    ".npy (1-D array), .npz or .mat (one variable, picked below).",
    "coef": "Accepted: .npz (scipy.sparse save_npz, or a dense array), .npy (dense N x N), "
    ".mat (one variable, picked below), .txt/.csv/.tsv (dense N x N, or an edge list with the "
    "header i,j,value: C[i, j] = value, 0-based point indices, as an engine writes it).",
    "counts": "A .csv/.tsv/.txt of (class, cluster, count) rows — what `SELECT truth, pred, "
    "COUNT(*) ... GROUP BY truth, pred` returns in DuckDB, Spark or any database. Summary, "
    "Contingency, Pair confusion and Learn work from it; pages that need the points do not.",
}
ROLE_NAMES = {
    "truth": "ground truth",
    "pred": "prediction",
    "coef": "coefficient matrix",
    "counts": "counts table",
    "pred_coef": "prediction's own C",
}
ORIENT_LABELS = {
    "rows": "rows — row i represents point i (Python: X ≈ C X)",
    "columns": "columns — column i represents point i (MATLAB: X ≈ X C)",
}


def _file_id(f) -> str:
    return str(getattr(f, "file_id", None) or f"{f.name}:{f.size}")


def _parse(s: AppState, role: str, name: str, data: bytes, **pick) -> Input | None:
    """Parse or add one message to ``s.messages``; never raise."""
    try:
        if role == "coef" and s.points_unavailable():
            raise ClustlensInputError(
                "the labels loaded now were rebuilt from a counts table, so no C can be "
                "matched to their points; upload the ground-truth label file first",
                source=name,
            )
        if role == "counts":
            truth, pred = inputs.counts_inputs(name, data)
            freed = sum(budget.input_charge(i) for i in (s.truth, s.coef, *s.preds))
            extra = budget.input_charge(truth) + budget.input_charge(pred)
            budget.admit(s, name, extra, what="the labels rebuilt from this table",
                         replacing=freed)  # fmt: skip
            _install_counts(s, name, truth, pred)
            return None
        replacing = _replaced_charge(s, role)
        room = budget.room(s, replacing=replacing)
        if role == "pred_coef":
            inp = _own_coef(s, name, data, room)
        else:
            checks = {}
            if role == "coef" and s.truth is not None and not s.truth.demo:
                # checked in the worker: a C for other points never reaches the server
                checks = {"n_rows": s.truth.n, "rows_for": f"the ground truth {s.truth.name}"}
            inp = inputs.build_input(role, name, data, room=room, **pick, **checks)
            _check_size(s, inp)
        shape = " x ".join(f"{d:,}" for d in inp.value.shape)
        budget.admit(s, name, budget.input_charge(inp), replacing=replacing,
                     what=f"this {ROLE_NAMES[role]} ({shape})")  # fmt: skip
        return inp
    except ClustlensInputError as exc:
        s.messages.append(
            (
                "error",
                f"{name} was not loaded as the {ROLE_NAMES[role]}: {exc.reason}"
                + (f" (at {exc.where})" if exc.where else "")
                + f". {HINTS[role]} Everything loaded before is unchanged.",
            )
        )
    except Exception as exc:
        log.exception("upload %r failed", name)
        s.messages.append(
            (
                "error",
                f"{name} could not be read as the {ROLE_NAMES[role]} ({type(exc).__name__}). "
                f"{HINTS[role]} Everything loaded before is unchanged.",
            )
        )
    return None


def _replaced_charge(s: AppState, role: str) -> int:
    """The charge of what an upload for ``role`` replaces (given back when it is installed)."""
    if role == "truth":
        return budget.input_charge(s.truth)
    if role == "coef":
        return budget.input_charge(s.coef)
    if role == "pred_coef":
        pred = state.active_pred(s)
        return 0 if pred is None else budget.input_charge(pred.own_coef)
    return 0


def _own_coef(s: AppState, name: str, data: bytes, room: int | None = None) -> Input:
    """A C for the active prediction only: N x N for that prediction's N (an edge list is
    padded), refused otherwise."""
    from metrics_core.io import EDGE_LIST_NOTE

    pred = state.active_pred(s)
    if pred is None:
        raise ClustlensInputError("upload a prediction first; this C goes with it", source=name)
    inp = inputs.build_input("coef", name, data, room=room)
    m, n = inp.value.shape[0], pred.n
    if m != n and not (EDGE_LIST_NOTE in inp.notes and m < n):
        raise ClustlensInputError(
            f"C is {m:,} x {m:,} but the prediction {pred.name} labels {n:,} points "
            f"(expected {n:,} x {n:,})",
            source=name,
        )
    return inputs.pad_edge_list(inp, n)


def _check_size(s: AppState, inp: Input) -> None:
    """Refuse a prediction or C whose size does not match the user's ground truth.

    (Against the demo's ground truth a different size is fine: the demo makes way for it.)
    An edge-list C smaller than N is padded on install, so only a larger one is refused.
    """
    t = s.truth
    if t is None or t.demo:
        return
    if inp.role == "pred" and inp.n != t.n:
        raise ClustlensInputError(
            f"it has {inp.n:,} labels but the ground truth {t.name} has {t.n:,} (expected "
            f"{t.n:,}); a prediction must label the same points",
            source=inp.name,
        )
    if inp.role == "coef":
        from metrics_core.io import EDGE_LIST_NOTE

        m = inp.value.shape[0]
        edge_list = EDGE_LIST_NOTE in inp.notes
        if m != t.n and not (edge_list and m < t.n):
            raise ClustlensInputError(
                f"C is {m:,} x {m:,} but the ground truth {t.name} has {t.n:,} points "
                f"(expected {t.n:,} x {t.n:,})",
                source=inp.name,
            )


def _install_counts(s: AppState, name: str, truth: Input, pred: Input) -> None:
    """Labels rebuilt from a counts table replace the ground truth, predictions and C."""
    s.truth, s.preds, s.coef, s.from_counts = truth, [pred], None, name
    st.session_state[K_ACTIVE] = pred.name
    s.messages.append(
        (
            "success",
            f"loaded {name} as a counts table ({truth.n:,} points): ground truth and prediction "
            "rebuilt from it; C, SRE/CONN and the affinity plot need real points",
        )
    )


def _install(s: AppState, inp: Input, role: str) -> None:
    if inp.role == "truth" and s.from_counts is not None:
        # Real labels replace the rebuilt ones; the rebuilt prediction goes with them.
        s.preds = [p for p in s.preds if p.sha256 != s.truth.sha256] if s.truth else s.preds
        s.from_counts = None
    if inp.role == "coef" and s.truth is not None:
        inp = inputs.pad_edge_list(inp, s.truth.n)
    dropped = s.drop_demo_mismatching(inp.n) if role != "pred_coef" else []
    if dropped:
        s.messages.append(
            ("info", "demo files removed (their size differs from yours): " + ", ".join(dropped))
        )
    if role == "pred_coef":
        pred = state.active_pred(s)
        i = next(k for k, p in enumerate(s.preds) if p is pred)
        s.preds[i] = dataclasses.replace(pred, own_coef=inp)
        s.messages.append(("success", f"{inp.name} is now the C of {pred.name} only"))
        return
    if inp.role == "truth":
        s.truth = inp
    elif inp.role == "coef":
        s.coef = inp
        st.session_state[K_ORIENT] = default_orientation(inp.name)
        if st.session_state[K_ORIENT] == "columns":
            s.messages.append(
                (
                    "info",
                    f"{inp.name}: MATLAB codes store points as columns, so C is read by "
                    "columns; switch to rows below if yours stores them as rows.",
                )
            )
    else:
        same = [p for p in s.preds if p.name == inp.name and p.key == inp.key]
        if same:  # the same file again: show it, do not add a copy
            st.session_state[K_ACTIVE] = same[0].name
            return
        inp.name = s.unique_pred_name(inp.name)
        s.preds.append(inp)
        st.session_state[K_ACTIVE] = inp.name
    s.messages.append(("success", f"loaded {inp.name} as the {ROLE_NAMES[inp.role]}"))


def _uploader_key(role: str) -> str:
    """The uploader's widget key; a new key (after a rejected file) is an empty uploader."""
    n = int(st.session_state.get(K_UPLOADER_VERSION, {}).get(role, 0))
    return UPLOADER_KEYS[role] if n == 0 else f"{UPLOADER_KEYS[role]}_{n}"


def _clear_uploader(role: str) -> None:
    versions = dict(st.session_state.get(K_UPLOADER_VERSION, {}))
    versions[role] = int(versions.get(role, 0)) + 1
    st.session_state[K_UPLOADER_VERSION] = versions


def _handle_uploads(s: AppState, role: str, files) -> None:
    """Parse new files; after a rejected one, empty the uploader and rerun.

    The uploader would otherwise keep showing the rejected file as if it were loaded. The
    message stays (``s.messages`` lives in the session state) and is drawn under the
    uploader that received the file.
    """
    if files is None:
        return
    files = files if isinstance(files, list) else [files]
    new = [f for f in files if _file_id(f) not in s.processed]
    if not new:
        return
    s.messages = []
    s.messages_for = role
    rejected = False
    for f in new:
        s.processed.add(_file_id(f))
        before = len([m for m in s.messages if m[0] == "error"])
        inp = _parse(s, role, f.name, f.getvalue())
        if inp is None and len([m for m in s.messages if m[0] == "error"]) > before:
            rejected = True
        elif inp is None:
            continue  # a counts table installs itself
        else:
            _install(s, inp, role)
    if rejected:
        _clear_uploader(role)
        st.rerun()
    if role == "counts":
        st.rerun()  # it replaced every input: draw the sidebar above it again


def _messages(s: AppState, role: str | None) -> None:
    """The messages of the last upload, drawn where ``role``'s uploader is (None: no role)."""
    if not s.messages or s.messages_for != role:
        return
    for level, text in s.messages:
        if level == "error":
            ui.error(text)
        elif level == "success":
            st.success(ui.md_escape(text), icon=":material/check:")
        elif level == "warning":
            st.warning(ui.md_escape(text))
        else:
            st.info(ui.md_escape(text))


def _describe(inp: Input) -> str:
    if inp.role == "coef":
        v = inp.value
        kind = f"sparse, {v.nnz:,} non-zeros" if sp.issparse(v) else "dense"
        return f"{inp.name} — {v.shape[0]:,} x {v.shape[1]:,}, {kind}"
    return f"{inp.name} — {inp.n:,} labels"


def _picker(s: AppState, inp: Input, slot: str) -> Input:
    """Variable (.mat/.npz) or column (tables) picker; returns the input in use."""
    if inp.choice_kind and len(inp.choices) > 1:
        label = "Variable used" if inp.choice_kind == "variable" else "Column used"
        choices = list(inp.choices)
        current = inp.picked if inp.picked in choices else choices[0]
        picked = st.selectbox(
            label,
            choices,
            index=choices.index(current),
            key=f"pick_{slot}_{inp.sha256[:16]}",
            help="Pre-selected by the conventional names (gnd, labels, y, C, Z, ...).",
        )
        if picked != inp.picked:
            s.messages = []
            s.messages_for = inp.role
            new = _parse(s, inp.role, inp.name, inp.data, **{inp.choice_kind: picked})
            if new is not None:
                new.name, new.demo = inp.name, inp.demo
                inp = new
            _messages(s, inp.role)  # drawn here: the uploader's messages were drawn above
    if inp.picked:
        ui.note(f"{inp.choice_kind} used: {inp.picked}")
    return inp


def _show(inp: Input) -> None:
    ui.note(_describe(inp))
    for n in inp.notes:
        ui.note(f"note: {n}")


def _own_coef_controls(s: AppState, pred: Input) -> None:
    """Give the shown prediction a C of its own (a sweep setting opened here has one)."""
    box = st.expander(
        "Its own C (optional)",
        expanded=pred.own_coef is not None,
        key=K_OWN_COEF_OPEN,
        on_change="rerun",
    )
    if not (box.open or pred.own_coef is not None):
        return
    with box:
        _handle_uploads(
            s,
            "pred_coef",
            st.file_uploader(
                f"C of {pred.name} only",
                type=COEF_TYPES,
                key=_uploader_key("pred_coef"),
                help="For runs with different coefficient matrices (a sweep, several models): "
                "this prediction's SRE, CONN, diagnosis, affinity plot and points use this C "
                "instead of the one below. " + FORMATS_HELP["coef"],
            ),
        )
        _messages(s, "pred_coef")
        pred = state.active_pred(s) or pred  # an upload above just replaced it
        if pred.own_coef is not None:
            _show(pred.own_coef)
            st.button("Use the shared C for it", key="drop_own_coef", on_click=_drop_own_coef)


def _drop_own_coef() -> None:
    s = state.get()
    pred = state.active_pred(s)
    if pred is not None:
        i = next(k for k, p in enumerate(s.preds) if p is pred)
        s.preds[i] = dataclasses.replace(pred, own_coef=None)


def _remove_active() -> None:
    s = state.get()
    name = st.session_state.get(K_ACTIVE)
    s.preds = [p for p in s.preds if p.name != name]
    st.session_state[K_ACTIVE] = s.preds[0].name if s.preds else None


def _counts_box(s: AppState, box: Any) -> None:
    """The counts-table upload, inside its box."""
    with box:
        _handle_uploads(
            s,
            "counts",
            st.file_uploader(
                "Counts table (class, cluster, count)",
                type=["csv", "tsv", "txt"],
                key=_uploader_key("counts"),
                help=FORMATS_HELP["counts"],
            ),
        )
        _messages(s, "counts")
        if s.from_counts:
            ui.note(f"labels rebuilt from {s.from_counts}")


def render(s: AppState) -> None:
    """Draw the sidebar inputs and apply uploads to ``s``.

    Each upload's messages (loaded, or why not) appear right under the uploader that
    received the file, where the user is looking, not at the bottom of the sidebar.
    """
    with st.sidebar:
        st.header("Inputs")
        if s.is_demo:
            st.info(
                "Demo data loaded. Upload your own files below to replace it.",
                icon=":material/science:",
            )
        if s.messages_for not in ROLE_NAMES:
            _messages(s, s.messages_for)

        # Boxes of the sidebar are built only while open (a rerun opens one): their uploaders
        # were mounted on every visit of every page, closed, for the few who use them. An
        # upload is parsed into the session at once, so closing the box loses nothing.
        counts = st.expander(
            "Only counts? Upload a (class, cluster, count) table",
            expanded=bool(s.from_counts),
            key=K_COUNTS_OPEN,
            on_change="rerun",
        )
        if counts.open or s.from_counts:
            _counts_box(s, counts)
        st.subheader("Ground truth")
        _handle_uploads(
            s,
            "truth",
            st.file_uploader(
                "Ground-truth labels",
                type=LABEL_TYPES,
                key=_uploader_key("truth"),
                help=FORMATS_HELP["labels"],
            ),
        )
        _messages(s, "truth")
        if s.truth is not None:
            s.truth = _picker(s, s.truth, "truth")
            _show(s.truth)

        st.subheader("Predictions")
        _handle_uploads(
            s,
            "pred",
            st.file_uploader(
                "Predicted labels (one or more files)",
                type=LABEL_TYPES,
                accept_multiple_files=True,
                key=_uploader_key("pred"),
                help=FORMATS_HELP["labels"],
            ),
        )
        _messages(s, "pred")
        names = [p.name for p in s.preds]
        if names:
            if st.session_state.get(K_ACTIVE) not in names:
                st.session_state[K_ACTIVE] = names[0]
            st.selectbox("Prediction shown", names, key=K_ACTIVE)
            i = names.index(st.session_state[K_ACTIVE])
            s.preds[i] = _picker(s, s.preds[i], f"pred{i}")
            _show(s.preds[i])
            st.button("Remove this prediction", key="remove_pred", on_click=_remove_active)
            _own_coef_controls(s, s.preds[i])

        st.subheader("Coefficient matrix C (optional)")
        _handle_uploads(
            s,
            "coef",
            st.file_uploader(
                "Coefficient matrix C",
                type=COEF_TYPES,
                key=_uploader_key("coef"),
                help=FORMATS_HELP["coef"],
            ),
        )
        _messages(s, "coef")
        if s.coef is not None:
            s.coef = _picker(s, s.coef, "coef")
            _show(s.coef)
        st.radio(
            "C stores each point's coefficients in its",
            list(ORIENT_LABELS),
            format_func=ORIENT_LABELS.__getitem__,
            key=K_ORIENT,
        )
        conv = state.conventions()
        if conv.orientation_from_preset:
            ui.note(f"the SRE/CONN preset {conv.preset} reads C by {conv.orientation}")
        st.divider()
        st.button("Reset to the demo", key="reset_demo", on_click=state.reset)
