"""A chart element that draws a Plotly figure once.

Streamlit's own chart element (``st.plotly_chart``) draws every figure twice in the browser:
first before it has measured the width it has (hidden), then at that width — two full Plotly
draws per chart on every visit, most of a page's time in the browser (README, "Measured"). This
element is a Streamlit custom component (v2: no iframe) whose script hands the figure to
plotly.js once, at the width of its container, and redraws on resize (``responsive``); a rerun
that sends the same figure leaves the chart as it is, and a page visited again gets back the
charts it drew (same key, same figure, nothing selected on it) without drawing them again (the
last 48 kept in the browser, 4 of them WebGL at most). Selections (points, box, lasso) are
reported to the script as ``st.plotly_chart(on_select="rerun")`` reports them.

plotly.js is the release the installed ``plotly`` package writes figures for: our bundle of it
with only the trace types the dashboard draws (``plotly_bundle/``; 1.8 MB against 4.8 MB, which
a browser runs in 0.2 s instead of 1 s here), or the package's own full ``plotly.min.js`` when
the releases differ; :func:`preload`, at the top of the session's first run, has the browser
fetch and run it while the server builds the first page. :func:`prepare` copies it into
``dashboard/static/``, which Streamlit serves at ``app/static/`` when
``server.enableStaticServing`` is on (``clustlens dashboard`` and
``dashboard/.streamlit/config.toml`` turn it on). When that is not possible — static serving
off (``streamlit run`` from another folder, AppTest), the folder not writable, or
``CLUSTLENS_CHARTS=streamlit`` in the environment — :func:`available` is False and ``ui.chart``
uses ``st.plotly_chart``, the same figure JSON on Streamlit's element.

A "Full screen" button in the chart's mode bar replaces Streamlit's."""

from __future__ import annotations

import filecmp
import functools
import logging
import os
import re
import shutil
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import streamlit as st
from streamlit.util import ReadOnlyAttributeDictionary

#: Where Streamlit serves the dashboard's static files from (next to the entry script).
STATIC_DIR = Path(__file__).resolve().parents[1] / "static"
PLOTLY_JS = "plotly.min.js"
#: plotly.js with only our trace types, built by ``plotly_bundle/build.mjs`` (its README).
BUNDLE = Path(__file__).resolve().parent / "plotly_bundle" / "plotly-clustlens.min.js"
#: ``CLUSTLENS_PLOTLY_JS=full`` serves the installed plotly's full plotly.js instead.
ENV_PLOTLY_JS = "CLUSTLENS_PLOTLY_JS"
#: ``CLUSTLENS_CHARTS=streamlit`` draws every chart with ``st.plotly_chart``.
ENV_SWITCH = "CLUSTLENS_CHARTS"
COMPONENT = "clustlens_chart"
#: What a chart with nothing selected reports (as ``st.plotly_chart``).
EMPTY: dict[str, list] = {"points": [], "point_indices": [], "box": [], "lasso": []}

_log = logging.getLogger(__name__)

