"""Multi-view: spectral structure fusion (SSF) on HW or the user's views, and the protocol table.

What is shown comes from a configuration kept in ``AppState.multiview.config`` (source,
sizes, SSF parameters), set by the Run button; the first visit uses the default (a stratified
HW subset), so the page is useful at once. Every result is cached in
:mod:`dashboard.compute.multiview`.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import streamlit as st
from streamlit.errors import StreamlitAPIException
from streamlit.runtime.scriptrunner import get_script_run_ctx

from dashboard import inputs
from dashboard.compute import multiview as cm
from dashboard.compute.background import Job
from dashboard.figures.multiview import affinity_panels, ssf_overview
from dashboard.session import budget, state
from dashboard.ui import widgets as ui
from metrics_core.evaluation import mean_std_caption
from metrics_core.multiview._ssf import DEFAULT_SSF
from metrics_core.validation import ClustlensInputError

SOURCES = {
    "hw": "HW: UCI handwritten digits, six views",
    "synthetic": "synthetic multi-view set",
    "upload": "your views (one file per view) + labels",
}
# The library's protocol defaults (one place), as the page's form fields take them.
DEFAULT_PARAMS = {k: DEFAULT_SSF[k] for k in ("alpha", "beta", "gamma", "max_iter", "tol", "init")}
INITS = {
    "pkn": "adaptive neighbours (Nie, Wang & Huang 2014) — default",
    "ridge": "ridge self-representation",
}
SELECTIONS = {
    "truth": "against the ground truth (as the paper)",
    "unsupervised": "without labels (best silhouette)",
}
KNN_CHOICES = {
    "quick": ("quick: k = 10, 20, 40", cm.QUICK_KNN),
    "paper": ("the paper's: k = 5, 10, …, 60", tuple(range(5, 61, 5))),
}
VIEW_TYPES = ["csv", "txt", "tsv", "npy", "npz", "mat"]
#: Session key of the "Data and parameters" box's open state.
K_CONTROLS_OPEN = "mv_controls_open"
#: Session key of the per-view panels' box's open state.
K_VIEWS_OPEN = "mv_views_open"
#: The box's widgets keep their values while it is closed (and not built).
KEEP: dict[str, Any] = {"persist_state": "session"}
#: Whether the comparison's "Recompute it" box is open (its widgets are built only then).
K_PROTOCOL_OPEN = "mv_protocol_open"
#: The comparison's number of runs (its widget's key) and its default.
K_RUNS = "mv_runs"
DEFAULT_RUNS = 3


def _default_cfg() -> dict[str, Any]:
    return {"source": "hw", "args": {"n": cm.HW_DEFAULT_N, "seed": 0}, "params": DEFAULT_PARAMS}


def _data(s: state.AppState, cfg: dict[str, Any]) -> cm.MVData:
    if cfg["source"] == "hw":
        return cm.hw(**cfg["args"])
    if cfg["source"] == "synthetic":
        return cm.synthetic(**cfg["args"])
    return s.multiview.data  # parsed once, when Run SSF accepted the files


def _accept_upload(s: state.AppState, args: dict[str, Any]) -> bool:
    """Parse the uploaded views now: a refused file is said under the form and everything shown
    before (data, SSF, comparison) stays; accepted views are kept in the session (charged to
    its memory budget), the bytes are not."""
    old = s.multiview.data
    old_charge = 0
    if old is not None:
        shape = (old.n, sum(int(v.shape[1]) for v in old.views))
        old_charge = budget.data_charge(shape, "multiview", n_views=len(old.views))
    try:
        data = cm.uploaded(args["files"], args["labels"], room=budget.room(s, replacing=old_charge))
    except ClustlensInputError as exc:
        ui.error(
            f"{exc.source}: {exc.reason}"
            + (f" (at {exc.where})" if exc.where else "")
            + ". The data and results shown before are unchanged."
        )
        return False
    s.multiview.data = data
    return True


def _controls(s: state.AppState) -> None:
    source = st.radio(
        "Data",
        list(SOURCES),
        format_func=SOURCES.__getitem__,
        horizontal=True,
        key="mv_source",
        persist_state="session",
    )
    with st.form("mv_form", border=False):
        args: dict[str, Any] = {}
        if source == "hw":
            c1, c2 = st.columns([3, 1])
            args["n"] = c1.slider(
                "points (stratified subset; 2,000 = all, SSF then takes up to a minute)",
                100,
                2000,
                cm.HW_DEFAULT_N,
                100,
                key="mv_hw_n",
                persist_state="session",
            )
            args["seed"] = int(
                c2.number_input("subset seed", 0, 10_000, 0, key="mv_hw_seed", **KEEP)
            )
        elif source == "synthetic":
            c = st.columns(5)
            args = {
                "n_per_cluster": int(
                    c[0].number_input("points per cluster", 5, 300, 30, key="mv_s_n", **KEEP)
                ),
                "n_clusters": int(c[1].number_input("clusters", 2, 20, 4, key="mv_s_k", **KEEP)),
                "n_views": int(c[2].number_input("views", 2, 8, 3, key="mv_s_v", **KEEP)),
                "noise": float(
                    c[3].number_input("noise", 0.0, 5.0, 0.3, 0.05, key="mv_s_noise", **KEEP)
                ),
                "seed": int(c[4].number_input("seed", 0, 10_000, 0, key="mv_s_seed", **KEEP)),
            }
        else:
            c1, c2 = st.columns([3, 2])
            files = c1.file_uploader(
                "View files (points as rows; one file per view, in view order)",
                type=VIEW_TYPES,
                accept_multiple_files=True,
                key="mv_up_views",
            )
            lab = c2.file_uploader(
                "Ground-truth labels", type=["txt", "csv", "tsv", "npy", "mat"], key="mv_up_y"
            )
            args = {
                "files": [(f.name, f.getvalue()) for f in files or []],
                "labels": None if lab is None else (lab.name, lab.getvalue()),
            }
        st.markdown(
            "**SSF parameters** (the defaults of Liu, Wang & Qian's paper: α = 10, β = 1e-3, γ = 6)"
        )
        p = st.columns([1, 1, 1, 1, 2])
        params = {
            "alpha": float(p[0].number_input("α (ridge)", 1e-6, 1e6, 10.0, key="mv_alpha", **KEEP)),
            "beta": float(
                p[1].number_input(
                    "β (spectral term)", 0.0, 1e3, 1e-3, format="%.0e", key="mv_beta", **KEEP
                )
            ),
            "gamma": float(
                p[2].number_input("γ (fusion scale)", 1e-6, 1e6, 6.0, key="mv_gamma", **KEEP)
            ),
            "max_iter": int(p[3].number_input("max iterations", 1, 200, 30, key="mv_iter", **KEEP)),
            "tol": DEFAULT_PARAMS["tol"],
            "init": p[4].selectbox(
                "initial graphs",
                list(INITS),
                format_func=INITS.__getitem__,
                key="mv_init",
                persist_state="session",
                help="The paper does not say how SSF starts. pkn: each view's adaptive "
                "probabilistic-neighbour graph (k = 10) — ACC 0.981 on all of HW; ridge: the "
                "self-representation without the spectral term — ACC 0.945.",
            ),
        }
        if st.form_submit_button("Run SSF", type="primary"):
            if source == "upload" and (len(args["files"]) < 2 or args["labels"] is None):
                ui.error("upload at least two view files and the ground-truth labels")
            elif source == "upload" and not _accept_upload(s, args):
                pass
            else:
                if source == "upload":  # the parsed views are kept; the bytes are not
                    args = {"files": [n for n, _ in args["files"]], "labels": args["labels"][0]}
                s.multiview.config = {"source": source, "args": args, "params": params}
                s.multiview.protocol = None


def components_value(n_components: int, k: int) -> str:
    """The "components of S" card's value: the count alone when it is K, else with K.

    >>> components_value(10, 10), components_value(12, 10)
    ('10', '12 (K = 10)')
    """
    return f"{n_components}" if n_components == k else f"{n_components} (K = {k})"


def _ssf_section(data: cm.MVData, res: dict[str, Any]) -> None:
    m = res["metrics"]
    n_comp, k = res["n_components"], res["n_clusters"]
    shipped = res.get("shipped")
    ui.metric_cards(
        [
            ("ACC", f"{m['acc']:.3f}"),
            ("NMI", f"{m['nmi']:.3f}"),
            ("ARI", f"{m['ari']:.3f}"),
            (
                # one short number when S has its K components: "10 / K = 10" broke into two
                # lines in a fifth of the row at 1,280 px and made every card that tall (K is
                # in the note above and in the help; a mismatch also gets a warning below)
                "components of S",
                components_value(n_comp, k),
                "labels are the connected components of S (no k-means); the rank constraint "
                f"asks for exactly K = {k}",
            ),
            (
                "time" if shipped is None else "time (precomputed)",
                f"{res['seconds']:.1f} s",
                None
                if shipped is None
                else f"of the fit shipped with clustlens for this demo ({shipped['created']}; "
                "demo_data/hw_ssf_demo.npz, a test refits it): the page shows it at once. Other "
                "data or parameters are fit when Run SSF is pressed.",
            ),
        ],
        per_row=5,
        border=True,
    )
    log = res.get("xi_log") or []
    if res.get("guard_fired"):
        steps = sum(e["steps"] for e in log)
        st.warning(
            f"The rank constraint shattered S at first (a component under "
            f"{res['min_component']} points): ξ was lowered until S had {res['n_components']} "
            f"proper components ({steps} ξ values tried over {len(log)} iterations)."
        )
    elif log and not all(e["exact"] for e in log):
        st.warning(
            f"S has {res['n_components']} components, not K = {res['n_clusters']}: the ξ search "
            "ended without exactly K (see the convergence record)."
        )
    scale = st.radio(
        "Colour",
        ["linear", "log"],
        horizontal=True,
        key="mv_colour",
        persist_state="session",
        help="linear shows the block structure of each view (the paper's Fig. 2); log brings "
        "out the weak entries between classes",
    )
    log_scale = scale == "log"
    names = list(res["view_names"])
    ui.chart(
        ssf_overview(
            res["fused"],
            names,
            res["weights_normalised"],
            res["weights"],
            res["objective"],
            converged=res["converged"],
            log=log_scale,
        ),
        key="mv_overview",
    )
    # Built only when opened (a rerun): the six panels were the costliest part of the page's
    # first visit (0.13-0.19 s of the browser's first drawing, 0.27 MB); the fused S and the
    # weights above answer what SSF found, the panels why.
    box = st.expander(
        "Per-view self-representations Z_v: why each view gets its weight (one panel a view, "
        "one colour scale)",
        key=K_VIEWS_OPEN,
        on_change="rerun",
    )
    if box.open:
        with box:
            ui.chart(
                affinity_panels(
                    res["panels"],
                    [f"view {nm}" if data.key.startswith("hw") else nm for nm in names],
                    log=log_scale,
                    colour_title="|Z_v|+|Z_v|ᵀ",
                    title="Per-view self-representations Z_v, one colour scale",
                ),
                key="mv_views",
            )


def _open_ssf(data: cm.MVData, res: dict[str, Any]) -> None:
    """Button callback (runs before the sidebar's widgets exist): SSF's result as the active
    prediction, with S as its own C."""

    s = state.get()
    truth = inputs.from_array("truth", f"multi-view: {data.name} labels", data.labels)
    pred = inputs.from_array("pred", "multi-view: SSF", res["labels"])
    pred.own_coef = inputs.from_array("coef", "multi-view: fused S", res["S"])
    same = s.truth is not None and s.truth.sha256 == truth.sha256
    keep = [p for p in s.preds if same and p.name != pred.name]
    s.truth = s.truth if same else truth
    s.preds = [*keep, pred]
    s.from_counts = None
    if s.coef is not None and s.coef.n != truth.n:
        s.coef = None
    st.session_state[state.K_ACTIVE] = pred.name
    s.messages = [("success", "opened multi-view: SSF")]


def _open_section(s: state.AppState, data: cm.MVData, res: dict[str, Any]) -> None:
    """Put SSF's labels, with S as their own C, into every Evaluate view."""
    c1, c2 = st.columns([3, 4], vertical_alignment="center")
    c1.button("Open SSF's result in every view", key="mv_open", on_click=_open_ssf,
              args=(data, res),
              help="ground truth = these labels; prediction = SSF's clusters, carrying the "
              "fused S as its own C (SRE, CONN, diagnosis, affinity, points)")  # fmt: skip
    active = state.active_pred(s)
    if active is not None and active.name == "multi-view: SSF":
        c2.success("SSF's result is the prediction in every view (with S as its C).")
        l1, l2, l3, l4 = st.columns(4)
        l1.page_link("views/summary.py", label="Summary", icon=":material/summarize:")
        l2.page_link("views/contingency.py", label="Contingency", icon=":material/grid_on:")
        l3.page_link("views/affinity.py", label="Affinity", icon=":material/hub:")
        l4.page_link("views/points.py", label="Points", icon=":material/scatter_plot:")


def _stop_protocol() -> None:
    mv = state.get().multiview
    mv.protocol = None
    if mv.job is not None:
        mv.job.cancel()
        # kept until it has ended: a new Run waits for it (one comparison computing at a time)


def _protocol_controls(s: state.AppState) -> None:
    """The comparison's runs, k-NN sizes and selection, and its Run button, in a box built when
    opened (a rerun): the comparison is shown precomputed at once, recomputing it is occasional,
    and four widgets in four columns were mounted by the browser on every visit of the page.
    Their values are session values, kept while the box is closed."""
    box = st.expander(
        "Recompute it: number of runs, k-NN sizes tried, how the baselines' settings are chosen",
        key=K_PROTOCOL_OPEN,
        on_change="rerun",
        icon=":material/refresh:",
    )
    if not box.open:
        return
    # the Run button on a row of its own: beside three fields it had ~90 px at 1,024 px
    c1, c2, c4 = box.columns([1, 2, 2], vertical_alignment="bottom")
    runs = int(
        c1.number_input("runs", 1, 20, DEFAULT_RUNS, key=K_RUNS, help="the paper uses 20", **KEEP)
    )
    knn = c2.radio(
        "k-NN sizes tried by the baselines",
        list(KNN_CHOICES),
        format_func=lambda k: KNN_CHOICES[k][0],
        horizontal=True,
        key="mv_knn",
        **KEEP,
    )
    selection = c4.radio(
        "baseline settings chosen",
        list(SELECTIONS),
        format_func=SELECTIONS.__getitem__,
        key="mv_selection",
        help="The paper reports each baseline at its best k-NN size (or λ) against the ground "
        "truth, which flatters them; 'without labels' picks the best silhouette instead.",
        **KEEP,
    )
    if box.button("Run comparison", key="mv_proto_run", type="primary"):
        s.multiview.protocol = {"runs": runs, "knn": knn, "selection": selection}


#: The comparison part of the page (its heading to its table) is a fragment with this key: Run,
#: Stop and Back rerun it alone, and a comparison computes on a thread of its own while a run
#: of this part waits for it.
COMPARISON = "mv_comparison"
#: While it waits, the run looks this often for a click queued behind it (Stop: Streamlit runs
#: a click inside a fragment only after the fragment's run in progress) ...
WAIT_SLICE_S = 0.1
#: ... and redraws the bar this often. Each redraw is a message to the browser and a re-render
#: there, taken on a 2-core machine from the computation it reports on: the demo's comparison
#: (15 steps in ~1.6 s) computed in 1.80 s in the server with a redraw per step, 1.64 s with at
#: most one every 0.5 s, 1.68 s with no bar (medians over alternated servers).
BAR_REDRAW_S = 0.5
#: Where this Streamlit does not let the run see a queued click, it reruns itself this often
#: instead (a rerun holds the interpreter ~20-40 ms, which the computing thread waits for).
WATCH_S = 1.0


def _comparison_key(data: cm.MVData, params: dict[str, Any], cfg: dict[str, Any]) -> str:
    return repr((data.key, sorted(params.items()), sorted(cfg.items())))


def _computing(s: state.AppState, data: cm.MVData, params: dict[str, Any]) -> bool:
    """Whether a comparison was asked for and is not finished (its part's run waits for it)."""
    cfg = s.multiview.protocol
    if cfg is None:
        return False
    kept = s.multiview.result
    return kept is None or kept[0] != _comparison_key(data, params, cfg)


def _session_alive() -> Callable[[], bool]:
    """``alive()`` for a job: False once this browser session is gone (always True without
    Streamlit's runtime, as in AppTest)."""
    from streamlit import runtime

    ctx = get_script_run_ctx()
    if not runtime.exists() or ctx is None:
        return lambda: True
    rt, session_id = runtime.get_instance(), ctx.session_id
    return lambda: rt.is_active_session(session_id)


def _job(s: state.AppState, key: str, data: cm.MVData, params, cfg) -> Job:
    """The job computing ``key``: the one running, or a new one (after the one it replaces)."""
    mv = s.multiview
    old = mv.job
    if old is not None and old.key == key and not old.cancelled:
        return old
    if old is not None:
        old.cancel()
    from metrics_core.multiview import protocol_steps  # the Run imports it

    def compute(progress: Callable[[str], None]) -> dict[str, Any]:
        return cm.protocol(
            data,
            runs=cfg["runs"],
            params=params,
            knn=KNN_CHOICES[cfg["knn"]][1],
            selection=cfg.get("selection", "truth"),
            progress=progress,
        )

    total = protocol_steps(cfg["runs"], len(data.view_names))
    mv.job = Job(key, compute, total=total, alive=_session_alive(), after=old).start()
    return mv.job


def _watch_again() -> None:
    """Rerun the comparison part alone; from a run of the whole page (which cannot), the page."""
    try:
        st.rerun(scope="fragment")
    except StreamlitAPIException:
        st.rerun()


def _click_queued() -> bool | None:
    """Whether a rerun waits behind this run (a click queued, or the session stopping); None
    when this Streamlit's script requests cannot be read (then the caller reruns on a timer).
    Read from the runner's pending request: Streamlit has no public way to ask."""
    ctx = get_script_run_ctx()
    pending = getattr(getattr(ctx, "script_requests", None), "_state", None)
    name = getattr(pending, "name", None)
    return None if name is None else name != "CONTINUE"


def _bar(slot: Any, job: Job, runs: int) -> None:
    what = f"running the protocol ({runs} runs)"
    last = f" — {job.message}" if job.steps else ""
    text = f"{what}: {job.steps} of {job.total} steps{last}"
    slot.progress(job.fraction, text=ui.md_escape(text))


def _wait_for(job: Job, slot: Any, runs: int) -> None:
    """Wait for ``job``'s end, the bar redrawn meanwhile; a click queued behind this run (Stop,
    a control of this part) reruns at once, the job going on."""
    began = drawn = time.monotonic()
    _bar(slot, job, runs)
    while not job.wait(WAIT_SLICE_S):
        now = time.monotonic()
        queued = _click_queued()
        if queued or (queued is None and now - began >= WATCH_S):
            _watch_again()
        if now - drawn >= BAR_REDRAW_S:  # also where Streamlit stops a run for a page switch
            drawn = now
            _bar(slot, job, runs)


@st.fragment(key=COMPARISON)
def _comparison_part(data: cm.MVData, params: dict[str, Any]) -> None:
    """The comparison's controls and table: the shipped table, a kept run's, or the bar of one
    computing on its own thread (:class:`Job`) — this part's runs wait for it a little at a
    time, so Stop works and nothing else on the page is built again meanwhile."""
    s = state.get()
    st.subheader("Method comparison (mean ± std over runs)")
    ui.note(
        "SSF against spectral clustering on each single view's k-NN graph, on the average "
        "graph (SC_avg) and on the concatenated features (SC_concat), AMGL (Nie, Li & Li, IJCAI "
        "2016), SwMC (Nie, Li & Li, IJCAI 2017) and co-regularised spectral clustering, "
        "pairwise and centroid (Kumar, Rai & Daumé, NIPS 2011); ★ marks the best mean per "
        "column. SSF and SwMC use no k-means (SSF's runs differ only through the eigensolver's "
        "seeded start — up to 500 points not at all: one fit stands for every run — SwMC's "
        "not at all); the others vary through k-means. "
        "Each baseline reports one setting of its grid: the column 'chosen' says how."
    )
    _protocol_controls(s)
    # Three places, filled or left empty in every run: what the table is (or Stop, or Back),
    # the table shown, and a run's bar and then its table. An element a run does not send
    # again stays on the page, stale, and Streamlit fades stale elements from 0.5 s on, over a
    # second, the browser re-rendering the whole page on every frame meanwhile; a new box in
    # an old box's place inherits its elements, an empty element drops them.
    head, shown_slot, run_slot = st.empty(), st.empty(), st.empty()
    cfg = s.multiview.protocol
    if cfg is None:
        out = cm.shipped_protocol()
        if out is None:
            runs = int(st.session_state.get(K_RUNS, DEFAULT_RUNS))
            head.info(
                f"Run comparison, in 'Recompute it' above, runs SSF and the baselines {runs} "
                f"times on {data.n:,} points (tens of seconds on HW subsets)."
            )
            return
        meta = out["shipped"]
        head.info(
            f"Shown at once: the comparison precomputed on {meta['data']} ({out['runs']} runs, "
            f"settings chosen {SELECTIONS.get(meta['selection'], meta['selection'])}; "
            f"{meta['seconds'] / 60:.0f} minutes on a 2-core machine, {meta['created']}). "
            "Run comparison, in 'Recompute it' above, recomputes it on the page's data.",
            icon=":material/inventory_2:",
        )
        with shown_slot.container():
            _comparison_table(out)
        return
    key = _comparison_key(data, params, cfg)
    slot = shown_slot
    if _computing(s, data, params):
        head.button("Stop", key="mv_proto_stop", on_click=_stop_protocol,
                    help="stops the comparison; the precomputed table comes back")  # fmt: skip
        job = _job(s, key, data, params, cfg)
        # a bar that says how far the run is (a spinner only said that it ran, and turned at
        # 60 frames a second for minutes on HW's 20 runs)
        _wait_for(job, run_slot, cfg["runs"])
        s.multiview.job = None
        if job.cancelled:  # not by Stop (its run shows the shipped table): its session went
            _watch_again()
        # what this server took, said under the table (the shipped table says what its own
        # computing took); a failure is kept in its place, said until Back or another Run
        done = (
            {"failed": job.error}
            if job.error is not None
            else {**job.result, "seconds_here": job.seconds}
        )
        s.multiview.result = (key, done)
        slot = run_slot
    _back_button(head)
    out = s.multiview.result[1]
    with slot.container():
        if "failed" in out:
            with ui.guarded("running the comparison"):
                raise out["failed"]
        else:
            _comparison_table(out)


def _back_button(slot: Any) -> None:
    slot.button("Back to the precomputed table", key="mv_proto_back", on_click=_stop_protocol,
                help="the recomputed table goes; the precomputed one comes back")  # fmt: skip


def _comparison_table(out: dict[str, Any]) -> None:
    here = out.get("seconds_here")
    took = "" if here is None else f"; computed here in {ui.seconds_text(here)}"
    ui.note(
        f"{mean_std_caption(out['runs'])} (seeds 0..{out['runs'] - 1}); k-NN sizes "
        f"{out['knn']}; F-measure = class-weighted best-match F-measure, pair F1 = "
        f"pair-counting F1{took}"
    )
    chosen = out.get("chosen", {})
    if chosen:
        ui.note("chosen: " + "; ".join(f"“{short}” = {full}" for short, full in chosen.items()))
    # A static table: every column shows and wraps (a data frame cut "setting" and "chosen"
    # off at the page's width), and the page mounts no data grid on each visit.
    shown = out["shown"]
    ui.static_table(shown, list(shown[0]) if shown else ["method"])
    # built only when opened (a rerun): a dozen notes no visit needs drawn until asked for
    notes = st.expander(
        "How each row was obtained (settings, selection, references)",
        key="mv_notes",
        on_change="rerun",
    )
    if notes.open:
        with notes:
            st.markdown("\n".join(f"- {ui.md_escape(n)}" for n in out.get("notes", [])))
    # side by side at their own widths (in fixed columns they were cut at 1,024 px)
    row = st.container(horizontal=True)
    row.download_button(
        "Download table (CSV)", out["csv"], "clustlens_multiview.csv", "text/csv", key="mv_csv"
    )
    row.download_button(
        "Download table (LaTeX)",
        out["latex"],
        "clustlens_multiview.tex",
        "text/x-tex",
        key="mv_latex",
    )


def render() -> None:
    s = state.get()
    st.title("Multi-view")
    st.caption(
        "Spectral structure fusion (SSF): each view learns a self-representation Z_v and a "
        "spectral embedding; a shared structure S with exactly K connected components fuses "
        "them, weighting each view automatically. Features are scaled to [-1, 1] as in the paper."
    )
    # The box's form is built only while it is open (opening it reruns the page): the demo's
    # view states its parameters in the note below. With an upload source it stays built,
    # closed too: a file uploader keeps its files only while it is on the page.
    box = st.expander("Data and parameters", key=K_CONTROLS_OPEN, on_change="rerun")
    if box.open or st.session_state.get("mv_source") == "upload":
        with box:
            _controls(s)
    cfg = s.multiview.config or _default_cfg()
    with ui.guarded("running SSF"):
        data = _data(s, cfg)
        ui.note(
            f"{data.name}; views: {', '.join(data.view_names)}; K = {data.n_classes} "
            f"(the number of classes); α = {cfg['params']['alpha']:g}, "
            f"β = {cfg['params']['beta']:g}, γ = {cfg['params']['gamma']:g}; initial graphs: "
            f"{cfg['params'].get('init', 'pkn')}"
        )
        for n in data.notes:
            ui.note(n)
        # SSF's section stands above the comparison but is filled after it: the comparison at
        # hand (the shipped table) reaches the browser at once instead of after SSF's figures;
        # a comparison computing is watched after SSF's section is out (its runs wait for it)
        ssf_box = st.container()
        computing = _computing(s, data, cfg["params"])
        if not computing:
            _comparison_part(data, cfg["params"])
        with ssf_box:
            with st.spinner("fitting SSF …"):
                res = cm.ssf(data, **cfg["params"])
            _ssf_section(data, res)
            _open_section(s, data, res)
        if computing:
            _comparison_part(data, cfg["params"])


if __name__ == "__main__":
    render()
