"""Summary: headline cards, the full metric table by family, conventions, downloads."""

from __future__ import annotations

import re

import streamlit as st

import metrics_core as mc
from dashboard.analysis.conventions import Conventions
from dashboard.compute import evaluation as compute
from dashboard.figures.summary import metrics_compare
from dashboard.session import state
from dashboard.session.state import K_AVERAGE, K_NOISE, K_PRESET, NO_PRESET
from dashboard.ui import diagnosis as diag
from dashboard.ui import widgets as ui
from metrics_core.evaluation import column_label, mean_std_caption

HEADLINE = ["acc", "nmi", "ari", "sre", "conn_min"]
COMPARE = ["acc", "nmi", "ami", "ari", "purity", "f_measure", "pair_f1", "sre", "conn_min"]
AVERAGE_METHODS = ["arithmetic", "geometric", "min", "max"]
NOISE_POLICIES = {
    "keep": "keep (noise label = one cluster, as scikit-learn)",
    "exclude": "exclude noise points from both labelings",
    "singletons": "each noise point its own cluster",
}


#: Session key of the conventions box's open state (its three choices are built only then).
K_CONVENTIONS_OPEN = "summary_conventions_open"
#: The noise policies as the box's label names them.
NOISE_SHORT = {"keep": "kept as one cluster", "exclude": "excluded", "singletons": "singletons"}


def conventions_label(conv: Conventions) -> str:
    """The box's label: every convention in force, named, whether the box is open or not."""
    preset = f"preset {conv.preset}" if conv.preset else "documented defaults"
    noise = NOISE_SHORT.get(conv.noise_policy, conv.noise_policy)
    return ui.md_escape(
        f"Conventions: NMI / AMI normaliser {conv.average_method} · noise label (-1) {noise} · "
        f"SRE / CONN {preset}"
    )


def _controls(s: state.AppState, conv: Conventions) -> None:
    """The three convention switches, in a box built when opened (a rerun) whose label names
    the conventions in force: three drop-down menus mounted on every visit of the landing page
    were its costliest elements in the browser (~30 ms of a ~0.2 s visit). Their values are
    session values, kept while the box is closed."""
    box = st.expander(
        conventions_label(conv),
        key=K_CONVENTIONS_OPEN,
        on_change="rerun",
        icon=":material/tune:",
    )
    if not box.open:
        return
    c1, c2, c3 = box.columns(3)
    c1.selectbox(
        "NMI / AMI normaliser",
        AVERAGE_METHODS,
        key=K_AVERAGE,
        persist_state="session",
        help="Mean of H(Y) and H(C) used to normalise MI: arithmetic (scikit-learn default, "
        "= V-measure), geometric (Strehl & Ghosh), min or max.",
    )
    c2.selectbox(
        "Noise label (-1) policy",
        list(NOISE_POLICIES),
        format_func=NOISE_POLICIES.__getitem__,
        key=K_NOISE,
        persist_state="session",
        help="How predicted label -1 (DBSCAN/HDBSCAN noise) is counted.",
    )
    presets = state.presets()
    c3.selectbox(
        "SRE / CONN conventions",
        [NO_PRESET, *sorted(presets)],
        key=K_PRESET,
        persist_state="session",
        disabled=s.coef is None and not any(p.own_coef is not None for p in s.preds),
        help="Presets reproduce the reference codes (SSC-OMP MATLAB, EnSC Python, SENet). "
        "Documented defaults: rows represent points, zero rows count 0, CONN = min over "
        "classes of λ₂ of the normalised Laplacian.",
    )


def _cards(m: dict, conv: Conventions) -> None:
    keys = [k for k in HEADLINE if k in m]
    info = {i.key: i for i in mc.METRICS}
    cards = []
    for k in keys:
        label = column_label(k)
        if k == "nmi":
            label = f"NMI ({conv.average_method})"
        i = info.get(k)
        helptext = f"{i.name}: {i.formula}. {i.convention}" if i else None
        cards.append((label, compute.fmt(m[k], 3), helptext))
    ui.metric_cards(cards, per_row=max(1, len(cards)), border=True)


#: The catalogue's columns, in order, and their widths (percent): the same in every family's
#: table, so the tables line up one under the other. At 1,024 px (a 560 px table) "value" holds
#: "0.6850", "better" its word and "range" "[0, 1]" whole.
TABLE_COLUMNS = ("metric", "value", "better", "range", "formula", "convention", "reference")
TABLE_WIDTHS = (15, 9, 10, 9, 19, 23, 15)


