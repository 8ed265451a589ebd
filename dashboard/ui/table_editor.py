"""A small table of counts to edit, in one light element: a grid of number fields.

Learn's contingency table (at most 20 x 30 counts) was an ``st.data_editor``: a spreadsheet
grid drawn on a canvas, which costs the browser ~0.1 s of work (~60 ms of the page's time) on
every visit of the page to show six numbers — half of Learn's visit. This element is an HTML
table of ``<input type="number">`` (a Streamlit custom component, v2: no iframe): Tab and
Shift+Tab move between cells, the arrow keys step a count, a change is sent to the script when
the cell is left or Enter is pressed (one rerun per edit, as the data editor's). What it sends
is checked (:func:`rows_sent`: a table of the shape shown, of text or numbers) and handed to
the page in the edit's callback, before the run it starts; the page cleans it (Learn:
``scenarios.clean_table``) and keeps it, so that run shows the edited table everywhere.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import numpy as np
import streamlit as st

COMPONENT = "clustlens_table_editor"

_HTML = '<div class="cl-editor"></div>'
_CSS = """
.cl-editor { overflow-x: auto; }
.cl-editor table { border-collapse: collapse; font-size: 0.875rem; }
.cl-editor th { font-weight: 400; opacity: 0.7; padding: 0.25rem 0.75rem; text-align: right;
  white-space: nowrap; }
.cl-editor td { padding: 0; border: 1px solid rgba(128, 128, 128, 0.3); }
.cl-editor input { width: 6.5rem; box-sizing: border-box; border: 0; margin: 0;
  padding: 0.375rem 0.5rem; text-align: right; font: inherit; color: inherit;
  background: transparent; }
.cl-editor input:focus { outline: 2px solid rgba(255, 75, 75, 0.8); outline-offset: -2px; }
"""
_JS = r"""
export default function (component) {
  const { parentElement, data, setStateValue } = component;
  const box = parentElement.querySelector('.cl-editor');
  const shape = JSON.stringify([data.rows, data.cols]);
  if (box.__shape === shape) {
    // the same table with new counts (an edit, cleaned by the script): the cells are updated
    // in place, so the one being typed in keeps the focus; it shows the cleaned count too,
    // unless typed in again since the edit was sent
    const sent = box.__sent || [];
    data.table.forEach((values, i) => values.forEach((v, j) => {
      const input = box.__cells[i][j];
      const typing = input === document.activeElement && input.value !== (sent[i] || [])[j];
      if (!typing && input.value !== String(v)) input.value = v;
    }));
    return;
  }
  const table = document.createElement('table');
  const head = table.createTHead().insertRow();
  head.appendChild(document.createElement('th'));
  for (const c of data.cols) {
    const th = document.createElement('th');
    th.scope = 'col';
    th.textContent = c;
    head.appendChild(th);
  }
  const body = table.createTBody();
  const cells = data.table.map((values, i) => {
    const tr = body.insertRow();
    const th = document.createElement('th');
    th.scope = 'row';
    th.textContent = data.rows[i];
    tr.appendChild(th);
    return values.map((v, j) => {
      const input = document.createElement('input');
      Object.assign(input, {type: 'number', min: 0, max: data.max, step: 1, value: v});
      input.setAttribute('aria-label', `${data.rows[i]}, ${data.cols[j]}`);
      tr.insertCell().appendChild(input);
      return input;
    });
  });
  const send = () => {
    box.__sent = cells.map((row) => row.map((input) => input.value));
    setStateValue('table', box.__sent);
  };
  table.addEventListener('change', send);  // a cell left after an edit, or Enter, or a step
  box.replaceChildren(table);
  box.__shape = shape;
  box.__cells = cells;
}
"""


@functools.cache
def _component() -> Any:
    return st.components.v2.component(COMPONENT, html=_HTML, css=_CSS, js=_JS, isolate_styles=False)


def rows_sent(sent: Any, shape: tuple[int, int]) -> list[list[Any]] | None:
    """The rows a browser sent if they are a table of ``shape`` whose cells are text, numbers
    or empty; else None (the caller cleans the values)."""
    if not isinstance(sent, list) or len(sent) != shape[0]:
        return None
    if not all(isinstance(row, list) and len(row) == shape[1] for row in sent):
        return None
    if not all(v is None or isinstance(v, (str, int, float)) for row in sent for v in row):
        return None
    return [list(row) for row in sent]


def edit(
    table: np.ndarray,
    rows: Sequence[str],
    cols: Sequence[str],
    key: str,
    max_count: int,
    on_edit: Callable[[list[list[Any]]], None],
) -> None:
    """Show ``table`` (classes x clusters, named ``rows`` and ``cols``; counts up to
    ``max_count``) to edit. An edit calls ``on_edit`` with the rows as sent (:func:`rows_sent`)
    before the run it starts: it cleans them and keeps the table, so that run shows the edited
    table everywhere, the grid included (with the cleaned counts)."""
    shape = (len(rows), len(cols))
    _component()(
        key=key,
        data={
            "table": np.asarray(table).tolist(),
            "rows": list(rows),
            "cols": list(cols),
            "max": max_count,
        },
        default={"table": None},
        on_table_change=functools.partial(_edited, key, shape, on_edit),
    )


def _edited(key: str, shape: tuple[int, int], on_edit: Callable[[list[list[Any]]], None]) -> None:
    """An edit's callback: the rows sent, checked, to ``on_edit`` (nothing if malformed)."""
    state = st.session_state.get(key)
    rows = rows_sent(state.get("table") if isinstance(state, Mapping) else None, shape)
    if rows is not None:
        on_edit(rows)
