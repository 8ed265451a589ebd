"""Learn view: scenarios hit their hand-derived values, the step-by-step numbers agree with the
library, the permutation-null bands hold random labellings, and the page (AppTest) shows it."""

from __future__ import annotations

import html
import re
from pathlib import Path

import numpy as np
import pytest
from html_cards import card_values
from html_tables import static_tables
from tab_strips import tab_strips

import metrics_core as mc
from dashboard.analysis import explain, null_bands
from dashboard.analysis import scenarios as ls
from dashboard.compute import learn as compute_learn
from dashboard.ui import widgets as ui
from dashboard.views import learn
from metrics_core.validation._errors import ClustlensInputError

PAGE = Path(__file__).resolve().parents[1] / "dashboard" / "views" / "learn.py"


# ----------------------------------------------------------------------------- pure parts
@pytest.mark.parametrize("sc", ls.SCENARIO_LIST, ids=lambda s: s.key)
def test_scenario_values_match_the_hand_derivation(sc):
    values = mc.evaluate(None, None, contingency=sc.array())
    for key, expected in sc.expected.items():
        assert values[key] == pytest.approx(expected, abs=max(sc.tolerance, 1e-12)), key
    assert len(sc.explanation) == 2 and all(sc.explanation)


def test_scenarios_make_their_point():
    ev = {k: mc.evaluate(None, None, contingency=s.array()) for k, s in ls.SCENARIOS.items()}
    assert ev["random"]["nmi"] > 0.1 > abs(ev["random"]["ari"])  # NMI rises, ARI does not
    assert ev["unbalanced"]["acc"] == pytest.approx(0.9) and ev["unbalanced"]["ari"] < 0.3
    assert ev["seed"]["acc"] == pytest.approx(0.88)


def _tables():
    rng = np.random.default_rng(5)
    yield from (s.array() for s in ls.SCENARIO_LIST)
    for _ in range(15):
        k, c = rng.integers(1, 6, size=2)
        yield rng.integers(0, 9, size=(k, c))


@pytest.mark.parametrize("table", list(_tables()))
@pytest.mark.parametrize("average", ["arithmetic", "geometric"])
def test_explanations_agree_with_the_library(table, average):
    if table.sum() == 0:
        return
    values = mc.evaluate(None, None, contingency=table, average_method=average)
    exps = explain.explain_all(table, values, average_method=average)
    assert {e.key for e in exps} >= {"acc", "purity", "ari", "nmi", "ami", "jaccard", "fmi"}
    for e in exps:
        if e.derived is not None:
            assert e.derived == pytest.approx(values[e.key], rel=1e-9, abs=1e-12), e.key
        assert e.steps and all(s.plugged for s in e.steps)


def test_acc_explanation_names_the_matching():
    ex = explain.explain_acc(np.array([[3, 44, 3], [2, 4, 44]]), 0.88, ["A", "B"], ["1", "2", "3"])
    text = explain.as_text(ex)
    assert "A ↔ 2: 44" in text and "B ↔ 3: 44" in text
    assert "ACC = (44 + 44) / 100 = 0.8800" in text
    assert "1 (5 points)" in text  # the unmatched cluster


def test_null_bands_contain_random_labellings():
    sizes = [20, 20, 20]
    ks = [2, 5, 10, 20, 30]
    b = null_bands.permutation_null(sizes, ks, n_perm=200, seed=0)
    inside = {m: [] for m in null_bands.NULL_METRICS}
    for seed in range(20):
        obs = null_bands.random_labelling_scores(sizes, ks, seed=100 + seed)
        for m in null_bands.NULL_METRICS:
            inside[m] += list((obs[m] >= b.lo[m] - 1e-12) & (obs[m] <= b.hi[m] + 1e-12))
            # far outside never happens: mean ± 5 std holds every draw
            assert np.all(np.abs(obs[m] - b.exact_mean[m]) <= 5 * b.std[m] + 1e-9), m
    for m in null_bands.NULL_METRICS:
        assert np.mean(inside[m]) >= 0.85, m  # a 95% band: ~95 of 100 draws inside
    # the exact expectation agrees with the Monte Carlo mean (4 standard errors)
    for m in null_bands.NULL_METRICS:
        se = b.std[m] / np.sqrt(b.n_perm)
        assert np.all(np.abs(b.mean[m] - b.exact_mean[m]) <= 4 * se + 1e-9), m
    # NMI of noise rises with k while ARI/AMI expectations stay at 0
    assert np.all(np.diff(b.exact_mean["nmi"]) > 0)
    assert b.exact_mean["nmi"][-1] > 0.2


