"""Sweep: the SRE–CONN trade-off across a parameter grid, from built-in models or an upload.

The sweep being shown lives in ``AppState.sweep.run`` (a plain dict): the data, the model,
the settings, the finished rows. A run computes one setting per call of the compute layer (each
cached on data key, model, parameters, seed). "Run sweep" reruns the results part of the page
alone (a fragment) and computes there; a sweep not done within a fraction of a second goes on
in runs of the whole page every few seconds, so progress shows, the Stop button works and
finished settings survive a stop or a page switch.
"""

from __future__ import annotations

import dataclasses
import secrets
import time
from typing import Any

import streamlit as st

from dashboard.compute import sweep as cs
from dashboard.compute import sweep_job as job
from dashboard.figures.sweep import (
    metrics_vs_param,
    param_heatmap,
    tradeoff_figure,
)
from dashboard.session import budget, state
from dashboard.session.state import K_ACTIVE, K_ORIENT
from dashboard.ui import widgets as ui

#: A running sweep reruns the page after this many seconds of computing (shows partial results
#: and gives the Stop button its turn).
CHUNK_SECONDS = 2.0
#: A run shows its Stop button and progress bar once it has taken this long (see _advance).
PROGRESS_AFTER_S = 0.3
#: The bar moves at most this often.
PROGRESS_EVERY_S = 0.2
#: Session key of the "Data and model" box's open state.
K_SETUP_OPEN = "sw_setup_open"
SOURCES = {
    "synthetic": "synthetic union of subspaces",
    "mfeat": "handwritten digits (one view)",
    "upload": "your data X + labels",
    "bundle": "a sweep you ran (bundle upload)",
}
#: The metrics drawn against a parameter at first (one row of panels: the page's trade-off and
#: accuracy); the others are one pick away in "Metrics".
DEFAULT_PLOTTED = ["acc", "sre", "conn_min"]
LABELS = cs.METRIC_LABELS


# ---------------------------------------------------------------- run state
def _demo_run() -> dict[str, Any]:
    demo = cs.demo_sweep()
    data = demo["data"]
    grid = demo["grid"]
    return {
        "kind": "model",
        "demo": True,
        "data": data,
        "model": demo["model"],
        "grid": grid,
        "seed": demo["seed"],
        "n_clusters": demo["n_classes"],
        "rows": {i: r for i, r in enumerate(demo["rows"])},
        "status": "done",
        "seconds": 0.0,
        "errors": [],
    }


def _run(s: state.AppState) -> dict[str, Any]:
    if s.sweep.run is None:
        s.sweep.run = _demo_run()
    return s.sweep.run


