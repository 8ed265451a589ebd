"""Learn: edit a contingency table, move points between clusters, load scenarios — and see why
every metric moves, step by step.

Runs as a page of ``dashboard/app.py`` (``st.navigation``) or on its own
(``streamlit run dashboard/views/learn.py``; ``AppTest.from_file`` in the tests). All maths
lives in UI-free modules (``explain``, ``learn_scenarios``, ``null_bands``, metrics_core); the
``st.cache_data`` wrappers below are keyed on small numbers only. Labels here are our own
(``class A``, ``cluster 1``), and anything typed goes through ``st.text``/``ui.preformatted``
(escaped)/``st.dataframe`` — nothing typed is rendered as markdown.
"""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:  # run as a script: make `dashboard` and `metrics_core` importable
    sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import streamlit as st  # noqa: E402

import metrics_core as mc  # noqa: E402
from dashboard.analysis import explain  # noqa: E402
from dashboard.analysis import scenarios as ls  # noqa: E402
from dashboard.compute import learn as compute_learn  # noqa: E402
from dashboard.figures import learn as lfig  # noqa: E402
from dashboard.figures.affinity import conn_bars  # noqa: E402
from dashboard.figures.contingency import contingency_heatmap  # noqa: E402
from dashboard.figures.pairs import pair_confusion_matrix  # noqa: E402
from dashboard.outputs import export, report  # noqa: E402
from dashboard.session import state  # noqa: E402
from dashboard.session.pages import LearnState  # noqa: E402
from dashboard.ui import presentation, table_editor  # noqa: E402
from dashboard.ui import widgets as ui  # noqa: E402
from metrics_core.evaluation import column_label, metrics_latex  # noqa: E402
from metrics_core.validation._errors import ClustlensInputError  # noqa: E402

K_AVERAGE = "learn_average_method"  # the normaliser widget's key
K_TAB = "learn_tab"  # the open tab (only its content runs)
K_TYPE_OPEN = "learn_type_open"  # the "Add or remove ... or type / paste a table" box is open
K_EXPORT_OPEN = "learn_export_open"  # the "Export" box is open
K_SCENARIO = "learn_scenario"  # the scenario pill picked (None once the table is edited)
K_STEP = "learn_step"  # the explanation whose derivation is shown (its key)
DEFAULT_SCENARIO = "seed"

#: The metrics shown as cards and exported; their names come from the catalogue.
HEADLINE = tuple(
    (k, column_label(k))
    for k in ("acc", "purity", "ari", "nmi", "ami", "homogeneity", "completeness", "jaccard",
              "fmi", "rand")
)  # fmt: skip


def _fmt(v: float) -> str:
    return "n/a" if not np.isfinite(v) else f"{v:.4f}"


def _chart(fig, key: str, settings: presentation.Settings, **kw):
    del settings  # ui.chart reads the presentation settings itself
    return ui.chart(fig, key=key, **kw)


# ----------------------------------------------------------------------------- state
def _page() -> LearnState:
    """The Learn page's typed state, started on the default scenario and the points' start."""
    page = state.get().learn
    if page.table is None:
        page.table = ls.SCENARIOS[DEFAULT_SCENARIO].array()
        page.scenario = DEFAULT_SCENARIO
    if page.points is None:
        page.points = ls.point_set().clusters.copy()
    st.session_state.setdefault(K_AVERAGE, "arithmetic")
    return page


def _init() -> None:
    _page()


def _table_edited(rows: list[list[object]]) -> None:
    """The editor's callback: the edited table, cleaned (blanks, negatives and non-numbers 0,
    decimals rounded, counts capped), is the table taught (no scenario's any more); the editor
    stays (same version), showing it."""
    page = _page()
    table = ls.clean_table(rows)
    if not np.array_equal(table, page.table):
        page.table, page.scenario = np.asarray(table, dtype=np.int64), None


def _set_table(table: np.ndarray, scenario: str | None) -> None:
    page = _page()
    page.table = np.asarray(table, dtype=np.int64)
    page.scenario = scenario
    page.table_version += 1  # a new editor widget, so it shows the new table