_HTML = '<div class="clustlens-chart"></div>'
_CSS = ".clustlens-chart { width: 100%; } .clustlens-chart:fullscreen { overflow: auto; }"
# plotly.js, loaded once per page (a shared promise) by the chart element and the preloader
_LOAD_JS = r"""
const SRC = 'app/static/plotly.min.js';

function plotly() {
  if (window.Plotly) return Promise.resolve(window.Plotly);
  if (!window.__clustlensPlotly) {
    window.__clustlensPlotly = new Promise((resolve, reject) => {
      const s = document.createElement('script');
      s.src = new URL(SRC, document.baseURI).href;
      s.onload = () => resolve(window.Plotly);
      s.onerror = () => { window.__clustlensPlotly = null; reject(new Error(s.src)); };
      document.head.appendChild(s);
    });
  }
  return window.__clustlensPlotly;
}
"""
# Draws with Plotly.react the first time, with Plotly.newPlot when a rerun sends the element a new
# figure: react compares the two figures first and then draws the new one whole all the same
# (new data: the comparison is extra; a new title or shape: the two cost the same).
_JS = (
    _LOAD_JS
    + r"""
const EXPAND = {width: 16, height: 16,
  path: 'M0 0h6v2H2v4H0zM10 0h6v6h-2V2h-4zM0 10h2v4h4v2H0zM14 10h2v6h-6v-2h4z'};
const EMPTY = {points: [], point_indices: [], box: [], lasso: []};
// Charts drawn on earlier visits, by key, most recent last: a page visited again gets back the
// drawn chart of a figure that did not change instead of a new draw. Bounded: WebGL charts
// hold a context each, and browsers keep only ~16 of those alive.
const KEEP = 48, KEEP_WEBGL = 4;

function kept() {
  return window.__clustlensKept || (window.__clustlensKept = new Map());
}

function forget(e) {
  if (e.__observer) e.__observer.disconnect();
  if (window.Plotly) window.Plotly.purge(e);  // its window listeners would keep it alive
}

function keep(key, el) {
  const map = kept();
  const prev = map.get(key);
  if (prev && prev !== el && !prev.isConnected) forget(prev);
  map.delete(key);
  map.set(key, el);
  const idle = [...map.entries()].filter(([, e]) => !e.isConnected);  // oldest first
  const webgl = (e) => e.querySelector('.gl-canvas') !== null;
  let gl = idle.filter(([, e]) => webgl(e)).length;
  for (const [k, e] of idle) {
    const isGl = webgl(e);
    if (map.size <= KEEP && !(isGl && gl > KEEP_WEBGL)) continue;
    map.delete(k);
    if (isGl) gl -= 1;
    forget(e);
  }
}

// A Plotly selection event as st.plotly_chart reports it (snake_case keys).
function selection(ev) {
  if (!ev) return EMPTY;
  const points = (ev.points || []).map((p) => {
    const out = {curve_number: p.curveNumber, point_number: p.pointNumber,
                 point_index: p.pointIndex, x: p.x, y: p.y};
    if (p.z !== undefined) out.z = p.z;
    if (p.customdata !== undefined) out.customdata = p.customdata;
    if (p.pointIndices !== undefined) out.point_indices = p.pointIndices;
    return out;
  });
  const indices = [...new Set(points.map((p) => p.point_index).filter((i) => i !== undefined))];
  const box = [], lasso = [];
  if (ev.range) box.push({x: ev.range.x, y: ev.range.y});
  if (ev.lassoPoints) lasso.push({x: ev.lassoPoints.x, y: ev.lassoPoints.y});
  return {points, point_indices: indices, box, lasso};
}

export default function (component) {
  const { parentElement, data, setStateValue } = component;
  let el = parentElement.querySelector('.clustlens-chart');
  let reused = false;
  if (el.__spec === undefined && data.key) {
    // a new element: the chart this key showed when the page was left, if its figure is the
    // same, not on the page and nothing is selected on it (the script's selection is empty)
    const old = kept().get(data.key);
    if (old && old.__spec === data.figure && !old.isConnected && !old.__selected) {
      el.replaceWith(old);
      el = old;
      reused = true;
      keep(data.key, el);
    }
  }
  el.__report = (sel) => {
    el.__selected = sel.points.length > 0;
    setStateValue('selection', sel);
  };
  if (reused) return;
  // a rerun that sends the same figure leaves the chart (and a selection on it) as it is
  if (el.__spec === data.figure) return;
  const changed = el.__spec !== undefined;
  el.__spec = data.figure;
  const fig = JSON.parse(data.figure);
  const layout = fig.layout || {};
  const select = data.select || [];
  if (select.length) {  // as st.plotly_chart sets up a chart whose points can be selected
    layout.hovermode = layout.hovermode || 'closest';
    if (select.includes('points')) layout.clickmode = layout.clickmode || 'event+select';
    if (!layout.dragmode) layout.dragmode = select.includes('lasso') ? 'lasso'
      : select.includes('box') ? 'select' : 'pan';
  }
  el.__height = layout.height;
  const config = {
    displaylogo: false,
    responsive: true,
    modeBarButtonsToRemove: ['sendDataToCloud'].concat(
      select.includes('lasso') ? [] : ['lasso2d'], select.includes('box') ? [] : ['select2d']),
    modeBarButtonsToAdd: [{
      name: 'Full screen', title: 'Full screen', icon: EXPAND,
      click: () => (document.fullscreenElement ? document.exitFullscreen()
                                               : el.requestFullscreen()),
    }],
  };
  let alive = true;
  plotly().then((Plotly) => {
    if (!alive) return;
    el.dataset.drawn = '0';
    // a new figure on a drawn chart is drawn anew (Sweep's "Run sweep": its two charts took
    // 0.06 and 0.05 s with react, 0.04 and 0.04 s so); that drops Plotly's listeners, which
    // are added again below
    const redraw = changed && el._fullLayout !== undefined;
    if (redraw) el.__listening = false;
    (redraw ? Plotly.newPlot : Plotly.react)(el, fig.data || [], layout, config).then(() => {
      el.dataset.drawn = '1';
      if (data.key) keep(data.key, el);
    });
    if (!el.__fullscreen) {  // the element's own listener: it goes with the element
      el.__fullscreen = true;
      el.addEventListener('fullscreenchange', () => {
        const full = document.fullscreenElement === el;
        el.style.background = full ? ((el.layout || {}).paper_bgcolor || 'white') : '';
        window.Plotly.relayout(el, {height: full ? window.innerHeight : (el.__height || null),
                                    width: full ? window.innerWidth : null});
      });
    }
    // `responsive` follows the window only; the main area also changes width when the sidebar
    // opens or closes: follow the element's own width
    if (!el.__observer) {
      let last = el.clientWidth;
      el.__observer = new ResizeObserver(() => {
        // not while hidden (a closed expander, a page being left): Plotly refuses those
        if (el.clientWidth === last || !el.clientWidth || !el._fullLayout) return;
        last = el.clientWidth;
        window.Plotly.Plots.resize(el).catch(() => {});
      });
      el.__observer.observe(el);
    }
    if (select.length && !el.__listening) {
      el.__listening = true;
      el.on('plotly_selected', (ev) => { if (ev) el.__report(selection(ev)); });
      if (select.includes('points')) el.on('plotly_click', (ev) => el.__report(selection(ev)));
      el.on('plotly_deselect', () => el.__report(EMPTY));
    }
    if (changed && el.__selected) el.__report(EMPTY);  // a new figure: the old selection goes
  }).catch((err) => {
    el.textContent = 'This chart could not be drawn: plotly.js did not load (' + err.message
      + '). Restart the dashboard with CLUSTLENS_CHARTS=streamlit.';
  });
  return () => {
    alive = false;
  };
}
"""
)