# ---------------------------------------------------------------- data source widgets
def _source_data(source: str, s: state.AppState) -> cs.SweepData | None:
    if source == "synthetic":
        d = cs.SYNTHETIC_DEFAULTS
        c = st.columns(6)
        kw = {
            "ambient_dim": c[0].number_input(
                "ambient dim", 2, 500, d["ambient_dim"], key="sw_amb", persist_state="session"
            ),
            "subspace_dim": c[1].number_input(
                "subspace dim", 1, 100, d["subspace_dim"], key="sw_sub", persist_state="session"
            ),
            "n_subspaces": c[2].number_input(
                "subspaces", 2, 20, d["n_subspaces"], key="sw_nsub", persist_state="session"
            ),
            "points_per_subspace": c[3].number_input(
                "points each",
                3,
                500,
                d["points_per_subspace"],
                key="sw_pps",
                persist_state="session",
            ),
            "noise": c[4].number_input(
                "noise", 0.0, 5.0, d["noise"], 0.05, key="sw_noise", persist_state="session"
            ),
            "seed": c[5].number_input(
                "data seed", 0, 10_000, 0, key="sw_dseed", persist_state="session"
            ),
        }
        if kw["n_subspaces"] * kw["subspace_dim"] <= kw["ambient_dim"]:
            ui.note(
                "subspaces · dim ≤ ambient dim: the subspaces are independent, so even dense "
                "LSR is subspace preserving (SRE ≈ 0); raise the count or dimension to see "
                "the trade-off"
            )
        return cs.synthetic(**kw)
    if source == "mfeat":
        views = cs.mfeat_views()
        c1, c2, c3 = st.columns([3, 2, 1])
        view = c1.selectbox(
            "view",
            list(views),
            format_func=lambda v: f"{v}: {views[v]}",
            key="sw_view",
            persist_state="session",
        )
        n = c2.slider(
            "points (stratified subset; 2,000 = all)",
            100,
            2000,
            cs.MFEAT_DEFAULT_N,
            100,
            key="sw_mfeat_n",
            persist_state="session",
        )
        seed = c3.number_input(
            "subset seed", 0, 10_000, 0, key="sw_mfeat_seed", persist_state="session"
        )
        return cs.mfeat(view, n, seed)
    c1, c2 = st.columns(2)
    fx = c1.file_uploader(
        "Data X (.csv, .npy, .mat; points as rows)",
        type=["csv", "txt", "npy", "npz", "mat"],
        key="sw_up_x",
    )
    fy = c2.file_uploader(
        "Ground-truth labels", type=["txt", "csv", "tsv", "npy", "mat"], key="sw_up_y"
    )
    if fx is None or fy is None:
        st.info("Upload a data matrix X and its ground-truth labels to run a sweep on them.")
        return None
    return _uploaded(s, fx.name, fx.getvalue(), fy.name, fy.getvalue())


def _uploaded(s: state.AppState, x_name: str, x: bytes, y_name: str, y: bytes) -> cs.SweepData:
    """The uploaded X and labels, parsed once per pair of files and kept in the session (charged
    to its memory budget); a refused pair leaves the one kept before in place."""
    digests = (state.sha256(x), state.sha256(y))
    kept = s.sweep.upload
    if kept is not None and kept[0] == digests:
        return kept[1]
    old = 0 if kept is None else budget.data_charge(kept[1].X.shape, "sweep")
    data = cs.uploaded(x_name, x, y_name, y, room=budget.room(s, replacing=old))
    s.sweep.upload = (digests, data)
    return data


def _grid_widgets(data: cs.SweepData, s: state.AppState) -> None:
    models = cs.models()
    c1, c2, c3 = st.columns([3, 1, 1])
    model = c1.selectbox(
        "model",
        list(models),
        format_func=lambda m: models[m].label,
        key="sw_model",
        persist_state="session",
    )
    spec = models[model]
    ui.note(spec.description)
    k = c2.number_input("clusters K (0 = classes)", 0, 500, 0, key="sw_k",
                        help="for spectral clustering", persist_state="session")  # fmt: skip
    seed = c3.number_input("clustering seed", 0, 10_000, 0, key="sw_seed", persist_state="session")
    defaults = cs.default_spec(model)
    cols = st.columns(len(spec.params))
    texts = []
    for col, p, default in zip(cols, spec.params, defaults, strict=True):
        texts.append(
            col.text_input(
                p.name,
                default,
                key=f"sw_grid_{model}_{p.name}",
                persist_state="session",
                help=f"{p.description}. Grid: name=start:stop:count, name=start:stop:count:log "
                "or name=v1,v2,...; one value fixes the parameter.",
            )
        )
    grid = cs.parse_grid(model, texts)
    n_k = int(k) or data.n_classes
    ui.note(
        f"{len(grid.settings)} settings on {data.name}; spectral clustering into {n_k} clusters "
        f"(seed {int(seed)}); rows of X scaled to unit norm"
    )
    # "Run sweep" stands below the box, in the results part (see _run_button)
    s.sweep.ready = {
        "kind": "model",
        "demo": False,
        "data": data,
        "model": model,
        "grid": grid,
        "seed": int(seed),
        "n_clusters": n_k,
    }