# ----------------------------------------------------------------------------- sections
def _metrics_row(values: dict) -> None:
    ui.metric_cards([(label, _fmt(float(values[key]))) for key, label in HEADLINE])


def _scenario_picked() -> None:
    """A scenario pill was clicked: its table in the editor. Clicking the scenario already
    picked unselects its pill: that reloads its table (the pill shows again on the rerun)."""
    key = st.session_state.get(K_SCENARIO) or _page().scenario
    if key in ls.SCENARIOS:
        _set_table(ls.SCENARIOS[key].array(), key)


def _scenario_buttons() -> None:
    st.subheader("Scenarios")
    names = {sc.key: sc.name for sc in ls.SCENARIO_LIST}
    # one element for the nine (nine buttons in three columns were thirteen, mounted on every
    # visit), showing which scenario the table holds: none once it has been edited
    current = _page().scenario
    st.session_state[K_SCENARIO] = current if current in names else None
    st.pills(
        "Scenarios",
        list(names),
        format_func=names.__getitem__,
        key=K_SCENARIO,
        on_change=_scenario_picked,
        label_visibility="collapsed",
    )
    if current in ls.SCENARIOS:
        sc = ls.SCENARIOS[current]
        st.info(f"**{sc.name}.** {sc.explanation[0]}  \n{sc.explanation[1]}")


def _table_editor() -> np.ndarray:
    page = _page()
    table = np.asarray(page.table, dtype=np.int64)  # as edited: the editor's callback ran
    rows, cols = compute_learn.names(*table.shape)
    # our light editor (a grid of number fields): Streamlit's data editor cost the browser
    # ~0.1 s on every visit for these few counts (table_editor's docstring)
    table_editor.edit(
        table, rows, cols, f"learn_editor_{page.table_version}", ls.MAX_COUNT, _table_edited
    )
    # Resizing and typing a table are occasional: their four buttons and text box sit in a box
    # built when opened (a rerun). Mounted on every visit, they were a sixth of the page's
    # elements in the browser.
    box = st.expander(
        "Add or remove classes and clusters, or type / paste a table",
        key=K_TYPE_OPEN,
        on_change="rerun",
        icon=":material/edit:",
    )
    if not box.open:
        return table
    # side by side, each sized to its label (one row element, not four columns)
    row = box.container(horizontal=True, gap="small")
    k, c = table.shape
    if row.button("Add a class", key="learn_add_row", disabled=k >= ls.MAX_ROWS):
        _set_table(np.vstack([table, np.zeros((1, c), dtype=np.int64)]), None)
        st.rerun()
    if row.button("Add a cluster", key="learn_add_col", disabled=c >= ls.MAX_COLS):
        _set_table(np.hstack([table, np.zeros((k, 1), dtype=np.int64)]), None)
        st.rerun()
    if row.button("Remove last class", key="learn_del_row", disabled=k <= 1):
        _set_table(table[:-1], None)
        st.rerun()
    if row.button("Remove last cluster", key="learn_del_col", disabled=c <= 1):
        _set_table(table[:, :-1], None)
        st.rerun()
    with box:
        text = st.text_area(
            "One class per line, counts separated by spaces or commas; [[3, 44, 3], [2, 4, 44]] "
            "works too.",
            key="learn_table_text",
            height=100,
            persist_state="session",
        )
        if st.button("Use this table", key="learn_table_apply"):
            try:
                _set_table(ls.parse_table(text), None)
                st.rerun()
            except ClustlensInputError as exc:
                st.error(str(exc).replace("\n", " "), icon=":material/error:")
    return table


def _matched_heatmap(table: np.ndarray, title: str):
    """The table as a heatmap, clusters reordered so matched pairs sit on the (outlined)
    diagonal, as on the Contingency page."""
    o = compute_learn.matched_table(table)
    return contingency_heatmap(
        o["table"],
        o["rows"],
        o["cols"],
        n_matched=o["n_matched"],
        title=f"{title}: clusters reordered by the best one-to-one matching (outlined)",
    )


