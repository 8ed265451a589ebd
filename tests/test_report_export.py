"""The HTML report (one file, plotly.js once, no network loads, user strings escaped), table
exports (CSV formula-escaping, JSON, LaTeX booktabs), static figure export and
``clustlens report``."""

from __future__ import annotations

import argparse
import hashlib
import json
import re

import numpy as np
import plotly.offline
import pytest

from dashboard.analysis.conventions import Conventions
from dashboard.analysis.objects import analyse
from dashboard.cli import _report as cli_report
from dashboard.figures.panels import report_figures
from dashboard.outputs import export, report
from dashboard.ui import presentation
from metrics_core import evaluation

PLOTLY_JS = plotly.offline.get_plotlyjs()
# anything the browser would fetch: src/href/url()/@import to http(s) or protocol-relative
LOADS = re.compile(
    r"""(?:\bsrc|\bhref)\s*=\s*["']?\s*(?:https?:)?//|url\(\s*["']?(?:https?:)?//|@import""", re.I
)


@pytest.fixture(scope="module")
def small_inputs():
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(3), 12)
    p = y.copy()
    p[:4] = 1
    p[-3:] = 3
    c = np.abs(rng.normal(size=(36, 36))) * (y[:, None] == y[None, :]) + 0.05
    np.fill_diagonal(c, 0)
    return y, p, c


def _outside_plotly_js(html_text: str) -> str:
    assert html_text.count(PLOTLY_JS) == 1
    return html_text.replace(PLOTLY_JS, "")


def test_report_is_one_offline_file_with_plotlyjs_once(small_inputs):
    y, p, c = small_inputs
    evil = '<img src=x onerror="alert(1)">=cmd.txt'
    a = analyse(y, {evil: p}, c, Conventions())
    figs = report_figures(a)
    assert len(figs) == 7  # contingency, flow, pairs, affinity, CONN, SRE, leakage
    html_text = report.analysis_report(
        a, inputs=[report.input_info("prediction", evil, b"0\n1\n")], title="demo <b>report</b>"
    )
    assert html_text.startswith("<!DOCTYPE html>")
    rest = _outside_plotly_js(html_text)
    assert rest.count("plotly.js v") == 0  # no second copy
    assert not LOADS.search(rest), LOADS.search(rest)
    assert "<link" not in rest.lower()
    assert not re.search(r"<script[^>]*\ssrc\s*=", html_text, re.I)
    assert "Content-Security-Policy" in rest and "default-src 'none'" in rest
    # every figure is drawn by Plotly.newPlot from inline data
    assert rest.count("Plotly.newPlot(") == len(figs)
    # user strings escaped; the SHA-256 and versions present
    assert "<img src=x" not in html_text and "&lt;img src=x" in rest
    assert "&lt;b&gt;report&lt;/b&gt;" in rest
    assert hashlib.sha256(b"0\n1\n").hexdigest() in rest
    assert f"clustlens {report.versions()['clustlens']}" in rest
    # the metric table carries formulas and conventions from the catalogue
    assert "optimal one-to-one matching (solved exactly)" in rest
    assert "unordered pairs" in rest


def test_csv_escapes_formulas_and_keeps_numbers():
    rows = [
        {"label": '=HYPERLINK("http://x")', "acc": 0.5},
        {"label": "+1", "acc": -0.25},
        {"label": "@SUM(A1)", "acc": float("nan")},
        {"label": "\tx", "acc": 1},
        {"label": "plain", "acc": np.float64(0.75)},
    ]
    text = export.to_csv(rows)
    lines = text.splitlines()
    assert lines[0] == "label,acc"
    assert lines[1].startswith("'=HYPERLINK") or lines[1].startswith("\"'=HYPERLINK")
    assert lines[2] == "'+1,-0.25"  # a negative number stays a number
    assert lines[3] == "'@SUM(A1),"
    assert lines[4].startswith("'\tx") or lines[4].startswith("\"'\tx")
    assert lines[5] == "plain,0.75"
    for line in lines[1:]:
        assert not line.lstrip('"').startswith(("=", "+", "@", "\t"))


def test_json_export_escapes_strings_and_writes_nan_as_null():
    payload = json.loads(export.to_json({"=name": "-cmd", "v": float("nan"), "a": np.arange(2)}))
    assert payload == {"'=name": "'-cmd", "v": None, "a": [0, 1]}


def test_latex_mean_std_is_compile_shaped_with_best_in_bold():
    results = {
        "SSC_&_50%": [{"acc": 0.81, "ari": 0.62, "clustering_error": 0.19}] * 2
        + [{"acc": 0.83, "ari": 0.60, "clustering_error": 0.17}],
        "LSR {v2} #1 ~x^2 \\ok": [{"acc": 0.90, "ari": 0.55, "clustering_error": 0.10}],
    }
    keys = ["acc", "ari", "clustering_error"]
    tex, rows = evaluation.mean_std_table(results, keys, caption="Results on 50% of $data")
    assert evaluation.braces_balanced(tex)
    lines = tex.splitlines()
    for rule in (r"\toprule", r"\midrule", r"\bottomrule"):
        assert lines.count(rule) == 1
    assert lines.index(r"\toprule") < lines.index(r"\midrule") < lines.index(r"\bottomrule")
    assert tex.count(r"\begin{tabular}") == tex.count(r"\end{tabular}") == 1
    body = lines[lines.index(r"\midrule") + 1 : lines.index(r"\bottomrule")]
    assert len(body) == 2 and all(b.endswith(r"\\") and b.count(" & ") == 3 for b in body)
    ssc, lsr = body
    assert ssc.startswith(r"SSC\_\&\_50\% & ")
    assert r"LSR \{v2\} \#1 \textasciitilde{}x\textasciicircum{}2 \textbackslash{}ok" in lsr
    # best per column: acc and error (lower is better) for LSR, ari for SSC
    assert r"\textbf{0.900 $\pm$ 0.000}" in lsr and r"\textbf{0.100 $\pm$ 0.000}" in lsr
    assert r"\textbf{0.613 $\pm$ 0.012}" in ssc
    assert r"\caption{Results on 50\% of \$data}" in tex
    assert rows[0]["acc_mean"] == pytest.approx(0.8166666666666667)
    # no stray unescaped specials outside our own markup
    stripped = re.sub(r"\\[a-zA-Z]+|\\[&%$#_{}]|\$\\pm\$", "", tex)
    assert not re.search(r"[&%#_]", stripped.replace(" & ", "  "))


