"""Building inputs from bytes (uploads, demo files) or from arrays we computed (sweeps)."""

from __future__ import annotations

import io
import threading
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path
from typing import Any

import numpy as np
import scipy.sparse as sp
import streamlit as st

from dashboard.session import budget, scripts
from dashboard.session.state import Input, sha256
from metrics_core.validation import ClustlensInputError, check_coef

DEMO_DIR = Path(__file__).resolve().parents[2] / "demo_data"
#: role -> upload_worker loader kind
ROLES: dict[str, str] = {
    "truth": "labels_true",
    "pred": "labels_pred",
    "coef": "coef",
    "data": "data",
}
TEXT_SUFFIXES = (".txt", ".csv", ".tsv", ".dat")
_CACHE = {"show_spinner": False, "max_entries": 64}


@dataclass(frozen=True)
class Parsed:
    """What a loader returned, reduced to what the app needs (picklable, for the cache)."""

    value: Any
    variable: str | None
    column: str | None
    choices: tuple[str, ...]
    choice_kind: str
    notes: tuple[str, ...]


def _names(items: Any) -> tuple[str, ...]:
    return tuple(str(getattr(it, "name", it)) for it in items or ())


def _notes(res: Any) -> tuple[str, ...]:
    notes = getattr(res, "notes", None)
    if not notes:
        return ()
    return (notes,) if isinstance(notes, str) else tuple(str(n) for n in notes)


def _to_parsed(res: Any, name: str) -> Parsed:
    """Adapt a ``LoadedLabels`` / ``LoadedMatrix`` to :class:`Parsed`.

    The loaders report the variable (.mat/.npz) or, for text tables, the column they read in
    ``variable`` and what the file offers in ``candidates``.
    """
    value = None
    for attr in ("labels", "matrix"):
        v = getattr(res, attr, None)
        if isinstance(v, np.ndarray) or sp.issparse(v):
            value = v
            break
    if value is None:
        raise ClustlensInputError("the loader returned no array", source=name or "upload")
    picked = getattr(res, "variable", None)
    picked = None if picked is None else str(picked)
    choices = _names(getattr(res, "candidates", None))
    is_text = name.lower().endswith(TEXT_SUFFIXES)
    choice_kind = ("column" if is_text else "variable") if len(choices) > 1 else ""
    return Parsed(
        value=value,
        variable=None if is_text else picked,
        column=picked if is_text else None,
        choices=choices if choice_kind else (),
        choice_kind=choice_kind,
        notes=_notes(res),
    )


def _parse_trusted(kind: str, name: str, data: bytes) -> Any:
    from metrics_core import io as mio

    if kind == "coef":
        return mio.load_coef(data, name=name)
    if kind == "data":
        return mio.load_data_matrix(data, name=name)
    return mio.load_labels(data, name=name, kind="pred" if kind == "labels_pred" else "true")


# The demo's files (trusted, the same for everyone) are parsed once for all sessions; an upload
# is parsed for its session only, so nothing of it outlives the session in a shared cache.
@st.cache_resource(show_spinner=False, max_entries=16)
def _parse_trusted_cached(kind: str, name: str, digest: str, _data: bytes) -> Parsed:
    return _to_parsed(_parse_trusted(kind, name, _data), name)


def _parse(
    kind: str,
    name: str,
    digest: str,
    variable: str | None,
    column: str | None,
    trusted: bool,
    data: bytes,
    limits: Any = None,
    **kwargs: Any,
) -> Parsed:
    if trusted:
        return _parse_trusted_cached(kind, name, digest, data)
    from metrics_core.io.worker import parse_in_worker

    if variable is not None:
        kwargs["variable"] = variable
    if column is not None:
        kwargs["column"] = column
    return _to_parsed(parse_in_worker(kind, data, name, limits=limits, **kwargs), name)