def _table_rows(rows: list[dict]) -> list[dict[str, str]]:
    """Catalogue rows as text for :func:`ui.static_table` (which escapes every cell)."""
    out = []
    nbsp = "\u00a0"  # short cells never break inside ("[0,", "1]" on two lines)
    for r in rows:
        out.append(
            {
                "metric": str(r["metric"]),
                "value": compute.fmt(r["value"]),
                "better": str(r.get("better", "—")).replace(" ", nbsp),
                "range": str(r.get("range", "")).replace(" ", nbsp),
                "formula": str(r.get("formula", "")),
                "convention": str(r.get("convention", "")),
                "reference": str(r.get("reference", "")),
            }
        )
    return out


def _runs_default(names: list[str]) -> bool:
    """Predictions look like runs of one method when their names differ only in digits."""
    stems = {re.sub(r"\d+", "#", n) for n in names}
    return len(names) > 1 and len(stems) == 1


def _diagnosis(s: state.AppState, pred, conv: Conventions) -> None:
    """What went wrong, one finding per line, most costly first, each with its cause."""
    st.subheader("What went wrong, and why")
    diag.thresholds_controls()
    found = compute.diagnosis(s.truth, pred, s.coef, conv)
    diag.show_verdict(found)
    diag.show_findings(found)


#: Session key of the "Is it a real difference?" box's open state.
K_UNCERTAINTY_OPEN = "summary_uncertainty_open"


def _uncertainty(s: state.AppState, pred, conv: Conventions) -> None:
    """Is the score a real difference from chance, or from another prediction? In a box built
    when opened (a rerun): its four controls and note were a fifth of the page's elements, on
    every visit, for a question asked now and then. Opened, it stays open (its results too)."""
    box = st.expander(
        "Is it a real difference? Bootstrap intervals, p-values against chance or another "
        "prediction",
        key=K_UNCERTAINTY_OPEN,
        on_change="rerun",
    )
    if box.open:
        with box:
            _uncertainty_controls(s, pred, conv)


def _uncertainty_controls(s: state.AppState, pred, conv: Conventions) -> None:
    others = [p.name for p in s.compatible_preds() if p.name != pred.name]
    c1, c2, c3, c4 = st.columns([1, 1, 2, 1], vertical_alignment="bottom")
    n = int(c1.number_input("resamples", 100, 10_000, 1000, 100, key="unc_n"))
    seed = int(c2.number_input("seed", 0, 1_000_000, 0, key="unc_seed"))
    other = c3.selectbox(
        "compare with (paired)", ["—", *others], key="unc_other",
        help="the same bootstrap draws score both predictions of the same points",
    )  # fmt: skip
    if c4.button("Compute", key="unc_run", help="a few seconds for 1,000 resamples"):
        s.uncertainty_request = {"n": n, "seed": seed, "other": other, "pred": pred.name}
    req = s.uncertainty_request
    if not req or req["pred"] != pred.name:
        ui.note(
            "ACC, ARI, AMI and NMI with a 95% bootstrap interval over points and a p-value "
            "against chance (the prediction shuffled, cluster sizes kept); press Compute."
        )
        return
    b = s.pred(req["other"]) if req["other"] != "—" else None
    with st.spinner("resampling …"):
        out = compute.uncertainty(s.truth, pred, b, conv, req["n"], req["seed"])
    columns = ["metric", "value", "95% interval", "p vs chance"]
    rows = [
        dict(zip(columns, [column_label(r["metric"]), f"{r['value']:.4f}",
                           f"[{r['low']:.4f}, {r['high']:.4f}]", f"{r['p_value']:.3g}"],
                 strict=True))
        for r in out["rows"]
    ]  # fmt: skip
    ui.static_table(rows, columns)
    ui.note(out["method"])
    if "paired" in out:
        diff = f"{b.name} − {pred.name}"
        columns = ["metric", diff, "95% interval", "p (no difference)"]
        rows = [
            dict(zip(columns, [column_label(r["metric"]), f"{r['value']:+.4f}",
                               f"[{r['low']:+.4f}, {r['high']:+.4f}]", f"{r['p_value']:.3g}"],
                     strict=True))
            for r in out["paired"]
        ]  # fmt: skip
        ui.static_table(rows, columns)
        ui.note(out["paired_method"])


def _computed_uncertainty(s: state.AppState, pred, conv: Conventions) -> dict | None:
    """The intervals last computed on this page for ``pred`` (the report carries them)."""
    req = s.uncertainty_request
    if not req or req["pred"] != pred.name:
        return None
    b = s.pred(req["other"]) if req["other"] != "—" else None
    return compute.uncertainty(s.truth, pred, b, conv, req["n"], req["seed"])


