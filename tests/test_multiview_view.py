"""The Multi-view view: HW out of the box, the protocol table, uploaded views; figures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest
from html_cards import card_values, shown_cards
from html_tables import static_tables
from streamlit.testing.v1 import AppTest

from dashboard.figures.multiview import affinity_panels, shared_limits, ssf_overview

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"
PAGE = "views/multiview.py"
FIGURES = {"mv_views", "mv_overview"}


def comparison_table(at: AppTest):
    """The method comparison: the page's static table with a "method" column."""
    tables = [t for t in static_tables(at) if "method" in t.columns]
    assert len(tables) == 1, [list(t.columns) for t in static_tables(at)]
    return tables[0]


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def charts(at: AppTest) -> dict[str, dict]:
    return {
        el.proto.id.rsplit("-", 1)[-1]: json.loads(el.proto.spec) for el in at.get("plotly_chart")
    }


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    assert not at.error, [unescape(e.value) for e in at.error]
    return at


def page(controls_open: bool = True, views_open: bool = True) -> AppTest:
    """The Multi-view page on the demo; ``controls_open``: with its "Data and parameters" box
    opened (its form is built only then); ``views_open``: with the per-view panels' box opened
    (the same)."""
    at = AppTest.from_file(str(APP), default_timeout=180)
    at.run()
    ok(at.switch_page(PAGE).run())
    if controls_open:
        at.session_state["mv_controls_open"] = True
    if views_open:
        at.session_state["mv_views_open"] = True
    if controls_open or views_open:
        ok(at.run())
    return at


def open_recompute(at: AppTest) -> AppTest:
    """Open the comparison's "Recompute it" box (its widgets are built only then)."""
    at.session_state["mv_protocol_open"] = True
    return ok(at.run())


def test_the_comparison_s_controls_are_built_when_their_box_is_opened():
    """The shipped comparison shows at once; its runs, k-NN sizes, selection and Run button
    sit in a box built when opened, and what was set there is kept while it is closed."""
    at = page(controls_open=False, views_open=False)
    box = next(e for e in at.expander if e.label.startswith("Recompute it"))
    assert "runs" in box.label
    assert "mv_proto_run" not in {b.key for b in at.button}
    assert "mv_runs" not in {n.key for n in at.number_input}
    assert comparison_table(at) is not None  # the shipped table, without the controls
    open_recompute(at)
    assert "mv_proto_run" in {b.key for b in at.button}
    ok(at.number_input(key="mv_runs").set_value(5).run())
    at.session_state["mv_protocol_open"] = False
    ok(at.run())
    assert "mv_runs" not in {n.key for n in at.number_input}
    assert open_recompute(at).number_input(key="mv_runs").value == 5


def submit(at: AppTest) -> AppTest:
    """Click the form's Run button; values set inside the form since the last run go with it
    (AppTest drops them on a run without the submit)."""
    button = next(b for b in at.button if b.label == "Run SSF")
    return button.click().run()


def test_the_controls_box_is_closed_built_only_when_open_and_keeps_its_values():
    """The demo's view has the "Data and parameters" box closed and its form not built (the
    note states the parameters); opened, the form is there; a parameter run with it holds after
    closing and reopening; with an upload source the box stays built while closed."""
    at = page(controls_open=False)
    assert "Data and parameters" in [e.label for e in at.expander]
    assert "mv_alpha" not in {w.key for w in at.number_input}
    assert any("α \\= 10\\," in c.value for c in at.caption)  # md-escaped
    at.session_state["mv_controls_open"] = True
    ok(at.run())
    at.number_input(key="mv_alpha").set_value(5.0)
    ok(submit(at))
    assert at.session_state["clustlens"].multiview.config["params"]["alpha"] == 5.0
    at.session_state["mv_controls_open"] = False
    ok(at.run())
    assert "mv_alpha" not in {w.key for w in at.number_input}
    assert any("α \\= 5\\," in c.value for c in at.caption)
    at.session_state["mv_controls_open"] = True
    ok(at.run())
    assert at.number_input(key="mv_alpha").value == 5.0
    ok(at.radio(key="mv_source").set_value("upload").run())
    at.session_state["mv_controls_open"] = False
    ok(at.run())
    assert {"mv_up_views", "mv_up_y"} <= {u.key for u in at.get("file_uploader")}


