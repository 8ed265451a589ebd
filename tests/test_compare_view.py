"""The Compare page: two predictions of the same points, side by side (issue 12, item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from html_cards import card_values
from html_tables import static_tables
from streamlit.testing.v1 import AppTest

from dashboard.analysis.compare import compare
from dashboard.analysis.conventions import Conventions
from demo_data import make_demo

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"


def test_moved_points_and_directions_by_hand():
    t = [0, 0, 0, 1, 1, 1]
    a = [0, 0, 1, 1, 1, 1]  # point 2 wrong in A
    b = [0, 0, 0, 1, 1, 0]  # point 2 right in B, point 5 wrong in B
    c = compare(t, a, b, Conventions())
    moved = dict(zip(c.moved["point"], c.moved["direction"], strict=True))
    assert moved == {2: "toward", 5: "away"}
    assert c.summary == {"points": 6, "changed": 2, "toward": 1, "away": 1, "sideways": 0}
    same = compare(t, a, a, Conventions())
    assert same.summary["changed"] == 0 and same.moved.empty
    deltas = {r["metric"]: r["B − A"] for r in c.metrics}
    assert deltas["acc"] == 0.0  # one point gained, one lost


def test_compare_page_on_the_demo():
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.run()
    at.switch_page("views/compare.py").run()
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    assert not at.main.error
    cards = card_values(at)
    d = make_demo.build()
    want = compare(d["truth"], d["preds"][0], d["preds"][1], Conventions()).summary
    assert cards["points that changed cluster"] == f"{want['changed']:,} / 400"
    assert cards["toward their class"] == str(want["toward"])
    charts = {el.proto.id.rsplit("-", 1)[-1] for el in at.get("plotly_chart")}
    assert {"cmp_heatmap", "cmp_flow"} <= charts
    # the demo's 23 moved points: a static table (no data grid), every one listed, away first
    assert not at.dataframe
    (table,) = [t for t in static_tables(at) if "direction" in t.columns]
    assert list(table.columns) == ["point", "class", "A", "B", "direction"]
    assert len(table) == want["changed"]
    moved = compare(d["truth"], d["preds"][0], d["preds"][1], Conventions()).moved
    assert list(table["point"]) == [str(p) for p in moved["point"]]
    assert table["direction"].iloc[0].startswith("moved away")
    spec = json.loads(next(el.proto.spec for el in at.get("plotly_chart")))
    assert spec["data"]


def test_compare_page_lists_many_moved_points_in_a_grid():
    """Past ``ui.STATIC_MAX_ROWS`` moved points, a data grid that scrolls and sorts."""
    from dashboard.ui.widgets import STATIC_MAX_ROWS

    d = make_demo.build()
    b = np.asarray(d["preds"][1]).copy()
    b[: 3 * STATIC_MAX_ROWS] = (b[: 3 * STATIC_MAX_ROWS] + 1) % (b.max() + 1)
    moved = compare(d["truth"], d["preds"][0], b, Conventions()).moved
    assert len(moved) > STATIC_MAX_ROWS
    files = [
        (name, "\n".join(map(str, labels)).encode(), "text/plain")
        for name, labels in (("a.txt", d["preds"][0]), ("b.txt", b))
    ]
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.run()
    at.file_uploader(key="up_preds").set_value(files)
    at.run()
    assert [p.name for p in at.session_state["clustlens"].preds][-2:] == ["a.txt", "b.txt"]
    at.session_state["cmp_a"], at.session_state["cmp_b"] = "a.txt", "b.txt"
    at.switch_page("views/compare.py").run()
    assert not at.exception and not at.main.error
    (table,) = [df.value for df in at.dataframe]
    assert list(table["point"]) == list(moved["point"])
    assert not [t for t in static_tables(at) if "direction" in t.columns]


def test_affinity_needs_no_prediction():
    """SRE, CONN, leakage and the affinity plot from ground truth + C alone (issue 12, item 4)."""
    at = AppTest.from_file(str(APP), default_timeout=90)
    at.run()
    for _ in range(2):  # the demo's two predictions
        at.button(key="remove_pred").click().run()
    at.switch_page("views/affinity.py").run()
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    assert not at.main.error
    charts = {el.proto.id.rsplit("-", 1)[-1] for el in at.get("plotly_chart")}
    assert {"affinity_plot", "conn_bars", "sre_class"} <= charts
    at.session_state["aff_tab"] = "Between classes: leakage"
    at.run()
    assert not at.exception and not at.main.error
    assert "leakage_matrix" in {el.proto.id.rsplit("-", 1)[-1] for el in at.get("plotly_chart")}
    assert "no prediction loaded" in " ".join(c.value for c in at.caption)
