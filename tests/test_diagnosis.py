"""The written diagnosis: each error named, costed and traced to C (issue 12, item 1)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import scipy.sparse as sp
from html_links import finding_kinds, finding_lines

from demo_data import make_demo
from metrics_core.diagnosis import Thresholds, diagnose

ROOT = __import__("pathlib").Path(__file__).resolve().parents[1]
#: the demo's reading, the same on every surface
VERDICT = (
    "Over- and under-segmentation: it merges 2 classes into 1 cluster (76 points), splits "
    "1 class (39 points) and misassigns 11 points."
)


@pytest.fixture(scope="module")
def demo():
    return make_demo.build()


def test_demo_split_is_in_c_and_merge_is_leakage(demo):
    found = diagnose(demo["truth"], demo["preds"][0], demo["coef"])
    by_kind = {f.kind: f for f in found if f.kind != "misassignment"}
    split, merge = by_kind["split"], by_kind["merge"]
    assert split.classes == [1] and len(split.clusters) == 2
    assert split.cause == "representation" and "already in C" in split.text
    assert split.evidence["agreement_with_C_cut"] >= 0.9
    assert split.evidence["conn_lambda2"] < 0.05
    assert merge.classes == [4, 5] and merge.cause == "representation"
    assert "C leaks between 4 and 5" in merge.text
    assert merge.evidence["leakage_shares"]["4~5"] >= 0.05
    assert [f.points for f in found] == sorted((f.points for f in found), reverse=True)
    assert found[0].kind in ("split", "merge")  # the scattered mistakes cost least


def _blocks(sizes, rng):
    """A clean C: each class a dense, well-connected block, nothing between classes."""
    n = sum(sizes)
    c = np.zeros((n, n))
    start = 0
    for s in sizes:
        c[start : start + s, start : start + s] = rng.random((s, s)) + 0.5
        start += s
    np.fill_diagonal(c, 0.0)
    return c


def test_clean_c_blames_the_clustering_step():
    rng = np.random.default_rng(0)
    y = np.repeat([0, 1, 2], 20)
    c = _blocks([20, 20, 20], rng)
    pred = y.copy()
    pred[:10] = 7  # class 0 split in two although C holds it together
    pred[40:] = 1  # classes 1 and 2 merged although C keeps them apart
    found = {f.kind: f for f in diagnose(y, pred, c)}
    assert (
        found["split"].cause == "clustering" and "clustering step split it" in found["split"].text
    )
    assert found["merge"].cause == "clustering" and "clustering step merged" in found["merge"].text


def test_split_along_disconnected_components_is_in_c():
    rng = np.random.default_rng(1)
    y = np.repeat([0, 1], 20)
    c = _blocks([10, 10, 20], rng)  # class 0 = two separate blocks of 10
    pred = np.where(np.arange(40) < 10, 5, y)
    split = next(f for f in diagnose(y, pred, sp.csr_array(c)) if f.kind == "split")
    assert split.cause == "representation"
    assert split.evidence["components"] == 2 and split.evidence["component_sizes"] == [10, 10]
    assert "2 connected components" in split.text and "coincide" in split.text


def test_swapped_points_are_misassignments_not_split_and_merge():
    found = diagnose([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 0])
    assert {f.kind for f in found} == {"misassignment"}
    assert sum(f.points for f in found) == 2
    assert all(f.cause == "unknown" for f in found)


def test_ties_are_named_and_thresholds_are_adjustable():
    y = [0] * 10 + [1] * 10
    pred = [0] * 5 + [1] * 5 + [2] * 10
    split = diagnose(y, pred)[0]
    assert split.evidence["equal_largest_pieces"] and "equal size" in split.text
    strict = diagnose(y, pred, thresholds=Thresholds(min_share=0.6))
    assert "split" not in {f.kind for f in strict}  # 50 % pieces are below a 60 % share


def test_perfect_prediction_has_no_finding():
    assert diagnose([0, 0, 1, 1], [5, 5, 7, 7]) == []


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "metrics_core.cli", "evaluate", *args],
                          capture_output=True, text=True, cwd=ROOT, timeout=120)  # fmt: skip


def test_cli_explain_text_and_json():
    d = "demo_data/"
    base = ["--true", d + "demo_true.txt", "--pred", d + "demo_pred_run1.txt",
            "--coef", d + "demo_coef.npz", "--explain"]  # fmt: skip
    text = _cli(*base)
    assert text.returncode == 0, text.stderr
    assert "[diagnosis]" in text.stdout and "1. [merge, 76 points, already in C]" in text.stdout
    assert VERDICT in text.stdout
    js = _cli(*base, "--json", "--leak-share", "0.5")
    out = json.loads(js.stdout)
    kinds = [f["kind"] for f in out["diagnosis"]]
    assert kinds[:2] == ["merge", "split"]
    merge = out["diagnosis"][0]
    assert merge["classes"] == [4, 5] and merge["clusters"] == [4] and merge["points"] == 76
    assert merge["cause"] == "clustering"  # 20 % leakage is below the 50 % asked for
    assert out["diagnosis_thresholds"]["leak_share"] == 0.5
    assert out["verdict"] == VERDICT
    assert set(merge) >= {"kind", "classes", "clusters", "points", "cause", "evidence"}
    refused = _cli("--table", "x.parquet", "--true-col", "a", "--pred-col", "b", "--explain")
    assert refused.returncode == 2 and "--explain" in refused.stderr


def test_summary_page_says_what_went_wrong_and_why_on_the_demo():
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=90)
    at.run()
    assert not at.exception
    text = " ".join(finding_lines(at))
    assert "merge · 76 points · already in C" in text, text[:500]
    assert "split · 39 points · already in C" in text
    at.session_state["diag_thresholds_open"] = True  # its widgets are built when it is open
    at.run()
    at.number_input(key="diag_leak_share").set_value(0.5).run()
    assert "merge · 76 points · the clustering step" in " ".join(finding_lines(at))


def test_report_carries_the_diagnosis(tmp_path):
    out = tmp_path / "r.html"
    d = "demo_data/"
    r = subprocess.run(
        [sys.executable, "-m", "dashboard.cli", "report", "--true", d + "demo_true.txt",
         "--pred", d + "demo_pred_run1.txt", "--coef", d + "demo_coef.npz", "--out", str(out)],
        capture_output=True, text=True, cwd=ROOT, timeout=180,
    )  # fmt: skip
    assert r.returncode == 0, r.stderr
    html = out.read_text()
    assert "What went wrong, and why" in html and VERDICT in html
    assert "5,928 pairs of different classes together" in html  # what the pair scores see
    assert "C leaks between 4 and 5" in html and "The split is already in C" in html


# ------------------------------------------------------------------ one reading, every surface
def _brute_pairs(y, p):
    """False-positive and false-negative pairs by looking at every pair."""
    fp = fn = 0
    for i in range(len(y)):
        for j in range(i + 1, len(y)):
            fp += y[i] != y[j] and p[i] == p[j]
            fn += y[i] == y[j] and p[i] != p[j]
    return fp, fn


@pytest.mark.parametrize("seed", range(12))
def test_finding_pairs_are_a_part_of_the_pair_counts(seed):
    """Each finding's pair cost is counted once: split FNs, merge FPs and misassignment pairs
    never exceed the prediction's false negatives / positives (brute force over pairs), and a
    split's pairs are exactly the same-class pairs between its pieces."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 4, 60)
    p = np.where(rng.random(60) < 0.3, rng.integers(0, 6, 60), y)
    p[(y == 0) & (rng.random(60) < 0.5)] = 9  # a split
    found = diagnose(y, p)
    fp, fn = _brute_pairs(y, p)
    got_fp = sum(f.evidence["pairs"].get("false_positive", 0) for f in found)
    got_fn = sum(f.evidence["pairs"].get("false_negative", 0) for f in found)
    assert got_fp <= fp and got_fn <= fn
    for f in found:
        if f.kind == "split":
            cls = f.classes[0]
            sizes = [int(((y == cls) & (p == c)).sum()) for c in f.clusters]
            want = sum(a * b for i, a in enumerate(sizes) for b in sizes[i + 1 :])
            assert f.evidence["pairs"]["false_negative"] == want
    from metrics_core.diagnosis import pair_view

    lines = pair_view(found, fp, fn)
    assert lines and all(isinstance(x, str) and x for x in lines)


