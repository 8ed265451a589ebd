"""The dashboard's static tables (``ui.static_table``) and their reader in the tests."""

from __future__ import annotations

import pytest
from html_tables import read_tables

from dashboard.ui.widgets import table_html


def test_every_cell_is_shown_literally_and_reads_back():
    rows = [
        {"metric": "<script>alert(1)</script>", "value": "0.5", "formula": "Σ_i n_{i,π(i)} & *x*"},
        {"metric": "b", "value": 2},
    ]
    text = table_html(rows, ["metric", "value", "formula"])
    assert "<script>" not in text and "&lt;script&gt;" in text
    (df,) = read_tables(text)
    assert list(df.columns) == ["metric", "value", "formula"]
    assert df.to_dict("records") == [
        {"metric": "<script>alert(1)</script>", "value": "0.5", "formula": "Σ_i n_{i,π(i)} & *x*"},
        {"metric": "b", "value": "2", "formula": ""},
    ]


def test_widths_fix_the_columns_so_tables_line_up():
    text = table_html([{"a": 1, "b": 2}], ["a", "b"], widths=(30, 70))
    assert 'style="table-layout: fixed"' in text
    assert '<col style="width: 30%"><col style="width: 70%">' in text
    assert read_tables(text)[0].to_dict("records") == [{"a": "1", "b": "2"}]
    with pytest.raises(ValueError, match="1 widths for 2 columns"):
        table_html([], ["a", "b"], widths=(100,))
