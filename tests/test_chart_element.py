"""The chart element that draws a figure once (dashboard/ui/chart_element.py): plotly.js served
from the installed plotly, the same figure JSON as Streamlit's chart element, selectable charts
left on Streamlit's, and the fallbacks. Drawing itself is checked in chromium
(tests/browser/test_chart_element_browser.py)."""

from __future__ import annotations

import filecmp
import json
import tomllib
from pathlib import Path
from types import SimpleNamespace

import pytest
from streamlit import config as st_config
from streamlit.testing.v1 import AppTest

from dashboard.cli._serve import command
from dashboard.ui import chart_element

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    return at


@pytest.fixture()
def static_serving():
    """Streamlit's static serving on, as ``clustlens dashboard`` runs it (AppTest reads no config
    file: off by default, so the other AppTests see Streamlit's chart element)."""
    before = st_config.get_option("server.enableStaticServing")
    st_config.set_option("server.enableStaticServing", True)
    try:
        yield
    finally:
        st_config.set_option("server.enableStaticServing", before)


def page(path: str) -> AppTest:
    at = AppTest.from_file(str(APP), default_timeout=120)
    ok(at.run())
    return ok(at.switch_page(path).run())


def element_payloads(at: AppTest) -> dict[str, dict]:
    """key -> what our element was sent (``figure`` JSON text, ``select`` modes)."""
    out = {}
    for el in at.get("bidi_component"):
        if not el.proto.component_name.endswith(chart_element.COMPONENT):
            continue  # our other elements (the findings' links, Learn's table editor)
        assert el.proto.WhichOneof("data") == "json"
        out[el.proto.id.rsplit("-", 1)[-1]] = json.loads(el.proto.json)
    return out


def element_figures(at: AppTest) -> dict[str, dict]:
    """key -> figure JSON of every chart drawn by our element."""
    return {k: json.loads(v["figure"]) for k, v in element_payloads(at).items()}


def streamlit_figures(at: AppTest) -> dict[str, dict]:
    charts = at.get("plotly_chart")
    return {el.proto.id.rsplit("-", 1)[-1]: json.loads(el.proto.spec) for el in charts}


# ------------------------------------------------------------------ serving plotly.js
def test_plotly_js_is_the_release_the_installed_plotly_writes_for(tmp_path):
    """The figure JSON and the script that draws it belong to the same plotly.js release."""
    assert chart_element.copy_plotly_js(tmp_path)
    copied = tmp_path / chart_element.PLOTLY_JS
    assert filecmp.cmp(copied, chart_element._plotly_js_source(), shallow=False)
    installed = chart_element._installed_plotly_js()
    assert chart_element.plotly_js_release(copied) == chart_element.plotly_js_release(installed)
    before = copied.stat().st_mtime_ns
    assert chart_element.copy_plotly_js(tmp_path)  # an identical copy is left alone
    assert copied.stat().st_mtime_ns == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [chart_element.PLOTLY_JS]


@pytest.fixture()
def fresh_source():
    chart_element._plotly_js_source.cache_clear()
    yield
    chart_element._plotly_js_source.cache_clear()


def test_our_bundle_is_served_only_for_its_own_release(tmp_path, monkeypatch, fresh_source):
    """Our bundle when it is the installed plotly's plotly.js release; the installed full
    plotly.js for any other release, or when ``CLUSTLENS_PLOTLY_JS=full`` asks for it."""
    installed = chart_element._installed_plotly_js()
    release = chart_element.plotly_js_release(installed)
    assert release is not None
    same = tmp_path / "same.min.js"
    same.write_text(f"/** plotly.js v{release} (clustlens bundle: scatter,bar) | MIT */\n")
    other = tmp_path / "other.min.js"
    other.write_text("/** plotly.js v0.0.1 (clustlens bundle: scatter,bar) | MIT */\n")
    for bundle, served in ((same, same), (other, installed), (tmp_path / "none.js", installed)):
        monkeypatch.setattr(chart_element, "BUNDLE", bundle)
        chart_element._plotly_js_source.cache_clear()
        assert chart_element._plotly_js_source() == served, bundle.name
    monkeypatch.setattr(chart_element, "BUNDLE", same)
    monkeypatch.setenv(chart_element.ENV_PLOTLY_JS, "full")
    chart_element._plotly_js_source.cache_clear()
    assert chart_element._plotly_js_source() == installed