def _start(spec: dict[str, Any]) -> None:
    """Start a run of ``spec`` (the "Run sweep" button's callback). The button is in the results
    part of the page, so its click reruns that part alone, and that run computes the sweep
    (:func:`_shown`): the sidebar, the title and the form did not change and are not rebuilt.

    A click while a long sweep runs starts the new one in its place, with a run of the whole
    page: the old sweep's Stop button and progress bar stand above the results part, and a run
    of that part alone would leave them there."""
    s = state.get()
    replacing = s.sweep.run is not None and s.sweep.run.get("status") == "running"
    s.sweep.run = {
        **spec,
        "rows": {},
        "status": "running",
        "started_by_run": True,
        "seconds": 0.0,
        "errors": [],
    }
    if replacing:
        st.rerun()


def _run_button(s: state.AppState) -> None:
    """ "Run sweep", below the "Data and model" box while it is open, with what the form in it
    last set (:attr:`SweepState.ready`, written by every run of the whole page, and every
    change in the form is one).

    It is in the results part rather than in the box: a button in the box reran the whole
    page, whose callback then reran the results part, two script runs for one click (the
    browser handled each run's start, and the sidebar's and form's elements were sent again);
    from here the click's own run is the one that computes and draws (issue 14: an action's
    overhead above its computing)."""
    if s.sweep.ready is not None:
        st.button("Run sweep", type="primary", key="sw_run", on_click=_start,
                  args=(s.sweep.ready,))  # fmt: skip


def _bundle_widgets(s: state.AppState) -> None:
    c1, c2 = st.columns(2)
    fb = c1.file_uploader(
        "Sweep bundle: .zip (params.csv + one C per setting), .mat (cell array + parameter "
        "vectors) or a results-only .csv",
        type=["zip", "mat", "csv"],
        key="sw_up_bundle",
    )
    fy = c2.file_uploader(
        "Ground-truth labels (not needed for a results-only CSV)",
        type=["txt", "csv", "tsv", "npy", "mat"],
        key="sw_up_bundle_y",
    )
    c3, c4, c5 = st.columns(3)
    orient = c3.radio(
        "C stores each point's coefficients in its",
        ["rows", "columns"],
        horizontal=True,
        key="sw_bundle_orient",
        help="MATLAB codes (SSC, SSC-OMP) store points as columns",
    )
    k = c4.number_input("clusters K (0 = classes)", 0, 500, 0, key="sw_bundle_k")
    seed = c5.number_input("clustering seed", 0, 10_000, 0, key="sw_bundle_seed")
    if fb is None:
        st.info("Upload a sweep bundle to score it.")
        return
    if st.button("Score bundle", type="primary", key="sw_score"):
        truth = None
        if fy is not None:
            truth = cs.parse_labels(fy.name, fy.getvalue())
        old = s.sweep.run or {}
        given_back = int(old.get("held", 0)) + len(old.get("bytes") or b"")
        room = budget.room(s, replacing=given_back) - len(fb.getvalue())
        with st.spinner("scoring the bundle (spectral clustering of every setting) …"):
            res = cs.bundle(
                fb.name,
                fb.getvalue(),
                truth,
                n_clusters=int(k),
                seed=int(seed),
                orientation=orient,
                room=max(room, 0),
            )
        s.sweep.run = {
            "kind": "bundle",
            "demo": False,
            "name": fb.name,
            "bytes": fb.getvalue(),
            "truth": truth,
            "orientation": orient,
            "model": "bundle",
            "rows": res["rows"],
            "preds": res["preds"],
            "entry_index": res["entry_index"],
            "param_names": res["param_names"],
            "log": res["log"],
            "status": "done",
            "errors": res["errors"],
            "n_settings": res["n_settings"],
            "held": res["held"],
            "seconds": 0.0,
        }