# The session's first run starts fetching and running plotly.js at its top, so that it is ready
# when the first chart arrives: the run that builds the first page takes long enough.
_PRELOAD_JS = (
    _LOAD_JS
    + r"""
// Streamlit's element scripts for later pages (their data.later): imported during the first
// page's load, beside plotly.js, so the page that first shows such an element finds its script
// already run (Streamlit imports the same URL: the browser runs a module once). Started later
// (once plotly.js had run, or the first page was drawn) they fell on the next page's visit.
//
// The fonts of later pages' formulas and derivations (data.fonts, CSS font shorthands): their
// faces are declared by Streamlit's style sheet but fetched and decoded only when text first
// uses them, which fell on Learn's first visit; loaded here once the browser is idle.
export default function (component) {
  plotly().catch(() => {});  // the chart element says so if it failed
  const data = (component && component.data) || {};
  const later = data.later || [];
  const fonts = data.fonts || [];
  if (window.__clustlensLater) return;
  window.__clustlensLater = true;
  later.forEach((m) => {
    import(new URL(m, document.baseURI).href).catch(() => {});  // Streamlit retries on use
  });
  if (!fonts.length || !document.fonts) return;
  const idle = window.requestIdleCallback || ((f) => setTimeout(f, 500));
  idle(() => fonts.forEach((f) => document.fonts.load(f).catch(() => {})), {timeout: 3000});
}
"""
)
_PRELOAD_KEY = "clustlens_plotly_preload"
_PRELOADED = "_clustlens_plotly_preloaded"  # session flag: asked for once
_PRELOAD_CSS = f".st-key-{_PRELOAD_KEY} {{ display: none; }}"


