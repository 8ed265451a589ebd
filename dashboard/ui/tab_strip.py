"""A strip of tabs in one light element: the label of the open tab, picked by a click.

Streamlit's ``st.tabs`` is react-aria's ``Tabs``: on every visit of a page its strip and panels
are mounted anew, each panel checking for an entrance animation and watching its content for a
focusable element (``getAnimations``, ``checkVisibility``: each makes the browser recompute
styles, 8-18 ms of a cached visit of Learn in CPU profiles). Our tabs are lazy (a click reruns;
only the open tab is built, drawn below the strip), so none of that is needed: this element is
a row of buttons with the tablist roles (a Streamlit custom component, v2: no iframe) that sends
the label clicked. Learn's cached visit, six alternated servers each (issue 14): 0.161 -> 0.143
s against ``st.tabs`` with the content below it, and 0.136 -> 0.120 s with no strip at all in a
quieter hour: the strip itself costs little.

Keyboard (WAI-ARIA tabs, manual activation): Tab reaches the open tab; the arrow keys, Home and
End move the focus between tabs; Enter or Space opens the one focused (a rerun, so moving the
focus alone opens nothing). The buttons stay across reruns, and the focus with them.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping, Sequence
from typing import Any

import streamlit as st

COMPONENT = "clustlens_tab_strip"

_HTML = '<div class="cl-tabs" role="tablist"></div>'
# Streamlit's tabs, in look: the labels in the text's colour, the open one in the primary colour
# over a line of it, a thin line under the whole strip
_CSS = """
.cl-tabs { display: flex; flex-wrap: wrap; gap: 0 1rem; margin: 0 0 0.5rem 0;
  border-bottom: 1px solid rgba(128, 128, 128, 0.25); }
.cl-tabs button { font: inherit; font-size: 0.875rem; line-height: 1.6; color: inherit;
  background: none; border: 0; border-bottom: 2px solid transparent; border-radius: 0;
  margin: 0 0 -1px 0; padding: 0.5rem 0 0.375rem 0; cursor: pointer; white-space: nowrap; }
.cl-tabs button:hover { color: var(--st-primary-color, #2f6fb3); }
.cl-tabs button[aria-selected="true"] { color: var(--st-primary-color, #2f6fb3);
  border-bottom-color: currentColor; }
.cl-tabs button:focus-visible { outline: 2px solid currentColor; outline-offset: 2px; }
"""
_JS = r"""
export default function (component) {
  const { parentElement, data, setStateValue } = component;
  const strip = parentElement.querySelector('.cl-tabs');
  const labels = JSON.stringify(data.labels);
  if (strip.__labels !== labels) {  // new tabs: new buttons (else the same, so focus stays)
    strip.__labels = labels;
    strip.setAttribute('aria-label', data.name);
    strip.replaceChildren(...data.labels.map((label) => {
      const b = document.createElement('button');
      Object.assign(b, {type: 'button', textContent: label});
      b.setAttribute('role', 'tab');
      b.dataset.label = label;
      return b;
    }));
  }
  const buttons = [...strip.children];
  for (const b of buttons) {
    const open = b.dataset.label === data.open;
    b.setAttribute('aria-selected', String(open));
    b.tabIndex = open ? 0 : -1;
  }
  strip.onclick = (ev) => {
    const b = ev.target.closest('button[data-label]');
    // with the time: a tab opened again after the script changed tabs is a change too
    if (b && b.dataset.label !== data.open) setStateValue('open', [b.dataset.label, Date.now()]);
  };
  strip.onkeydown = (ev) => {
    const i = buttons.indexOf(document.activeElement);
    const n = buttons.length;
    const to = {ArrowRight: i + 1, ArrowDown: i + 1, ArrowLeft: i - 1 + n, ArrowUp: i - 1 + n,
                Home: 0, End: n - 1}[ev.key];
    if (i < 0 || to === undefined) return;
    ev.preventDefault();
    buttons[i].tabIndex = -1;
    buttons[to % n].tabIndex = 0;
    buttons[to % n].focus();
  };
}
"""


@functools.cache
def _component() -> Any:
    return st.components.v2.component(COMPONENT, html=_HTML, css=_CSS, js=_JS, isolate_styles=False)


def picked(sent: Any, labels: Sequence[str]) -> str | None:
    """The label a browser sent (``[label, time]``) if it is one of ``labels``; else None."""
    if not isinstance(sent, list) or len(sent) != 2:
        return None
    return sent[0] if isinstance(sent[0], str) and sent[0] in labels else None


def show(labels: Sequence[str], key: str, name: str) -> str:
    """The strip of ``labels`` (a tablist named ``name``); the open tab's label.

    The open tab is ``st.session_state[key]`` (the first tab until another is picked; kept for
    the session, so a page visited again opens on it); a click sets it, then the run it starts
    shows that tab.
    """
    labels = list(labels)
    if st.session_state.get(key) not in labels:
        st.session_state[key] = labels[0]
    _component()(
        key=f"{key}_strip",
        data={"labels": labels, "open": st.session_state[key], "name": name},
        default={"open": None},
        on_open_change=functools.partial(_clicked, key, labels),
    )
    return st.session_state[key]


def _clicked(key: str, labels: Sequence[str]) -> None:
    """A click's callback, before the run it starts: the tab sent, checked, is the open one."""
    state = st.session_state.get(f"{key}_strip")
    label = picked(state.get("open") if isinstance(state, Mapping) else None, labels)
    if label is not None:
        st.session_state[key] = label