def _step_label(ex, values: dict) -> str:
    if ex.key == "pair_tp":  # one explanation derives all four cells: name them all
        return (
            f"pair confusion over unordered pairs: TP {int(values['pair_tp']):,} · "
            f"FP {int(values['pair_fp']):,} · FN {int(values['pair_fn']):,} · "
            f"TN {int(values['pair_tn']):,}"
        )
    return f"{ex.name} = {_fmt(ex.value)}"


def _steps(table: np.ndarray, values: dict, average: str) -> None:
    st.subheader("Step by step")
    found = {ex.key: ex for ex in compute_learn.explanations(table, values, average)}
    # One derivation at a time, picked from a list that names every metric with its value: a
    # box per metric (fourteen, closed) cost the browser a mount each on every visit.
    key = st.selectbox(
        "How this value is computed",
        list(found),
        index=list(found).index("acc") if "acc" in found else 0,
        format_func=lambda k: _step_label(found[k], values),
        key=K_STEP,
        persist_state="session",
        help="the metric's formula, then each step of its computation on this table",
    )
    ex = found[key]
    for step in ex.steps:
        if step.latex:
            st.latex(step.latex)
    ui.preformatted(explain.as_text(ex))


def _table_exports(values: dict) -> None:
    keys = [k for k, _ in HEADLINE]
    row = {"table": "Learn table", **{k: values[k] for k in keys}}
    # side by side, each sized to its label (as Summary's downloads)
    buttons = st.container(horizontal=True, gap="small")
    buttons.download_button("Metrics as CSV", export.to_csv([row]), "learn_metrics.csv",
                            "text/csv", key="learn_csv", icon=":material/download:")  # fmt: skip
    buttons.download_button("JSON", export.to_json(values), "learn_metrics.json",
                            "application/json", key="learn_json",
                            icon=":material/download:")  # fmt: skip
    tex = metrics_latex({"this table": values}, keys, headers=dict(HEADLINE))
    buttons.download_button("LaTeX (booktabs)", tex, "learn_metrics.tex", "text/x-tex",
                            key="learn_tex", icon=":material/download:")  # fmt: skip


def _report_download(table: np.ndarray, values: dict, figures: list) -> None:
    if st.button("Prepare an HTML report of this table", key="learn_report_prepare"):
        html_text = report.build_report(
            {"Learn table": values},
            figures=figures,
            conventions={"NMI/AMI normaliser": st.session_state[K_AVERAGE], "pairs": "unordered"},
            notes=[f"table: {table.tolist()}"],
            title="clustlens — Learn table",
        )
        _page().report_html = html_text
    if _page().report_html is not None:
        st.download_button("Download report (HTML, opens offline)",
                           _page().report_html, "clustlens_learn_report.html",
                           "text/html", key="learn_report_download")  # fmt: skip


def _table_tab(settings: presentation.Settings) -> None:
    _scenario_buttons()
    st.subheader("Contingency table (classes × clusters)")
    table = _table_editor()
    if int(table.sum()) == 0:
        st.warning("The table is empty: put some counts in it.")
        return
    average = st.radio(
        "NMI / AMI normaliser",
        mc.AVERAGE_METHODS,
        key=K_AVERAGE,
        horizontal=True,
        help="How MI is divided: the mean of H(classes) and H(clusters) chosen here.",
    )
    values = compute_learn.table_metrics(table, average)
    st.caption(
        f"N = {int(table.sum()):,} points, {table.shape[0]} classes, {table.shape[1]} clusters"
    )
    _metrics_row(values)
    heat = _matched_heatmap(table, "This table")
    pairs = pair_confusion_matrix(values["pair_tp"], values["pair_fp"], values["pair_fn"],
                                  values["pair_tn"])  # fmt: skip
    # stacked, not side by side: both figures need the full width to stay legible
    _chart(heat, "learn_heat", settings)
    _chart(pairs, "learn_pairs", settings)
    _steps(table, values, average)
    # built only when opened (a rerun): its three downloads and the report button are not
    # needed drawn (nor their files made) on every visit
    box = st.expander("Export", key=K_EXPORT_OPEN, on_change="rerun")
    if box.open:
        with box:
            _table_exports(values)
            st.caption("Each figure has its own PNG / SVG / PDF button under it.")
            _report_download(
                table, values, [("Contingency table", heat), ("Pair confusion", pairs)]
            )


