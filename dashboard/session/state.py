"""Session state: one typed :class:`AppState` per browser session, nothing else.

``st.session_state["clustlens"]`` holds the session's :class:`AppState`: the inputs (raw bytes,
SHA-256, parsed value held once), the active prediction, the messages of the last upload, and
one typed dataclass per Explore/Teach page (:mod:`dashboard.session.pages`). Widgets keep their
own Streamlit keys; the conventions they set are read in one place, :func:`conventions`, into a
frozen :class:`~dashboard.analysis.conventions.Conventions` that every surface computes with.
This module imports nothing of the compute, input or UI layers (the demo is put in by
``app.py`` through :mod:`dashboard.inputs`).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from typing import Any

import streamlit as st

from dashboard.analysis.conventions import Conventions
from dashboard.session import budget
from dashboard.session.pages import LearnState, MultiviewState, PointsState, SweepState

STATE_KEY = "clustlens"
_SEEN_CARRY = "clustlens_seen_uploads"

# Widget keys of the conventions (read by every view; the widgets live on the Summary page and
# in the sidebar, with persist_state="session" so the values survive page switches).
K_AVERAGE = "conv_average_method"
K_NOISE = "conv_noise_policy"
K_PRESET = "conv_preset"
K_ORIENT = "coef_orientation"
K_ACTIVE = "active_pred"
# the diagnosis thresholds (widgets on Summary and Contingency, dashboard.ui.diagnosis)
K_MIN_SHARE = "diag_min_share"
K_WEAK_CONN = "diag_weak_conn"
K_LEAK_SHARE = "diag_leak_share"
NO_PRESET = "documented defaults"
DEFAULTS: dict[str, Any] = {
    K_AVERAGE: "arithmetic",
    K_NOISE: "keep",
    K_PRESET: NO_PRESET,
    K_ORIENT: "rows",
    K_MIN_SHARE: Conventions.min_share,
    K_WEAK_CONN: Conventions.weak_conn,
    K_LEAK_SHARE: Conventions.leak_share,
}


def sha256(data: bytes) -> str:
    """Hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


@dataclass
class Input:
    """One loaded file: ground truth, a prediction or a coefficient matrix.

    ``value`` is the parsed array (labels: 1-D ndarray; coef: ndarray or scipy CSR), the one
    copy the session holds (shared with the parse cache, never modified). ``data`` keeps the
    raw bytes only while the user may still pick another variable or column from them
    (``choices``); otherwise it is empty and ``n_bytes`` remembers the file's size.
    ``variable``/``column`` is what is in use, ``notes`` one-line normalisation notes.
    """

    role: str
    name: str
    data: bytes
    sha256: str
    value: Any
    variable: str | None = None
    column: str | None = None
    choices: tuple[str, ...] = ()
    choice_kind: str = ""
    notes: tuple[str, ...] = ()
    demo: bool = False
    n_bytes: int = 0
    # A prediction's own C (a sweep setting, or uploaded for it): used instead of the session's
    # C for this prediction's SRE/CONN, diagnosis, affinity and points.
    own_coef: Input | None = None

    @property
    def key(self) -> str:
        """Cache key: content hash plus what was picked inside the file."""
        return f"{self.sha256}:{self.variable or ''}:{self.column or ''}"

    @property
    def n(self) -> int:
        """Number of points (labels) or rows of C."""
        return int(self.value.shape[0])

    @property
    def picked(self) -> str | None:
        return self.variable if self.choice_kind == "variable" else self.column


