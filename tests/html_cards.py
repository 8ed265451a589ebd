"""The values a page shows as cards read back from an ``AppTest`` run: ``st.metric`` elements
and the grids of ``ui.metric_cards`` (one ``st.html`` element each)."""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

from dashboard.ui.widgets import METRICS_CLASS


class _Cards(HTMLParser):
    """Label, value and help (``data-help`` of the "?" mark) of every card in a document."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.cards: list[dict[str, Any]] = []
        self._field: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        kind = (a.get("class") or "").split()
        if "cl-metric" in kind:
            self.cards.append({"label": "", "value": "", "help": None})
        elif "cl-metric-label" in kind:
            self._field = "label"
        elif "cl-metric-value" in kind:
            self._field = "value"
        elif "cl-help" in kind and self.cards:
            self.cards[-1]["help"] = a.get("data-help")
            self._field = None

    def handle_endtag(self, tag: str) -> None:
        if tag == "div":
            self._field = None

    def handle_data(self, data: str) -> None:
        if self._field is not None and self.cards:
            self.cards[-1][self._field] += data


def read_cards(html: str) -> list[dict[str, Any]]:
    """Every card of ``html``: dicts with ``label``, ``value`` and ``help`` (None if none)."""
    parser = _Cards()
    parser.feed(html)
    return parser.cards


def shown_cards(block: Any) -> dict[str, dict[str, Any]]:
    """Label -> card (``value``, ``help``) of everything ``block`` (an ``AppTest`` or a part of
    it: ``at.main``, ``at.tabs[0]``) shows as a card, ``st.metric`` or ``ui.metric_cards``."""
    out = {m.label: {"value": m.value, "help": m.proto.help or None} for m in block.metric}
    for el in block.get("html"):
        if METRICS_CLASS in el.proto.body:
            out |= {c["label"]: c for c in read_cards(el.proto.body)}
    return out


def card_values(block: Any) -> dict[str, str]:
    """Label -> value of every card ``block`` shows (see :func:`shown_cards`)."""
    return {label: c["value"] for label, c in shown_cards(block).items()}