def _selected_points(event) -> list[int]:
    out: list[int] = []
    try:
        points = event.selection.points
    except AttributeError:
        return out
    for p in points:
        cd = p.get("customdata")
        if isinstance(cd, (list, tuple)) and cd:
            out.append(int(cd[0]))
        elif isinstance(cd, (int, float)):
            out.append(int(cd))
    return sorted(set(out))


def _points_tab(settings: presentation.Settings) -> None:
    page = _page()
    ps = ls.point_set()
    clusters = np.asarray(page.points, dtype=np.int64)
    class_names = ["class A", "class B", "class C"]
    st.caption(
        "Colour = cluster, shape = true class. Drag a box or a lasso over points, then move them. "
        "Three points of class B start in the wrong cluster."
    )
    fig = lfig.scatter_figure(ps.xy, clusters, ps.classes, class_names=class_names)
    event = _chart(fig, f"learn_scatter_{page.points_version}", settings, on_select="rerun",
                   selection_mode=("box", "lasso"))  # fmt: skip
    chosen = _selected_points(event)
    picked = st.multiselect(
        "Selected points (or pick them by number)",
        list(range(len(clusters))),
        default=chosen,
        key=f"learn_pick_{page.points_version}",
    )
    k = int(clusters.max()) + 1
    options = [f"cluster {j + 1}" for j in range(k)] + ["a new cluster"]
    c1, c2, c3 = st.columns([2, 1, 1])
    target = c1.selectbox("Move them to", options, key="learn_target")
    if c2.button(f"Move {len(picked)} point(s)", key="learn_move", disabled=not picked):
        t = None if target == "a new cluster" else options.index(target)
        page.points = ls.move_points(clusters, picked, t)
        page.points_version += 1
        st.rerun()
    if c3.button("Reset points", key="learn_points_reset"):
        page.points = ps.clusters.copy()
        page.points_version += 1
        st.rerun()
    table, values = compute_learn.points_table(
        ps.classes, clusters, st.session_state.get(K_AVERAGE, "arithmetic")
    )
    _metrics_row(values)
    _chart(_matched_heatmap(table, "Contingency of these points"), "learn_points_heat", settings)
    pc = pair_confusion_matrix(
        values["pair_tp"], values["pair_fp"], values["pair_fn"], values["pair_tn"]
    )
    _chart(pc, "learn_points_pairs", settings)
    if st.button("Open this table in the editor", key="learn_points_to_table"):
        _set_table(table, None)
        st.toast("Loaded into the Contingency table tab.")


def _random_tab(settings: presentation.Settings) -> None:
    st.caption(
        "Random labels carry no information, yet NMI climbs as the number of clusters grows: "
        "mutual information of noise is positive and grows with k. ARI and AMI subtract what "
        "chance gives and stay near 0. Bands: 95% of shuffled labellings; dashed: exact "
        "expectation under the permutation model."
    )
    c1, c2 = st.columns(2)
    n_per = c1.slider("Points per class (3 classes)", 10, 60, 20, step=5, key="learn_null_n")
    n_perm = c2.select_slider("Shuffles per k", [50, 100, 200], value=100, key="learn_null_perm")
    average = st.session_state.get(K_AVERAGE, "arithmetic")
    res = compute_learn.null_bands_for(int(n_per), 3, int(n_perm), average)
    b = res["bands"]
    fig = lfig.null_band_figure(b.ks, b.exact_mean, b.lo, b.hi, observed=res["observed"])
    _chart(fig, "learn_null", settings)
    # a static table (12 rows): a data grid mounted on each opening of the tab cost the browser
    # more than the chart (issue 14: the tab's click 0.32 s in median, tests/benchmarks)
    columns = {
        "NMI expected": b.exact_mean["nmi"],
        "NMI observed": res["observed"]["nmi"],
        "ARI observed": res["observed"]["ari"],
        "AMI observed": res["observed"]["ami"],
        "AMI band low": b.lo["ami"],
        "AMI band high": b.hi["ami"],
    }
    ui.static_table(
        [
            {"k": str(int(k)), **{name: f"{v[i]:.4f}" for name, v in columns.items()}}
            for i, k in enumerate(b.ks)
        ],
        ["k", *columns],
    )