@dataclass
class AppState:
    """Everything one session has loaded."""

    truth: Input | None = None
    preds: list[Input] = field(default_factory=list)
    coef: Input | None = None
    data: Input | None = None  # a data matrix X (points as rows), for the Points page
    processed: set[str] = field(default_factory=set)  # uploader file ids already handled
    messages: list[tuple[str, str]] = field(default_factory=list)  # (level, text), last upload
    messages_for: str | None = None  # the input role whose upload produced ``messages``
    report_requested: bool = False  # the Summary page builds the HTML report once asked
    started: bool = False  # the demo was offered (app.py loads it once per session)
    # Name of the counts table the ground truth and prediction were rebuilt from (None: the
    # labels are real points). Such "points" are in an arbitrary order: no C can match them.
    from_counts: str | None = None
    # The Summary page's last "Compute" of intervals: resamples, seed, paired prediction.
    uncertainty_request: dict[str, Any] | None = None
    sweep: SweepState = field(default_factory=SweepState)
    multiview: MultiviewState = field(default_factory=MultiviewState)
    learn: LearnState = field(default_factory=LearnState)
    points: PointsState = field(default_factory=PointsState)

    @property
    def is_demo(self) -> bool:
        items = [self.truth, self.coef, self.data, *self.preds]
        return any(i is not None and i.demo for i in items)

    def pred(self, name: str | None) -> Input | None:
        for p in self.preds:
            if p.name == name:
                return p
        return self.preds[0] if self.preds else None

    def unique_pred_name(self, name: str) -> str:
        names = {p.name for p in self.preds}
        if name not in names:
            return name
        k = 2
        while f"{name} ({k})" in names:
            k += 1
        return f"{name} ({k})"

    def drop_demo_mismatching(self, n: int) -> list[str]:
        """Remove demo inputs whose size differs from ``n`` (the user's data); say which."""
        dropped = []
        if self.truth is not None and self.truth.demo and self.truth.n != n:
            dropped.append(self.truth.name)
            self.truth = None
        if self.coef is not None and self.coef.demo and self.coef.n != n:
            dropped.append(self.coef.name)
            self.coef = None
        if self.data is not None and self.data.demo and self.data.n != n:
            dropped.append(self.data.name)
            self.data = None
        keep = []
        for p in self.preds:
            if p.demo and p.n != n:
                dropped.append(p.name)
            else:
                keep.append(p)
        self.preds = keep
        return dropped

    def coef_for(self, pred: Input | None) -> Input | None:
        """The C that goes with ``pred``: its own when it has one, else the session's C."""
        if pred is not None and pred.own_coef is not None:
            return pred.own_coef
        return self.coef

    def problems(self, pred: Input | None = None) -> list[str]:
        """Size mismatches between the ground truth and ``pred`` / C, in plain words."""
        out = []
        if self.truth is None:
            return out
        n = self.truth.n
        if pred is not None and pred.n != n:
            out.append(
                f"prediction {pred.name} has {pred.n:,} labels but the ground truth "
                f"{self.truth.name} has {n:,}; upload files for the same points"
            )
        coef = self.coef_for(pred)
        if coef is not None and coef.value.shape != (n, n):
            shape = " x ".join(f"{s:,}" for s in coef.value.shape)
            out.append(
                f"coefficient matrix {coef.name} is {shape} but the ground truth has "
                f"{n:,} points (C must be N x N)"
            )
        return out

    def points_unavailable(self) -> str | None:
        """Why pages that need real points (C, data) cannot run, or None when they can."""
        if self.from_counts is None:
            return None
        return (
            f"the labels come from the counts table {self.from_counts}: it says how many points "
            "each (class, cluster) pair has, not which points they are, so nothing that needs "
            "the points themselves (a coefficient matrix C, SRE/CONN, the affinity plot) can be "
            "shown. Upload label files (and C) for that."
        )

    def compatible_preds(self) -> list[Input]:
        if self.truth is None:
            return []
        return [p for p in self.preds if p.n == self.truth.n]

    def coef_ok(self, pred: Input | None = None) -> bool:
        coef = self.coef_for(pred)
        return (
            self.truth is not None
            and coef is not None
            and coef.value.shape == (self.truth.n, self.truth.n)
        )


def get() -> AppState:
    """This session's state (created empty on first use; ``app.py`` puts the demo in)."""
    if STATE_KEY not in st.session_state:
        s = AppState()
        # uploads still sitting in the uploaders after a reset must not be loaded again
        s.processed = set(st.session_state.pop(_SEEN_CARRY, set()))
        st.session_state[STATE_KEY] = s
        budget.register(s)
    for k, v in DEFAULTS.items():
        st.session_state.setdefault(k, v)
    return st.session_state[STATE_KEY]


def reset() -> None:
    """Forget everything and load the demo again (on the next :func:`get`)."""
    old = st.session_state.pop(STATE_KEY, None)
    if old is not None:
        st.session_state[_SEEN_CARRY] = set(old.processed)
    st.session_state.pop(K_ACTIVE, None)


def conventions() -> Conventions:
    """The conventions in force, from the (persisted) widget values: the one place they are read."""
    ss = st.session_state
    preset = ss.get(K_PRESET, NO_PRESET)
    return Conventions(
        average_method=str(ss.get(K_AVERAGE, DEFAULTS[K_AVERAGE])),
        noise_policy=str(ss.get(K_NOISE, DEFAULTS[K_NOISE])),
        preset=None if preset in (None, NO_PRESET) else str(preset),
        orientation=str(ss.get(K_ORIENT, DEFAULTS[K_ORIENT])),
        min_share=float(ss.get(K_MIN_SHARE, DEFAULTS[K_MIN_SHARE])),
        weak_conn=float(ss.get(K_WEAK_CONN, DEFAULTS[K_WEAK_CONN])),
        leak_share=float(ss.get(K_LEAK_SHARE, DEFAULTS[K_LEAK_SHARE])),
    )


def presets() -> dict[str, dict[str, Any]]:
    """The SRE/CONN presets of the reference codes."""
    import metrics_core as mc

    return dict(mc.AFFINITY_PRESETS)


def active_pred(s: AppState) -> Input | None:
    """The prediction chosen in the sidebar (the first one if none is chosen)."""
    return s.pred(st.session_state.get(K_ACTIVE))