def test_the_per_view_panels_are_built_when_their_box_is_opened():
    """A first visit draws the fused S, the weights and the objective; the six per-view panels
    (the costliest figure of the page) are built when their box is opened, on the same colour
    switch."""
    at = page(controls_open=False, views_open=False)
    boxes = [e.label for e in at.expander]
    assert any(label.startswith("Per-view self-representations") for label in boxes), boxes
    assert set(charts(at)) == {"mv_overview"}
    at.session_state["mv_views_open"] = True
    ok(at.run())
    assert FIGURES <= set(charts(at))
    ok(at.radio(key="mv_colour").set_value("log").run())
    views = charts(at)["mv_views"]
    assert views["layout"]["coloraxis"]["colorbar"]["title"]["text"].startswith("log10")


def test_hw_subset_out_of_the_box():
    at = page()
    got = charts(at)
    assert FIGURES <= set(got)
    views = got["mv_views"]
    # pooled panels (block means) are sent as PNG images on one colour scale, whose bar an
    # invisible trace on the figure's colour axis draws
    images = [t for t in views["data"] if t["type"] == "image"]
    assert len(images) == 6 and all(
        t["source"].startswith("data:image/png;base64,") for t in images
    )
    assert not [t for t in views["data"] if t["type"] == "heatmap"]
    bar = [t for t in views["data"] if t.get("marker", {}).get("coloraxis") == "coloraxis"]
    assert len(bar) == 1 and views["layout"]["coloraxis"]["colorbar"]["title"]["text"]
    assert all("row bin" in t["hovertemplate"] for t in images)
    caps = "\n".join(unescape(c.value) for c in at.caption)
    assert "HW, six views: 200 digits" in caps
    cards = card_values(at)
    assert cards["components of S"] == "10"  # K = 10: S has its K components
    assert float(cards["ACC"]) > 0.8


def test_shipped_demo_fit_is_what_a_fresh_fit_gives():
    """The demo's SSF fit shipped in demo_data is what fitting the page's default subset with
    the page's default parameters gives now (timing aside): the same labels, S, per-view panels,
    weights, objective and ξ search. Rerun ``python -m demo_data.make_multiview_ssf`` when SSF
    changes on purpose."""
    from dashboard.compute import multiview as cm
    from dashboard.views.multiview import DEFAULT_PARAMS
    from demo_data import make_multiview_ssf as mk
    from metrics_core.datasets import load_view, stratified_subset

    shipped = mk.load()
    if shipped is None:
        pytest.fail(f"{mk.OUT.name} is not shipped: run python -m demo_data.make_multiview_ssf")
    _res, meta = shipped
    assert meta["params"] == DEFAULT_PARAMS and (meta["n"], meta["seed"]) == (cm.HW_DEFAULT_N, 0)
    _X, y = load_view("mor")
    assert meta["indices"] == stratified_subset(y, meta["n"], meta["seed"]).tolist()
    data = cm.hw()
    assert meta["truth"] == data.labels.tolist()
    got = cm.ssf(data, **DEFAULT_PARAMS)
    assert got["shipped"] == meta
    fresh = cm._ssf(data.key, *cm._params(**DEFAULT_PARAMS), data.views, data.labels,
                    data.view_names)  # fmt: skip
    assert fresh["shipped"] is None
    for key, want in fresh.items():
        have = got[key]
        if key in ("seconds", "shipped"):
            continue
        if key in ("panels", "fused"):
            for a, b in zip(have if key == "panels" else [have], want if key == "panels" else
                            [want], strict=True):  # fmt: skip
                assert a.keys() == b.keys()
                np.testing.assert_allclose(a["values"], b["values"], rtol=1e-6, atol=1e-9)
                np.testing.assert_array_equal(a["edges"], b["edges"])
        elif key == "S":
            np.testing.assert_allclose(have.toarray(), want.toarray(), rtol=1e-9, atol=1e-12)
        elif key in ("weights", "weights_normalised", "objective"):
            np.testing.assert_allclose(have, want, rtol=1e-9, atol=1e-12)
        elif key == "labels":
            np.testing.assert_array_equal(have, want)
        elif key == "xi_log":
            assert [e | {"xi": 0} for e in have] == [e | {"xi": 0} for e in want]
            np.testing.assert_allclose([e["xi"] for e in have], [e["xi"] for e in want],
                                       rtol=1e-9)  # fmt: skip
        else:
            assert have == want, key


