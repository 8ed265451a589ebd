"""Learn's table editor: what a browser sends is checked and cleaned before it is a table, and
the page shows the editor (one light element), not Streamlit's data grid."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from streamlit.testing.v1 import AppTest

from dashboard.analysis import scenarios as ls
from dashboard.ui import table_editor

LEARN = Path(__file__).resolve().parents[1] / "dashboard" / "views" / "learn.py"


def test_counts_sent_are_cleaned():
    """What a browser may send for a 3 x 4 table, checked, then cleaned as Learn cleans it."""
    sent = [["3", "", None, "abc"], ["-2", "2.6", "1e9", 5], ["nan", "inf", 7, 0.4]]
    rows = table_editor.rows_sent(sent, (3, 4))
    out = ls.clean_table(rows)
    assert out.dtype == np.int64
    assert out.tolist() == [[3, 0, 0, 0], [0, 3, ls.MAX_COUNT, 5], [0, 0, 7, 0]]


def test_a_malformed_table_is_ignored():
    for sent in [None, "3 4", [[1, 2]], [[1, 2], [3]], [[1, 2], [3, 4], [5, 6]], [(1, 2), (3, 4)],
                 {"0": [1, 2]}, [[[1], [2]], [[3], [4]]], [[{"a": 1}, 2], [3, 4]]]:  # fmt: skip
        assert table_editor.rows_sent(sent, (2, 2)) is None, sent


def test_learn_shows_the_table_in_the_light_editor():
    at = AppTest.from_file(str(LEARN), default_timeout=60).run()
    assert not at.exception
    editors = [
        e for e in at.get("bidi_component") if e.proto.component_name.endswith("table_editor")
    ]
    assert len(editors) == 1 and not at.dataframe  # no data grid on the table's tab
    data = json.loads(editors[0].proto.json)
    assert data["table"] == [[3, 44, 3], [2, 4, 44]]
    assert data["rows"] == ["class A", "class B"]
    assert data["cols"] == ["cluster 1", "cluster 2", "cluster 3"]