def test_verdict_names_kinds_by_points_and_pairs_explain_the_other_order():
    from metrics_core.diagnosis import pair_view, verdict

    # a split of a 20-point class in halves (10 points, 100 pairs) and a merge of an 8-point
    # class into a 30-point one (8 points, 240 pairs): points rank the split first, pairs the
    # merge
    y = np.repeat([0, 1, 2], [20, 30, 8])
    p = np.concatenate([np.repeat([0, 3], 10), np.full(38, 1)])
    found = diagnose(y, p)
    v = verdict(found)
    assert v == (
        "Over- and under-segmentation: it splits 1 class (10 points) and merges 2 classes "
        "into 1 cluster (8 points)."
    )
    fp, fn = _brute_pairs(y, p)
    text = " ".join(pair_view(found, fp, fn))
    assert "240 pairs of different classes" in text and "100 same-class pairs" in text
    assert "Pairs rank them the other way round" in text
    assert verdict(diagnose([0, 0, 1, 1], [5, 5, 7, 7])).startswith("No error")
    swapped = verdict(diagnose([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 1, 0]))
    assert swapped.startswith("Misassignment only")


def test_every_page_reads_the_demo_the_same_way():
    """Summary, Contingency and Pair confusion show the one verdict; moving a threshold on one
    page moves it on the others and in the report (no page keeps its own reading)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(str(ROOT / "dashboard" / "app.py"), default_timeout=90)
    at.run()
    pages = ["views/summary.py", "views/contingency.py", "views/pairs.py"]
    for page in pages:
        at.switch_page(page).run()
        assert not at.exception, page
        text = " ".join(m.value for m in at.markdown)
        assert f"**{VERDICT}**" in text, (page, text[:400])
    # a share of 0.6: no class has two pieces that large, no cluster two such classes
    at.switch_page("views/contingency.py").run()
    assert not at.number_input  # the thresholds' box is closed: its widgets are not built
    at.session_state["diag_thresholds_open"] = True
    at.run()
    at.number_input(key="diag_min_share").set_value(0.6).run()
    at.session_state["diag_thresholds_open"] = False  # closed again: the value stays
    at.run()
    for page in pages:
        at.switch_page(page).run()
        text = " ".join(m.value for m in at.markdown)
        assert "Misassignment only" in text, (page, text[:400])
        assert not {"split", "merge"} & set(finding_kinds(at)), page
