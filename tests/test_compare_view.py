"""The Compare page: two predictions of the same points, side by side (issue 12, item 3)."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from html_cards import card_values
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
    table = next(df.value for df in at.dataframe)
    assert set(table.columns) >= {"point", "class", "A", "B", "direction"}
    spec = json.loads(next(el.proto.spec for el in at.get("plotly_chart")))
    assert spec["data"]
    assert np.isfinite(len(table))


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