def test_first_visit_shows_the_shipped_fit_without_fitting_or_reading_the_views(monkeypatch):
    """The demo's first visit needs the labels alone: SSF's fit is shipped, the six views are
    read on the first Run (the server's warm-up reads them in a pause before that)."""
    from dashboard.compute import multiview as cm

    def refused(*_a, **_k):
        raise AssertionError("the demo's first visit fitted SSF or read the views")

    monkeypatch.setattr(cm, "_ssf", refused)
    monkeypatch.setattr(cm, "_hw_views", refused)
    at = page(controls_open=False)
    cards = card_values(at)
    assert cards["components of S"] == "10" and "time (precomputed)" in cards
    help_ = shown_cards(at)["time (precomputed)"]["help"]
    assert "demo_data/hw_ssf_demo.npz" in help_
    assert FIGURES <= set(charts(at))
    # other parameters are fitted: the views are read then
    monkeypatch.undo()
    at.session_state["mv_controls_open"] = True
    ok(at.run())
    at.number_input(key="mv_gamma").set_value(5.0)
    ok(submit(at))
    cards = card_values(at)
    assert "time" in cards and "time (precomputed)" not in cards


def test_synthetic_source_and_the_comparison_table():
    at = page()
    ok(at.radio(key="mv_source").set_value("synthetic").run())
    at.number_input(key="mv_s_n").set_value(12)
    ok(submit(at))
    assert "synthetic: 4 clusters x 12 points" in "\n".join(unescape(c.value) for c in at.caption)
    ok(open_recompute(at).number_input(key="mv_runs").set_value(2).run())
    ok(at.button(key="mv_proto_run").click().run())
    table = comparison_table(at)
    methods = list(table["method"])
    assert methods[0] == "SSF" and "SC_avg" in methods and "SC_view 1" in methods
    for baseline in ("SC_concat", "AMGL", "SwMC", "Co-reg (pairwise)", "Co-reg (centroid)"):
        assert baseline in methods, methods
    chosen = dict(zip(table["method"], table["chosen"], strict=True))
    # in a few words on every row, in full once under the table's heading
    assert chosen["AMGL"] == "best ACC (truth)"
    assert chosen["SSF"] == "fixed (paper)"
    captions = "\n".join(unescape(c.value) for c in at.caption)
    assert (
        "“best ACC (truth)” = chosen by the best mean ACC against the ground truth "
        "(as Liu, Wang & Qian do)" in captions
    ), captions
    assert all("±" in v for v in table["ACC"])
    assert len(at.main.get("download_button")) == 2  # the sidebar has "Save session"
    assert FIGURES <= set(charts(at))
    # the recomputed table says what its computing took here
    captions = "\n".join(unescape(c.value) for c in at.caption)
    assert re.search(r"computed here in \d+(\.\d+)? s", captions), captions


def test_initial_graph_choice_changes_the_fit():
    at = page()
    pkn = float(card_values(at)["ACC"])
    at.selectbox(key="mv_init").set_value("ridge")
    ok(submit(at))
    caps = "\n".join(unescape(c.value) for c in at.caption)
    assert "initial graphs: ridge" in caps
    ridge = float(card_values(at)["ACC"])
    assert pkn != ridge


def _csv(a: np.ndarray) -> bytes:
    return "\n".join(",".join(f"{v:.6f}" for v in row) for row in a).encode() + b"\n"


def test_uploaded_views_and_literal_names():
    from metrics_core.datasets import make_multiview

    views, y = make_multiview(n_per_cluster=10, n_clusters=3, n_views=2, seed=1)
    at = page()
    ok(at.radio(key="mv_source").set_value("upload").run())
    at.file_uploader(key="mv_up_views").set_value(
        [("*a*.csv", _csv(views[0]), "text/csv"), ("b.csv", _csv(views[1]), "text/csv")]
    )
    at.file_uploader(key="mv_up_y").set_value(
        ("y.txt", ("\n".join(map(str, y)) + "\n").encode(), "text/plain")
    )
    ok(submit(at))
    caps = "\n".join(unescape(c.value) for c in at.caption)
    assert "2 uploaded views, 30 points" in caps and "*a*.csv" in caps
    got = charts(at)
    assert FIGURES <= set(got)
    assert "*a*.csv" in got["mv_views"]["layout"]["annotations"][0]["text"]


