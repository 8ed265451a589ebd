"""A finding's links open Contingency, Affinity and Points on its classes or clusters: the focus
object, the outlines in every figure, the words on each page, and the links themselves."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from html_links import finding_kinds, finding_lines, page_links
from streamlit.testing.v1 import AppTest

from dashboard.analysis.focus import Focus, affinity_reading, involves, where_it_goes
from dashboard.figures._style import FOCUS
from dashboard.figures.affinity import conn_bars, leakage_heatmap, sre_class_bars
from dashboard.figures.contingency import contingency_heatmap

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    return at


def focus_boxes(fig) -> list[tuple[float, float, float, float]]:
    """(x0, x1, y0, y1) of the shapes drawn in the focus colour."""
    shapes = fig["layout"].get("shapes", []) if isinstance(fig, dict) else fig.layout.shapes
    out = []
    for s in shapes:
        s = s if isinstance(s, dict) else s.to_plotly_json()
        if s.get("line", {}).get("color") == FOCUS:
            out.append((s["x0"], s["x1"], s["y0"], s["y1"]))
    return out


# ------------------------------------------------------------------------------ the object
def test_focus_reads_labels_as_text_and_says_them_plainly() -> None:
    f = Focus.of([4, 5, 4], [])
    assert f.classes == ("4", "5") and bool(f)
    assert f.describe() == "classes 4 and 5"
    assert Focus.of(["a"], ["x"]).describe() == "class a and cluster x"
    assert Focus.of((), [1, 2, 3]).describe() == "clusters 1, 2 and 3"
    assert not Focus()
    assert f.class_positions([1, 2, 3, 4, 5]) == [3, 4]
    assert f.class_positions(["a", "b"]) == []  # a stale link outlines nothing
    assert Focus.of(["1"], ["2"]).query() == {"class": ["1"], "cluster": ["2"]}


def test_where_it_goes_counts_rows_and_columns() -> None:
    table = np.array([[50, 50, 0], [0, 0, 30], [0, 10, 30]])
    words = where_it_goes(table, ["a", "b", "c"], ["x", "y", "z"], Focus.of(["a"], ["z"]))
    assert words == [
        "class a: 100 points → cluster x 50 (50%), cluster y 50 (50%)",
        "cluster z: 60 points ← class b 30 (50%), class c 30 (50%)",
    ]
    assert where_it_goes(table, ["a", "b", "c"], ["x", "y", "z"], Focus.of(["q"])) == []


def test_involves_compares_as_text() -> None:
    finding = {"classes": [4, 5], "clusters": [4]}
    assert involves(finding, Focus.of(["5"]))
    assert involves(finding, Focus.of((), ["4"]))
    assert not involves(finding, Focus.of(["1"], ["1"]))


def test_affinity_reading_says_conn_sre_and_leaks() -> None:
    from types import SimpleNamespace

    aff = SimpleNamespace(
        conn_classes=["1", "2"], conn_per_class=np.array([0.001, 0.5]), conn_skipped=[],
        sre_classes=["1", "2"], sre_per_class=np.array([0.25, 0.0]),
        leakage_classes=["1", "2"], leakage=np.array([[3.0, 1.0], [0.0, 2.0]]),
    )  # fmt: skip
    words = affinity_reading(aff, Focus.of(["1", "2"]), weak_conn=0.05)
    assert words[0] == (
        "class 1: CONN λ₂ 0.001 (below the weak-CONN threshold 0.05: held together by weak "
        "links or not at all); SRE 0.250; keeps 75.0% of its |C| mass inside; leaks 25.0% onto "
        "class 2"
    )
    assert words[1].startswith("class 2: CONN λ₂ 0.5 (at or above the weak-CONN threshold")
    assert "leaks" not in words[1]


# ----------------------------------------------------------------------------- the figures
def test_contingency_outlines_the_focused_row_and_column() -> None:
    table = np.array([[5, 1, 0], [0, 4, 2]])
    fig = contingency_heatmap(table, ["a", "b"], ["x", "y", "z"], focus_rows=[1], focus_cols=[2])
    assert focus_boxes(fig) == [(-0.5, 2.5, 0.5, 1.5), (1.5, 2.5, -0.5, 1.5)]
    assert focus_boxes(contingency_heatmap(table, ["a", "b"], ["x", "y", "z"])) == []


def test_bars_and_leakage_outline_the_focused_class() -> None:
    bars = conn_bars(["1", "2", "3"], [0.1, 0.2, 0.3], focus=[1])
    assert list(bars.data[0].marker.line.color) == ["rgba(0,0,0,0)", FOCUS, "rgba(0,0,0,0)"]
    bars = sre_class_bars(["1", "2"], [0.1, 0.2], focus=[0])
    assert list(bars.data[0].marker.line.width) == [3, 0]
    leak = leakage_heatmap(np.array([[1.0, 0.5], [0.2, 1.0]]), ["1", "2"], focus=[0])
    assert focus_boxes(leak) == [(-0.5, 1.5, -0.5, 0.5), (-0.5, 0.5, -0.5, 1.5)]


# ------------------------------------------------------------------------------- the pages
@pytest.fixture(scope="module")
def app() -> AppTest:
    return ok(AppTest.from_file(str(APP), default_timeout=90).run())


def charts(at: AppTest) -> dict[str, dict]:
    return {
        el.proto.id.rsplit("-", 1)[-1]: json.loads(el.proto.spec) for el in at.get("plotly_chart")
    }


def open_on(at: AppTest, page: str, **query: str) -> AppTest:
    at.query_params.clear()
    for k, v in query.items():
        at.query_params[k] = v
    return ok(at.switch_page(page).run())


def infos(at: AppTest) -> str:
    return " ".join(i.value for i in at.info).replace("\\", "")


def test_contingency_opens_on_a_class_and_outlines_its_row(app: AppTest) -> None:
    at = open_on(app, "views/contingency.py", **{"class": "1"})
    text = infos(at)
    assert "Opened on class 1" in text
    # the demo splits class 1 into two clusters: both pieces are named with their counts
    assert "class 1: 80 points → cluster 1 40 (50%), cluster 2 39 (49%)" in text, text
    heat = charts(at)["contingency_heatmap"]
    boxes = focus_boxes(heat)
    assert len(boxes) == 1 and boxes[0][2] + 0.5 == heat["data"][0]["y"].index("1")


def test_contingency_opens_on_a_cluster_and_outlines_its_column(app: AppTest) -> None:
    at = open_on(app, "views/contingency.py", cluster="4")
    assert "cluster 4:" in infos(at) and "← class 4" in infos(at)
    heat = charts(at)["contingency_heatmap"]
    (box,) = focus_boxes(heat)
    assert box[0] + 0.5 == heat["data"][0]["x"].index("4")


def test_affinity_opens_on_merged_classes_with_their_numbers_and_findings(app: AppTest) -> None:
    at = open_on(app, "views/affinity.py", **{"class": ["4", "5"]})
    text = infos(at)
    assert "Opened on classes 4 and 5" in text
    assert "class 4: CONN λ₂" in text and "class 5: CONN λ₂" in text and "onto class" in text
    lines = " ".join(finding_lines(at))
    assert "merge · 76 points · already in C" in lines  # the finding about them, here too
    assert "split" not in finding_kinds(at)  # class 1's split is not about 4 or 5
    figs = charts(at)
    assert len(focus_boxes(figs["affinity_plot"])) == 4  # two blocks: row and column bands
    widths = figs["conn_bars"]["data"][0]["marker"]["line"]["width"]
    assert sorted(widths)[-2:] == [3, 3] and widths.count(3) == 2
    at.session_state["aff_tab"] = "Between classes: leakage"  # the tab below the plot
    try:
        ok(at.run())
        assert len(focus_boxes(charts(at)["leakage_matrix"])) == 4
    finally:  # the tab is kept for the next visit: the other tests open on the first
        at.session_state["aff_tab"] = "Per class: CONN and SRE"
        ok(at.run())


def test_a_stale_link_outlines_nothing_and_says_so(app: AppTest) -> None:
    at = open_on(app, "views/contingency.py", **{"class": "no such class"})
    assert "not in this data" in infos(at)
    assert focus_boxes(charts(at)["contingency_heatmap"]) == []


def test_no_focus_no_box(app: AppTest) -> None:
    at = open_on(app, "views/affinity.py")
    assert "Opened on" not in infos(at)
    assert focus_boxes(charts(at)["affinity_plot"]) == []


def test_summary_findings_link_each_page_on_the_finding(app: AppTest) -> None:
    at = open_on(app, "views/summary.py")
    links = [(link.page, link.query_string.split("&sid=")[0]) for link in page_links(at)]
    # the merge of classes 4 and 5 into cluster 4: its column, its two classes, its points
    assert ("contingency", "cluster=4") in links
    assert ("affinity", "class=4&class=5") in links
    assert ("points", "cluster=4") in links
    # the split of class 1: its row, its class on Affinity, its points
    assert {("contingency", "class=1"), ("affinity", "class=1"), ("points", "class=1")} <= set(
        links
    )


def test_on_its_own_page_a_finding_outlines_itself(app: AppTest) -> None:
    at = open_on(app, "views/contingency.py")
    labels = [link.label for link in page_links(at)]
    assert "outline it here" in labels and "→ Contingency" not in labels


def test_the_costliest_findings_show_and_the_rest_open_in_a_box() -> None:
    """Summary shows the three costliest findings with their links; the demo's other four
    (misassignments) are in a box built when opened, links and all."""
    at = ok(AppTest.from_file(str(APP), default_timeout=90).run())
    kinds = finding_kinds(at)
    assert kinds[:2] == ["merge", "split"] and len(kinds) == 3
    n_links = len(page_links(at))
    box = next(e for e in at.expander if "more finding" in e.label)
    assert box.label.startswith("4 more findings (")
    at.session_state["diag_more_open_summary"] = True
    ok(at.run())
    kinds = finding_kinds(at)
    assert len(kinds) == 7 and kinds.count("misassignment") >= 4
    assert len(page_links(at)) > n_links
