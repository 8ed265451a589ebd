"""Exports that carry a result to collaborators and papers: figures as PNG/SVG, tables as CSV,
JSON and LaTeX (booktabs), several runs as mean ± std with the best per column in bold.

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
>>> latex_escape("50% of a_b & {c}")
'50\\\\% of a\\\\_b \\\\& \\\\{c\\\\}'
"""

from __future__ import annotations

import asyncio
import atexit
import csv
import io
import json
import math
import os
import shutil
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# ------------------------------------------------------------------------- CSV / JSON
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def escape_cell(value: Any) -> Any:
    """Neutralise spreadsheet formulas: a string starting with = + - @ tab or CR gets a leading '.

    Numbers stay numbers (a negative ARI is not text).
    """
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
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
            v = _plain(r.get(c, ""))
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
        x = _plain(x)
        return escape_cell(x)

    return json.dumps(clean(payload), indent=2, ensure_ascii=False, allow_nan=False)


# ------------------------------------------------------------------------- LaTeX
_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
# characters common in our own metric names that pdflatex does not take as raw UTF-8
_LATEX_UNICODE = {
    "±": r"$\pm$",
    "–": "--",
    "—": "---",
    "λ": r"$\lambda$",
    "²": r"$^2$",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "×": r"$\times$",
    "−": "-",
}


def latex_escape(text: object) -> str:
    """Escape LaTeX's special characters so any string prints literally in a tabular cell.

    Newlines become spaces; control characters are dropped.
    """
    out = []
    for ch in str(text):
        if ch in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[ch])
        elif ch in _LATEX_UNICODE:
            out.append(_LATEX_UNICODE[ch])
        elif ch in "\r\n\t":
            out.append(" ")
        elif ord(ch) < 32 or ord(ch) == 127:
            continue
        else:
            out.append(ch)
    return "".join(out)


def _fmt(v: Any, digits: int) -> str:
    v = _plain(v)
    if v is None or v == "":
        return "--"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}".replace(",", "{,}")
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return latex_escape(v)


def to_latex(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str],
    *,
    headers: Mapping[str, str] | None = None,
    digits: int = 3,
    bold: Mapping[str, set[int]] | None = None,
    caption: str | None = None,
    label: str | None = None,
) -> str:
    r"""A booktabs ``table`` (``\toprule``/``\midrule``/``\bottomrule``), every cell escaped.

    ``bold`` maps a column to the row indices set in ``\textbf{}``. Needs ``\usepackage{booktabs}``.

    Examples
    --------
    >>> print(to_latex([{"method": "a_1", "acc": 0.8}], ["method", "acc"]))  # doctest: +ELLIPSIS
    \begin{table}[t]
    \centering
    \begin{tabular}{lr}
    \toprule
    method & acc \\
    \midrule
    a\_1 & 0.800 \\
    \bottomrule
    \end{tabular}
    \end{table}
    """
    headers = headers or {}
    bold = bold or {}
    aligns = []
    for c in columns:
        numeric = all(
            isinstance(_plain(r.get(c)), (int, float)) and not isinstance(r.get(c), bool)
            for r in rows
            if r.get(c) not in (None, "")
        )
        aligns.append("r" if numeric and rows else "l")
    lines = [r"\begin{table}[t]", r"\centering"]
    if caption:
        lines.append(r"\caption{" + latex_escape(caption) + "}")
    if label:
        lines.append(r"\label{" + "".join(ch for ch in label if ch.isalnum() or ch in ":-_.") + "}")
    lines += [r"\begin{tabular}{" + "".join(aligns) + "}", r"\toprule"]
    lines.append(" & ".join(latex_escape(headers.get(c, c)) for c in columns) + r" \\")
    lines.append(r"\midrule")
    for i, r in enumerate(rows):
        cells = []
        for c in columns:
            v = r.get(c, "")
            s = v if isinstance(v, LatexCell) else _fmt(v, digits)
            s = str(s)
            if i in bold.get(c, set()):
                s = r"\textbf{" + s + "}"
            cells.append(s)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)


class LatexCell(str):
    """A cell that is already LaTeX (our own markup, e.g. ``0.812 $\\pm$ 0.010``)."""


def best_rows(values: Sequence[float | None], direction: str) -> set[int]:
    """Indices of the best finite value(s) (ties all win); empty for direction ``"info"``.

    Examples
    --------
    >>> sorted(best_rows([0.5, 0.9, 0.9, None], "higher")), sorted(best_rows([3, 1], "lower"))
    ([1, 2], [1])
    """
    if direction not in ("higher", "lower"):
        return set()
    finite = [(i, float(v)) for i, v in enumerate(values) if v is not None and math.isfinite(v)]
    if not finite:
        return set()
    target = max(v for _, v in finite) if direction == "higher" else min(v for _, v in finite)
    return {i for i, v in finite if abs(v - target) <= 1e-12 * max(1.0, abs(target))}


@dataclass(frozen=True)
class MeanStd:
    """Mean and sample standard deviation (ddof = 1; 0 for one run) of one metric of one method."""

    mean: float
    std: float
    n: int