# ---------------------------------------------------------------- running
def _advance(run: dict[str, Any], slot: Any) -> str:
    """Run pending settings for about :data:`CHUNK_SECONDS` under a progress bar in ``slot``
    (an ``st.empty``); returns the job's outcome (``"more"``, ``"done"`` or ``"stopped"``). The
    bar goes once the sweep is done.

    The Stop button and the bar appear only once the run has taken :data:`PROGRESS_AFTER_S`
    (at once on a later chunk), and the bar moves at most every :data:`PROGRESS_EVERY_S`: the
    default sweep's 11 settings take ~0.1 s, and a bar that appeared, moved after each setting
    and went (each update a message the server sends while it computes, and a redraw of the
    page in the browser) showed nothing anyone could read.
    """
    began = time.perf_counter()
    shown: dict[str, Any] = {"bar": None, "at": 0.0}

    def show() -> None:
        with slot.container():
            st.button("Stop", key="sw_stop", on_click=_stop, icon=":material/stop:")
            shown["bar"] = st.progress(job.fraction(run), text=job.progress_text(run))
        shown["at"] = time.perf_counter()

    def progress() -> None:
        now = time.perf_counter()
        if shown["bar"] is None:
            if now - began >= PROGRESS_AFTER_S:
                show()
        elif now - shown["at"] >= PROGRESS_EVERY_S:
            shown["bar"].progress(job.fraction(run), text=job.progress_text(run))
            shown["at"] = now

    if run["rows"]:  # a later chunk of a long sweep: its bar was already on the page
        show()
    outcome = job.advance(run, CHUNK_SECONDS, progress)
    if outcome == "done" and shown["bar"] is not None:
        slot.empty()
    return outcome


def _stop() -> None:
    job.stop(state.get().sweep.run)


# ---------------------------------------------------------------- opening a setting
def _open(pos: int) -> None:
    """Button callback: put the setting's labels, prediction and C into the app state."""
    s = state.get()
    run = s.sweep.run
    try:
        truth, pred, coef = job.inputs_for(run, pos)
    except Exception as exc:
        s.sweep.message = ("error", f"could not open this setting: {exc}")
        return
    if s.truth is not None and s.truth.sha256 == truth.sha256:
        truth = s.truth  # same ground truth: keep the predictions opened before, to compare
        keep = [p for p in s.preds if p.n == truth.n and p.name != pred.name]
    else:
        keep = []
    s.truth = truth
    if coef is not None:
        # the setting's C goes with its prediction: opened settings compare with their own C
        pred = dataclasses.replace(pred, own_coef=coef)
        st.session_state[K_ORIENT] = run.get("orientation", "rows")
    if s.coef is not None and s.coef.n != truth.n:
        s.coef = None
    s.preds = [*keep, pred]
    st.session_state[K_ACTIVE] = pred.name
    s.messages = [("success", f"opened {pred.name}")]
    s.sweep.message = ("success", f"{pred.name} is now the prediction in every view")
    # the whole page, not the results part the button is in: the sidebar shows the new inputs
    st.rerun()


