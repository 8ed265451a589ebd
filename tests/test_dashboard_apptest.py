"""The dashboard driven headlessly with Streamlit's AppTest: views, uploads, switches."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.io
import scipy.sparse as sp
from html_cards import card_values
from html_tables import static_tables
from streamlit.testing.v1 import AppTest
from tab_strips import tab_strips

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"
N_DEMO = 400
PAGES = {
    "views/summary.py": ["summary_compare"],
    "views/contingency.py": ["contingency_heatmap", "contingency_sankey"],
    "views/pairs.py": ["pair_matrix", "pair_scores"],
    "views/affinity.py": ["affinity_plot", "conn_bars", "sre_class"],  # its first tab
}
#: The Affinity page's tabs (below its plot) and the charts each draws; only the open one is built.
AFFINITY_TABS = {
    "Per class: CONN and SRE": {"conn_bars", "sre_class"},
    "Per point: SRE": {"sre_points"},
    "Between classes: leakage": {"leakage_matrix"},
}


def unescape(text: str) -> str:
    """Undo ui.md_escape (backslash before punctuation)."""
    return re.sub(r"\\(.)", r"\1", text)


def start() -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.run()
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    return at


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    return at


def charts(at: AppTest) -> dict[str, dict]:
    """Plotly charts on the page by key, as parsed figure JSON."""
    out = {}
    for el in at.get("plotly_chart"):
        key = el.proto.id.rsplit("-", 1)[-1]
        out[key] = json.loads(el.proto.spec)
    return out


def cards(at: AppTest) -> dict[str, str]:
    return card_values(at)


def errors(at: AppTest) -> list[str]:
    return [unescape(e.value) for e in at.error]


def captions(at: AppTest) -> str:
    return "\n".join(unescape(c.value) for c in at.caption)


def upload(at: AppTest, key: str, name: str, data: bytes) -> AppTest:
    at.file_uploader(key=key).set_value((name, data, "application/octet-stream"))
    at.run()
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    return at


def npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.save(buf, arr, allow_pickle=False)
    return buf.getvalue()


def npz_sparse(m) -> bytes:
    buf = io.BytesIO()
    sp.save_npz(buf, sp.csr_matrix(m))
    return buf.getvalue()


def mat(**variables) -> bytes:
    buf = io.BytesIO()
    scipy.io.savemat(buf, variables)
    return buf.getvalue()


def txt(labels) -> bytes:
    return ("\n".join(str(v) for v in labels) + "\n").encode()


# ------------------------------------------------------------------ the demo
def test_every_view_renders_on_the_demo():
    at = start()
    assert "demo" in captions(at).lower()
    assert set(cards(at)) == {"ACC", "NMI (arithmetic)", "ARI", "SRE", "CONN (min)"}
    for page, keys in PAGES.items():
        at.switch_page(page).run()
        assert not at.exception, (page, [e.value for e in at.exception])
        assert not at.error, (page, errors(at))
        got = charts(at)
        assert set(keys) <= set(got), (page, sorted(got))
    aff = charts(at)["affinity_plot"]
    assert "Affinity" in aff["layout"]["title"]["text"]
    assert len(json.dumps(aff)) < 5 * 1024 * 1024


def test_pair_confusion_lists_its_scores_in_a_static_table_with_the_librarys_values():
    """The pair scores under the chart: one static element (no data grid to mount on each
    visit), each score as ``evaluate`` gives it on the page's prediction."""
    import metrics_core as mc
    from dashboard.figures.pairs import PAIR_SCORES

    at = start()
    at.switch_page("views/pairs.py").run()
    ok(at)
    assert not at.dataframe
    (table,) = [t for t in static_tables(at) if list(t.columns) == ["score", "value"]]
    s = at.session_state["clustlens"]
    want = mc.evaluate(s.truth.value, s.preds[0].value)  # the demo shows its first
    assert list(table["score"]) == list(PAIR_SCORES.values())
    for key, shown in zip(PAIR_SCORES, table["value"], strict=True):
        assert float(shown) == pytest.approx(want[key], abs=6e-5), key