def test_single_run_latex_marks_the_best_prediction():
    tex = evaluation.metrics_latex({"a": {"acc": 0.7, "ari": 0.2}, "b": {"acc": 0.8, "ari": 0.1}},
                               ["acc", "ari"])  # fmt: skip
    assert r"b & \textbf{0.800} & 0.100 \\" in tex and r"a & 0.700 & \textbf{0.200} \\" in tex
    assert evaluation.braces_balanced(tex)


def test_presentation_css_and_dark_figures():
    css = presentation.css(presentation.Settings(on=True, theme="dark", font_scale=1.5))
    assert 'data-testid="stSidebar"' in css and "display: none" in css
    assert "24.0px" in css  # 16 px x 1.5
    from dashboard.figures.contingency import contingency_heatmap

    fig = contingency_heatmap(np.array([[1, 2], [3, 4]]), ["a", "b"], ["1", "2"])
    out = presentation.style_figure(fig, presentation.Settings(on=True, theme="dark"))
    low = out.data[0].colorscale[0][1]
    assert presentation._lightness(low) < 0.3  # "zero" is dark on a dark page
    off = presentation.css(presentation.Settings(on=False))
    assert "stSidebar" not in off and "stCaptionContainer" in off  # only the readability rules


def _args(tmp_path, **kw):
    ns = argparse.ArgumentParser()
    sub = ns.add_subparsers()
    cli_report.register(sub)
    argv = ["report", "--out", str(kw.pop("out", tmp_path / "r.html")), "--quiet"]
    for k, v in kw.items():
        for item in v if isinstance(v, list) else [v]:
            argv += [f"--{k.replace('_', '-')}", str(item)]
    return ns.parse_args(argv)


def test_cli_report_writes_the_file(tmp_path, small_inputs):
    y, p, c = small_inputs
    (tmp_path / "y.txt").write_text("\n".join(map(str, y)))
    (tmp_path / "p.txt").write_text("\n".join(map(str, p)))
    np.save(tmp_path / "C.npy", c)
    args = _args(
        tmp_path, true=tmp_path / "y.txt", pred=[tmp_path / "p.txt"], coef=tmp_path / "C.npy"
    )
    assert args.func(args) == 0
    html_text = (tmp_path / "r.html").read_text(encoding="utf-8")
    rest = _outside_plotly_js(html_text)
    assert not LOADS.search(rest)
    assert hashlib.sha256((tmp_path / "C.npy").read_bytes()).hexdigest() in rest
    assert "SRE" in rest and rest.count("Plotly.newPlot(") >= 6
    assert not (tmp_path / "r.html.part").exists()


def test_cli_report_exits_2_on_bad_input(tmp_path, small_inputs, capsys):
    y, p, _ = small_inputs
    (tmp_path / "y.txt").write_text("\n".join(map(str, y)))
    (tmp_path / "short.txt").write_text("\n".join(map(str, p[:-1])))
    np.save(tmp_path / "C.npy", np.zeros((5, 5)))
    bad = [
        _args(tmp_path, true=tmp_path / "missing.txt", pred=[tmp_path / "y.txt"]),
        _args(tmp_path, true=tmp_path / "y.txt", pred=[tmp_path / "short.txt"]),
        _args(tmp_path, true=tmp_path / "y.txt", pred=[tmp_path / "y.txt"],
              coef=tmp_path / "C.npy"),
        _args(tmp_path, true=tmp_path / "y.txt", pred=[tmp_path / "y.txt"],
              out=tmp_path / "nodir" / "r.html"),
    ]  # fmt: skip
    from dashboard.cli import main

    for a in bad:
        argv = ["report", "--out", a.out, "--quiet", "--true", a.true]
        argv += [x for p in a.pred for x in ("--pred", p)]
        argv += ["--coef", a.coef] if a.coef else []
        assert main(argv) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.count("clustlens: error:") == len(bad)
    assert not (tmp_path / "r.html").exists()


@pytest.mark.slow
def test_static_export_png_and_svg_with_the_system_browser():
    ok, why = export.static_export_status()
    if not ok:
        pytest.skip(why)
    from dashboard.figures.pairs import pair_confusion_matrix

    fig = pair_confusion_matrix(10, 2, 3, 40)
    try:
        png = export.figure_bytes(fig, "png", width=600, height=400, scale=1)
        svg = export.figure_bytes(fig, "svg", width=600, height=400)
    finally:
        export.close_renderer()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 5_000
    assert svg.lstrip().startswith(b"<svg") and b"same class" in svg