# ---------------------------------------------------------------- results
def _results(run: dict[str, Any], s: state.AppState) -> None:
    rows_all = job.rows(run)
    rows = [r for r in rows_all if "error" not in r]
    if not rows:
        if run["status"] != "running":
            st.info("No finished settings yet.")
        return
    swept = job.swept(run)
    metrics = cs.available_metrics(rows)
    if not metrics:
        ui.error("the sweep has no metric columns")
        return
    c1, c2, c3 = st.columns([2, 2, 3])
    colour_opts = [m for m in metrics if m != "seconds"] or metrics
    color_by = c1.selectbox(
        "Colour by (and pick the best by)",
        colour_opts,
        format_func=LABELS.get,
        key="sw_colour",
        persist_state="session",
    )
    conn_opts = [k for k in ("conn_min", "conn_mean") if k in metrics] or ["conn_min"]
    conn_key = c2.radio(
        "CONN",
        conn_opts,
        format_func={"conn_min": "min over classes", "conn_mean": "mean over classes"}.get,
        horizontal=True,
        key="sw_conn",
        persist_state="session",
        help="min suits synthetic data (one badly connected class is a failure), mean real data",
    )
    best = cs.best_index(rows, color_by)
    what = f"{run['model']} sweep" if run["kind"] == "model" else f"bundle {run['name']}"
    event = ui.chart(
        tradeoff_figure(
            rows,
            swept,
            color_by=color_by,
            conn_key=conn_key,
            labels=LABELS,
            best=best,
            title=f"SRE–CONN trade-off of the {what}",
        ),
        key="sweep_tradeoff",
        on_select="rerun",
        selection_mode="points",
    )
    picked = _picked_from_event(event, len(rows))
    page = state.get().sweep
    # the last click is remembered per sweep, as its "Setting" box is one per sweep: a click on
    # a new sweep's marker at the position last clicked on another sweep still picks it
    if picked is not None and page.last_pick != (_pick_key(run), picked):
        page.last_pick = (_pick_key(run), picked)
        st.session_state[_pick_key(run)] = picked
    c3.caption("Click a marker to pick its setting below.")

    if swept:
        if len(swept) > 1:
            p1, p2 = st.columns([1, 3])
            param = p1.selectbox("Parameter on the x axis", list(swept), key="sw_param")
        else:
            # one swept parameter: a box with one choice asked nothing (and was one more
            # element for the browser to mount on every visit); the chart's axis names it
            param, p2 = swept[0], st.columns([3, 1])[0]
        chosen = p2.multiselect(
            "Metrics",
            metrics,
            default=[m for m in DEFAULT_PLOTTED if m in metrics],
            format_func=LABELS.get,
            key="sw_metrics",
        )
        if chosen:
            others = [p for p in swept if p != param]
            ui.chart(
                metrics_vs_param(
                    rows,
                    param,
                    chosen,
                    others=others,
                    log_x=job.is_log(run, param, rows),
                    labels=LABELS,
                    best=best,
                ),
                key="sweep_metrics",
            )
        if len(swept) == 2:
            st.subheader("Parameter sensitivity (one heatmap per metric)")
            heat = [m for m in chosen if m != "seconds"] or metrics[:3]
            cols = st.columns(min(3, len(heat)))
            for j, m in enumerate(heat):
                with cols[j % len(cols)]:
                    ui.chart(
                        param_heatmap(rows, swept[1], swept[0], m, labels=LABELS),
                        key=f"sweep_heat_{m}",
                    )
        elif len(swept) > 2:
            ui.note("heatmaps need exactly two swept parameters")

    _table(run, rows, swept, metrics)
    _open_controls(run, rows, swept, best, color_by)


def _picked_from_event(event: Any, n: int) -> int | None:
    try:
        points = event["selection"]["points"]
    except (KeyError, TypeError):
        return None
    for p in points:
        cd = p.get("customdata")
        if isinstance(cd, list) and cd:
            cd = cd[0]
        if isinstance(cd, (int, float)) and 0 <= int(cd) < n:
            return int(cd)
    return None


#: Table columns that are not scores in [0, 1]: four significant digits, not four decimals.
WHOLE = ("sparsity", "seconds")


def _table(run, rows, swept, metrics) -> None:
    st.subheader("Sweep table")
    params = list(swept) if run["kind"] == "model" else list(run["param_names"])
    if run["kind"] == "model":
        params += [p for p in run["grid"].settings[0] if p not in params]
    show = ["setting", *params, *[m for m in metrics]]
    if run["kind"] == "bundle":
        show.append("entry")
    if len(rows) <= ui.STATIC_MAX_ROWS:
        # A static table: every setting shows at once and the best value of each metric is
        # starred (what sorting a column was for), and no data grid is mounted on each visit.
        best = {m: cs.best_positions(rows, m) for m in metrics}
        columns = [LABELS.get(k, k) for k in show]
        ui.static_table(
            [
                {
                    LABELS.get(k, k): (
                        cs.fmt_value(r.get(k), digits=None if k in WHOLE else 4)
                        + ("\u00a0★" if i in best[k] else "")  # the star stays by its value
                        if k in best
                        else cs.fmt_value(r.get(k), digits=None)
                    )
                    for k in show
                }
                for i, r in enumerate(rows)
            ],
            columns,
        )
        ui.note(
            "★ the best value of each metric over the settings (the lowest SRE, non-zeros and "
            "time); none where every setting ties"
        )
    else:  # a long sweep: a grid that scrolls and sorts
        st.dataframe(
            [{k: r.get(k) for k in show} for r in rows],
            hide_index=True,
            key="sweep_table",
            column_config={
                m: st.column_config.NumberColumn(LABELS[m], format="%.4f") for m in metrics
            },
        )
    context = {"model": run["model"]}
    if run["kind"] == "model":
        context.update(data=run["data"].name, seed=run["seed"], n_clusters=run["n_clusters"])
    else:
        context.update(bundle=run["name"])
    st.download_button(
        "Download the sweep table (CSV)",
        cs.table_csv(rows, context),
        "clustlens_sweep.csv",
        "text/csv",
        key="sweep_csv",
    )