def mean_std(runs: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> dict[str, MeanStd]:
    """Per key, mean ± std over the runs that have a finite number for it.

    Examples
    --------
    >>> m = mean_std([{"acc": 0.8}, {"acc": 0.9}], ["acc"])["acc"]
    >>> round(m.mean, 6), round(m.std, 6), m.n
    (0.85, 0.070711, 2)
    """
    out = {}
    for k in keys:
        vals = np.array(
            [float(r[k]) for r in runs if isinstance(_plain(r.get(k)), (int, float))], dtype=float
        )
        vals = vals[np.isfinite(vals)]
        if vals.size:
            std = float(vals.std(ddof=1)) if vals.size > 1 else 0.0
            out[k] = MeanStd(float(vals.mean()), std, int(vals.size))
    return out


def mean_std_table(
    results: Mapping[str, Sequence[Mapping[str, Any]]],
    keys: Sequence[str],
    *,
    directions: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    digits: int = 3,
    caption: str | None = None,
    label: str | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    r"""LaTeX booktabs of mean ± std per method (rows) and metric (columns), best mean in bold.

    ``results`` maps a method name to its runs (each a metrics dict). ``directions`` says which
    side is better per key (default: ``metrics_core.METRICS``). Returns the LaTeX and the same
    numbers as rows (for CSV/JSON).

    Examples
    --------
    >>> tex, rows = mean_std_table({"A": [{"acc": 0.8}, {"acc": 0.9}], "B": [{"acc": 0.7}]},
    ...                            ["acc"])
    >>> [l for l in tex.splitlines() if "pm" in l]
    ['A & \\textbf{0.850 $\\pm$ 0.071} \\\\', 'B & 0.700 $\\pm$ 0.000 \\\\']
    """
    if directions is None:
        from metrics_core import METRICS_BY_KEY

        directions = {k: METRICS_BY_KEY[k].direction for k in keys if k in METRICS_BY_KEY}
    names = list(results)
    stats = {name: mean_std(runs, keys) for name, runs in results.items()}
    bold = {
        k: best_rows(
            [stats[n][k].mean if k in stats[n] else None for n in names],
            directions.get(k, "info"),
        )
        for k in keys
    }
    tex_rows: list[dict[str, Any]] = []
    plain_rows: list[dict[str, Any]] = []
    for n in names:
        tr: dict[str, Any] = {"method": n}
        pr: dict[str, Any] = {"method": n, "runs": len(results[n])}
        for k in keys:
            ms = stats[n].get(k)
            if ms is None:
                tr[k] = LatexCell("--")
                pr[f"{k}_mean"] = pr[f"{k}_std"] = None
            else:
                tr[k] = LatexCell(f"{ms.mean:.{digits}f} $\\pm$ {ms.std:.{digits}f}")
                pr[f"{k}_mean"], pr[f"{k}_std"] = ms.mean, ms.std
        tex_rows.append(tr)
        plain_rows.append(pr)
    tex = to_latex(
        tex_rows,
        ["method", *keys],
        headers=headers,
        digits=digits,
        bold=bold,
        caption=caption,
        label=label,
    )
    return tex, plain_rows


def metrics_latex(
    results: Mapping[str, Mapping[str, Any]],
    keys: Sequence[str],
    *,
    headers: Mapping[str, str] | None = None,
    digits: int = 3,
    caption: str | None = None,
) -> str:
    """One row per prediction (single runs), best value per column in bold."""
    from metrics_core import METRICS_BY_KEY

    names = list(results)
    rows = [{"method": n, **{k: results[n].get(k) for k in keys}} for n in names]
    bold = {
        k: best_rows(
            [_num(results[n].get(k)) for n in names],
            METRICS_BY_KEY[k].direction if k in METRICS_BY_KEY else "info",
        )
        for k in keys
    }
    return to_latex(
        rows, ["method", *keys], headers=headers, digits=digits, bold=bold, caption=caption
    )


def _num(v: Any) -> float | None:
    v = _plain(v)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def braces_balanced(tex: str) -> bool:
    r"""True when every unescaped ``{`` has its ``}`` (``\{``/``\}`` are literal braces).

    Examples
    --------
    >>> braces_balanced(r"\textbf{a\{b}"), braces_balanced(r"\textbf{a")
    (True, False)
    """
    depth = 0
    i = 0
    while i < len(tex):
        ch = tex[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0


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
    try:
        import kaleido  # noqa: F401
    except ImportError:
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


def figure_bytes(
    fig: Any,
    fmt: str = "png",
    *,
    width: int = 1000,
    height: int | None = None,
    scale: float = 2.0,
    timeout: float = 60.0,
) -> bytes:
    """The figure as PNG or SVG bytes (PNG at ``scale``× for print), via the system browser.

    Raises :class:`ExportUnavailable` with a plain reason when it cannot run.
    """
    if fmt not in ("png", "svg"):
        raise ValueError("fmt must be 'png' or 'svg'")
    h = height or int(fig.layout.height or 520)
    opts = {"format": fmt, "width": int(width), "height": h, "scale": float(scale)}
    global _renderer
    with _renderer_lock:
        for attempt in (1, 2):
            try:
                return _get_renderer(timeout).render(fig, opts)
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