@pytest.mark.parametrize(
    ("sizes", "k", "average"),
    [([20, 20, 20], 5, "arithmetic"), ([5, 7, 9], 21, "geometric"), ([4, 1], 2, "max"),
     ([30, 30], 3, "min")],
)  # fmt: skip
def test_null_scores_of_all_shuffles_at_once_are_each_tables_scores(sizes, k, average):
    truth = np.repeat(np.arange(len(sizes)), sizes)
    base = null_bands.balanced_labels(truth.size, k)
    rng = np.random.default_rng(7)
    shuffled = np.stack([rng.permutation(base) for _ in range(40)])
    ref = null_bands._table(truth, base, len(sizes), k)
    emi = mc.expected_mutual_info(contingency=ref)
    got = null_bands.null_scores_of_shuffles(truth, shuffled, len(sizes), k, emi, average)
    for r, pred in enumerate(shuffled):
        one = null_bands.null_scores(null_bands._table(truth, pred, len(sizes), k), emi, average)
        for m in null_bands.NULL_METRICS:
            assert got[m][r] == pytest.approx(one[m], abs=1e-12), (r, m)
        assert got["ari"][r] == pytest.approx(mc.adjusted_rand_score(truth, pred), abs=1e-12)


def test_null_band_shortcut_matches_the_library_ami():
    truth = np.repeat(np.arange(3), 10)
    pred = np.random.default_rng(2).permutation(np.arange(30) % 6)
    table = ls.table_of(truth, pred)
    s = null_bands.null_scores(table, mc.expected_mutual_info(contingency=table), "arithmetic")
    assert s["ami"] == pytest.approx(mc.adjusted_mutual_info_score(truth, pred), abs=1e-9)
    assert s["nmi"] == pytest.approx(mc.normalized_mutual_info_score(truth, pred), abs=1e-12)


@pytest.mark.parametrize("leak", [0.0, 0.25, 0.5])
def test_small_coef_leakage_is_sre_and_density_drives_conn(leak):
    sparse = ls.small_coef(leak, 0.0)
    dense = ls.small_coef(leak, 1.0)
    for s in (sparse, dense):
        assert mc.subspace_preserving_error(s.coef, s.labels).value == pytest.approx(leak)
    assert mc.connectivity(sparse.coef, sparse.labels).min == 0.0  # pairs only: falls apart
    assert mc.connectivity(dense.coef, dense.labels).min > 0.5


def test_parse_and_clean_tables():
    assert ls.parse_table("[[3, 44, 3], [2, 4, 44]]").tolist() == [[3, 44, 3], [2, 4, 44]]
    with pytest.raises(ClustlensInputError, match="row 2"):
        ls.parse_table("1 2\n3")
    with pytest.raises(ClustlensInputError, match="whole number"):
        ls.parse_table("1 x")
    assert ls.clean_table([[np.nan, -1], ["2.4", 7]]).tolist() == [[0, 0], [2, 7]]


def test_move_points_keeps_codes_compact():
    p = ls.point_set()
    wrong = np.flatnonzero(p.clusters != p.classes)
    fixed = ls.move_points(p.clusters, wrong, 1)
    assert np.array_equal(fixed, p.classes)
    assert ls.move_points([0, 1, 1], [0], 1).tolist() == [0, 0, 0]