def test_affinity_tabs_build_only_the_open_tab_and_keep_it_across_visits():
    at = start()
    at.switch_page("views/affinity.py").run()
    assert not at.tabs and tab_strips(at)[0]["labels"] == list(AFFINITY_TABS)
    every = set().union(*AFFINITY_TABS.values())
    for label, keys in AFFINITY_TABS.items():
        at.session_state["aff_tab"] = label
        ok(at.run())
        assert not at.error, errors(at)
        got = set(charts(at))
        assert got & every == keys and "affinity_plot" in got, (label, sorted(got))
        # the leakage colour scale is that tab's own control
        assert ("aff_leak_scale" in {r.key for r in at.radio}) == ("leakage_matrix" in keys)
    # the tab last open is open again on the next visit (kept for the session)
    ok(at.switch_page("views/summary.py").run())
    ok(at.switch_page("views/affinity.py").run())
    assert set(charts(at)) & every == {"leakage_matrix"}
    at.session_state["aff_tab"] = "Per point: SRE"
    ok(at.run())
    notes = unescape(" ".join(c.value for c in at.caption))
    assert "share of its coefficients' ℓ1 mass on points of other classes" in notes, notes


def test_summary_has_metric_table_predictions_and_downloads():
    at = start()
    # the catalogue: static tables (text wraps, every row shows), every cell shown literally,
    # in boxes the browser opens (one element), "sizes" closed
    tables = [t for t in static_tables(at) if "formula" in t.columns]
    assert len(tables) == 5 and not at.table
    (folds,) = [el.proto.body for el in at.get("html") if 'class="cl-fold"' in el.proto.body]
    assert folds.count("<details") == 5 and folds.count('<details class="cl-fold" open>') == 4
    assert '<details class="cl-fold"><summary>sizes</summary>' in folds
    all_metrics = {m for t in tables for m in t["metric"]}
    assert {
        "accuracy (ACC)",
        "adjusted Rand index",
        "subspace-preserving error (SRE)",
    } <= all_metrics
    assert all({"formula", "convention", "reference"} <= set(t.columns) for t in tables)
    formulas = [f for t in tables for f in t["formula"]]
    assert "max_π (1/N) Σ_i n_{i,π(i)}" in formulas  # underscores print, not italics
    # two demo runs of one method: one row each, then mean and std
    per_pred = next(t for t in static_tables(at) if "prediction" in t.columns)
    assert list(per_pred["prediction"])[-2:] == ["mean", "std"]
    assert len(per_pred) == 4
    assert at.checkbox(key="runs_one_method").value is True
    # "ACC 0.698 ± 0.018; …": each metric's name, mean, ± and std held together (non-breaking)
    line = next(t.value for t in at.text if "±" in t.value)
    assert re.search(r"ACC\u00a00\.\d{3}\u00a0±\u00a00\.\d{3}; ", line), line
    assert len(at.main.get("download_button")) == 2  # the sidebar has "Save session"


# ------------------------------------------------------------------ uploads
def _rng():
    return np.random.default_rng(5)


GOOD = {
    "truth_txt": ("up_truth", "truth.txt", txt(np.repeat(["a", "b", "c", "d"], 100))),
    "pred_csv": (
        "up_preds",
        "run.csv",
        b"id,pred\n" + b"".join(f"{i},{i % 5}\n".encode() for i in range(N_DEMO)),
    ),
    "pred_npy": ("up_preds", "pred.npy", npy(_rng().integers(0, 4, N_DEMO))),
    "pred_mat_v5": ("up_preds", "result.mat", mat(grps=_rng().integers(1, 6, (N_DEMO, 1)))),
    "coef_npz_sparse": (
        "up_coef",
        "C.npz",
        npz_sparse(sp.random(N_DEMO, N_DEMO, density=0.02, random_state=1)),
    ),
    "coef_npy_dense": ("up_coef", "C.npy", npy(_rng().random((N_DEMO, N_DEMO)))),
    "coef_mat_v5": ("up_coef", "C.mat", mat(C=_rng().random((N_DEMO, N_DEMO)), X=np.ones((3, 4)))),
}


@pytest.mark.parametrize("case", list(GOOD))
def test_good_upload_is_loaded_and_shown(case):
    key, name, data = GOOD[case]
    at = start()
    upload(at, key, name, data)
    assert not at.error, errors(at)
    assert any(name in unescape(s.value) for s in at.success)
    assert name in captions(at)  # the sidebar names what is in use
    if key == "up_preds":
        assert at.selectbox(key="active_pred").value == name
    if key == "up_coef" and name.endswith(".mat"):
        assert at.radio(key="coef_orientation").value == "columns"
        assert "variable used: C" in captions(at)
    for page in ("views/contingency.py", "views/affinity.py"):
        at.switch_page(page).run()
        assert not at.exception and not at.error, (page, errors(at))


