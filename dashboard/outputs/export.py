"""Exports that carry a result to collaborators and papers: figures as PNG/SVG, tables as CSV and
JSON (LaTeX tables and mean ± std come from :mod:`metrics_core.evaluation`, the one writer).

UI-free. Static figures go through kaleido 1.x, which drives a Chrome/Chromium over the DevTools
protocol: we point it at the system's browser (``$BROWSER_PATH``, else ``chromium`` /
``chromium-browser`` / ``google-chrome`` on PATH), never let it fetch MathJax from a CDN
(``mathjax=False``; plotly.js comes from the installed plotly package), and keep one browser
alive in a background thread so each export after the first takes a fraction of a second. When
no browser is found, :func:`static_export_status` says so in one plain sentence and the page
keeps Plotly's own "download as PNG" button (the camera icon in every chart's toolbar).

Examples
--------
>>> escape_cell("=1+1"), escape_cell("run 1"), escape_cell(-0.5)
("'=1+1", 'run 1', -0.5)
"""

from __future__ import annotations

import asyncio
import atexit
import csv
import importlib.util
import io
import json
import os
import shutil
import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from metrics_core.evaluation import plain_value

# ------------------------------------------------------------------------- CSV / JSON
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def escape_cell(value: Any) -> Any:
    """Neutralise spreadsheet formulas: a string starting with = + - @ tab or CR gets a leading '.

    Numbers stay numbers (a negative ARI is not text).
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def to_csv(rows: Sequence[Mapping[str, Any]], columns: Sequence[str] | None = None) -> str:
    """CSV text (columns = ``columns`` or the union of keys in first-seen order), escaped.

    Examples
    --------
    >>> print(to_csv([{"label": "=cmd|' /C calc'!A0", "acc": 0.5}]), end="")
    label,acc
    '=cmd|' /C calc'!A0,0.5
    """
    cols = list(columns) if columns is not None else []
    if columns is None:
        for r in rows:
            cols += [str(k) for k in r if str(k) not in cols]
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow([escape_cell(c) for c in cols])
    for r in rows:
        out = []
        for c in cols:
            v = plain_value(r.get(c, ""))
            out.append("" if v is None else escape_cell(v))
        w.writerow(out)
    return buf.getvalue()


def to_json(payload: Any) -> str:
    """JSON text; strings formula-escaped, NaN/inf written as null, numpy scalars unwrapped."""

    def clean(x: Any) -> Any:
        if isinstance(x, Mapping):
            return {str(escape_cell(str(k))): clean(v) for k, v in x.items()}
        if isinstance(x, (list, tuple)):
            return [clean(v) for v in x]
        if isinstance(x, np.ndarray):
            return [clean(v) for v in x.tolist()]
        x = plain_value(x)
        return escape_cell(x)

    return json.dumps(clean(payload), indent=2, ensure_ascii=False, allow_nan=False)


# LaTeX tables and mean ± std: metrics_core.evaluation (to_latex, mean_std_table, ...), the one
# writer of the project; this module only adds the formats of the dashboard (CSV, JSON, images).


# ------------------------------------------------------------------------- figures
_BROWSER_NAMES = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")


def find_browser() -> str | None:
    """Path of a Chrome/Chromium for kaleido: ``$BROWSER_PATH`` if it exists, else PATH."""
    env = os.environ.get("BROWSER_PATH")
    if env and os.path.isfile(env) and os.access(env, os.X_OK):
        return env
    for name in _BROWSER_NAMES:
        path = shutil.which(name)
        if path:
            return path
    return None


def static_export_status() -> tuple[bool, str]:
    """Whether PNG/SVG export can work here, and a plain sentence saying so."""
    # looked up, not imported: the status is shown under every chart, and importing kaleido
    # (with choreographer) costs a first page about 0.1 s
    if importlib.util.find_spec("kaleido") is None:
        return False, (
            "Static export is off: the kaleido package is not installed. Use the camera icon in "
            "each chart's toolbar to download a PNG from the browser."
        )
    path = find_browser()
    if path is None:
        return False, (
            "Static export is off: no Chrome or Chromium was found on this machine (set "
            "BROWSER_PATH or install chromium). Use the camera icon in each chart's toolbar to "
            "download a PNG from the browser."
        )
    return True, f"Static export uses the browser at {path}."


class ExportUnavailable(RuntimeError):
    """Static export cannot run here (no kaleido, no browser, or the browser failed)."""


class _Renderer:
    """One kaleido browser in a background event loop, shared by every session.

    kaleido's own sync server shares one return queue between callers and blocks forever if its
    thread dies; here every call is a future with a timeout, and a failed browser is replaced.
    """

    def __init__(self, browser: str, timeout: float) -> None:
        import kaleido

        self.timeout = timeout
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(
            target=self.loop.run_forever, daemon=True, name="clustlens-kaleido"
        )
        self.thread.start()

        async def _open() -> Any:
            k = kaleido.Kaleido(path=browser, mathjax=False, timeout=timeout, n=1)
            await k.open()
            return k

        try:
            self.k = asyncio.run_coroutine_threadsafe(_open(), self.loop).result(timeout + 30)
        except BaseException:
            self.loop.call_soon_threadsafe(self.loop.stop)
            raise

    def render(self, fig: Any, opts: dict[str, Any]) -> bytes:
        fut = asyncio.run_coroutine_threadsafe(self.k.calc_fig(fig, opts=opts), self.loop)
        return fut.result(self.timeout + 10)

    def close(self) -> None:
        try:
            asyncio.run_coroutine_threadsafe(self.k.close(), self.loop).result(15)
        except Exception:  # the browser may already be gone; nothing else to release
            pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(5)


_renderer: _Renderer | None = None
_renderer_lock = threading.Lock()


def _get_renderer(timeout: float) -> _Renderer:
    global _renderer
    if _renderer is None:
        ok, why = static_export_status()
        if not ok:
            raise ExportUnavailable(why)
        _renderer = _Renderer(find_browser() or "", timeout)
        atexit.register(close_renderer)
    return _renderer


def close_renderer() -> None:
    """Stop the shared browser (tests and shutdown)."""
    global _renderer
    with _renderer_lock:
        if _renderer is not None:
            _renderer.close()
            _renderer = None


#: Room (px) between an image's left edge and a title set flush left: on the page the title
#: lines up with the text above the chart, but an image has no page around it, and a title
#: against its very edge looked cut.
IMAGE_TITLE_PAD_PX = 12


def framed(fig: Any) -> Any:
    """The figure to render as an image: ``fig`` itself, or, when its title stands flush at the
    left edge (our figures: ``x = 0``, anchored left), a copy as a dict with the title (and the
    subtitle under it) moved :data:`IMAGE_TITLE_PAD_PX` in. Everything else is the figure the
    page draws.

    Examples
    --------
    >>> import plotly.graph_objects as go
    >>> framed(go.Figure(layout={"title": {"text": "t", "x": 0, "xanchor": "left"}}))[
    ...     "layout"]["title"]["pad"]
    {'l': 12}
    >>> framed(go.Figure(layout={"title": {"text": "t", "x": 0.5}})).layout.title.pad.l is None
    True
    """
    title = fig.layout.title
    if not (title and title.text) or (title.x or 0) != 0 or title.xanchor not in ("left", None):
        return fig
    spec = fig.to_dict()  # a copy: built figures are shared (dashboard.figures._memo)
    pad = spec["layout"]["title"].setdefault("pad", {})
    pad["l"] = max(pad.get("l") or 0, IMAGE_TITLE_PAD_PX)
    return spec


def figure_bytes(
    fig: Any,
    fmt: str = "png",
    *,
    width: int = 1000,
    height: int | None = None,
    scale: float = 2.0,
    timeout: float = 60.0,
) -> bytes:
    """The figure as PNG, SVG or PDF bytes (PNG at ``scale``× for print), via the system
    browser.

    Raises :class:`ExportUnavailable` with a plain reason when it cannot run.
    """
    if fmt not in ("png", "svg", "pdf"):
        raise ValueError("fmt must be 'png', 'svg' or 'pdf'")
    h = height or int(fig.layout.height or 520)
    opts = {"format": fmt, "width": int(width), "height": h, "scale": float(scale)}
    spec = framed(fig)
    global _renderer
    with _renderer_lock:
        for attempt in (1, 2):
            try:
                return _get_renderer(timeout).render(spec, opts)
            except ExportUnavailable:
                raise
            except Exception as exc:  # the browser died or timed out: start a fresh one once
                if _renderer is not None:
                    _renderer.close()
                    _renderer = None
                if attempt == 2:
                    raise ExportUnavailable(
                        f"Static export failed ({type(exc).__name__}); use the camera icon in "
                        "the chart's toolbar to download a PNG from the browser."
                    ) from exc
    raise AssertionError("unreachable")


# ------------------------------------------------------------------------- Streamlit glue
def export_rows(
    results: Mapping[str, Mapping[str, Any]], context: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """One flat row per prediction: context (input names, conventions) then every metric."""
    rows = []
    for name, metrics in results.items():
        row: dict[str, Any] = {"prediction": name}
        row.update(context)
        row.update(metrics)
        rows.append({k: escape_cell(v) for k, v in row.items()})
    return rows