def worker_limits(room: int | None, role: str) -> Any:
    """Loader limits for an upload into a session that may still be charged ``room`` bytes: no
    array larger than what the role's working factor leaves room for is read, in the worker
    or back into the server (None: the format ceilings only)."""
    from metrics_core.io import DEFAULT_LIMITS, IOLimits

    if room is None:
        return DEFAULT_LIMITS
    per_array = max(0, room // budget.WORK.get(role, 1))
    if per_array >= DEFAULT_LIMITS.max_array_bytes:
        return DEFAULT_LIMITS
    words = (
        f"the {budget.human(per_array)} this session's memory budget leaves for one array "
        f"of the {role} (charged {budget.WORK.get(role, 1)}x its size)"
    )
    return IOLimits(
        **{**DEFAULT_LIMITS.__dict__, "max_array_bytes": per_array, "array_limit_words": words}
    )


def _finish(role: str, name: str, value: Any) -> Any:
    """The role's shape rules, checked once: labels 1-D, C square and finite (CSR if sparse)."""
    if role in ("truth", "pred"):
        return np.asarray(value).reshape(-1)
    if role == "coef":
        return check_coef(value, name=name)
    return value


def build_input(
    role: str,
    name: str,
    data: bytes,
    *,
    variable: str | None = None,
    column: str | None = None,
    trusted: bool = False,
    demo: bool = False,
    room: int | None = None,
    **checks: Any,
) -> Input:
    """Parse ``data`` for ``role`` (truth, pred, coef, data); raise ``ClustlensInputError``.

    ``room``: bytes the session may still be charged (:mod:`dashboard.session.budget`); an
    array that cannot fit is refused by the worker before it is read. ``checks``: passed to the
    worker (``n_rows``/``rows_for`` for a data matrix).
    """
    if role not in ROLES:
        raise ValueError(f"unknown input role {role!r}; one of {sorted(ROLES)}")
    digest = sha256(data)
    limits = worker_limits(room, role)
    p = _parse(ROLES[role], name, digest, variable, column, trusted, data, limits, **checks)
    return Input(
        role=role,
        name=name,
        # the bytes are needed again only to pick another variable or column from them
        data=data if p.choice_kind else b"",
        sha256=digest,
        value=_finish(role, name, p.value),
        variable=p.variable if p.variable is not None else variable,
        column=p.column if p.column is not None else column,
        choices=p.choices,
        choice_kind=p.choice_kind,
        notes=p.notes,
        demo=demo,
        n_bytes=len(data),
    )


#: Largest counts table the dashboard rebuilds into label vectors: points, and bytes of the two
#: rebuilt vectors (text labels cost their longest name per point).
MAX_COUNTS_POINTS = 20_000_000
MAX_COUNTS_BYTES = 256 * 2**20


def counts_inputs(name: str, data: bytes) -> tuple[Input, Input]:
    """(ground truth, prediction) rebuilt from a counts table of (class, cluster, count) rows.

    The rebuilt labels have exactly the table's contingency, so every partition metric is the
    table's own; they are grouped by (class, cluster), so they are not real points. Tables of
    more than ``MAX_COUNTS_POINTS`` points are refused (score them with
    ``clustlens evaluate --contingency``, which never expands them).
    """
    from metrics_core import io as mio

    loaded = mio.load_table(data, name=name)
    t = sp.coo_array(loaded.table) if not sp.issparse(loaded.table) else loaded.table.tocoo()
    counts = np.asarray(t.data, dtype=np.int64)
    n = int(counts.sum())
    classes, clusters = np.asarray(loaded.classes), np.asarray(loaded.clusters)
    need = n * (classes.dtype.itemsize + clusters.dtype.itemsize)
    if n > MAX_COUNTS_POINTS or need > MAX_COUNTS_BYTES:
        raise ClustlensInputError(
            f"the table counts {n:,} points; the dashboard rebuilds label vectors from it and "
            f"shows tables of up to {MAX_COUNTS_POINTS:,} points and "
            f"{MAX_COUNTS_BYTES // 2**20} MB of labels (this one needs {need / 2**20:,.0f} MB). "
            f"Score it with `clustlens evaluate --contingency {name}` (any size, never expanded)",
            source=name,
        )
    rows = np.repeat(np.asarray(t.row, dtype=np.int32), counts)
    cols = np.repeat(np.asarray(t.col, dtype=np.int32), counts)
    truth, pred = classes[rows], clusters[cols]
    digest = sha256(data)
    notes = (*loaded.notes, f"rebuilt from the counts table: {n:,} points")
    common = dict(data=b"", sha256=digest, notes=notes, n_bytes=len(data))
    return (
        Input(role="truth", name=f"{name} (classes)", value=truth, column="class", **common),
        Input(role="pred", name=f"{name} (clusters)", value=pred, column="cluster", **common),
    )


def pad_edge_list(inp: Input, n: int) -> Input:
    """An edge-list C sized by its largest index, grown to ``n`` points (still sparse)."""
    from metrics_core.io import EDGE_LIST_NOTE

    m = inp.value
    if EDGE_LIST_NOTE not in inp.notes or not sp.issparse(m) or m.shape[0] >= n:
        return inp
    grown = sp.csr_array((m.data, m.indices, np.concatenate(
        [m.indptr, np.full(n - m.shape[0], m.indptr[-1])])), shape=(n, n))  # fmt: skip
    notes = tuple(x for x in inp.notes if x != EDGE_LIST_NOTE)
    notes += (f"edge list: {n - m.shape[0]:,} last points have no stored coefficient",)
    return Input(**{**inp.__dict__, "value": grown, "notes": notes})


def data_matrix(
    name: str,
    data: bytes,
    *,
    n_points: int | None = None,
    labels_name: str = "the labels",
    charge: Any = None,
    room: int | None = None,
) -> np.ndarray:
    """A data matrix X (points as rows) from untrusted bytes, as dense float64 (the models need
    dense X); refused with the file named when it is not 2-D, when its rows are not the
    ``n_points`` of ``labels_name``, or when ``charge(shape)`` (what the page will hold for it,
    :mod:`dashboard.session.budget`) exceeds ``room`` — all checked *before* a sparse X is
    made dense."""
    checks = {} if n_points is None else {"n_rows": n_points, "rows_for": labels_name}
    value = build_input("data", name, data, room=room, **checks).value
    shape = tuple(int(d) for d in value.shape)
    if len(shape) != 2:
        raise ClustlensInputError(f"expected a 2-D matrix, got shape {shape}", source=name)
    if n_points is not None and shape[0] != n_points:
        hint = " (stored as features x points? transpose it)" if shape[1] == n_points else ""
        raise ClustlensInputError(
            f"has {shape[0]:,} rows but {labels_name} has {n_points:,} labels{hint}", source=name
        )
    if charge is not None and room is not None and charge(shape) > room:
        raise ClustlensInputError(
            f"a {shape[0]:,} x {shape[1]:,} data matrix needs {budget.human(charge(shape))} of "
            f"working memory on this page (dense X and the N x N matrices computed from it), "
            f"more than this session's memory budget has left ({budget.human(room)}); use "
            "fewer points or ask whoever runs the dashboard for a larger --session-memory",
            source=name,
        )
    if sp.issparse(value):
        value = value.toarray()
    return np.asarray(value, dtype=np.float64)


def from_array(role: str, name: str, value: Any, *, demo: bool = False) -> Input:
    """An input from an array we computed ourselves (a sweep setting): bytes are its ``.npy``
    (or ``save_npz``) serialisation, so its key is a content hash like an upload's."""
    buf = io.BytesIO()
    if sp.issparse(value):
        sp.save_npz(buf, sp.csr_array(value))
    else:
        np.save(buf, np.asarray(value), allow_pickle=False)
    data = buf.getvalue()
    return Input(
        role=role,
        name=name,
        data=b"",
        sha256=sha256(data),
        value=_finish(role, name, value),
        demo=demo,
        n_bytes=len(data),
    )


def load_demo() -> tuple[Input, list[Input], Input]:
    """The demo inputs (ground truth, two predictions, C), parsed in-process, once."""
    from demo_data import make_demo

    files = [("truth", make_demo.FILES["truth"]), ("coef", make_demo.FILES["coef"])]
    files += [("pred", f) for f in make_demo.FILES["preds"]]
    if not all((DEMO_DIR / f).is_file() for _, f in files):
        make_demo.write(DEMO_DIR)
    truth, preds, coef = None, [], None
    for role, fname in files:
        data = (DEMO_DIR / fname).read_bytes()
        inp = build_input(role, f"demo: {fname}", data, trusted=True, demo=True)
        if role == "truth":
            truth = inp
        elif role == "coef":
            coef = inp
        else:
            preds.append(inp)
    return truth, preds, coef


@st.cache_resource(show_spinner=False)
@st.cache_resource(show_spinner=False)
def _hw_demo() -> tuple[Input, Input, Input, Input]:
    from demo_data import make_demo
    from metrics_core.datasets import load_view

    X, y = load_view("pix")
    paths = {k: DEMO_DIR / f for k, f in make_demo.HW_FILES.items()}
    if not all(p.is_file() for p in paths.values()):
        make_demo.write(DEMO_DIR)
    coef = build_input("coef", "HW demo: kNN graph of the pixel view",
                       paths["coef"].read_bytes(), trusted=True, demo=True)  # fmt: skip
    pred = build_input("pred", "HW demo: spectral clustering",
                       paths["pred"].read_bytes(), trusted=True, demo=True)  # fmt: skip
    truth = from_array("truth", "HW demo: digit", y, demo=True)
    data = from_array("data", "HW demo: pixel view (16 x 15 images)", X, demo=True)
    return truth, pred, coef, data


def load_hw_demo() -> tuple[Input, Input, Input, Input, tuple[int, int]]:
    """The handwritten-digits demo: (truth, prediction, C, X, image shape (height, width))."""
    from demo_data import make_demo

    return (*_hw_demo(), make_demo.HW_IMAGE_SHAPE)


_warm_up_started = False
_WARM_UP_LOCK = threading.Lock()


#: What the warm-up imports for k-means (every spectral clustering: Sweep's runs, the multi-view
#: baselines), in steps of at most ~0.3 s here (scipy.stats's package is the largest), so that it
#: can make way for page runs between them. scikit-learn's import took 2-5 s of a busy server's
#: first "Run sweep" when it was left to that click.
SKLEARN_STEPS: tuple[str, ...] = (
    "scipy.special",
    "scipy.optimize",
    "scipy.integrate",
    "scipy.interpolate",
    "scipy.spatial",
    "scipy.ndimage",  # scipy.stats's one other package (~30 ms): one piece less in its step
    "scipy.stats",
    "sklearn.utils",
    "sklearn.base",
    "sklearn.metrics",
    "sklearn.neighbors",
    "sklearn.cluster",
)
#: Longest the warm-up makes way for page runs before a step (then it goes ahead anyway).
QUIET_WAIT_S = 30.0
#: How long no page must have been built before a warm-up step starts: a page's script ends
#: before the browser has drawn the page, and the next click comes soon after; a step started
#: in that gap (an import holds the interpreter for up to 0.3 s) fell on the next page.
QUIET_IDLE_S = 0.5
#: The fork server starts after a longer pause: its process imports numpy, scipy and h5py
#: (two seconds of a core) and slowed whatever ran beside it — a Run clicked half a second
#: after the page settled took 0.3-0.5 s longer. A person choosing a file in the upload
#: dialog leaves that pause.
FORK_SERVER_IDLE_S = 2.0
#: Set once a session's first page was done (:func:`first_page_done`).
_HURRY = threading.Event()


def wait_quiet(
    timeout_s: float = QUIET_WAIT_S,
    poll_s: float = 0.02,
    idle_s: float = QUIET_IDLE_S,
    hurry: threading.Event | None = None,
) -> bool:
    """Wait until no page has been built for ``idle_s`` seconds — or, once ``hurry`` is set,
    until none is being built; False if ``timeout_s`` passed first. While a page is being built
    this thread sleeps until it is (:func:`dashboard.session.scripts.wait_built`); it looks
    every ``poll_s`` only while none is."""
    import time

    deadline = time.monotonic() + timeout_s
    quiet_since: float | None = None
    while True:
        now = time.monotonic()
        if scripts.building():
            quiet_since = None
        elif quiet_since is None:
            quiet_since = now
        if quiet_since is not None and (
            now - quiet_since >= idle_s or (hurry is not None and hurry.is_set())
        ):
            return True
        if now >= deadline:
            return False
        if quiet_since is None:
            scripts.wait_built(deadline - now)
        else:
            time.sleep(poll_s)


def first_page_done() -> None:
    """A session ran its script again (a click on its first page or a later one): its first page
    is done. From now on the warm-up goes ahead as soon as no page is being built, while the
    browser draws that page, without waiting for a pause.

    It used to wait this way only once Sweep or Multi-view (whose Runs need its work) was opened.
    Its largest step, scipy.stats (0.3-0.4 s, in one piece), then fell on those pages, which are
    the heaviest to draw: measured on eight fresh servers a side, clicking through the pages
    without a pause, Sweep's first visit 0.34 -> 0.27 s, Multi-view's 0.31 -> 0.23 s, Learn's
    0.28 -> 0.26 s, and the pages right after the first took it instead (Pair confusion 0.23 ->
    0.32 s, the sum of the first visits unchanged). A person who pauses on a page gives the
    warm-up its pause and sees neither.
    """
    _HURRY.set()


def first_fit() -> None:
    """Fit, cluster and score twelve points once, through the code a Run takes (the sweep's
    first model, spectral clustering with k-means, the affinity diagnostics), so that the first
    Run does not pay what only a first call costs: the modules a Run imports (the affinity
    diagnostics among them) and their first calls. In a fresh process the fit takes ~45 ms the
    first time and ~3 ms after. (With scikit-learn's k-means, which inspected the BLAS and
    OpenMP libraries on its first call, the served dashboard's first "Run sweep" took 31-68 ms
    for the first of its 11 settings and 17-67 ms with this fit.) It imports no scikit-learn:
    up to 1,500 points k-means is :func:`metrics_core.models.kmeans`'s own."""
    import numpy as np

    from metrics_core.models import MODELS
    from metrics_core.sweep import run_sweep

    rng = np.random.default_rng(0)
    X = rng.normal(size=(12, 3)) + np.repeat(np.array([[6.0, 0, 0], [0, 6.0, 0]]), 6, axis=0)
    run_sweep(X, np.repeat([0, 1], 6), next(iter(MODELS)), {}, keep_coef=True)


def warm_up_worker() -> bool:
    """In the background, once per process: import what a first comparison or a large sweep
    needs of scikit-learn (its k-NN graphs; its k-means beyond 1,500 points) and fit once
    (:func:`first_fit`), read the HW views (the demo's data: the Sweep and Multi-view pages open
    on shipped results and read them on their first Run), then start the upload worker's fork
    server, so neither the first Run nor the first upload waits for them.

    An import holds the interpreter while it runs (scipy.stats alone 0.3 s, in one piece): a
    page opened meanwhile was built at half speed (the Multi-view page's first visit took 1.3 s
    instead of 0.8 s when the import fell on it). So each step waits until no page has been
    built for :data:`QUIET_IDLE_S` (:func:`wait_quiet`) — a pause, not the gap between a
    script's end and the next click — until the session's first page is done
    (:func:`first_page_done`): then the imports, the fit and the views go ahead as soon as no page
    is being built, while the browser draws a page, so that they are done before a Run needs
    them. (Started right after the first page's script instead, they slowed the cold start by
    0.3-0.4 s: the browser was drawing it.) The fork server waits for a longer pause
    (:data:`FORK_SERVER_IDLE_S`).

    Returns whether this call started it (the app calls it after every script run: once the
    server runs, each later call is free; it used to spawn a parse child on every rerun)."""
    global _warm_up_started
    with _WARM_UP_LOCK:
        if _warm_up_started:
            return False
        _warm_up_started = True

    def _go() -> None:
        for name in SKLEARN_STEPS:
            wait_quiet(hurry=_HURRY)
            try:
                import_module(name)
            except Exception:  # the first run imports it again and reports what is wrong
                break
        else:
            wait_quiet(hurry=_HURRY)
            try:
                first_fit()
            except Exception:  # the first Run fits again and reports what is wrong
                pass
        try:
            from metrics_core.datasets import VIEWS, load_view

            for view in VIEWS:  # the first Run's data (0.02-0.05 s each, kept in memory)
                wait_quiet(hurry=_HURRY)
                load_view(view)
        except Exception:  # the first Run reads them again and reports what is wrong
            pass
        try:
            from metrics_core.io.worker import warm_up

            wait_quiet(idle_s=FORK_SERVER_IDLE_S)
            warm_up()
        except Exception:  # the first real upload will report any problem
            pass

    threading.Thread(target=_go, name="clustlens-warm-up", daemon=True).start()
    return True