def test_mat_variable_picker_preselects_and_switches():
    y = np.repeat([1, 2, 3, 4, 5], 80)
    other = np.tile([1, 2], 200)
    at = start()
    upload(at, "up_truth", "labels.mat", mat(gnd=y.reshape(-1, 1), other=other.reshape(-1, 1)))
    picker = next(s for s in at.selectbox if s.label == "Variable used")
    assert picker.value == "gnd"
    acc_gnd = cards(at)["ACC"]
    picker.set_value("other").run()
    assert not at.exception and not at.error, errors(at)
    assert "variable used: other" in captions(at)
    assert cards(at)["ACC"] != acc_gnd


BAD = {
    "npy_garbage": ("up_truth", "truth.npy", b"\x93NUMPY garbage" * 5),
    "npy_pickle": ("up_preds", "obj.npy", b""),  # filled below (an object array)
    "txt_nan": ("up_preds", "pred.txt", b"1\n2\nnan\n" * 10),
    "txt_empty": ("up_truth", "empty.txt", b""),
    "npz_bad_index": ("up_coef", "C.npz", b""),  # filled below
    "mat_garbage": ("up_coef", "C.mat", b"MATLAB 5.0 MAT-file" + b"\x00" * 200),
    "coef_not_square": ("up_coef", "C.npy", npy(np.ones((N_DEMO, 3)))),
}


def _crafted_npz() -> bytes:
    """A CSR whose column index points far outside the matrix (scipy would accept it)."""
    buf = io.BytesIO()
    np.savez(
        buf,
        format=np.array("csr"),
        shape=np.array([N_DEMO, N_DEMO]),
        data=np.array([1.0, 2.0]),
        indices=np.array([3, 10**9]),
        indptr=np.concatenate([[0, 2], np.full(N_DEMO - 1, 2)]),
    )
    return buf.getvalue()


def _pickle_npy() -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.array([{"a": 1}] * 3, dtype=object), allow_pickle=True)
    return buf.getvalue()


BAD["npz_bad_index"] = ("up_coef", "C.npz", _crafted_npz())
BAD["npy_pickle"] = ("up_preds", "obj.npy", _pickle_npy())


@pytest.mark.parametrize("case", list(BAD))
def test_bad_upload_shows_our_message_and_keeps_the_data(case):
    key, name, data = BAD[case]
    at = start()
    before = cards(at)
    before_caps = captions(at)
    upload(at, key, name, data)
    errs = errors(at)
    assert len(errs) == 1, errs
    assert errs[0].startswith(name) and "Everything loaded before is unchanged" in errs[0]
    assert "Traceback" not in errs[0]
    assert cards(at) == before  # the numbers on the page are those of the earlier data
    for line in ("demo: demo_true.txt", "demo: demo_coef.npz", "demo: demo_pred_run1.txt"):
        assert line in before_caps and line in captions(at)
    at.switch_page("views/affinity.py").run()
    assert not at.exception and charts(at)["affinity_plot"]


def test_rejected_file_empties_its_uploader_and_the_message_stays_under_it():
    at = start()
    upload(at, "up_truth", "broken.npy", b"this is not a numpy file")
    errs = errors(at)
    assert len(errs) == 1 and errs[0].startswith("broken.npy"), errs
    # the uploader that got the file is a fresh, empty one (the box does not show broken.npy)
    keys = [u.key for u in at.get("file_uploader")]
    assert "up_truth" not in keys and "up_truth_1" in keys, keys
    assert at.file_uploader(key="up_truth_1").value is None
    # the message sits right under that uploader: before the Predictions section
    side = [e.type for e in at.sidebar]
    order = [
        (type(e).__name__, getattr(e, "key", None), getattr(e, "value", None)) for e in at.sidebar
    ]
    i_err = next(i for i, o in enumerate(order) if o[0] == "Error")
    i_pred = next(i for i, o in enumerate(order) if o[1] == "up_preds")
    i_truth = next(i for i, o in enumerate(order) if o[1] == "up_truth_1")
    assert i_truth < i_err < i_pred, side
    # the data in use did not change, and a second try with the same file is read again
    assert "demo: demo_true.txt" in captions(at)
    upload(at, "up_truth_1", "broken.npy", b"this is not a numpy file")
    assert len(errors(at)) == 1
    assert "up_truth_2" in [u.key for u in at.get("file_uploader")]
    # a good file after that loads as usual
    upload(at, "up_truth_2", "truth.txt", txt(np.repeat(["a", "b", "c", "d"], 100)))
    assert not at.error and "truth.txt" in captions(at)


