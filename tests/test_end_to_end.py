"""The same number from every surface: page, report table, report figure, the CLI.

For the documented defaults and every SRE/CONN preset, on the demo (sparse C):
Summary page value (AppTest, preset picked in the page's own widget) == the report the Summary
page offers == ``clustlens report --preset`` (its metric table, exact JSON block, and its per-class
CONN figure) == ``clustlens evaluate --preset --json``. And a sparse C is never densified on the
way to a report.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from html_tables import static_tables
from streamlit.testing.v1 import AppTest

import metrics_core as mc
from dashboard.cli import main as cli

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "demo_data"
APP = ROOT / "dashboard" / "app.py"
TRUE, PRED, COEF = (DEMO / f for f in ("demo_true.txt", "demo_pred_run1.txt", "demo_coef.npz"))
PRESETS = [None, *sorted(mc.AFFINITY_PRESETS)]
KEYS = ("sre", "conn_min", "conn_mean", "acc", "nmi", "ari")


def _cli_json(preset: str | None, capsys) -> dict:
    args = ["evaluate", "--true", str(TRUE), "--pred", str(PRED), "--coef", str(COEF), "--json"]
    assert cli([*args, *(["--preset", preset] if preset else [])]) == 0
    return json.loads(capsys.readouterr().out)


def _report_file(preset: str | None, tmp_path: Path) -> str:
    out = tmp_path / f"r_{preset}.html"
    args = ["report", "--true", str(TRUE), "--pred", str(PRED), "--coef", str(COEF)]
    args += ["--out", str(out), "--quiet", *(["--preset", preset] if preset else [])]
    assert cli(args) == 0
    return out.read_text(encoding="utf-8")


def report_metrics(html_text: str) -> dict:
    """The exact values of the report's metric JSON block (one prediction)."""
    m = re.search(
        r"<script type='application/json' id='clustlens-metrics'>(.*?)</script>", html_text
    )
    assert m, "the report has no metrics block"
    by_prediction = json.loads(m.group(1))
    (name,) = [k for k in by_prediction if k.endswith(PRED.name)]
    return by_prediction[name]


def report_table_value(html_text: str, key: str) -> float:
    """The value the report's metric TABLE prints (4 decimals) for ``key`` (first column: the
    prediction the figures are drawn for)."""
    m = re.search(rf"<div class='key'>{key}</div></td><td class='num'>([^<]+)</td>", html_text)
    assert m, key
    return float(m.group(1).replace(",", ""))


def _decode(y) -> np.ndarray:
    if isinstance(y, dict) and "bdata" in y:  # plotly >= 6 sends numpy arrays as typed arrays
        return np.frombuffer(base64.b64decode(y["bdata"]), dtype=np.dtype(y["dtype"]))
    return np.asarray(y, dtype=float)


def report_figure_traces(html_text: str, caption: str) -> list[dict]:
    """The Plotly traces of the report figure under ``caption``."""
    start = html_text.index(f"<figcaption>{caption}</figcaption>")
    call = re.compile(r'Plotly\.newPlot\(\s*"[^"]*",\s*').search(html_text, start)
    assert call, caption
    traces, _ = json.JSONDecoder().raw_decode(html_text, call.end())
    return traces


def conn_figure_values(html_text: str) -> np.ndarray:
    traces = report_figure_traces(html_text, "Connectivity per class (λ2)")
    bars = [t for t in traces if t.get("type") == "bar"]
    return np.concatenate([_decode(t["y"]) for t in bars])


def _page(preset: str | None) -> tuple[dict, str]:
    """(metric values shown in the Summary table, the report the page offers) for ``preset``."""
    from dashboard.compute import evaluation as compute
    from dashboard.session.state import K_PRESET, NO_PRESET

    at = AppTest.from_file(str(APP), default_timeout=90).run()
    at.session_state["summary_conventions_open"] = True  # its switches are built when open
    at.run()
    at.selectbox(key=K_PRESET).set_value(preset or NO_PRESET).run()
    assert not at.exception, at.exception
    shown = {}
    for df in static_tables(at):
        if "formula" not in df.columns:  # the catalogue's tables, not the predictions' table
            continue
        for _, row in df.iterrows():
            shown[str(row["metric"])] = str(row["value"])
    s = at.session_state["clustlens"]
    conv = at.session_state  # the page's own widgets decide the conventions
    from dashboard.analysis.conventions import Conventions

    c = Conventions(
        average_method=conv["conv_average_method"],
        noise_policy=conv["conv_noise_policy"],
        preset=None if conv[K_PRESET] == NO_PRESET else conv[K_PRESET],
        orientation=conv["coef_orientation"],
    )
    html_text = compute.report_html(s.truth, s.preds, s.preds[0], s.coef, c)
    return shown, html_text


@pytest.mark.parametrize("preset", PRESETS, ids=lambda p: p or "default")
def test_every_surface_shows_the_same_numbers(preset, tmp_path, capsys) -> None:
    cli_values = _cli_json(preset, capsys)
    from_file = _report_file(preset, tmp_path)
    shown, from_page = _page(preset)
    names = {i.key: i.name for i in mc.METRICS}
    for html_text in (from_file, from_page):
        exact = report_metrics(html_text)
        for key in KEYS:
            assert exact[key] == pytest.approx(cli_values[key], abs=1e-12), key
            assert report_table_value(html_text, key) == pytest.approx(cli_values[key], abs=6e-5)
            assert float(shown[names[key]]) == pytest.approx(cli_values[key], abs=6e-5), key
        per_class = conn_figure_values(html_text)
        assert np.nanmin(per_class) == pytest.approx(cli_values["conn_min"], abs=1e-12)
        assert np.nanmean(per_class) == pytest.approx(cli_values["conn_mean"], abs=1e-12)


def test_sparse_c_is_never_densified_on_the_way_to_a_report(monkeypatch, tmp_path) -> None:
    from dashboard.analysis.conventions import Conventions
    from dashboard.analysis.objects import analyse
    from dashboard.outputs import report

    n = 900  # above the display's cell limit: the affinity image is pooled
    rng = np.random.default_rng(0)
    y = np.repeat(np.arange(6), n // 6)
    c = sp.random(n, n, density=0.02, random_state=1, format="csr")
    pred = np.where(rng.random(n) < 0.9, y, (y + 1) % 6)

    def refuse(self, *args, **kwargs):
        if self.shape[0] >= n and self.shape[1] >= n:
            raise AssertionError(f"densified a {self.shape} sparse matrix")
        return original[type(self)](self, *args, **kwargs)

    original = {}
    for cls in (sp.csr_array, sp.csr_matrix, sp.csc_array, sp.csc_matrix, sp.coo_array):
        original[cls] = cls.toarray
        monkeypatch.setattr(cls, "toarray", refuse)
        monkeypatch.setattr(cls, "todense", refuse)
    for preset in PRESETS:
        a = analyse(y, {"run": pred}, c, Conventions(preset=preset))
        html_text = report.analysis_report(a)
        assert "Connectivity per class" in html_text
    with pytest.raises(AssertionError, match="densified"):
        c.toarray()  # the guard itself works
