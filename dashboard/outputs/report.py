"""A self-contained HTML report of one analysis: metrics with their conventions, every figure
interactive, the inputs' names and SHA-256, versions and date — one file that opens offline.

UI-free. plotly.js is embedded once (``plotly.offline.get_plotlyjs()``) and each figure is a
``fig.to_html(full_html=False, include_plotlyjs=False)`` fragment. A Content-Security-Policy
meta tag forbids every network load (scripts, styles, images, fonts, fetches), so the report
cannot phone home even if a future plotly.js tried to. Every user string (file names, labels,
prediction names, title) goes through ``html.escape``; figure JSON is escaped by plotly.

:func:`analysis_report` writes the report of one analysis object with the figure builders the
pages use (:mod:`dashboard.figures.panels`), for ``clustlens report`` and the dashboard's
download button alike.

Examples
--------
>>> html_text = build_report({"run": {"acc": 0.88}}, figures=[], inputs=[], title="<demo>")
>>> html_text.count("<script"), "&lt;demo&gt;" in html_text  # plotly.js and the metrics JSON
(2, True)
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import html
import importlib.metadata
import json
import math
import platform
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import plotly.graph_objects as go
import plotly.offline

import metrics_core as mc
from dashboard.analysis.objects import Analysis
from dashboard.figures._style import TEMPLATE
from dashboard.figures.panels import report_figures
from metrics_core.diagnosis import CAUSE_WORDS, pair_view, verdict

CSP = (
    "default-src 'none'; script-src 'unsafe-inline' 'unsafe-eval'; "
    "style-src 'unsafe-inline'; img-src data: blob:; font-src data:; connect-src 'none'; "
    "worker-src blob:; base-uri 'none'; form-action 'none'"
)
PLOTLY_CONFIG = {"displaylogo": False, "responsive": True, "toImageButtonOptions": {"scale": 2}}
_VERSION_PACKAGES = ("numpy", "scipy", "pandas", "plotly", "streamlit", "kaleido")


@dataclass(frozen=True)
class InputInfo:
    """One input file as the report names it."""

    role: str
    name: str
    sha256: str
    n_bytes: int
    detail: str = ""


def input_info(role: str, name: str, data: bytes, detail: str = "") -> InputInfo:
    """:class:`InputInfo` of raw bytes (SHA-256 computed here).

    Examples
    --------
    >>> input_info("truth", "y.txt", b"1\\n").sha256[:12]
    '4355a46b19d3'
    """
    return InputInfo(role, name, hashlib.sha256(data).hexdigest(), len(data), detail)


def versions() -> dict[str, str]:
    """clustlens, Python and library versions."""
    out = {}
    try:
        out["clustlens"] = importlib.metadata.version("clustlens")
    except importlib.metadata.PackageNotFoundError:
        out["clustlens"] = getattr(mc, "__version__", "unknown")
    out["python"] = platform.python_version()
    for p in _VERSION_PACKAGES:
        try:
            out[p] = importlib.metadata.version(p)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def _e(x: object) -> str:
    return html.escape(str(x), quote=True)


def _fmt(v: Any) -> str:
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}"
    if isinstance(v, float):
        return "n/a" if not math.isfinite(v) else f"{v:.4f}"
    return _e(v)


def _bounds(info: mc.MetricInfo) -> str:
    lo, hi = info.bounds
    return f"[{'−∞' if lo is None else lo}, {'∞' if hi is None else hi}]"


_DIRECTION = {"higher": "↑ higher is better", "lower": "↓ lower is better", "info": "count/info"}


def metrics_table_html(results: Mapping[str, Mapping[str, Any]]) -> str:
    """The catalogue joined with the values: one row per metric, one value column per run."""
    names = list(results)
    head = "".join(f"<th class='num'>{_e(n)}</th>" for n in names)
    parts = []
    family = None
    cols = 5 + len(names)
    for info in mc.METRICS:
        if not any(info.key in results[n] for n in names):
            continue
        if info.family != family:
            family = info.family
            parts.append(f"<tr class='family'><th colspan='{cols}'>{_e(family)}</th></tr>")
        vals = "".join(f"<td class='num'>{_fmt(results[n].get(info.key, ''))}</td>" for n in names)
        parts.append(
            f"<tr><td>{_e(info.name)}<div class='key'>{_e(info.key)}</div></td>{vals}"
            f"<td class='formula'>{_e(info.formula)}</td><td>{_e(_bounds(info))}</td>"
            f"<td>{_e(_DIRECTION.get(info.direction, info.direction))}</td>"
            f"<td>{_e(info.convention)}</td></tr>"
        )
    return (
        "<table class='metrics'><thead><tr><th>metric</th>"
        f"{head}<th>formula</th><th>range</th><th>direction</th><th>convention</th></tr></thead>"
        f"<tbody>{''.join(parts)}</tbody></table>"
    )


def metrics_json_html(results: Mapping[str, Mapping[str, Any]]) -> str:
    """The exact metric values as JSON, for scripts reading the report (a data block the
    browser never executes; NaN as null)."""
    clean = {
        str(name): {
            str(k): (None if isinstance(v, float) and not math.isfinite(v) else v)
            for k, v in ((k, v.item() if isinstance(v, np.generic) else v) for k, v in m.items())
            if isinstance(v, (int, float, str, bool))
        }
        for name, m in results.items()
    }
    # as plotly does for its figure JSON: no character that HTML could read as markup
    text = (
        json.dumps(clean, allow_nan=False)
        .replace("<", "\\u003c")
        .replace(">", "\\u003e")
        .replace("&", "\\u0026")
    )
    return f"<script type='application/json' id='clustlens-metrics'>{text}</script>"


def report_figure(fig: go.Figure) -> go.Figure:
    """A copy of ``fig`` for the report: the dashboard's light template, no title of its own.

    The report's caption above each figure already names it, so the Plotly title (nearly the
    same words) is dropped; a subtitle (a note such as "pooled for display ...") is kept as a
    small title line. The top margin shrinks by the space the title took.
    """
    f = go.Figure(fig)
    f.update_layout(template=TEMPLATE)
    title = f.layout.title
    if title is not None and title.text:
        sub = title.subtitle.text if title.subtitle is not None else None
        if not sub and "<br>" in title.text:  # "title<br><sup>note</sup>": keep the note
            sub = title.text.split("<br>", 1)[1]
        top = f.layout.margin.t if f.layout.margin.t is not None else 60
        if sub:
            f.update_layout(
                title={
                    "text": sub,
                    "font": {"size": 13, "color": "#4b5563"},
                    "subtitle": {"text": ""},
                },
                margin={"t": max(top - 40, 30)},
            )
        else:
            f.update_layout(title={"text": ""}, margin={"t": max(top - 45, 15)})
    return f


def figure_html(fig: go.Figure) -> str:
    """One interactive figure fragment (no plotly.js, no MathJax), styled for the report."""
    fig = report_figure(fig)
    height = fig.layout.height or 520
    return fig.to_html(
        full_html=False,
        include_plotlyjs=False,
        include_mathjax=False,
        config=PLOTLY_CONFIG,
        default_width="100%",
        default_height=f"{int(height)}px",
    )


_STYLE = """
:root { color-scheme: light; }
body { font-family: Inter, "Source Sans Pro", "Segoe UI", Arial, sans-serif; font-size: 16px;
       color: #1f2937; margin: 0 auto; max-width: 1200px; padding: 24px 32px 64px; }
h1 { font-size: 30px; margin-bottom: 4px; } h2 { font-size: 22px; margin-top: 40px;
     border-bottom: 1px solid #e5e7eb; padding-bottom: 6px; } h3 { font-size: 18px; }
table { border-collapse: collapse; width: 100%; margin: 12px 0; font-size: 14px; }
th, td { border-bottom: 1px solid #e5e7eb; padding: 6px 8px; text-align: left;
         vertical-align: top; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
tr.family th { background: #f3f4f6; font-size: 15px; }
td.formula, code, .mono { font-family: "JetBrains Mono", Consolas, Menlo, monospace;
                          font-size: 13px; }
.key { color: #6b7280; font-size: 12px; font-family: Consolas, Menlo, monospace; }
.meta { color: #4b5563; } .hash { font-family: Consolas, Menlo, monospace; font-size: 12px;
        word-break: break-all; }
figure { margin: 16px 0 32px; } figcaption { font-weight: 600; margin-bottom: 4px; }
.notes li { margin: 4px 0; }
@media print { figure { break-inside: avoid; } }
"""


def build_report(
    results: Mapping[str, Mapping[str, Any]],
    *,
    figures: Sequence[tuple[str, go.Figure]] = (),
    inputs: Sequence[InputInfo] = (),
    conventions: Mapping[str, Any] | None = None,
    notes: Sequence[str] = (),
    title: str = "clustlens report",
    created: _dt.datetime | None = None,
    findings: Sequence[Mapping[str, Any]] | None = None,
    uncertainty: Mapping[str, Any] | None = None,
    active: str | None = None,
) -> str:
    """The whole report as one HTML string.

    ``uncertainty`` (:func:`dashboard.analysis.objects.uncertainty`) adds "Is it a real
    difference?": bootstrap intervals, permutation p-values and the paired difference.

    ``findings`` (the diagnosis of the active prediction, :func:`metrics_core.diagnosis.diagnose`
    as dicts) adds "What went wrong, and why" after the metrics: the verdict, the findings and,
    given the ``active`` prediction's name, what its pair scores make of them.

    ``results`` maps a prediction name to its ``evaluate`` dict; ``figures`` are (caption,
    figure) pairs; ``conventions`` are the switches in force (NMI normaliser, noise policy, C
    orientation, preset); ``notes`` are extra plain-text lines (e.g. normalisation notes).
    """
    created = created or _dt.datetime.now(_dt.UTC)
    stamp = created.strftime("%Y-%m-%d %H:%M:%S %Z").strip()
    vers = versions()
    conv = dict(conventions or {})
    conv_rows = "".join(f"<tr><th>{_e(k)}</th><td>{_e(v)}</td></tr>" for k, v in conv.items())
    input_rows = "".join(
        f"<tr><td>{_e(i.role)}</td><td>{_e(i.name)}</td><td class='num'>{i.n_bytes:,}</td>"
        f"<td class='hash'>{_e(i.sha256)}</td><td>{_e(i.detail)}</td></tr>"
        for i in inputs
    )
    version_txt = ", ".join(f"{_e(k)} {_e(v)}" for k, v in vers.items())
    fig_parts = "".join(
        f"<figure><figcaption>{_e(cap)}</figcaption>{figure_html(fig)}</figure>"
        for cap, fig in figures
    )
    note_items = "".join(f"<li>{_e(n)}</li>" for n in notes)
    finding_items = "".join(
        f"<li><b>{_e(f['kind'])}</b> · {f['points']:,} point{'s' if f['points'] != 1 else ''}"
        f" · <i>{_e(CAUSE_WORDS.get(f['cause'], f['cause']))}</i> — {_e(f['text'])}</li>"
        for f in findings or []
    )
    body = [
        f"<h1>{_e(title)}</h1>",
        f"<p class='meta'>Created {_e(stamp)} with clustlens {_e(vers['clustlens'])}. "
        "Opens offline: everything needed to draw the figures is inside this file.</p>",
        "<h2>Inputs</h2>",
        "<table><thead><tr><th>role</th><th>name</th><th class='num'>bytes</th>"
        f"<th>SHA-256</th><th>detail</th></tr></thead><tbody>{input_rows}</tbody></table>"
        if inputs
        else "<p>No input files (table or example data).</p>",
        "<h2>Conventions</h2>",
        f"<table><tbody>{conv_rows}</tbody></table>" if conv else "<p>Documented defaults.</p>",
        "<h2>Metrics</h2>",
        metrics_table_html(results),
    ]
    if findings is not None:
        body += [
            "<h2>What went wrong, and why</h2>",
            f"<p><b>{_e(verdict(findings))}</b></p>",
            f"<ol class='notes'>{finding_items}</ol>" if finding_items else "",
        ]
        m = results.get(active or "", {})
        if finding_items and "pair_fp" in m:
            body += [
                "<p>"
                + " ".join(_e(x) for x in pair_view(findings, m["pair_fp"], m["pair_fn"]))
                + "</p>"
            ]
    if uncertainty is not None:
        body += uncertainty_html(uncertainty)
    if note_items:
        body += ["<h2>Notes</h2>", f"<ul class='notes'>{note_items}</ul>"]
    if figures:
        body += [
            "<h2>Figures</h2>",
            "<p class='meta'>Interactive: hover, zoom, "
            "double-click to reset; the camera icon saves a PNG.</p>",
            fig_parts,
        ]
    body += ["<h2>Versions</h2>", f"<p class='mono'>{version_txt}</p>"]
    body.append(metrics_json_html(results))
    return (
        "<!DOCTYPE html>\n<html lang='en'><head><meta charset='utf-8'>"
        f"<meta http-equiv='Content-Security-Policy' content=\"{CSP}\">"
        "<meta name='viewport' content='width=device-width, initial-scale=1'>"
        f"<title>{_e(title)}</title><style>{_STYLE}</style>"
        f"<script type='text/javascript'>{plotly.offline.get_plotlyjs()}</script>"
        f"</head><body>{''.join(body)}</body></html>\n"
    )


def uncertainty_html(u: Mapping[str, Any]) -> list[str]:
    """The "Is it a real difference?" section: one table per comparison, method stated."""
    from metrics_core.evaluation import column_label

    def table(rows, head, fmt_value) -> str:
        cells = "".join(
            f"<tr><td>{_e(column_label(r['metric']))}</td>"
            f"<td class='num'>{fmt_value(r['value'])}</td>"
            f"<td class='num'>[{fmt_value(r['low'])}, {fmt_value(r['high'])}]</td>"
            f"<td class='num'>{r['p_value']:.3g}</td></tr>"
            for r in rows
        )
        return (
            f"<table><thead><tr><th>metric</th><th class='num'>{_e(head[0])}</th>"
            f"<th class='num'>95% interval</th><th class='num'>{_e(head[1])}</th></tr></thead>"
            f"<tbody>{cells}</tbody></table>"
        )

    out = [
        "<h2>Is it a real difference?</h2>",
        table(u["rows"], ("value", "p vs chance"), lambda v: f"{v:.4f}"),
        f"<p class='meta'>{_e(u['method'])}</p>",
    ]
    if "paired" in u:
        out += [
            f"<h3>Paired difference: {_e(u.get('other', 'other'))} minus this prediction</h3>",
            table(u["paired"], ("difference", "p (no difference)"), lambda v: f"{v:+.4f}"),
            f"<p class='meta'>{_e(u['paired_method'])}</p>",
        ]
    return out


# ------------------------------------------------------------------------- one analysis
def analysis_report(
    analysis: Analysis,
    *,
    inputs: Sequence[InputInfo] = (),
    title: str = "clustlens report",
    created: _dt.datetime | None = None,
) -> str:
    """The report of one :class:`~dashboard.analysis.objects.Analysis`.

    The metric table and every figure come from the same analysis object, through the same
    builders as the pages (:mod:`dashboard.figures.panels`), so they cannot disagree. Used by
    the dashboard's download and by ``clustlens report`` alike.
    """
    notes = list(analysis.notes)
    if len(analysis.results) > 1:
        notes.insert(0, f"figures are drawn for the prediction {analysis.active}")
    return build_report(
        analysis.results,
        findings=analysis.diagnosis,
        active=analysis.active,
        uncertainty=analysis.uncertainty,
        figures=report_figures(analysis),
        inputs=inputs,
        conventions=analysis.conventions.table(),
        notes=notes,
        title=title,
        created=created,
    )