def _pick_key(run: dict[str, Any]) -> str:
    """The "Setting" box's key, one per sweep: a new sweep gets a new box, its pick starting
    at that sweep's best. (With one key for every sweep, a pick carried over from the demo
    named a setting of the demo after "Run sweep", and the browser kept the demo's label.)"""
    return run.setdefault("pick_key", f"sw_pick-{secrets.token_hex(4)}")


def _open_controls(run, rows, swept, best, color_by) -> None:
    st.subheader("Open one setting in the other views")
    can_open = run["kind"] == "model" or run.get("truth") is not None
    if not can_open:
        ui.note("a results-only sweep has no predictions or C to open")
        return
    positions = list(range(len(rows)))
    key = _pick_key(run)
    if st.session_state.get(key) not in positions:
        st.session_state[key] = best if best is not None else 0

    def label(pos: int) -> str:
        r = rows[pos]
        name = " ".join(f"{p}={r.get(p)}" for p in swept) or f"setting {r.get('setting')}"
        val = r.get(color_by)
        extra = f" · {LABELS.get(color_by, color_by)} {val:.3f}" if isinstance(val, float) else ""
        return name + extra + (" (best)" if pos == best else "")

    c1, c2 = st.columns([3, 2], vertical_alignment="bottom")
    pos = c1.selectbox("Setting", positions, format_func=label, key=key)
    c2.button(
        "Open in Summary, Contingency and Affinity",
        key="sw_open",
        on_click=_open,
        args=(pos,),
        icon=":material/open_in_new:",
    )
    page = state.get().sweep
    msg, page.message = page.message, None
    if msg is not None:
        level, text = msg
        if level == "error":
            ui.error(text)
        else:
            st.success(ui.md_escape(text), icon=":material/check:")
            l1, l2, l3, _ = st.columns([1, 1, 1, 2])
            l1.page_link("views/summary.py", label="Summary", icon=":material/summarize:")
            l2.page_link("views/contingency.py", label="Contingency", icon=":material/grid_on:")
            l3.page_link("views/affinity.py", label="Affinity", icon=":material/hub:")


def _setup(box: Any, s: state.AppState) -> None:
    """The "Data and model" box: the data source, its settings, the model, its grid, Run."""
    with box:
        source = st.radio(
            "Data",
            list(SOURCES),
            format_func=SOURCES.__getitem__,
            horizontal=True,
            key="sw_source",
            persist_state="session",
        )
        with ui.guarded("preparing the sweep"):
            if source == "bundle":
                _bundle_widgets(s)
            else:
                data = _source_data(source, s)
                if data is not None:
                    _grid_widgets(data, s)