def test_mismatched_view_is_a_message_not_a_crash():
    at = page()
    ok(at.radio(key="mv_source").set_value("upload").run())
    at.file_uploader(key="mv_up_views").set_value(
        [("a.csv", _csv(np.ones((6, 2))), "text/csv"), ("b.csv", _csv(np.ones((5, 2))), "text/csv")]
    )
    at.file_uploader(key="mv_up_y").set_value(("y.txt", b"0\n0\n0\n1\n1\n1\n", "text/plain"))
    submit(at)
    assert not at.exception
    assert any("b.csv" in unescape(e.value) and "5 rows" in unescape(e.value) for e in at.error)


# ------------------------------------------------------------------ pure figures
def _panel(scale: float, n: int = 6) -> dict:
    y = np.repeat([0, 1], n // 2)
    values = scale * (y[:, None] == y[None, :]).astype(float) + 1e-3
    return {
        "values": values,
        "edges": np.arange(n + 1),
        "bounds": np.array([0, n // 2, n]),
        "group_names": ["<i>a</i>", "b"],
        "n": n,
        "pooled": False,
    }


def test_one_colour_scale_across_views():
    panels = [_panel(1.0), _panel(100.0)]
    fig = affinity_panels(panels, ["v1", "v2"], log=False)
    heat = [t for t in fig.data if t.type == "heatmap"]
    assert [t.coloraxis for t in heat] == ["coloraxis", "coloraxis"]
    ca = fig.layout.coloraxis
    assert ca.cmin == 0.0 and ca.cmax == pytest.approx(100.001)
    assert (ca.cmin, ca.cmax) == shared_limits(panels, False)
    assert ca.colorbar.title.text == "|Z|+|Z|ᵀ"
    assert "&lt;i&gt;a&lt;/i&gt;" in fig.layout.xaxis.ticktext
    own = affinity_panels(panels, ["v1", "v2"], log=False, shared=False)
    zmax = [t.zmax for t in own.data if t.type == "heatmap"]
    assert len(zmax) == 2 and zmax[0] != zmax[1]
    # each panel's class boundary (one here), drawn as one line trace on the panel's own axes
    lines = [t for t in fig.data if t.name == "class boundaries"]
    assert [(t.xaxis, t.yaxis) for t in lines] == [("x", "y"), ("x2", "y2")]
    assert [sum(v is None for v in t.x) for t in lines] == [2, 2]
    assert lines[0].x[0] == 3 - 0.5 and lines[0].hoverinfo == "skip"  # between points 2 and 3


def test_panels_of_the_same_classes_name_them_on_the_outer_axes_only():
    """Six panels in two rows of three: class names under the bottom row and left of the first
    column (the other axes would repeat them); panels of other classes keep their own."""
    panels = [_panel(1.0 + i) for i in range(6)]
    fig = affinity_panels(panels, [f"v{i}" for i in range(6)], log=False)
    shown_x = [fig.layout[f"xaxis{'' if i == 1 else i}"].showticklabels for i in range(1, 7)]
    shown_y = [fig.layout[f"yaxis{'' if i == 1 else i}"].showticklabels for i in range(1, 7)]
    assert shown_x == [False, False, False, None, None, None]
    assert shown_y == [None, False, False, None, False, False]
    assert list(fig.layout.xaxis4.ticktext) == ["&lt;i&gt;a&lt;/i&gt;", "b"]
    other = dict(_panel(1.0), group_names=["c", "d"])
    fig = affinity_panels([_panel(1.0), other], ["v1", "v2"], log=False)
    assert fig.layout.yaxis2.showticklabels is None and list(fig.layout.yaxis2.ticktext) == [
        "c",
        "d",
    ]


def test_ssf_overview_fused_s_weights_and_convergence_in_one_figure():
    fused = _panel(1.0)
    fig = ssf_overview(fused, ["<b>x</b>", "y"], [0.25, 0.75], [0.1, 0.3],
                       [100.0, 10.0, 1.0, 0.9], converged=True)  # fmt: skip
    heat, bars = (next(t for t in fig.data if t.type == kind) for kind in ("heatmap", "bar"))
    line = next(t for t in fig.data if t.type == "scatter" and t.xaxis == "x3")
    assert heat.coloraxis == "coloraxis" and (heat.xaxis, heat.yaxis) == ("x", "y")
    assert list(bars.x) == ["&lt;b&gt;x&lt;/b&gt;", "y"]
    assert (bars.xaxis, bars.yaxis) == ("x2", "y2")
    assert list(bars.y) == [0.25, 0.75] and list(bars.customdata) == [0.1, 0.3]
    assert list(line.y) == [100.0, 10.0, 1.0, 0.9] and (line.xaxis, line.yaxis) == ("x3", "y3")
    assert fig.layout.yaxis3.type == "log"
    assert "3 iterations, converged" in fig.layout.title.subtitle.text
    # the three parts never overlap: S on the left, weights above the objective on the right
    assert fig.layout.xaxis.domain[1] < fig.layout.xaxis2.domain[0] == fig.layout.xaxis3.domain[0]
    assert fig.layout.yaxis3.domain[1] < fig.layout.yaxis2.domain[0]
    # S's colour bar lies under S, within its column: standing between S and the right-hand
    # plots (its width in pixels, the gap a share of the figure) it ran into their axes on a
    # 1,024-pixel screen
    bar = fig.layout.coloraxis.colorbar
    s_left, s_right = fig.layout.xaxis.domain
    assert bar.orientation == "h" and bar.xanchor == "center" and bar.lenmode in (None, "fraction")
    assert s_left <= bar.x - bar.len / 2 and bar.x + bar.len / 2 <= s_right
    assert bar.yanchor == "bottom" and bar.y < fig.layout.yaxis.domain[0]
    linear = ssf_overview(fused, ["a"], [1.0], [1.0], [3.0, 2.0], converged=False)
    assert linear.layout.yaxis3.type is None
    assert "1 iteration, stopped at max_iter" in linear.layout.title.subtitle.text


def test_ssf_result_opens_in_every_view_with_s_as_its_own_c():
    import metrics_core as mc

    at = page()
    ok(at.button(key="mv_open").click().run())
    s = at.session_state["clustlens"]
    pred = s.preds[-1]
    assert pred.name == "multi-view: SSF" and pred.own_coef is not None
    assert pred.own_coef.value.shape == (s.truth.n, s.truth.n) == (200, 200)
    assert at.get("page_link")
    ok(at.switch_page("views/summary.py").run())
    assert not at.error, [unescape(e.value) for e in at.error]
    cards = card_values(at)
    sre = mc.subspace_preserving_error(pred.own_coef.value, s.truth.value).value
    assert cards["SRE"] == f"{sre:.3f}"
    ok(at.switch_page("views/points.py").run())
    assert not at.error


def test_shipped_comparison_shows_at_once_and_recompute_can_be_stopped():
    from demo_data import make_multiview_table as mk

    if not mk.OUT.is_file():
        pytest.fail(f"{mk.OUT.name} is not shipped: run python -m demo_data.make_multiview_table")
    at = page()
    table = comparison_table(at)
    methods = list(table["method"])
    for m in ("SSF", "SC_avg", "SC_concat", "AMGL", "SwMC", "Co-reg (pairwise)",
              "Co-reg (centroid)"):  # fmt: skip
        assert m in methods, methods
    infos = " ".join(unescape(i.value) for i in at.info)
    assert "precomputed on HW: all 2,000 digits" in infos and "20 runs" in infos
    ssf = dict(zip(table["method"], table["ACC"], strict=True))["SSF"]
    assert float(ssf.split(" ±")[0]) > 0.97
    # SSF's setting in the letters of the note above the table (the full words had made the
    # table scroll sideways at 1,024 px); the CSV keeps the words
    setting = dict(zip(table["method"], table["setting"], strict=True))["SSF"]
    assert setting.split()[:3] == ["α=10", "β=0.001", "γ=6"], setting
    from dashboard.compute import multiview as cm

    assert "alpha=10.0 beta=0.001 gamma=6.0" in cm.shipped_protocol()["csv"]
    assert len(at.main.get("download_button")) == 2
    assert "computed here" not in "\n".join(unescape(c.value) for c in at.caption)
    # how each row was obtained: built when its box is opened
    notes = next(e for e in at.expander if e.label.startswith("How each row was obtained"))
    assert not notes.markdown
    at.session_state["mv_notes"] = True
    ok(at.run())
    notes = next(e for e in at.expander if e.label.startswith("How each row was obtained"))
    listed = unescape(notes.markdown[0].value)
    assert listed.count("\n- ") >= 3 and "SSF" in listed
    # a recompute on the page's data, then Stop: the shipped table comes back
    ok(open_recompute(at).number_input(key="mv_runs").set_value(1).run())
    ok(at.button(key="mv_proto_run").click().run())
    assert at.session_state["clustlens"].multiview.result is not None
    # done: Stop has become the way back (in the same run that finished it)
    assert not [b for b in at.button if b.key == "mv_proto_stop"]
    assert at.button(key="mv_proto_back").label == "Back to the precomputed table"
    ok(at.button(key="mv_proto_back").click().run())
    assert at.session_state["clustlens"].multiview.protocol is None
    assert "precomputed" in " ".join(unescape(i.value) for i in at.info)


def test_a_damaged_shipped_fit_is_fitted_instead(monkeypatch, tmp_path):
    """An unreadable shipped file is logged, and the page fits SSF as for any other data."""
    from dashboard.compute import multiview as cm
    from dashboard.views.multiview import DEFAULT_PARAMS
    from demo_data import make_multiview_ssf as mk

    bad = tmp_path / "hw_ssf_demo.npz"
    bad.write_bytes(b"not a zip file")
    monkeypatch.setattr(mk, "OUT", bad)
    monkeypatch.setattr(mk.load, "__defaults__", (bad,))
    cm._shipped_fit.clear()
    try:
        out = cm.ssf(cm.hw(), **DEFAULT_PARAMS)
        assert out["shipped"] is None and out["n_components"] == 10
    finally:
        cm._shipped_fit.clear()


def test_pooled_panels_are_images_on_the_shared_scale():
    """A pooled panel is a PNG of its values on the figure's one colour range: a view with
    100x the values is darker, a zero is the scale's low colour (linear) or white (log)."""
    import base64
    import io

    from PIL import Image

    def pixels(trace) -> np.ndarray:
        raw = base64.b64decode(trace.source.split(",", 1)[1])
        return np.asarray(Image.open(io.BytesIO(raw)).convert("RGB"), dtype=int)

    weak, strong = _panel(1.0), _panel(100.0)
    for p in (weak, strong):
        p["pooled"] = True
        p["values"][0, 3] = 0.0  # a block with no coefficient
    for log in (False, True):
        fig = affinity_panels([weak, strong], ["v1", "v2"], log=log)
        a, b = (pixels(t) for t in fig.data if t.type == "image")
        assert a[0, 0].sum() > b[0, 0].sum()  # darker where the values are larger
        assert a.shape == (6, 6, 3)
        zero = tuple(a[0, 3])
        assert (zero == (255, 255, 255)) is log, (log, zero)


def test_a_comparison_that_fails_is_a_message_in_its_place_until_back(monkeypatch):
    """The comparison computes on a thread of its own: what it raises there is said on the
    page, in the table's place (never a traceback), and Back brings the shipped table back."""
    from dashboard.compute import multiview as cm

    def broken(*_args, progress=None, **_kw):
        progress("SSF run 0")
        raise ValueError("a view has a NaN")

    monkeypatch.setattr(cm, "protocol", broken)
    at = page()
    open_recompute(at).button(key="mv_proto_run").click().run()
    said = " ".join(unescape(e.value) for e in at.error)
    assert "running the comparison failed (ValueError)" in said, said
    assert not at.exception
    assert at.session_state["clustlens"].multiview.job is None  # ended, nothing left running
    assert not static_tables(at)  # no table where the message is
    ok(at.button(key="mv_proto_back").click().run())
    assert not at.error
    assert "precomputed" in " ".join(unescape(i.value) for i in at.info)
    assert comparison_table(at) is not None


def test_stop_cancels_the_comparison_computing_on_its_thread():
    """Stop's callback ends the job (at its next step) and brings the shipped table back."""
    import threading

    from dashboard.compute.background import Job
    from dashboard.views import multiview as view

    gate = threading.Event()
    at = page()
    ok(at)
    s = at.session_state["clustlens"]

    def compute(progress):
        gate.wait(10)
        progress("one")
        return {}

    job = Job("k", compute, total=3).start()
    s.multiview.job = job
    s.multiview.protocol = {"runs": 1, "knn": "quick", "selection": "truth"}
    from unittest import mock

    with mock.patch.object(view.state, "get", return_value=s):
        view._stop_protocol()
    gate.set()
    assert job.wait(10) and job.cancelled and job.result is None
    assert s.multiview.protocol is None