def test_learn_figures_explain_their_encodings():
    from dashboard.figures import learn as lfig
    from dashboard.figures.affinity import AFFINITY_SCALE

    p = ls.point_set()
    fig = lfig.scatter_figure(p.xy, p.clusters, p.classes, class_names=["A", "B", "C"])
    shapes = [t for t in fig.data if t.legendgroup == "true class"]
    assert [t.name for t in shapes] == ["A", "B", "C"]  # marker shape = true class, in a legend
    assert len({t.marker.symbol for t in shapes}) == 3
    assert shapes[0].legendgrouptitle.text == "shape = true class"
    points = [t for t in fig.data if t.x is not None and None not in t.x]
    assert sum(len(t.x) for t in points) == len(p.clusters)
    assert all(t.showlegend is False for t in points)  # the legend shows colour swatches
    # |C| on the Affinity view's scale: zero is a white gap, not the scale's darkest colour
    coef = np.array([[0.0, 0.5], [0.2, 0.0]])
    heat = lfig.coef_heatmap(coef, [0, 1]).data[0]
    assert np.isnan(np.asarray(heat.z, dtype=float)[0, 0])
    assert [list(x) for x in heat.colorscale] == [list(x) for x in AFFINITY_SCALE]


def test_matched_order_puts_the_matching_on_the_diagonal():
    from dashboard.analysis import partition as analysis

    out = analysis.matched_order(np.array([[3, 44, 3], [2, 4, 44]]), ["A", "B"], ["1", "2", "3"])
    assert out["cols"] == ["2", "3", "1"] and out["n_matched"] == 2
    assert np.trace(out["table"]) == 88


# ----------------------------------------------------------------------------- the page
@pytest.fixture
def app():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(PAGE), default_timeout=60)
    at.run()
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    return at


def _body(at):
    """The open tab's content: below the tab strip, in its own container (``ui.tab_strip``)."""
    return at.main.get_by_key(ui.TAB_BODY_KEY + learn.K_TAB)


def _shown(at) -> dict[str, str]:
    """The values the open tab shows: ``st.metric`` and grids of cards (``ui.metric_cards``)."""
    return card_values(_body(at))


def _open_tab(at, label: str) -> None:
    """Open a tab of the Learn page: only the open tab's content runs."""
    at.session_state["learn_tab"] = label
    at.run()


def test_page_opens_on_the_seed_example(app):
    import json

    shown = _shown(app)
    assert shown["ACC"] == "0.8800"
    assert shown["ARI"] == "0.6526"
    # "This table": clusters reordered so the matched pairs sit on the outlined diagonal
    heat = next(
        json.loads(c.proto.spec)
        for c in app.get("plotly_chart")
        if c.proto.id.endswith("learn_heat")
    )
    assert heat["data"][0]["x"] == ["cluster 2", "cluster 3", "cluster 1"]
    assert len(heat["layout"]["shapes"]) == 2
    # the pair-confusion step names all four cells, not TP alone as "pair confusion"
    labels = list(app.selectbox(key="learn_step").options)  # as shown (formatted)
    assert "pair confusion over unordered pairs: TP 1,905 · FP 314 · FN 545 · TN 2,186" in labels
    assert "ACC = (44 + 44) / 100 = 0.8800" in _derivations(app)
    assert len(app.latex) >= 1  # formulas rendered by Streamlit's bundled KaTeX


def _derivations(app) -> str:
    """The step-by-step derivations shown (preformatted blocks), unescaped, one after another."""
    blocks = [el.proto.body for el in app.get("html") if 'class="cl-pre"' in el.proto.body]
    return "\n".join(html.unescape(re.sub(r"<[^>]+>", "", b)) for b in blocks)


def test_one_derivation_at_a_time_picked_from_every_metric(app):
    """The step by step is one list naming every metric with its value (no box per metric);
    the one picked (ACC at first) shows its formula and derivation, the others are not built."""
    step = app.selectbox(key="learn_step")
    assert len(step.options) >= 12 and step.value == "acc"
    assert not [e for e in app.expander if " = " in e.label]  # no box per metric
    shown = _derivations(app)
    assert "ACC = (44 + 44) / 100" in shown and "ARI" not in shown
    step.set_value("ari")
    app.run()
    assert not app.exception
    shown = _derivations(app)
    assert "ARI" in shown and "0.6526" in shown and "ACC = (44 + 44) / 100" not in shown
    assert len(app.latex) >= 1
    # the pick stays when another tab is opened and this one again
    app.session_state["learn_tab"] = "Random labels"
    app.run()
    app.session_state["learn_tab"] = "Contingency table"
    app.run()
    assert app.selectbox(key="learn_step").value == "ari"
    # no st.code: its element would bring Streamlit's 1.5 MB syntax highlighter to the browser
    assert not app.code