def test_bad_upload_after_a_good_one_keeps_the_good_one():
    at = start()
    upload(at, "up_preds", "mine.txt", txt(np.arange(N_DEMO) % 3))
    acc = cards(at)["ACC"]
    at.file_uploader(key="up_preds").set_value(
        [("mine.txt", txt(np.arange(N_DEMO) % 3), "text/plain"), ("bad.txt", b"x\ny\n\x00", "")]
    )
    at.run()
    assert len(errors(at)) == 1 and errors(at)[0].startswith("bad.txt")
    assert at.selectbox(key="active_pred").value == "mine.txt"
    assert cards(at)["ACC"] == acc


def test_user_file_names_are_shown_literally():
    name = "[click](http://example.com) **b** $x$ <i>.txt"
    at = start()
    upload(at, "up_preds", name, txt(np.arange(N_DEMO) % 4))
    raw = " ".join(s.value for s in at.success)
    assert "\\[click\\]" in raw and "\\*\\*b\\*\\*" in raw and "\\$x\\$" in raw and "\\<i\\>" in raw
    assert at.selectbox(key="active_pred").value == name


# ------------------------------------------------------------------ switches
def open_conventions(at):
    """Summary's conventions box: its three switches are built only while it is open."""
    at.session_state["summary_conventions_open"] = True
    return at.run()


def test_conventions_box_names_them_and_builds_its_switches_when_opened():
    at = start()
    (box,) = [e for e in at.expander if e.label.startswith("Conventions")]
    label = box.label.replace("\\", "")
    assert "NMI / AMI normaliser arithmetic" in label and "documented defaults" in label
    assert "noise label (-1) kept as one cluster" in label
    summary_keys = {"conv_average_method", "conv_noise_policy", "conv_preset"}
    assert not summary_keys & {w.key for w in at.selectbox}  # closed: not built
    open_conventions(at)
    assert summary_keys <= {w.key for w in at.selectbox}
    at.selectbox(key="conv_average_method").set_value("geometric").run()
    at.session_state["summary_conventions_open"] = False
    at.run()
    # closed again: the choice is kept, used and named
    assert "NMI (geometric)" in cards(at)
    (box,) = [e for e in at.expander if e.label.startswith("Conventions")]
    assert "normaliser geometric" in box.label.replace("\\", "")


def test_convention_switches_change_the_numbers():
    at = open_conventions(start())
    base = cards(at)
    at.selectbox(key="conv_average_method").set_value("max").run()
    now = cards(at)
    assert "NMI (max)" in now and now["NMI (max)"] != base["NMI (arithmetic)"]
    assert now["ACC"] == base["ACC"]
    # the convention persists on other pages and back
    at.switch_page("views/pairs.py").run()
    at.switch_page("views/summary.py").run()
    assert "NMI (max)" in cards(at)  # the box is closed again: the choice is kept
    open_conventions(at)
    assert at.selectbox(key="conv_average_method").value == "max"
    # C read by columns instead of rows: SRE changes (the demo C is not symmetric)
    at.radio(key="coef_orientation").set_value("columns").run()
    assert cards(at)["SRE"] != base["SRE"]
    at.radio(key="coef_orientation").set_value("rows").run()
    assert cards(at)["SRE"] == base["SRE"]
    at.selectbox(key="conv_preset").set_value("ssc_omp_matlab").run()
    assert not at.exception and not at.error, errors(at)
    assert cards(at)["SRE"] != base["SRE"]  # that preset reads C by columns


def test_noise_policy_switch_changes_the_numbers():
    pred = np.repeat([0, 1, 2, 3, 4], 80)
    pred[::7] = -1
    at = start()
    upload(at, "up_preds", "dbscan.txt", txt(pred))
    keep = cards(at)["ACC"]
    open_conventions(at)
    at.selectbox(key="conv_noise_policy").set_value("exclude").run()
    assert cards(at)["ACC"] != keep


def test_view_switches_change_the_figures():
    at = start()
    at.switch_page("views/contingency.py").run()
    counts = charts(at)["contingency_heatmap"]["data"][0]["z"]
    at.radio(key="ct_mode").set_value("row").run()
    rows = charts(at)["contingency_heatmap"]["data"][0]["z"]
    assert counts != rows
    at.switch_page("views/affinity.py").run()
    by_truth = charts(at)["affinity_plot"]["layout"]["xaxis"]["title"]["text"]
    at.radio(key="aff_sort").set_value("prediction").run()
    by_pred = charts(at)["affinity_plot"]["layout"]["xaxis"]["title"]["text"]
    assert "ground truth" in by_truth and "prediction" in by_pred
    at.radio(key="aff_colour").set_value("linear").run()
    assert "linear" in charts(at)["affinity_plot"]["layout"]["title"]["text"]