@functools.cache
def _preloader() -> Any:
    return st.components.v2.component(
        f"{COMPONENT}_preload", html="<span></span>", css=_PRELOAD_CSS, js=_PRELOAD_JS,
        isolate_styles=False,
    )  # fmt: skip


def preload() -> None:
    """At the top of the session's first run: have the browser load plotly.js now (an element
    nobody sees), not when the first chart arrives at the end of the run; and, beside it, the
    element scripts of later pages (:data:`LATER_ELEMENTS`, :func:`later_modules`) and, once
    the browser is idle, their fonts (:data:`LATER_FONTS`)."""
    if st.session_state.get(_PRELOADED) or not available():
        return
    st.session_state[_PRELOADED] = True
    data = {"later": list(later_modules()), "fonts": list(LATER_FONTS)}
    _preloader()(key=_PRELOAD_KEY, data=data)


#: Streamlit's element scripts that the first page (Summary) does not use and later pages do,
#: by the name Streamlit's build gives their files (``DataFrame.<hash>.js``): the data grid
#: (Pair confusion's table, Points, Learn's other tabs; 22 files, ~0.2 s of the first page
#: showing one), the multiselect (Sweep's form), the formula typesetter and the pills (Learn).
LATER_ELEMENTS = ("DataFrame", "Multiselect", "rehype-katex", "ButtonGroup")


#: The fonts (CSS font shorthands) of Learn's formulas (KaTeX's main, math italic and two sizes
#: of big operators) and of its derivations (``ui.preformatted``: Streamlit's monospace face).
#: Fetched and decoded when first used, they cost Learn's first visit 0.02-0.07 s (issue 14,
#: tests/benchmarks/HISTORY.md); each family is declared by Streamlit's own style sheet.
LATER_FONTS = (
    "16px KaTeX_Main",
    "italic 16px KaTeX_Math",
    "16px KaTeX_Size1",
    "16px KaTeX_Size2",
    '16px "Source Code Pro"',
)


@functools.cache
def later_modules() -> tuple[str, ...]:
    """The files of :data:`LATER_ELEMENTS` in the installed Streamlit, as URLs relative to the
    app (``static/js/DataFrame.-f9-1zS0.js``); an element whose file is not found exactly once is
    left out (it is then fetched when first used, as without this)."""
    import streamlit

    folder = Path(streamlit.__file__).resolve().parent / "static" / "static" / "js"
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return ()
    out = []
    for stem in LATER_ELEMENTS:
        found = [n for n in names if n.startswith(f"{stem}.") and n.endswith(".js")]
        if len(found) == 1:
            out.append(f"static/js/{found[0]}")
    return tuple(out)


@functools.cache
def _component() -> Any:
    return st.components.v2.component(COMPONENT, html=_HTML, css=_CSS, js=_JS, isolate_styles=False)


def _installed_plotly_js() -> Path:
    import plotly

    return Path(plotly.__file__).resolve().parent / "package_data" / PLOTLY_JS


def _banner(path: Path) -> str:
    """A plotly.js bundle's first characters (its banner comment), or "" if unreadable."""
    try:
        with open(path, "rb") as f:
            return f.read(400).decode("utf-8", "replace")
    except OSError:
        return ""


def plotly_js_release(path: Path) -> str | None:
    """The plotly.js release a bundle says it is (its first line: ``plotly.js v4.1.1``)."""
    m = re.search(r"plotly\.js v(\d[\w.+-]*)", _banner(path))
    return m.group(1) if m else None