def _affinity_tab(settings: presentation.Settings) -> None:
    st.caption(
        "A small coefficient matrix C of 3 classes × 8 points. Leakage: the share of each row's "
        "mass on other classes (SRE measures it). Density: how many in-class points each point "
        "uses (CONN measures whether each class stays connected). Sparse models risk CONN = 0; "
        "dense ones risk leakage."
    )
    c1, c2 = st.columns(2)
    leak = c1.slider("Leakage across classes", 0.0, 0.6, 0.1, step=0.05, key="learn_leak")
    dens = c2.slider("Density within classes", 0.0, 1.0, 0.3, step=0.05, key="learn_density")
    a = compute_learn.toy_affinity(round(float(leak), 4), round(float(dens), 4))
    m1, m2, m3 = st.columns(3)
    m1.metric("SRE (lower is better)", _fmt(a["sre"]))
    m2.metric("CONN min λ2 (higher is better)", _fmt(a["conn_min"]))
    m3.metric("CONN mean λ2", _fmt(a["conn_mean"]))
    left, right = st.columns(2)
    with left:
        _chart(lfig.coef_heatmap(a["coef"], a["labels"], title="|C| sorted by class"),
               "learn_coef", settings)  # fmt: skip
    with right:
        _chart(
            lfig.tradeoff_figure(
                a["path_density"], a["path_sre"], a["path_conn"],
                current=(float(dens), a["sre"], a["conn_min"]),
                title="Sparsest C → this one",
                x_title="density within classes (leakage grows along)",
            ),
            "learn_tradeoff",
            settings,
        )  # fmt: skip
    # the Affinity page's CONN bars (same colours, weakest class marked)
    _chart(
        conn_bars(
            [f"class {chr(65 + i)}" for i in range(len(a["conn_per_class"]))],
            a["conn_per_class"],
            title="λ₂ per class (CONN)",
        ),
        "learn_conn_bars",
        settings,
    )


def _questions_tab() -> None:
    for i, q in enumerate(ls.QUESTIONS):
        st.markdown(f"**{i + 1}. {q.question}**")
        with st.expander("Show the answer"):
            st.write(q.answer)


#: The page's tabs, in order, and what draws each.
TABS = {
    "Contingency table": _table_tab,
    "Move points": _points_tab,
    "Random labels": _random_tab,
    "SRE / CONN": _affinity_tab,
    "Questions": lambda settings: _questions_tab(),
}


def render() -> None:
    _init()
    st.title("Learn: why each metric moves")
    _tabs_part()


@st.fragment
def _tabs_part() -> None:
    """The tabs (:func:`ui.tab_strip`). Only the open tab is computed and drawn (a rerun when
    another is picked): with every tab built at once, a visit drew eight charts, most of them
    hidden. A tab, or a control in it, reruns this part alone: the sidebar is unchanged by it
    (issue 14: opening "Random labels" 0.26–0.32 s in median with the whole page,
    tests/benchmarks/bench_browser.py). A control whose change concerns the whole page says so
    with ``st.rerun()``."""
    settings = presentation.current()
    opened, body = ui.tab_strip(list(TABS), K_TAB, "Learn: sections")
    with body:
        TABS[opened](settings)


if __name__ == "__main__":
    render()