def test_switching_the_active_prediction():
    at = start()
    first = cards(at)["ACC"]
    at.selectbox(key="active_pred").set_value("demo: demo_pred_run2.txt").run()
    assert cards(at)["ACC"] != first


def test_html_report_is_offered_on_request() -> None:
    at = start()
    assert not [d for d in at.get("download_button") if "report" in str(d.proto.label).lower()]
    at.button(key="report_prepare").click().run()
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    labels = [str(d.proto.label) for d in at.get("download_button")]
    assert any("report" in label.lower() for label in labels), labels


def test_presentation_mode_hides_the_sidebar_and_offers_a_way_out() -> None:
    at = start()
    assert not [b for b in at.button if b.key == "presentation_exit"]
    at.toggle[0].set_value(True).run()
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    styles = [m.value for m in at.markdown if "<style>" in m.value]
    assert styles and "stSidebar" in styles[0]
    exit_button = [b for b in at.button if b.key == "presentation_exit"]
    assert exit_button
    exit_button[0].click().run()
    # only the base rules (readable captions) stay: the sidebar is back
    styles = [m.value for m in at.markdown if "<style>" in m.value]
    assert styles and not any("stSidebar" in v for v in styles)


def test_every_chart_offers_png_and_svg_on_request() -> None:
    from dashboard.outputs.export import static_export_status

    at = start()
    ok(at.switch_page("views/contingency.py").run())
    prepare = [b.key for b in at.button if str(b.key).endswith("_export_prepare")]
    assert {"contingency_heatmap_export_prepare", "contingency_sankey_export_prepare"} <= set(
        prepare
    )
    if not static_export_status()[0]:
        pytest.skip("no browser for static export on this machine")
    ok(at.button(key="contingency_heatmap_export_prepare").click().run())
    labels = {str(d.proto.label) for d in at.get("download_button")}
    assert {"PNG", "SVG", "PDF"} <= labels
    # the downloads stay in the button's place across reruns, until closed
    ok(at.run())
    assert "contingency_heatmap_export_prepare" not in {b.key for b in at.button}
    ok(at.button(key="contingency_heatmap_export_close").click().run())
    assert not at.get("download_button")
    assert "contingency_heatmap_export_prepare" in {b.key for b in at.button}


def _popovers(node) -> int:
    children = getattr(node, "children", None)
    if not isinstance(children, dict):
        return 0
    return sum((getattr(c, "type", "") == "popover") + _popovers(c) for c in children.values())


def test_charts_offer_their_exports_by_a_button_not_a_menu() -> None:
    """A popover under each chart cost the browser ~12 ms a chart on every visit (issue 14):
    the charts' "PNG / SVG / PDF" is a plain button."""
    at = start()
    for page in ("views/summary.py", "views/contingency.py", "views/affinity.py"):
        ok(at.switch_page(page).run())
        assert [b for b in at.button if str(b.key).endswith("_export_prepare")]
        assert _popovers(at.main) == 0, page


def test_the_sidebar_boxes_are_built_only_when_open():
    """The counts table, a prediction's own C and the session file are uploaded in boxes built
    only while open (their uploaders were mounted, closed, on every visit of every page)."""
    at = start()
    keys = {u.key for u in at.get("file_uploader")}
    assert {"up_truth", "up_preds", "up_coef"} <= keys
    assert not keys & {"up_counts", "up_pred_coef", "session_restore_upload"}
    labels = [e.label for e in at.sidebar.get("expander")]
    assert any(lab.startswith("Only counts?") for lab in labels)
    assert "Its own C (optional)" in labels and "Session: save / restore" in labels
    for key in ("sidebar_counts_open", "sidebar_own_coef_open", "sessions_box_open"):
        at.session_state[key] = True
    ok(at.run())
    keys = {u.key for u in at.get("file_uploader")}
    assert {"up_counts", "up_pred_coef", "session_restore_upload"} <= keys


def test_many_predictions_get_a_sortable_data_frame(monkeypatch):
    """Past ui.STATIC_MAX_ROWS rows the predictions table is a data frame (it scrolls and
    sorts), with the same values at full precision."""
    from dashboard.ui import widgets

    monkeypatch.setattr(widgets, "STATIC_MAX_ROWS", 3)  # the demo's table has four rows
    at = start()
    assert not [t for t in static_tables(at) if "prediction" in t.columns]
    (frame,) = [df.value for df in at.dataframe if "prediction" in df.value.columns]
    assert list(frame["prediction"])[-2:] == ["mean", "std"] and len(frame) == 4
    assert frame["ACC"].dtype.kind == "f"