def test_the_export_box_is_built_when_opened_and_exports_the_values_shown(app, monkeypatch):
    """Closed (the default), the Export box sends its label only; opened (a rerun), its CSV
    download carries the metrics the page shows, and its report is built on request."""
    from dashboard.outputs import export

    written: list[list[dict]] = []
    real = export.to_csv
    monkeypatch.setattr(export, "to_csv", lambda rows, *a, **k: written.append(rows) or real(
        rows, *a, **k))  # fmt: skip

    def downloads() -> set[str]:
        return {b.proto.label for b in app.get("download_button")}

    assert "Export" in [e.label for e in app.expander]
    assert not downloads() and "learn_report_prepare" not in [b.key for b in app.button]
    assert not written  # no file made for a closed box
    app.session_state["learn_export_open"] = True
    app.run()
    assert not app.exception
    assert {"Metrics as CSV", "JSON", "LaTeX (booktabs)"} <= downloads()
    shown = _shown(app)
    row = written[-1][0]
    assert f"{row['acc']:.4f}" == shown["ACC"] == "0.8800" and f"{row['ari']:.4f}" == shown["ARI"]
    app.button(key="learn_report_prepare").click().run()
    assert not app.exception
    assert "Download report (HTML, opens offline)" in downloads()
    app.session_state["learn_export_open"] = False
    app.run()
    assert not downloads()


def test_each_scenario_button_shows_its_known_values(app):
    labels = dict((k, lab) for k, lab in [("acc", "ACC"), ("purity", "purity"), ("ari", "ARI"),
                  ("nmi", "NMI"), ("ami", "AMI"), ("homogeneity", "homogeneity"),
                  ("completeness", "completeness")])  # fmt: skip
    for sc in ls.SCENARIO_LIST:
        app.get("button_group")[0].set_value(sc.key).run()  # the scenario pills
        assert not app.exception, (sc.key, [e.value for e in app.exception])
        assert app.session_state["learn_scenario"] == sc.key
        shown = _shown(app)
        for key, expected in sc.expected.items():
            if key in labels and sc.tolerance < 1e-6:
                assert shown[labels[key]] == f"{expected:.4f}", (sc.key, key)
        assert any(sc.explanation[0] in i.value for i in app.info), sc.key


def test_resizing_and_typing_are_built_when_their_box_is_opened(app):
    """The box under the table editor holds the four resize buttons and the text box; closed
    (a visit's default), none of them is built; opened, each works and the box stays open."""
    resize = {"learn_add_row", "learn_add_col", "learn_del_row", "learn_del_col"}
    assert not resize & {b.key for b in app.button}
    app.session_state["learn_type_open"] = True
    app.run()
    assert resize <= {b.key for b in app.button}
    shape = np.asarray(app.session_state["clustlens"].learn.table).shape
    app.button(key="learn_add_row").click().run()
    app.button(key="learn_add_col").click().run()
    assert np.asarray(app.session_state["clustlens"].learn.table).shape == (
        shape[0] + 1,
        shape[1] + 1,
    )
    app.button(key="learn_del_row").click().run()
    assert np.asarray(app.session_state["clustlens"].learn.table).shape[0] == shape[0]
    assert "learn_table_text" in {t.key for t in app.text_area}  # still open


def test_typing_a_table_recomputes_every_metric(app):
    assert "learn_table_text" not in {t.key for t in app.text_area}  # built when opened
    app.session_state["learn_type_open"] = True
    app.run()
    app.text_area(key="learn_table_text").set_value("5 0\n5 0\n0 5").run()
    app.button(key="learn_table_apply").click().run()
    shown = _shown(app)
    assert shown["completeness"] == "1.0000"
    assert shown["ACC"] == f"{10 / 15:.4f}"
    app.text_area(key="learn_table_text").set_value("1 x").run()
    app.button(key="learn_table_apply").click().run()
    assert any("whole number" in e.value for e in app.error)
    assert _shown(app)["ACC"] == f"{10 / 15:.4f}"  # the last good table stays