def test_the_shipped_bundle_holds_every_trace_type_the_dashboard_draws():
    """A trace type missing from the bundle would be drawn as nothing (plotly.js only warns):
    every ``go.<Trace>`` the dashboard's code names is in it (and the bundle is the installed
    plotly's release: otherwise the full plotly.js is served and this bundle is stale)."""
    import ast

    import plotly.graph_objects as go
    from plotly.basedatatypes import BaseTraceType

    def is_trace(name: str) -> bool:
        kind = getattr(go, name, None)
        return (
            isinstance(kind, type) and issubclass(kind, BaseTraceType) and kind is not BaseTraceType
        )

    used = set()
    for path in APP.parent.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if node.value.id == "go" and is_trace(node.attr):
                    used.add(node.attr.lower())
    assert {"bar", "heatmap", "scatter", "scattergl", "sankey", "image"} <= used  # the scan works
    assert used <= chart_element.bundle_traces(), used - chart_element.bundle_traces()
    installed = chart_element.plotly_js_release(chart_element._installed_plotly_js())
    assert chart_element.plotly_js_release(chart_element.BUNDLE) == installed, (
        "plotly was upgraded: rebuild dashboard/ui/plotly_bundle (its README) for plotly.js "
        f"{installed}"
    )


def test_a_stale_copy_is_replaced(tmp_path):
    (tmp_path / chart_element.PLOTLY_JS).write_text("/* plotly.js of another release */")
    assert chart_element.copy_plotly_js(tmp_path)
    assert filecmp.cmp(
        tmp_path / chart_element.PLOTLY_JS, chart_element._plotly_js_source(), shallow=False
    )


def test_an_unwritable_folder_falls_back_without_raising(tmp_path):
    blocker = tmp_path / "not_a_folder"
    blocker.write_text("a file where the folder should be")
    assert chart_element.copy_plotly_js(blocker / "static") is False


def test_the_server_serves_static_files():
    """plotly.js is fetched from app/static/: on in the command and in the config file."""
    assert "--server.enableStaticServing=true" in command("127.0.0.1", 8501)
    conf = tomllib.loads((APP.parent / ".streamlit" / "config.toml").read_text())
    assert conf["server"]["enableStaticServing"] is True
    assert (APP.parent / "static") == chart_element.STATIC_DIR


def test_available_follows_static_serving_and_the_switch(monkeypatch, static_serving):
    monkeypatch.setattr(chart_element, "prepare", lambda: True)
    assert chart_element.available()
    monkeypatch.setenv(chart_element.ENV_SWITCH, "streamlit")
    assert not chart_element.available()
    monkeypatch.delenv(chart_element.ENV_SWITCH)
    st_config.set_option("server.enableStaticServing", False)
    assert not chart_element.available()
    st_config.set_option("server.enableStaticServing", True)
    monkeypatch.setattr(chart_element, "prepare", lambda: False)  # plotly.js cannot be served
    assert not chart_element.available()


# ------------------------------------------------------------------ pages
def test_pages_send_the_same_figures_through_either_element(static_serving, monkeypatch):
    """Contingency drawn by our element carries exactly the figure JSON Streamlit's element
    would have carried (the page, the report and the downloads all draw one builder's figure)."""
    ours = element_figures(page("views/contingency.py"))
    assert {"contingency_heatmap", "contingency_sankey"} <= set(ours)
    monkeypatch.setenv(chart_element.ENV_SWITCH, "streamlit")
    theirs = page("views/contingency.py")
    assert not element_payloads(theirs)  # no chart through our element
    assert streamlit_figures(theirs) == ours


def test_selectable_charts_say_how_they_are_selected(static_serving):
    """Sweep's trade-off is clicked to pick a setting; nothing is selected before a click."""
    at = page("views/sweep.py")
    sent = element_payloads(at)
    assert sent["sweep_tradeoff"]["select"] == ["points"]
    assert sent["sweep_metrics"]["select"] == []
    assert not at.get("plotly_chart")
    assert at.session_state["clustlens"].sweep.last_pick is None


