"""Lines of text with links to the dashboard's pages, in one element.

A finding on Summary was a line of markdown and a row of three ``st.page_link`` (five elements;
the three costliest findings fifteen, a third of the landing page's elements). Each element
costs the browser a mount on every visit of its page (~3-9 ms each on a 2-core machine), so
the lines and their links are one Streamlit custom component (v2: no iframe) here: our own
escaped HTML, whose links are real addresses (``contingency?cluster=4&sid=...``: opened in a
new tab, or copied, they open that page in the same session) and, clicked, report their page
and query to the script, which switches page (:func:`target`, ``st.switch_page``) as
``st.page_link`` would.

Nothing typed by a user reaches the HTML unescaped: :func:`anchor` and the callers escape every
text; the page and the query a click reports are checked against the pages and parameters the
caller allows before anything is done with them.
"""

from __future__ import annotations

import functools
import html
import json
from collections.abc import Collection, Mapping, Sequence
from typing import Any
from urllib.parse import urlencode

import streamlit as st

COMPONENT = "clustlens_page_links"

_HTML = '<div class="cl-links-box"></div>'
# Streamlit's page links, in look: the text's colour, a tinted background under the pointer
_CSS = """
.cl-links-box p { margin: 0 0 0.25rem 0; line-height: 1.6; }
.cl-links-box .cl-links { display: flex; flex-wrap: wrap; gap: 0.25rem 1rem;
  margin: 0 0 0.75rem 0; }
.cl-links-box a.cl-link { color: inherit; text-decoration: none; font-size: 0.875rem;
  padding: 0.125rem 0.5rem; border-radius: 0.5rem; }
.cl-links-box a.cl-link:hover { background: rgba(151, 166, 195, 0.15); }
.cl-links-box a.cl-link:focus-visible { outline: 2px solid currentColor; }
"""
_JS = r"""
export default function (component) {
  const { parentElement, data, setTriggerValue } = component;
  const box = parentElement.querySelector('.cl-links-box');
  if (box.__html !== data.html) {
    box.innerHTML = data.html;  // escaped by the script (links_element.anchor and its callers)
    box.__html = data.html;
  }
  box.onclick = (ev) => {
    const a = ev.target.closest('a[data-page]');
    // a click with a modifier (new tab, new window) follows the address, in the same session
    if (!a || ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey || ev.altKey) return;
    ev.preventDefault();
    setTriggerValue('open', {page: a.dataset.page, query: JSON.parse(a.dataset.query)});
  };
}
"""


@functools.cache
def _component() -> Any:
    return st.components.v2.component(COMPONENT, html=_HTML, css=_CSS, js=_JS, isolate_styles=False)


def anchor(page: str, label: str, query: Mapping[str, Sequence[str]], help: str = "") -> str:
    """A link to the page whose address is ``page`` (``"contingency"``) with ``query``."""
    flat = {k: [str(v) for v in vs] for k, vs in query.items()}
    href = f"{page}?{urlencode(flat, doseq=True)}" if flat else page
    attrs = {
        "class": "cl-link",
        "href": href,
        "data-page": page,
        "data-query": json.dumps(flat, separators=(",", ":")),
    }
    if help:
        attrs["title"] = help
    body = " ".join(f'{k}="{html.escape(v, quote=True)}"' for k, v in attrs.items())
    return f"<a {body}>{html.escape(label)}</a>"


def links_row(anchors: Sequence[str]) -> str:
    return f'<div class="cl-links">{"".join(anchors)}</div>'


def show(
    html_text: str, key: str, pages: Collection[str], params: Collection[str]
) -> tuple[str, dict[str, list[str]]] | None:
    """Show ``html_text`` (escaped by the caller; links made by :func:`anchor`); in the run a
    link's click starts, its ``(page, query)`` — if the page is one of ``pages`` and the query
    names only ``params`` — else None."""
    result = _component()(key=key, data={"html": html_text}, on_open_change=_clicked)
    return target(getattr(result, "open", None), pages, params)


def target(
    clicked: Any, pages: Collection[str], params: Collection[str]
) -> tuple[str, dict[str, list[str]]] | None:
    """What a click reported, checked: a known page, known parameters, text values."""
    if not isinstance(clicked, Mapping):
        return None
    page, query = clicked.get("page"), clicked.get("query")
    if page not in pages or not isinstance(query, Mapping) or not set(query) <= set(params):
        return None
    out: dict[str, list[str]] = {}
    for k, vs in query.items():
        if not isinstance(vs, list) or not all(isinstance(v, str) for v in vs):
            return None
        out[str(k)] = list(vs)
    return str(page), out


def _clicked() -> None:
    """A link's callback: nothing to do, the run it starts reads the click."""
