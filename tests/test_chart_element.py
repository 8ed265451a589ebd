"""The chart element that draws a figure once (dashboard/ui/chart_element.py): plotly.js served
from the installed plotly, the same figure JSON as Streamlit's chart element, selectable charts
left on Streamlit's, and the fallbacks. Drawing itself is checked in chromium
(tests/browser/test_chart_element_browser.py)."""

from __future__ import annotations

import filecmp
import json
import tomllib
from pathlib import Path

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


def element_figures(at: AppTest) -> dict[str, dict]:
    """key -> figure JSON of every chart drawn by our element."""
    out = {}
    for el in at.get("bidi_component"):
        assert el.proto.component_name.endswith(chart_element.COMPONENT)
        out[el.proto.id.rsplit("-", 1)[-1]] = json.loads(el.proto.bytes.decode("utf-8"))
    return out


def streamlit_figures(at: AppTest) -> dict[str, dict]:
    charts = at.get("plotly_chart")
    return {el.proto.id.rsplit("-", 1)[-1]: json.loads(el.proto.spec) for el in charts}


# ------------------------------------------------------------------ serving plotly.js
def test_plotly_js_is_the_installed_plotly_s_own_copy(tmp_path):
    """The figure JSON and the script that draws it come from the same plotly release."""
    assert chart_element.copy_plotly_js(tmp_path)
    copied = tmp_path / chart_element.PLOTLY_JS
    assert filecmp.cmp(copied, chart_element._plotly_js_source(), shallow=False)
    before = copied.stat().st_mtime_ns
    assert chart_element.copy_plotly_js(tmp_path)  # an identical copy is left alone
    assert copied.stat().st_mtime_ns == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [chart_element.PLOTLY_JS]


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
    assert not theirs.get("bidi_component")
    assert streamlit_figures(theirs) == ours


def test_selectable_charts_stay_on_streamlit_s_element(static_serving):
    """Sweep's trade-off is clicked to pick a setting: Streamlit's element reports that."""
    at = page("views/sweep.py")
    assert "sweep_tradeoff" in streamlit_figures(at)
    assert "sweep_tradeoff" not in element_figures(at)
    assert "sweep_metrics" in element_figures(at)


def test_every_page_draws_without_an_exception(static_serving):
    for path in ("views/summary.py", "views/affinity.py", "views/learn.py", "views/multiview.py"):
        at = page(path)
        assert element_figures(at), path