def test_a_selection_is_returned_as_st_plotly_chart_returns_it(monkeypatch):
    """The pages read ``event["selection"]["points"]`` (Sweep) and ``event.selection.points``
    (Points); the element's state (set by its script in the browser: chromium tests) comes
    back in that shape, empty before anything is selected."""
    point = {"curve_number": 0, "point_index": 2, "x": 0.5, "y": 0.7, "customdata": [2]}
    sent = {}

    result = SimpleNamespace(
        selection={"points": [point], "point_indices": [2], "box": [], "lasso": []}
    )

    def mount(**kwargs):
        sent.clear()
        sent.update(kwargs)
        return result

    monkeypatch.setattr(chart_element, "_component", lambda: mount)
    fig = {"data": [{"type": "scatter", "x": [0], "y": [1]}], "layout": {}}
    event = chart_element.draw(fig, "k", ("points",))
    assert event["selection"]["points"] == [point] == list(event.selection.points)
    assert event.selection.point_indices == [2] and event["selection"]["lasso"] == []
    assert sent["default"] == {"selection": chart_element.EMPTY}
    assert json.loads(sent["data"]["figure"])["data"][0]["y"] == [1]
    result.selection = None  # nothing selected yet
    assert chart_element.draw(fig, "k", ("box", "lasso")).selection == chart_element.EMPTY
    assert chart_element.draw(fig, "k") is None
    assert sent["data"]["select"] == [] and "default" not in sent


def test_selection_modes_follow_st_plotly_chart_s_arguments():
    from dashboard.ui.widgets import _selection_modes

    assert _selection_modes({"theme": None}) == ()
    assert _selection_modes({"on_select": "rerun", "selection_mode": "points"}) == ("points",)
    assert _selection_modes({"on_select": "rerun"}) == ("points", "box", "lasso")
    assert _selection_modes({"on_select": "rerun", "selection_mode": ("box", "lasso")}) == (
        "box",
        "lasso",
    )


def test_every_page_draws_without_an_exception(static_serving):
    for path in ("views/summary.py", "views/affinity.py", "views/learn.py", "views/multiview.py"):
        at = page(path)
        assert element_figures(at), path


def test_later_element_scripts_are_found_in_the_installed_streamlit():
    """Each element script fetched during the first page (data grid, multiselect, formulas) is
    one file of the installed Streamlit: a Streamlit that renames them fails here, not silently
    (the pages would still work, each fetching its script on first use)."""
    chart_element.later_modules.cache_clear()
    found = chart_element.later_modules()
    assert len(found) == len(chart_element.LATER_ELEMENTS), found
    static = Path(__import__("streamlit").__file__).resolve().parent / "static"
    for rel, stem in zip(found, chart_element.LATER_ELEMENTS, strict=True):
        assert rel.startswith(f"static/js/{stem}.") and (static / rel).is_file()


def test_later_element_scripts_leave_out_what_is_missing_or_ambiguous(tmp_path, monkeypatch):
    import streamlit

    js = tmp_path / "static" / "static" / "js"
    js.mkdir(parents=True)
    for name in ("DataFrame.a1.js", "Multiselect.b2.js", "Multiselect.c3.js", "index.d4.js"):
        (js / name).write_text("")
    monkeypatch.setattr(streamlit, "__file__", str(tmp_path / "__init__.py"))
    chart_element.later_modules.cache_clear()
    try:
        assert chart_element.later_modules() == ("static/js/DataFrame.a1.js",)
    finally:
        chart_element.later_modules.cache_clear()


def test_later_fonts_are_faces_of_the_installed_streamlit():
    """Each font loaded once the first page is idle is a face Streamlit's style sheet declares
    (a renamed face would load nothing, silently)."""
    import re

    css = Path(__import__("streamlit").__file__).resolve().parent / "static" / "static" / "css"
    faces = set()
    for sheet in css.glob("index.*.css"):
        for block in re.findall(r"@font-face\{[^}]*\}", sheet.read_text(encoding="utf-8")):
            m = re.search(r"font-family:\s*([^;}]+)", block)
            faces.add(m.group(1).strip().strip('"'))
    assert chart_element.LATER_FONTS
    for font in chart_element.LATER_FONTS:
        family = font.split("px ", 1)[1].strip('"')
        assert family in faces, (family, sorted(faces))
