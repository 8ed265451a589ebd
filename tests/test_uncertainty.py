"""Bootstrap intervals and permutation p-values against a slow reference (scikit-learn and
scipy on every resample, the same random stream), plus the properties a reader relies on."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from html_tables import static_tables
from scipy.optimize import linear_sum_assignment
from sklearn import metrics as skm

from metrics_core.uncertainty import bootstrap_intervals, paired_difference

ROOT = Path(__file__).resolve().parents[1]


def _acc(t, p):
    _, ti = np.unique(t, return_inverse=True)
    _, pi = np.unique(p, return_inverse=True)
    table = np.zeros((ti.max() + 1, pi.max() + 1))
    np.add.at(table, (ti, pi), 1)
    r, c = linear_sum_assignment(-table)
    return table[r, c].sum() / len(t)


SLOW = {
    "acc": _acc,
    "ari": skm.adjusted_rand_score,
    "ami": skm.adjusted_mutual_info_score,
    "nmi": skm.normalized_mutual_info_score,
}


def _reference(t, p, n_boot, n_perm, seed):
    """The same procedure written plainly: one rng stream, indices, then permutations."""
    t, p = np.asarray(t), np.asarray(p)
    _, pi = np.unique(p, return_inverse=True)
    rng = np.random.default_rng(seed)
    obs = {m: f(t, p) for m, f in SLOW.items()}
    boot = {m: [] for m in SLOW}
    for _ in range(n_boot):
        idx = rng.integers(0, len(t), len(t))
        for m, f in SLOW.items():
            boot[m].append(f(t[idx], p[idx]))
    exceed = {m: 0 for m in SLOW}
    for _ in range(n_perm):
        q = rng.permutation(pi)
        for m, f in SLOW.items():
            exceed[m] += f(t, q) >= obs[m] - 1e-12
    out = {}
    for m in SLOW:
        lo, hi = np.quantile(boot[m], [0.025, 0.975])
        out[m] = (obs[m], lo, hi, (1 + exceed[m]) / (1 + n_perm))
    return out


@pytest.mark.parametrize("seed", [0, 3])
def test_bootstrap_and_permutation_equal_the_slow_reference(seed):
    rng = np.random.default_rng(10 + seed)
    t = rng.integers(0, 3, 30)
    p = np.where(rng.random(30) < 0.7, t, rng.integers(0, 4, 30))
    got = {r.metric: r for r in bootstrap_intervals(t, p, n_boot=60, n_perm=60, seed=seed)}
    want = _reference(t, p, 60, 60, seed)
    for m, (value, lo, hi, pval) in want.items():
        assert got[m].value == pytest.approx(value, abs=1e-9), m
        assert got[m].low == pytest.approx(lo, abs=1e-9), m
        assert got[m].high == pytest.approx(hi, abs=1e-9), m
        assert got[m].p_value == pytest.approx(pval, abs=1e-12), m


def test_chance_prediction_is_not_significant_and_perfect_one_is():
    rng = np.random.default_rng(0)
    t = np.repeat([0, 1, 2, 3], 25)
    noise = rng.permutation(t)
    r = {x.metric: x for x in bootstrap_intervals(t, noise, n_boot=100, n_perm=200)}
    assert r["ari"].p_value > 0.05 and r["ari"].low <= 0.0 + 0.05
    perfect = {x.metric: x for x in bootstrap_intervals(t, t, n_boot=50, n_perm=200)}
    assert perfect["ari"].p_value == pytest.approx(1 / 201)
    assert perfect["acc"].low == perfect["acc"].high == 1.0


def test_paired_difference_uses_the_same_draws_for_both():
    rng = np.random.default_rng(2)
    t = rng.integers(0, 3, 60)
    a = np.where(rng.random(60) < 0.8, t, (t + 1) % 3)
    same = paired_difference(t, a, a, n_boot=100)
    assert all(d.value == 0 and d.low == 0 and d.high == 0 and d.p_value == 1 for d in same)
    better = np.where(rng.random(60) < 0.95, t, (t + 1) % 3)
    d = {x.metric: x for x in paired_difference(t, a, better, n_boot=300)}
    assert d["acc"].value > 0 and d["acc"].low <= d["acc"].value <= d["acc"].high


def test_cli_uncertainty_json_is_reproducible():
    d = "demo_data/"
    cmd = [sys.executable, "-m", "metrics_core.cli", "evaluate", "--true", d + "demo_true.txt"]
    cmd += ["--pred", d + "demo_pred_run1.txt", "--uncertainty", "50", "--seed", "7", "--json"]
    one = json.loads(subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT).stdout)
    two = json.loads(subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT).stdout)
    assert one["uncertainty"] == two["uncertainty"]
    u = one["uncertainty"]
    assert u["seed"] == 7 and u["n_boot"] == 50 and "percentile bootstrap" in u["method"]
    assert [m["metric"] for m in u["metrics"]] == ["acc", "ari", "ami", "nmi"]
    bad = subprocess.run([*cmd[:4], "--contingency", d + "demo_true.txt", "--uncertainty", "5"],
                         capture_output=True, text=True, cwd=ROOT)  # fmt: skip
    assert bad.returncode == 2 and "--uncertainty" in bad.stderr


def test_summary_page_intervals_and_paired_difference_on_request():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=120)
    at.run()
    assert not at.exception
    assert "unc_n" not in [w.key for w in at.number_input]  # closed: not built
    at.session_state["summary_uncertainty_open"] = True  # the box is built when opened
    at.run()
    at.number_input(key="unc_n").set_value(100)
    at.selectbox(key="unc_other").set_value(at.selectbox(key="unc_other").options[1])
    at.button(key="unc_run").click().run()
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    # one static table each (ui.static_table), not st.table
    assert not at.table
    shown = [t for t in static_tables(at) if "95% interval" in t.columns]
    assert len(shown) == 2 and all((t != "").all(axis=None) for t in shown)  # every cell filled
    assert all(v.startswith(("+", "-")) for v in shown[1].iloc[:, 1])  # paired: B − A, signed
    text = " ".join(" ".join(t.columns) + str(t.values) for t in static_tables(at))
    assert "95% interval" in text and "p vs chance" in text and "p (no difference)" in text
    notes = " ".join(c.value for c in at.caption)
    assert "percentile bootstrap over points, 100 resamples" in notes.replace("\\", "")


def test_report_carries_the_same_intervals_as_evaluate_json(tmp_path):
    d = "demo_data/"
    args = ["--true", d + "demo_true.txt", "--pred", d + "demo_pred_run1.txt"]
    args += ["--uncertainty", "60", "--seed", "5"]
    ev = subprocess.run([sys.executable, "-m", "metrics_core.cli", "evaluate", *args, "--json"],
                        capture_output=True, text=True, cwd=ROOT)  # fmt: skip
    want = {m["metric"]: m for m in json.loads(ev.stdout)["uncertainty"]["metrics"]}
    out = tmp_path / "r.html"
    cmd = [sys.executable, "-m", "dashboard.cli", "report", *args, "--out", str(out), "--quiet"]
    rep = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    assert rep.returncode == 0, rep.stderr
    html = out.read_text()
    section = html[html.index("Is it a real difference?") :]
    for m in ("acc", "ari", "ami", "nmi"):
        w = want[m]
        assert f"[{w['low']:.4f}, {w['high']:.4f}]" in section, m
    assert "60 resamples" in section and "seed 5" in section
    bad = subprocess.run([sys.executable, "-m", "dashboard.cli", "report", *args[:4],
                          "--uncertainty", "-1", "--out", str(out)],
                         capture_output=True, text=True, cwd=ROOT)  # fmt: skip
    assert bad.returncode == 2 and "--uncertainty" in bad.stderr


def test_summary_report_download_carries_the_computed_intervals(monkeypatch):
    from streamlit.testing.v1 import AppTest

    from dashboard.compute import evaluation as compute

    seen = []
    real = compute.report_html

    def spy(*args, **kwargs):
        html = real(*args, **kwargs)
        seen.append(html)
        return html

    monkeypatch.setattr(compute, "report_html", spy)
    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=120)
    at.run()
    at.session_state["summary_uncertainty_open"] = True
    at.run()
    at.number_input(key="unc_n").set_value(100)
    at.button(key="unc_run").click().run()
    at.button(key="report_prepare").click().run()
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    shown = next(t for t in static_tables(at) if "95% interval" in t.columns)
    acc = str(shown.iloc[0]["95% interval"])  # the ACC row as the page shows it
    assert seen and "Is it a real difference?" in seen[-1]
    assert acc in seen[-1] and "100 resamples" in seen[-1]