# ---------------------------------------------------------------- page
def render() -> None:
    s = state.get()
    st.title("Sweep")
    st.caption(
        "Sparse coefficients keep points inside their subspace (low SRE) but connect classes "
        "weakly (low CONN); dense ones connect well but leak. Sweep a model's parameter and "
        "see where clustering accuracy is good."
    )
    run = _run(s)
    # The box's ~25 widgets are built only while it is open (opening it reruns the page): the
    # demo's view does not need them. With an upload source it stays built, closed too: a file
    # uploader keeps its file only while it is on the page.
    box = st.expander(
        "Data and model",
        expanded=run.get("demo", False) is False,
        key=K_SETUP_OPEN,
        on_change="rerun",
    )
    s.sweep.ready = None
    if box.open or st.session_state.get("sw_source") in ("upload", "bundle"):
        _setup(box, s)
    if not box.open:
        s.sweep.ready = None  # an upload's form is built closed too; no Run below a closed box
    run = _run(s)
    # A long sweep runs in chunks of CHUNK_SECONDS under its progress bar and Stop button, which
    # stand above the results, each chunk a run of the whole page (Stop works between settings);
    # a run just started by "Run sweep" takes its first QUICK_SECONDS in the results part below.
    # A chunk computes once the results part is sent again (the rows so far): computed before
    # it, it left the results of the run before on the page, stale, and Streamlit fades stale
    # elements from 0.5 s on — the results blinked in every chunk, and the browser redrew the
    # whole page on every frame of it. After the last chunk one more run draws the whole sweep.
    bar = st.empty()
    _shown()
    if run["status"] == "running" and not run.get("started_by_run"):
        outcome = None  # a failure is said on the page (guarded): no next chunk then
        with ui.guarded("running the sweep"):
            outcome = _advance(run, bar)
        if outcome in ("more", "done"):
            st.rerun()


#: Empty elements at the end of the results part while a long sweep runs (see _shown).
TAIL = 8
#: The fragment key of the results part of the page (below the "Data and model" box).
RESULTS = "sweep_results"
#: A run started by "Run sweep" computes this long in the results part alone, without a Stop
#: button or a progress bar (the default sweep's 11 settings take ~0.1 s); one that is not done
#: by then goes on in runs of the whole page, with them (see render).
QUICK_SECONDS = PROGRESS_AFTER_S


@st.fragment(key=RESULTS)
def _shown() -> None:
    """ "Run sweep" and the sweep shown: notes, charts, table, open controls.

    "Run sweep" and a click on the trade-off chart rerun this part alone: the sidebar and the
    form above are unchanged by them (a rerun of the whole page built ~40 more elements and
    the browser checked each). A Stop button inside this part could not stop it (a click in a
    part of the page waits for that part's run to end), so a run that is not done within
    QUICK_SECONDS goes on in runs of the whole page, where Stop stands above this part.
    """
    s = state.get()
    _run_button(s)
    run = _run(s)
    if run.pop("started_by_run", False) and run["status"] == "running":
        with ui.guarded("running the sweep"):
            if job.advance(run, QUICK_SECONDS) == "more":
                st.rerun()  # the whole page: the progress bar and Stop, then the next chunks
    if run.get("demo"):
        story = cs.trade_off_story(job.rows(run), "lambda")
        st.info(
            "Demo sweep (precomputed): LSR over 9 values of λ on 400 handwritten digits (pixel "
            f"view). {story} — the trade-off below. Open a setting to look inside it; open "
            "“Data and model” to sweep another model, your data or your own sweep.",
            icon=":material/science:",
        )
    where = run["data"].name if run["kind"] == "model" else f"bundle {run['name']}"
    ui.note(f"showing: {run['model']} on {where}")
    if run["kind"] == "model":
        n = len(run["grid"].settings)
        done = len(run["rows"])
        if run["status"] == "stopped":
            st.warning(f"Stopped after {done} of {n} settings; the finished ones are kept below.")
        elif run["status"] == "done" and not run.get("demo"):
            secs = ui.seconds_text(run["seconds"])
            ui.note(f"{done} of {n} settings finished in {secs} of computing")
    else:
        n_ok = len(run["rows"])
        ui.note(f"{n_ok} settings scored ({run['n_settings']} loaded from the bundle)")
    for e in run["errors"]:
        ui.error(e)
    with ui.guarded("drawing the sweep"):
        _results(run, s)
    if run["status"] == "running" and not run.get("started_by_run"):
        # A long sweep's runs end in st.rerun(), and such a run leaves on the page whatever it
        # did not send again (Streamlit drops it only when a run finishes): the sweep shown
        # before, when it had more elements, would stand stale under this one, fading, through
        # every chunk. Empty elements take those places.
        for _ in range(TAIL):
            st.empty()


if __name__ == "__main__":
    render()
