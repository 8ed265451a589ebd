"""The findings and links a page shows through ``links_element`` (one custom element each),
read back from an ``AppTest`` run: the element's HTML parsed as a browser would read it."""

from __future__ import annotations

import json
from dataclasses import dataclass
from html.parser import HTMLParser

from dashboard.ui.links_element import COMPONENT


@dataclass
class Link:
    page: str
    query_string: str  # as the address carries it: "class=4&class=5&sid=..."
    query: dict[str, list[str]]  # as a click reports it
    label: str
    help: str | None


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.links: list[Link] = []
        self.kinds: list[str] = []
        self.lines: list[str] = []
        self._in: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        if tag == "a" and "data-page" in a:
            href = a["href"]
            self.links.append(
                Link(a["data-page"], href.split("?", 1)[1] if "?" in href else "",
                     json.loads(a["data-query"]), "", a.get("title"))
            )  # fmt: skip
            self._in = "a"
        elif tag == "p":
            self.lines.append("")
            self._in = "p"
        elif tag == "strong" and self._in == "p":
            self.kinds.append("")
            self._in = "strong"

    def handle_endtag(self, tag: str) -> None:
        if tag == "a" or tag == "p":
            self._in = None
        elif tag == "strong" and self._in == "strong":
            self._in = "p"

    def handle_data(self, data: str) -> None:
        if self._in == "a":
            self.links[-1].label += data
        if self._in in ("p", "strong"):
            self.lines[-1] += data
        if self._in == "strong":
            self.kinds[-1] += data


def _parsed(at) -> _Parser:
    p = _Parser()
    for el in at.get("bidi_component"):
        if el.proto.component_name.endswith(COMPONENT):
            p.feed(json.loads(el.proto.json)["html"])
    return p


def page_links(at) -> list[Link]:
    """Every link of every ``links_element`` on the page, in order."""
    return _parsed(at).links


def finding_kinds(at) -> list[str]:
    """The kind of every finding line shown ("merge", "split", ...), in order."""
    return _parsed(at).kinds


def finding_lines(at) -> list[str]:
    """Every finding's line as text, in order."""
    return _parsed(at).lines