def test_moving_points_updates_the_metrics(app):
    _open_tab(app, "Move points")
    before = _shown(app)
    assert before["ACC"] == "0.9000"  # three points of B start in A's cluster
    p = ls.point_set()
    wrong = [int(i) for i in np.flatnonzero(p.clusters != p.classes)]
    app.multiselect(key="learn_pick_0").set_value(wrong).run()
    app.selectbox(key="learn_target").set_value("cluster 2").run()
    app.button(key="learn_move").click().run()
    assert not app.exception
    assert _shown(app)["ACC"] == "1.0000"
    app.multiselect(key="learn_pick_1").set_value([0]).run()
    app.selectbox(key="learn_target").set_value("a new cluster").run()
    app.button(key="learn_move").click().run()
    assert _shown(app)["ACC"] == f"{29 / 30:.4f}"


def test_affinity_sliders_show_the_tradeoff(app):
    _open_tab(app, "SRE / CONN")
    app.slider(key="learn_leak").set_value(0.3).run()
    app.slider(key="learn_density").set_value(0.0).run()
    shown = _shown(app)
    assert shown["SRE (lower is better)"] == "0.3000"
    assert shown["CONN min λ2 (higher is better)"] == "0.0000"
    app.slider(key="learn_density").set_value(1.0).run()
    assert float(_shown(app)["CONN min λ2 (higher is better)"]) > 0.5


#: A widget each tab has, and no other (the Questions tab has none).
TAB_MARKS = {
    "Contingency table": "learn_average_method",
    "Move points": "learn_target",
    "Random labels": "learn_null_n",
    "SRE / CONN": "learn_leak",
    "Questions": None,
}


def test_only_the_open_tab_is_computed(app):
    """Tabs are lazy: a visit computes and draws the open tab only (it drew eight charts, most
    hidden), below the strip (``ui.tab_strip``); picking another tab shows it, and its widgets
    work there."""
    assert tab_strips(app)[0]["labels"] == list(TAB_MARKS)
    for label, mark in TAB_MARKS.items():
        if label != "Contingency table":
            _open_tab(app, label)
        assert not app.exception
        assert tab_strips(app)[0]["open"] == label
        keys = {getattr(node, "key", None) for node in _body(app)}
        shown = {m for m in TAB_MARKS.values() if m and m in keys}
        assert shown == ({mark} if mark else set()), label
    assert len(_body(app).expander) == len(ls.QUESTIONS)  # the Questions tab's answers


def test_the_random_labels_tab_tabulates_the_bands_it_draws(app):
    """The bands' table is static (no data grid mounted on each opening of the tab): one row a
    k, four decimals, the values of the chart's bands."""
    _open_tab(app, "Random labels")
    try:
        (table,) = [t for t in static_tables(app) if "AMI band low" in t.columns]
        assert not app.dataframe
        b = compute_learn.null_bands_for(20, 3, 100, "arithmetic")["bands"]
        assert table["k"].tolist() == [str(k) for k in b.ks]
        assert table["NMI expected"].tolist() == [f"{v:.4f}" for v in b.exact_mean["nmi"]]
        assert table["AMI band high"].tolist() == [f"{v:.4f}" for v in b.hi["ami"]]
    finally:
        _open_tab(app, "Contingency table")


def test_the_scenario_pills_show_the_table_s_scenario_and_reload_it(app):
    """The pill of the scenario the table holds is selected; an edit unselects it; clicking
    the selected pill again (which unselects it) reloads its table."""
    pills = app.get("button_group")[0]
    pills.set_value("merged").run()
    merged = ls.SCENARIOS["merged"].array()
    assert app.session_state["learn_scenario"] == "merged"
    app.session_state["learn_type_open"] = True  # the resize buttons are built when it is open
    app.run()
    app.button(key="learn_add_col").click().run()
    assert app.session_state["learn_scenario"] is None  # an edited table is no scenario
    assert np.asarray(app.session_state["clustlens"].learn.table).shape[1] == merged.shape[1] + 1
    app.get("button_group")[0].set_value("merged").run()
    app.get("button_group")[0].set_value(None).run()  # the selected pill clicked again
    assert not app.exception
    assert np.array_equal(app.session_state["clustlens"].learn.table, merged)
    assert app.session_state["learn_scenario"] == "merged"
