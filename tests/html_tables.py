"""The dashboard's static tables (``ui.static_table``: one ``st.html`` element each) read back
from an ``AppTest`` run as data frames, one per table."""

from __future__ import annotations

from html.parser import HTMLParser

import pandas as pd

from dashboard.ui.widgets import TABLE_CLASS


class _Tables(HTMLParser):
    """Header and body cells of every ``<table class=TABLE_CLASS>`` in a document."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tables: list[tuple[list[str], list[list[str]]]] = []
        self._cell: list[str] | None = None
        self._row: list[str] | None = None
        self._in = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "table" and (dict(attrs).get("class") or "").split().count(TABLE_CLASS):
            self._in = True
            self.tables.append(([], []))
        elif self._in and tag == "tr":
            self._row = []
        elif self._in and tag in ("td", "th"):
            self._cell = []

    def handle_endtag(self, tag: str) -> None:
        if not self._in:
            return
        if tag in ("td", "th") and self._cell is not None and self._row is not None:
            self._row.append("".join(self._cell))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            head, body = self.tables[-1]
            if not head:
                head.extend(self._row)
            else:
                body.append(self._row)
            self._row = None
        elif tag == "table":
            self._in = False

    def handle_data(self, data: str) -> None:
        if self._cell is not None:
            self._cell.append(data)


def read_tables(html_text: str) -> list[pd.DataFrame]:
    """Every static table in ``html_text``, cells as shown (entities decoded)."""
    p = _Tables()
    p.feed(html_text)
    p.close()
    return [pd.DataFrame(body, columns=head) for head, body in p.tables]


def static_tables(at) -> list[pd.DataFrame]:
    """Every static table on the page an ``AppTest`` last ran, in page order."""
    return [t for el in at.get("html") for t in read_tables(el.proto.body)]