def bundle_traces(path: Path = BUNDLE) -> frozenset[str]:
    """The trace types our bundle holds (its first line names them)."""
    m = re.search(r"clustlens bundle: ([\w,]+)", _banner(path))
    return frozenset(m.group(1).split(",")) if m else frozenset()


@functools.cache
def _plotly_js_source() -> Path:
    """What the browser loads: our bundle (plotly.js with only the trace types the dashboard
    draws, ~1.8 MB: ``plotly_bundle/``) when it is the release the installed plotly writes
    figures for, else the installed plotly's full ``plotly.min.js`` (4.8 MB, about 0.8 s more
    for a browser to run on a 2-core machine)."""
    full = _installed_plotly_js()
    want = plotly_js_release(full)
    if os.environ.get(ENV_PLOTLY_JS, "").strip().lower() != "full" and BUNDLE.is_file():
        if want is not None and plotly_js_release(BUNDLE) == want:
            return BUNDLE
        _log.info("the installed plotly writes figures for plotly.js %s, our bundle is %s: "
                  "serving the full plotly.js", want, plotly_js_release(BUNDLE))  # fmt: skip
    return full


@functools.cache
def prepare() -> bool:
    """Copy the plotly.js to serve (our bundle or the installed plotly's, see
    :func:`_plotly_js_source`) into :data:`STATIC_DIR`, once per process (:func:`copy_plotly_js`).
    The launcher calls it before the server starts: Streamlit warns when the static folder is
    missing."""
    return copy_plotly_js(STATIC_DIR)


def copy_plotly_js(static_dir: Path) -> bool:
    """Copy the plotly.js to serve into ``static_dir`` as ``plotly.min.js`` unless an identical
    copy is there; False (logged) if that is not possible."""
    try:
        src = _plotly_js_source()
        dst = static_dir / PLOTLY_JS
        if not (dst.is_file() and filecmp.cmp(src, dst, shallow=False)):
            static_dir.mkdir(exist_ok=True)
            tmp = dst.with_name(f".{PLOTLY_JS}.{os.getpid()}.tmp")
            shutil.copyfile(src, tmp)
            os.replace(tmp, dst)  # a browser never fetches a half-written file
        return True
    except OSError:
        _log.warning("plotly.js cannot be served from %s; charts use st.plotly_chart", static_dir,
                     exc_info=True)  # fmt: skip
        return False


def available() -> bool:
    """Whether charts can be drawn by this element in the running server (see the module)."""
    if os.environ.get(ENV_SWITCH, "").strip().lower() == "streamlit":
        return False
    if not st.get_option("server.enableStaticServing"):
        return False
    return prepare()


def draw(fig: Any, key: str, select: Sequence[str] = ()) -> Any:
    """Draw the Plotly figure ``fig`` (keyed ``key``) with this element.

    With ``select`` (``"points"``, ``"box"``, ``"lasso"``), a selection reruns the script and
    is returned as ``st.plotly_chart(on_select="rerun")`` returns it: ``event["selection"]``
    (also ``event.selection``) with ``points`` (``curve_number``, ``point_index``, ``x``, ``y``,
    ``customdata``, ...), ``point_indices``, ``box`` and ``lasso``; empty until something is
    selected, and again after a double click. Without ``select`` it returns None.
    """
    import plotly.io as pio

    spec = pio.to_json(fig, validate=False)  # as st.plotly_chart encodes it
    data = {"figure": spec, "select": list(select), "key": key}
    if not select:
        _component()(key=key, data=data)
        return None
    result = _component()(
        key=key, data=data, default={"selection": dict(EMPTY)}, on_selection_change=_rerun
    )
    chosen = getattr(result, "selection", None) or EMPTY
    return ReadOnlyAttributeDictionary(
        {"selection": ReadOnlyAttributeDictionary({k: chosen.get(k, []) for k in EMPTY})}
    )


def _rerun() -> None:
    """A selection's callback: nothing to do, the rerun it causes reads the selection."""
