"""The Sweep view: demo on first visit, a tiny run, stop, opening a setting, bundles; figures."""

from __future__ import annotations

import io
import json
import re
import zipfile
from pathlib import Path

import numpy as np
import pytest
from html_cards import card_values
from html_tables import static_tables
from streamlit.testing.v1 import AppTest

from dashboard.figures._style import as_read
from dashboard.figures.sweep import (
    is_log_grid,
    metrics_vs_param,
    param_heatmap,
    tradeoff_figure,
)

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"
PAGE = "views/sweep.py"


def unescape(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


def charts(at: AppTest) -> dict[str, dict]:
    return {
        el.proto.id.rsplit("-", 1)[-1]: json.loads(el.proto.spec) for el in at.get("plotly_chart")
    }


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    return at


def sweep_page(setup_open: bool = True) -> AppTest:
    """The Sweep page on the demo; ``setup_open``: with its "Data and model" box opened (its
    widgets are built only then)."""
    at = AppTest.from_file(str(APP), default_timeout=120)
    ok(at.run())
    ok(at.switch_page(PAGE).run())
    if setup_open:
        at.session_state["sw_setup_open"] = True
        ok(at.run())
    return at


def run_state(at: AppTest) -> dict:
    return at.session_state["clustlens"].sweep.run


def tiny_grid(at: AppTest, ks: str = "k=2,3") -> AppTest:
    ok(at.selectbox(key="sw_model").set_value("ssc_omp").run())
    return ok(at.text_input(key="sw_grid_ssc_omp_k").set_value(ks).run())


# ------------------------------------------------------------------ AppTest
def test_demo_sweep_shows_without_a_click():
    at = sweep_page()
    assert not at.error, [unescape(e.value) for e in at.error]
    got = charts(at)
    assert {"sweep_tradeoff", "sweep_metrics"} <= set(got)
    # the trade-off and accuracy against the parameter at first, one row of panels
    assert at.multiselect(key="sw_metrics").value == ["acc", "sre", "conn_min"]
    panels = [a["text"] for a in got["sweep_metrics"]["layout"]["annotations"]]
    assert {"ACC", "SRE", "CONN (min)"} <= set(panels) and "NMI" not in panels
    trade = got["sweep_tradeoff"]
    assert "SRE–CONN" in trade["layout"]["title"]["text"]
    assert any(str(t.get("name", "")).startswith("best") for t in trade["data"])
    assert run_state(at)["status"] == "done" and len(run_state(at)["rows"]) == 9
    assert at.get("download_button")  # the CSV export
    rows = list(run_state(at)["rows"].values())
    for key in ("acc", "sre", "conn_min"):  # a real trade-off: every one of them moves
        values = [r[key] for r in rows]
        assert max(values) - min(values) > 0.1, (key, values)


def test_demo_caption_says_where_sre_conn_and_acc_are_at_their_best_as_the_rows_do():
    """The demo's opening sentence is read off its rows: a hand-written one had said ACC peaked
    between SRE's and CONN's turns, where it dips (0.72 and 0.70 against 0.80 at λ = 23.71)."""
    at = sweep_page(setup_open=False)
    (info,) = [unescape(i.value) for i in at.info if "Demo sweep" in i.value]
    rows = json.loads((APP.parents[1] / "demo_data" / "hw_sweep_demo.json").read_text())["rows"]
    lam = [r["lambda"] for r in rows]
    sre, conn, acc = ([r[k] for r in rows] for k in ("sre", "conn_min", "acc"))
    i_sre, i_conn, i_acc = int(np.argmin(sre)), int(np.argmin(conn)), int(np.argmax(acc))
    assert f"SRE is lowest (best) at λ = {lam[i_sre]:.4g} ({sre[i_sre]:.4f})" in info
    assert f"CONN (min) lowest (worst) at λ = {lam[i_conn]:.4g} ({conn[i_conn]:.4f})" in info
    assert f"ACC is best at λ = {lam[i_acc]:.4g} ({acc[i_acc]:.4f})" in info
    assert f"where SRE is {sre[i_acc]:.4f} and CONN (min) {conn[i_acc]:.4f}" in info
    # the shipped demo's story: the best ACC is at neither SRE's best nor CONN's worst
    assert len({i_sre, i_conn, i_acc}) == 3 and "in between" not in info


def test_the_sweep_table_shows_every_setting_and_stars_each_metric_s_best():
    """Up to ui.STATIC_MAX_ROWS settings: one static table, every row shown; ★ on the best value of
    each metric (the lowest SRE), none in a column where every setting ties."""
    from dashboard.compute import sweep as cs

    at = sweep_page(setup_open=False)
    (table,) = [t for t in static_tables(at) if "setting" in t.columns]
    rows = list(run_state(at)["rows"].values())
    assert len(table) == len(rows) == 9 and not at.dataframe
    for key in ("acc", "sre", "conn_min"):
        col = table[cs.METRIC_LABELS[key]]
        starred = {i for i, v in enumerate(col) if v.endswith("\u00a0★")}
        assert starred == cs.best_positions(rows, key) and starred, key
        best = rows[next(iter(starred))][key]
        values = [r[key] for r in rows]
        assert best == (min(values) if key == "sre" else max(values))
        assert col[next(iter(starred))] == f"{best:.4f}\u00a0★"
    tie = [{"acc": 0.5}, {"acc": 0.5}]
    assert cs.best_positions(tie, "acc") == set()


def test_shipped_demo_sweep_rows_are_what_a_fresh_run_gives():
    """The precomputed rows in demo_data are reproduced by running each setting as the page
    does (timings aside)."""
    import json

    import dashboard.compute.sweep as cs
    from demo_data import make_sweep_demo as demo

    shipped = json.loads(demo.OUT.read_text())["rows"]
    data = cs.mfeat(demo.VIEW, demo.N, demo.SEED)
    grid = cs.parse_grid(demo.MODEL, [demo.GRID])
    assert len(shipped) == len(grid.settings) == 9
    for params, want in zip(grid.settings, shipped, strict=True):
        got, _ = cs.run_setting(data, demo.MODEL, params, seed=demo.SEED,
                                n_clusters=data.n_classes)  # fmt: skip
        for k, v in want.items():
            if k.startswith("seconds") or k == "setting":
                continue
            assert got[k] == pytest.approx(v, rel=1e-9, abs=1e-12), k


def test_the_demo_reads_its_digits_only_when_they_are_used():
    """The first visit shows the shipped rows without reading the pixel view (~25 ms of that
    visit); what is read later is the handwritten-digits source's own data, and a copy made by
    the cache (a pickle) is not read either."""
    import pickle

    import dashboard.compute.sweep as cs
    from demo_data import make_sweep_demo as demo

    at = sweep_page(setup_open=False)
    run = run_state(at)
    data = run["data"]
    assert not data.loaded and run["n_clusters"] == 10
    eager = cs.mfeat(demo.VIEW, demo.N, demo.SEED)
    assert (data.key, data.name, data.notes) == (eager.key, eager.name, eager.notes)
    assert not data.loaded
    copy = pickle.loads(pickle.dumps(data))
    np.testing.assert_array_equal(data.X, eager.X)
    np.testing.assert_array_equal(data.labels, eager.labels)
    assert data.loaded and (data.n, data.n_classes) == (400, 10)
    assert not copy.loaded and copy.X.shape == (400, 240) and copy.loaded


@pytest.mark.parametrize(
    "raw",
    [
        {"rows": [{"lambda": 1.0, "acc": 0.5}] * 9},  # no size or class count
        {"rows": [{"n_samples": 400, "n_classes": "10"}] * 9},
        {"rows": [{"n_samples": 0, "n_classes": 10}] * 9},
        {"rows": [{"n_samples": 400, "n_classes": 10}] * 8},  # not one row a setting
        {"rows": [{"n_samples": 400, "n_classes": 10}, 3] + [{}] * 7},
        [1, 2],
    ],
)
def test_shipped_demo_rows_without_their_sizes_are_not_used(tmp_path, monkeypatch, raw):
    """The demo's size and class count come from its shipped rows (its points are read only
    when used): rows that do not give them are not used (the demo is then computed)."""
    import dashboard.compute.sweep as cs
    from demo_data import make_sweep_demo as demo

    path = tmp_path / "demo.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    cs._shipped_rows.clear()
    try:
        assert cs._shipped_rows(9) is not None  # the shipped file
        cs._shipped_rows.clear()
        monkeypatch.setattr(demo, "OUT", path)
        assert cs._shipped_rows(9) is None
    finally:
        cs._shipped_rows.clear()


def test_tiny_run_finishes_and_is_exported():
    at = tiny_grid(sweep_page())
    ok(at.button(key="sw_run").click().run())
    run = run_state(at)
    assert run["status"] == "done" and sorted(run["rows"]) == [0, 1]
    assert all(r["sparsity"] <= 3 for r in run["rows"].values())  # k non-zeros at most
    assert "2 of 2 settings finished" in "\n".join(unescape(c.value) for c in at.caption)
    assert {"sweep_tradeoff", "sweep_metrics"} <= set(charts(at))


def test_the_setup_box_is_built_only_when_open_and_keeps_its_values():
    """The demo's view does not build the "Data and model" widgets (fewer elements a visit);
    opening the box builds them; what was set in it holds after closing and reopening; with an
    upload source the box stays built while closed (an uploader keeps its file only so)."""
    at = sweep_page(setup_open=False)
    keys = {w.key for w in at.number_input} | {w.key for w in at.text_input}
    assert "sw_seed" not in keys and "sw_k" not in keys
    assert "Data and model" in [e.label for e in at.expander]
    at.session_state["sw_setup_open"] = True
    ok(at.run())
    ok(at.number_input(key="sw_seed").set_value(7).run())
    ok(at.selectbox(key="sw_model").set_value("ssc_omp").run())
    ok(at.text_input(key="sw_grid_ssc_omp_k").set_value("k=2,3").run())
    at.session_state["sw_setup_open"] = False
    ok(at.run())
    assert "sw_seed" not in {w.key for w in at.number_input}
    at.session_state["sw_setup_open"] = True
    ok(at.run())
    assert at.number_input(key="sw_seed").value == 7
    assert at.selectbox(key="sw_model").value == "ssc_omp"
    assert at.text_input(key="sw_grid_ssc_omp_k").value == "k=2,3"
    ok(at.radio(key="sw_source").set_value("upload").run())
    at.session_state["sw_setup_open"] = False
    ok(at.run())
    uploaders = {u.key for u in at.get("file_uploader")}
    assert {"sw_up_x", "sw_up_y"} <= uploaders  # still on the page, the box closed


def test_a_sweep_done_in_its_first_chunk_is_drawn_by_the_same_run(monkeypatch):
    """ "Run sweep" is built in the results part of the page (a fragment), so its click reruns
    that part alone, and that run computes and draws the sweep: no rerun asked for, of the
    whole page or of a part (issue 14: an action's overhead above its computing). AppTest runs
    the whole script on a click; the browser test counts the runs a real click starts and
    where their elements go."""
    import streamlit as st

    real, reruns = st.rerun, []

    def counted(scope="app"):
        reruns.append(scope)
        real(scope)

    at = tiny_grid(sweep_page())
    ok(at.button(key="sw_run").click().run())  # settles the sweep's imports and caches
    monkeypatch.setattr(st, "rerun", counted)
    ok(at.button(key="sw_run").click().run())
    assert run_state(at)["status"] == "done" and sorted(run_state(at)["rows"]) == [0, 1]
    assert reruns == []
    assert {"sweep_tradeoff", "sweep_metrics"} <= set(charts(at))
    assert not at.get("progress") and "sw_stop" not in [b.key for b in at.button]


def test_run_sweep_stands_below_the_open_box_only():
    """With the "Data and model" box closed there is no Run button (nothing in view says what
    it would run); opened, the button runs what the form says."""
    at = sweep_page(setup_open=False)
    assert "sw_run" not in [b.key for b in at.button]
    at.session_state["sw_setup_open"] = True
    ok(at.run())
    assert "sw_run" in [b.key for b in at.button]
    ok(at.selectbox(key="sw_model").set_value("ssc_omp").run())
    assert at.session_state["clustlens"].sweep.ready["model"] == "ssc_omp"
    at.session_state["sw_setup_open"] = False
    ok(at.run())
    assert "sw_run" not in [b.key for b in at.button]
    assert at.session_state["clustlens"].sweep.ready is None


def test_run_during_a_long_sweep_rebuilds_the_whole_page(monkeypatch):
    """A long sweep's Stop button and progress bar stand above the results part; "Run sweep"
    clicked meanwhile replaces the sweep with a run of the whole page, which takes them away
    (a run of the results part alone would have left them there)."""
    import streamlit as st

    at = tiny_grid(sweep_page())
    run_state(at)["status"] = "running"  # as a long sweep is between two chunks
    real, reruns = st.rerun, []

    def counted(scope="app"):
        reruns.append(scope)
        real(scope)

    monkeypatch.setattr(st, "rerun", counted)
    ok(at.button(key="sw_run").click().run())
    assert reruns[:1] == ["app"]
    assert run_state(at)["status"] == "done" and sorted(run_state(at)["rows"]) == [0, 1]
    assert not at.get("progress") and "sw_stop" not in [b.key for b in at.button]


def test_the_progress_bar_shows_only_once_a_run_takes_a_while(monkeypatch):
    """A run of cached settings (milliseconds) never puts a Stop button or a bar on the page —
    they would flash and cost a redraw; one that has taken 0.3 s shows them from then on."""
    import time

    import streamlit as st

    import dashboard.compute.sweep as cs

    at = tiny_grid(sweep_page())
    ok(at.button(key="sw_run").click().run())  # computes and caches both settings
    ok(at.run())  # the whole page again: that run rebuilt the results part alone
    shown: list[str] = []
    real_progress, real_button = st.progress, st.button

    def progress(*args, **kwargs):
        shown.append("bar")
        return real_progress(*args, **kwargs)

    def button(label, *args, **kwargs):
        if kwargs.get("key") == "sw_stop":
            shown.append("stop")
        return real_button(label, *args, **kwargs)

    monkeypatch.setattr(st, "progress", progress)
    monkeypatch.setattr(st, "button", button)
    ok(at.button(key="sw_run").click().run())
    assert run_state(at)["status"] == "done" and not shown
    ok(at.run())
    real_setting = cs.run_setting

    def slow(*args, **kwargs):
        time.sleep(0.35)
        return real_setting(*args, **kwargs)

    monkeypatch.setattr(cs, "run_setting", slow)
    ok(at.button(key="sw_run").click().run())
    assert run_state(at)["status"] == "done"
    assert shown[:2] == ["stop", "bar"]
    # gone once the run is done
    assert not at.get("progress") and "sw_stop" not in [b.key for b in at.button]


def test_a_new_sweep_picks_its_own_best_setting_not_the_demos():
    """The demo's best is setting 7; the default LSR sweep has 11 settings, so a pick carried
    over would still be a valid position — of another sweep (the browser even kept the demo's
    label for it). A new sweep gets a new "Setting" box, on its own best."""
    at = sweep_page()

    def setting_box():
        (box,) = [b for b in at.selectbox if b.label == "Setting"]
        return box

    demo = setting_box()
    assert demo.value == 7 and "(best)" in demo.options[7]
    ok(at.button(key="sw_run").click().run())
    run = run_state(at)
    assert run["status"] == "done" and len(run["rows"]) > 7
    box = setting_box()
    assert box.key != demo.key
    best = [i for i, label in enumerate(box.options) if label.endswith("(best)")]
    assert best == [box.value]
    assert "lambda=23.71" not in " ".join(box.options)  # the demo's settings are gone
    ok(at.run())  # the pick stays on later reruns
    assert setting_box().key == box.key and setting_box().value == box.value


def test_a_long_sweep_runs_chunk_by_chunk_to_the_end(monkeypatch):
    import dashboard.compute.sweep_job as job

    real, chunks = job.advance, []

    def one_setting_per_chunk(run, seconds, on_progress=lambda: None):
        chunks.append(len(run["rows"]))
        return real(run, 0.0, on_progress)  # returns "more" after each setting

    at = tiny_grid(sweep_page(), "k=2,3,4,5")
    monkeypatch.setattr(job, "advance", one_setting_per_chunk)
    ok(at.button(key="sw_run").click().run())
    assert chunks == [0, 1, 2, 3]
    assert run_state(at)["status"] == "done" and sorted(run_state(at)["rows"]) == [0, 1, 2, 3]
    assert "4 of 4 settings finished" in "\n".join(unescape(c.value) for c in at.caption)
    assert "sweep_tradeoff" in charts(at)


def test_a_chunk_that_fails_is_said_on_the_page_and_ends_the_run(monkeypatch):
    """A failure while a long sweep's chunk computes (after its results part is drawn) is a
    message on the page, never a traceback, and no next chunk is started."""
    import dashboard.compute.sweep_job as job

    real, calls = job.advance, []

    def first_then_fail(run, seconds, on_progress=lambda: None):
        calls.append(len(run["rows"]))
        if len(calls) > 1:
            raise RuntimeError("boom")
        return real(run, 0.0, on_progress)  # "more" after the first setting

    at = tiny_grid(sweep_page(), "k=2,3,4")
    monkeypatch.setattr(job, "advance", first_then_fail)
    ok(at.button(key="sw_run").click().run())
    assert calls == [0, 1]
    errors = [unescape(e.value) for e in at.error]
    assert any("running the sweep failed (RuntimeError)" in e for e in errors), errors
    assert sorted(run_state(at)["rows"]) == [0]  # the finished setting is kept
    assert "sweep_tradeoff" in charts(at)


def test_stop_keeps_the_finished_settings(monkeypatch):
    import dashboard.compute.sweep as cs
    from dashboard.views import sweep as view

    real = cs.run_setting
    calls = []

    def stop_after_two(*args, **kwargs):  # the Stop button's callback, fired mid-run
        out = real(*args, **kwargs)
        calls.append(1)
        if len(calls) == 2:
            view._stop()
        return out

    at = tiny_grid(sweep_page(), "k=2,3,4,5")
    monkeypatch.setattr(cs, "run_setting", stop_after_two)
    ok(at.button(key="sw_run").click().run())
    run = run_state(at)
    assert run["status"] == "stopped"
    assert sorted(run["rows"]) == [0, 1] and len(calls) == 2
    ok(at.run())  # nothing more is computed on the next rerun
    assert len(calls) == 2
    assert any("Stopped after 2 of 4" in w.value for w in at.warning)
    assert "sweep_tradeoff" in charts(at)


def test_progress_text_names_setting_elapsed_and_remaining():
    from dashboard.compute.sweep import GridInfo
    from dashboard.compute.sweep_job import progress_text

    run = {
        "grid": GridInfo([{"k": 1}, {"k": 2}, {"k": 3}, {"k": 4}], ("k",), {}),
        "rows": {0: {}},
        "seconds": 2.0,
    }
    assert progress_text(run) == "setting 1 of 4 · 2.0 s elapsed · ~6 s left"


def test_job_advances_in_chunks_keeps_rows_on_stop_and_records_errors(monkeypatch):
    """The UI-free runner: a chunk returns "more" while settings are pending, a stop keeps the
    finished rows, a failing setting becomes an error row and the sweep goes on."""
    from dashboard.compute import sweep as cs
    from dashboard.compute import sweep_job as job
    from dashboard.compute.sweep import GridInfo

    def fake_setting(data, model, params, *, seed, n_clusters):
        if params["k"] == 3:
            raise ValueError("no solution")
        return {"k": params["k"], "acc": params["k"] / 10}, None

    monkeypatch.setattr(cs, "run_setting", fake_setting)
    grid = GridInfo([{"k": k} for k in range(1, 6)], ("k",), {})
    run = {"grid": grid, "rows": {}, "seconds": 0.0, "status": "running", "errors": [],
           "data": None, "model": "lsr", "seed": 0, "n_clusters": 0}  # fmt: skip
    ticks = []
    assert job.advance(run, -1.0, lambda: ticks.append(job.fraction(run))) == "more"
    assert list(run["rows"]) == [0] and ticks == [0.2]
    job.stop(run)
    assert job.advance(run, 60.0) == "stopped" and list(run["rows"]) == [0]
    run["status"] = "running"
    assert job.advance(run, 60.0) == "done" and run["status"] == "done"
    assert run["rows"][2]["error"] == "no solution" and len(run["errors"]) == 1
    assert [r["setting"] for r in job.rows({"kind": "grid", **run})] == [0, 1, 2, 3, 4]


def test_open_setting_puts_it_into_summary_and_affinity():
    at = sweep_page()
    ok(at.button(key="sw_open").click().run())
    s = at.session_state["clustlens"]
    name = s.preds[-1].name
    assert name.startswith("sweep: lsr λ=")
    own = s.preds[-1].own_coef  # the setting's C goes with its prediction
    assert s.truth.n == 400 and own is not None and own.value.shape == (400, 400)
    assert s.coef_for(s.preds[-1]) is own
    assert at.get("page_link")  # links to the views
    # the button is in the results part, but its run rebuilt the whole page: the sidebar
    # names the opened setting at once
    from dashboard.session.state import K_ACTIVE

    assert at.sidebar.selectbox(key=K_ACTIVE).value == name
    ok(at.switch_page("views/summary.py").run())
    assert not at.error, [unescape(e.value) for e in at.error]
    caps = "\n".join(unescape(c.value) for c in at.caption)
    assert f"prediction: {name}" in caps
    assert set(card_values(at)) >= {"ACC", "SRE"}
    ok(at.switch_page("views/affinity.py").run())
    assert not at.error and "affinity_plot" in charts(at)


def _npy(a) -> bytes:
    buf = io.BytesIO()
    np.save(buf, np.asarray(a), allow_pickle=False)
    return buf.getvalue()


def _bad_bundle() -> tuple[bytes, bytes]:
    y = np.repeat([0, 1, 2], 10)
    block = (y[:, None] == y[None, :]).astype(float) - np.eye(30)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr(
            "params.csv", "file,lambda\nc1.npy,0.1\nc2.npy,0.5\nsmall.npy,0.7\ngone.npy,0.9\n"
        )
        z.writestr("c1.npy", _npy(block))
        z.writestr("c2.npy", _npy(block + 0.01))
        z.writestr("small.npy", _npy(np.eye(5)))  # wrong size
    return buf.getvalue(), ("\n".join(map(str, y)) + "\n").encode()


def test_bad_bundle_entries_are_named_and_good_ones_kept():
    at = sweep_page()
    ok(at.radio(key="sw_source").set_value("bundle").run())
    data, labels = _bad_bundle()
    at.file_uploader(key="sw_up_bundle").set_value(("my=sweep.zip", data, "application/zip"))
    at.file_uploader(key="sw_up_bundle_y").set_value(("y.txt", labels, "text/plain"))
    ok(at.run())
    ok(at.button(key="sw_score").click().run())
    errors = "\n".join(unescape(e.value) for e in at.error)
    assert "gone.npy" in errors and "small.npy" in errors
    run = run_state(at)
    assert run["kind"] == "bundle" and len(run["rows"]) == 2
    assert [r["acc"] for r in run["rows"]] == [1.0, 1.0]
    assert "sweep_tradeoff" in charts(at)


# ------------------------------------------------------------------ pure figures
ROWS = [
    {"setting": i, "lambda": lam, "acc": acc, "sre": sre, "conn_min": c, "conn_mean": c + 0.1}
    for i, (lam, acc, sre, c) in enumerate(
        [
            (0.001, 0.7, 0.05, 0.1),
            (0.01, 0.95, 0.1, 0.3),
            (0.1, 0.8, 0.3, 0.5),
            (1.0, 0.6, 0.5, 0.6),
        ]
    )
]


def test_tradeoff_marks_the_best_and_joins_in_parameter_order():
    fig = tradeoff_figure(list(reversed(ROWS)), ("lambda",), best=2, color_by="acc")
    best = [t for t in fig.data if str(t.name or "").startswith("best")]
    assert len(best) == 1 and best[0].marker.symbol == "star"
    assert list(best[0].x) == [0.1] and "lambda=0.01" in best[0].name
    line = next(t for t in fig.data if t.mode == "lines")
    assert list(line.x) == [0.05, 0.1, 0.3, 0.5]  # sorted by λ, not by row order
    markers = next(t for t in fig.data if t.name == "settings")
    assert markers.marker.colorbar.title.text == "acc"


TWO_PARAMS = [
    {"setting": i, "lambda": lam, "k": k, "acc": 0.5 + lam / 10 + k / 100,
     "sre": 0.1 * k, "conn_min": 0.9 - lam / 5, "conn_mean": 0.95 - lam / 5}
    for i, (lam, k) in enumerate((lam, k) for lam in (0.5, 1.0, 2.0) for k in (2, 3))
]  # fmt: skip
NAMED = [dict(r, solver=s) for r, s in zip(ROWS, ["<b>a</b>", "b", "c", "d"], strict=True)]


@pytest.mark.parametrize(
    "build",
    [
        lambda: tradeoff_figure(ROWS, ("lambda",), best=1, color_by="acc", title="t"),
        lambda: tradeoff_figure(TWO_PARAMS, ("lambda", "k"), best=None, color_by="conn_mean"),
        lambda: tradeoff_figure(
            [dict(r, acc=float("nan")) for r in ROWS], ("lambda",), color_by="acc", best=0
        ),
        lambda: metrics_vs_param(ROWS, "lambda", ["acc", "sre", "conn_min"], log_x=True, best=0),
        lambda: metrics_vs_param(
            TWO_PARAMS, "lambda", ["acc", "sre", "conn_min", "conn_mean"], others=["k"], best=3
        ),
        lambda: metrics_vs_param(NAMED, "solver", ["acc"], best=None),
    ],
)
def test_unvalidated_sweep_figures_are_what_plotly_would_validate_them_to(build):
    """The trade-off and metric charts are built without plotly.py's checks (they are redrawn
    on every Run sweep): what the browser gets equals the same figure validated, so nothing in
    them is a property plotly.js would not read as meant (a bare-string axis title, say)."""
    import plotly.graph_objects as go
    import plotly.io as pio

    fig = build()
    sent = json.loads(pio.to_json(fig, validate=False))  # as the chart element sends it
    checked = json.loads(pio.to_json(go.Figure(fig.to_dict()), validate=True))
    assert as_read(sent) == as_read(checked)


def test_log_axis_for_log_grids_only():
    fig = metrics_vs_param(ROWS, "lambda", ["acc", "sre"], log_x=True).to_dict()
    assert fig["layout"]["xaxis"]["type"] == "log" and fig["layout"]["xaxis2"]["type"] == "log"
    lin = metrics_vs_param(ROWS, "lambda", ["acc"], log_x=False).to_dict()
    assert lin["layout"]["xaxis"]["type"] == "linear"
    assert is_log_grid([r["lambda"] for r in ROWS])
    assert not is_log_grid([0.1, 0.2, 0.3, 0.4])


def test_two_parameter_heatmap_and_literal_names():
    rows = [{"a": a, "<b>g</b>": g, "acc": a * g} for a in (1, 2, 3) for g in (10, 20)]
    fig = param_heatmap(rows, "<b>g</b>", "a", "acc")
    z = np.array(fig.data[0].z, dtype=float)
    assert z.shape == (3, 2) and z[2, 1] == 60
    assert "&lt;b&gt;" in fig.layout.title.text and "<b>" not in fig.layout.title.text
    assert fig.data[0].colorbar.title.text == "acc"


def test_results_only_sensitivity_table_draws_one_heatmap_per_metric():
    """The multi-view β × γ sensitivity table, uploaded as a results-only sweep."""
    at = sweep_page()
    ok(at.radio(key="sw_source").set_value("bundle").run())
    rows = ["alpha,beta,gamma,acc,nmi,purity,ari,n_components,n_iter,seconds"]
    for b in (1e-4, 1e-3, 1e-2):
        for g in (4, 6, 8, 10):
            rows.append(f"10.0,{b},{g},{0.9 + g / 1000},0.8,0.9,0.8,10,5,1.0")
    data = ("\n".join(rows) + "\n").encode()
    at.file_uploader(key="sw_up_bundle").set_value(("sensitivity.csv", data, "text/csv"))
    ok(at.run())
    ok(at.button(key="sw_score").click().run())
    run = run_state(at)
    assert run["kind"] == "bundle" and len(run["rows"]) == 12
    keys = list(charts(at))
    assert any("heat" in k for k in keys), keys


def test_a_long_sweep_gets_a_sortable_data_frame(monkeypatch):
    from dashboard.ui import widgets

    monkeypatch.setattr(widgets, "STATIC_MAX_ROWS", 5)  # the demo sweep has nine settings
    at = sweep_page(setup_open=False)
    assert not [t for t in static_tables(at) if "setting" in t.columns]
    (frame,) = [df.value for df in at.dataframe]
    assert len(frame) == 9 and "setting" in frame.columns


def test_the_x_axis_parameter_is_asked_only_when_two_or_more_were_swept():
    """The demo sweeps λ alone: no box with one choice; a two-parameter run gets the box, and
    the metrics chart follows it."""
    at = sweep_page(setup_open=False)
    assert [b.label for b in at.selectbox if b.label == "Parameter on the x axis"] == []
    assert "sweep_metrics" in charts(at)
    at = tiny_grid(sweep_page())
    ok(at.text_input(key="sw_grid_ssc_omp_thr").set_value("thr=1e-6,1e-5").run())
    ok(at.button(key="sw_run").click().run())
    assert run_state(at)["status"] == "done"
    (box,) = [b for b in at.selectbox if b.label == "Parameter on the x axis"]
    assert len(box.options) == 2
    ok(box.set_value(box.options[1]).run())
    (box,) = [b for b in at.selectbox if b.label == "Parameter on the x axis"]
    assert box.value == "thr"
    assert "thr" in charts(at)["sweep_metrics"]["layout"]["xaxis"]["title"]["text"]