def render() -> None:
    s = state.get()
    conv = state.conventions()
    pred = state.active_pred(s)
    ui.page_header("Summary", s, pred, conv)
    if not ui.require(s, pred):
        return
    _controls(s, conv)
    if conv.preset:
        desc = state.presets().get(conv.preset, {}).get("description", "")
        ui.note(f"preset {conv.preset}: {desc}")
        if conv.orientation_from_preset:
            ui.note(
                f"this preset reads C by {conv.effective_orientation} "
                "(overrides the sidebar switch)"
            )
    with ui.guarded("computing the metrics"):
        for p in s.problems():
            ui.error(p)
        m = compute.metrics(s.truth, pred, s.coef, conv)
        _cards(m, conv)
        _diagnosis(s, pred, conv)
        _uncertainty(s, pred, conv)
        results = compute.all_metrics(s.truth, s.preds, s.coef, conv)
        for p in s.preds:
            if p.name not in results:
                ui.note(f"{p.name} is left out: {p.n:,} labels, not {s.truth.n:,}")
        names = list(results)
        runs = False
        if len(results) > 1:
            st.subheader("All predictions")
            runs = st.checkbox(
                "These predictions are runs of one method (show mean ± std)",
                value=_runs_default(names),
                key="runs_one_method",
            )
            keys = [k for k in COMPARE if k in m]
            table = compute.comparison(results, keys, runs)
            # static up to ui.STATIC_MAX_ROWS: every prediction's name shows in full and no data
            # grid is mounted on each visit of the landing page (the CSV and JSON carry full
            # precision); past that a grid that scrolls and sorts, at full precision
            static = len(table) <= ui.STATIC_MAX_ROWS
            cell = compute.fmt if static else (lambda v: v)
            shown = [
                {"prediction": r["prediction"], **{column_label(k): cell(r.get(k)) for k in keys}}
                for r in table
            ]
            if static:
                ui.static_table(shown, ["prediction", *(column_label(k) for k in keys)])
            else:
                st.dataframe(shown, hide_index=True, key="table_predictions")
            if runs:
                pm = compute.mean_pm_std(results, keys)
                st.text(
                    f"{mean_std_caption(len(results))}: "
                    # one metric never wraps inside itself ("pair F1 0.755 ± 0.015")
                    + "; ".join(f"{column_label(k)} {pm[k]}".replace(" ", "\u00a0") for k in pm)
                )
            ui.chart(
                metrics_compare(results, keys[:6], {k: column_label(k) for k in keys}),
                key="summary_compare",
            )

        st.subheader("Every metric, by family")
        rows = compute.metric_rows(m)
        families = list(dict.fromkeys(r["family"] for r in rows))
        # Static tables (long formulas and conventions wrap inside the page width and every row
        # shows; a data frame cuts text mid-word and scrolls past 10 rows), in boxes the browser
        # opens and closes: one element for the whole catalogue.
        ui.folded(
            [
                (
                    fam,
                    ui.table_html(
                        _table_rows([r for r in rows if r["family"] == fam]),
                        TABLE_COLUMNS,
                        TABLE_WIDTHS,
                    ),
                    fam != "sizes",
                )
                for fam in families
            ],
            intro="one row per metric: its value, formula and the convention it uses",
        )

        context = {
            "ground_truth": s.truth.name,
            "coefficient_matrix": s.coef.name if s.coef is not None else "",
            "average_method": conv.average_method,
            "noise_policy": conv.noise_policy,
            "affinity_preset": conv.preset or "",
            "coef_orientation": conv.orientation,
        }
        own = {p.name: p.own_coef.name for p in s.preds if p.own_coef is not None}
        if own:  # predictions scored with their own C (a sweep setting, or uploaded for it)
            context["prediction_coefficient_matrices"] = own
        csv_text, json_text = compute.exports(results, context, runs)
        st.subheader("Download")
        # buttons sized to their labels, side by side (fixed columns cut the labels off)
        row = st.container(horizontal=True, gap="small")
        row.download_button(
            "Metrics CSV",
            csv_text,
            "clustlens_metrics.csv",
            "text/csv",
            key="dl_csv",
            icon=":material/download:",
            help="Every metric of every prediction, with the input names and conventions.",
        )
        row.download_button(
            "Metrics JSON",
            json_text,
            "clustlens_metrics.json",
            "application/json",
            key="dl_json",
            icon=":material/download:",
        )
        # The report embeds plotly.js (~5 MB), so it is built on request, not on every rerun.
        if row.button("Prepare HTML report", key="report_prepare"):
            s.report_requested = True
        if s.report_requested:
            html = compute.report_html(
                s.truth, s.preds, pred, s.coef, conv, _computed_uncertainty(s, pred, conv)
            )
            row.download_button(
                "HTML report",
                html,
                "clustlens_report.html",
                "text/html",
                key="dl_report",
                icon=":material/download:",
                help="One file: metrics with conventions, interactive figures, input SHA-256; "
                "opens offline in any browser.",
            )


if __name__ == "__main__":
    render()
