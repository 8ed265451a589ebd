"""Small Streamlit helpers shared by the pages and the sidebar: safe text, errors, headers."""

from __future__ import annotations

import html
import logging
import re
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

import streamlit as st

from dashboard.session.state import AppState, Conventions, Input
from dashboard.ui import tab_strip as tab_strip_element
from metrics_core.validation._errors import ClustlensInputError

log = logging.getLogger("clustlens.dashboard")

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~:$=\"'&%^@;,/?])")


def md_escape(text: object) -> str:
    """Escape every Markdown-active character so Streamlit prints ``text`` literally.

    CommonMark lets any ASCII punctuation be backslash-escaped; escaping all of it also disarms
    Streamlit's extensions (``:red[...]``, ``:material/...:``, ``$math$``) and raw HTML.
    Newlines become spaces (one message, one line).

    Examples
    --------
    >>> md_escape("[x](javascript:alert(1)) *b* $y$")
    '\\\\[x\\\\]\\\\(javascript\\\\:alert\\\\(1\\\\)\\\\) \\\\*b\\\\* \\\\$y\\\\$'
    """
    s = str(text).replace("\r", " ").replace("\n", " ")
    return _MD_SPECIAL.sub(r"\\\1", s)


def seconds_text(seconds: float) -> str:
    """A duration as a page says it, to a hundredth under ten seconds (an action's computing
    is often a tenth of one; the browser benchmark reads it), a tenth under a hundred.

    Examples
    --------
    >>> seconds_text(0.1734), seconds_text(2.834), seconds_text(41.63), seconds_text(125.2)
    ('0.17 s', '2.83 s', '41.6 s', '125 s')
    """
    digits = 2 if seconds < 10 else 1 if seconds < 100 else 0
    return f"{seconds:.{digits}f} s"


def error(message: object) -> None:
    """One clear error box; the message (which may hold file names) is shown literally."""
    st.error(md_escape(message), icon=":material/error:")


def note(message: object) -> None:
    """A small caption shown literally."""
    st.caption(md_escape(message))


#: The class of every :func:`static_table` (its style sheet: ``presentation.LAYOUT_RULES``).
TABLE_CLASS = "cl-table"
#: The class of a static table sized to its text (``fit``), not stretched to the page's width.
FIT_CLASS = "cl-fit"
#: The box around each static table: it scrolls sideways when the table cannot fit the page.
TABLE_BOX_CLASS = "cl-table-box"
#: The class of a cell holding numbers only (no text): it breaks at spaces, never inside one.
NUMBER_CLASS = "cl-num"
#: The class of every :func:`preformatted` block (style sheet: ``presentation.LAYOUT_RULES``).
PRE_CLASS = "cl-pre"
#: The class of every :func:`metric_cards` grid (style sheet: ``presentation.LAYOUT_RULES``).
METRICS_CLASS = "cl-metrics"


_NUMBER = re.compile(r"[-+\u2212]?(?:\d[\d,]*(?:\.\d*)?|\.\d+)(?:[eE][-+\u2212]?\d+)?%?")
#: Marks that may stand between the numbers of a number cell ("0.94 ± 0.01 ★").
_NUMBER_MARKS = frozenset({"±", "★", "\u2013", "\u2014", "/", "×"})


def is_number_text(text: str) -> bool:
    """Whether a cell's text is numbers only (with ± ★ – — / × between them).

    Such a cell breaks at its spaces only, never inside a number, and lines its digits up
    (squeezed to fit 1,024 px, the Sweep table's 15 columns had shown "0.0830" as "0.0", "83"
    and "0" on three lines; a table too wide now scrolls in its box).

    Examples
    --------
    >>> [is_number_text(t) for t in ("0.8025\u00a0★", "0.94 ± 0.01", "1e-3", "k=10", "", "—")]
    [True, True, True, False, False, False]
    """
    tokens = text.replace("\u00a0", " ").split()
    return any(_NUMBER.fullmatch(t) for t in tokens) and all(
        _NUMBER.fullmatch(t) or t in _NUMBER_MARKS for t in tokens
    )


def _cell(value: object) -> str:
    text = str(value)
    attr = f' class="{NUMBER_CLASS}"' if is_number_text(text) else ""
    return f"<td{attr}>{html.escape(text)}</td>"


def table_html(
    rows: Sequence[Mapping[str, object]],
    columns: Sequence[str],
    widths: Sequence[float] | None = None,
    fit: bool = False,
) -> str:
    """A read-only HTML table of ``rows`` under ``columns``, every cell escaped (shown literally).

    ``widths``: each column's share of the table's width, in percent; tables given the same
    widths line up one under the other (otherwise each sizes its columns to its own text).
    ``fit``: the table as wide as its text needs (a few short columns), not the page's width.
    The table sits in a box that scrolls sideways when the page is too narrow for it (its
    numbers are never broken to make it fit: :func:`is_number_text`).

    Examples
    --------
    >>> table_html([{"metric": "a<b", "value": 1}], ["metric", "value"])
    '<div class="cl-table-box"><table class="cl-table"><thead><tr><th>metric</th><th>value</th></tr></thead><tbody><tr><td>a&lt;b</td><td class="cl-num">1</td></tr></tbody></table></div>'
    >>> table_html([{"score": "pair F1", "value": "0.7440"}], ["score", "value"], fit=True)[:64]
    '<div class="cl-table-box"><table class="cl-table cl-fit"><thead>'
    """  # noqa: E501
    if widths is not None and len(widths) != len(columns):
        raise ValueError(f"{len(widths)} widths for {len(columns)} columns")
    kind = f"{TABLE_CLASS} {FIT_CLASS}" if fit else TABLE_CLASS
    cols = style = ""
    if widths is not None:
        cols = "<colgroup>" + "".join(f'<col style="width: {w:g}%">' for w in widths)
        cols += "</colgroup>"
        style = ' style="table-layout: fixed"'
    head = "".join(f"<th>{html.escape(str(c))}</th>" for c in columns)
    body = "".join("<tr>" + "".join(_cell(r.get(c, "")) for c in columns) + "</tr>" for r in rows)
    return (
        f'<div class="{TABLE_BOX_CLASS}"><table class="{kind}"{style}>{cols}'
        f"<thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>"
    )


#: Tables of up to this many rows are static (every row shows, text wraps); longer ones are a
#: data frame (it scrolls and sorts): Summary's predictions, Sweep's settings.
STATIC_MAX_ROWS = 40


def static_table(
    rows: Sequence[Mapping[str, object]],
    columns: Sequence[str],
    widths: Sequence[float] | None = None,
    fit: bool = False,
) -> None:
    """Rows as one static table: every row shows and long text wraps inside the page width
    (``widths``, ``fit``: :func:`table_html`).

    One HTML element, not ``st.table``: that renders every cell as Markdown, a component each,
    and the Summary's catalogue (about 300 cells) cost the browser ~0.1 s on every visit.
    """
    st.html(table_html(rows, columns, widths, fit))


#: Class of the boxes of :func:`folded_html` (styled in ``presentation.LAYOUT_RULES``).
FOLD_CLASS = "cl-fold"


def folded_html(sections: Sequence[tuple[str, str, bool]], intro: str = "") -> str:
    """Boxes that open and close in the browser, one per ``(label, inner_html, open)``, under
    an optional ``intro`` line (a caption): label and intro are escaped, ``inner_html`` is put
    in as it is (build it escaped, e.g. with :func:`table_html`).

    Examples
    --------
    >>> folded_html([("a<b", "<p>x</p>", True), ("c", "", False)])  # doctest: +ELLIPSIS
    '<details class="cl-fold" open><summary>a&lt;b</summary><div><p>x</p></div></details>...'
    >>> folded_html([], intro="1 < 2")
    '<p class="cl-fold-intro">1 &lt; 2</p>'
    """
    head = f'<p class="{FOLD_CLASS}-intro">{html.escape(intro)}</p>' if intro else ""
    return head + "".join(
        f'<details class="{FOLD_CLASS}"{" open" if is_open else ""}>'
        f"<summary>{html.escape(label)}</summary><div>{inner}</div></details>"
        for label, inner, is_open in sections
    )


def folded(sections: Sequence[tuple[str, str, bool]], intro: str = "") -> None:
    """:func:`folded_html` as one element.

    Not one ``st.expander`` a box: each expander (and the element inside it) is mounted by the
    browser on every visit of the page; the browser's own ``<details>`` boxes are one element
    for all, open and close without a rerun, and keep their content as the server sent it.
    """
    st.html(folded_html(sections, intro))


def preformatted_html(text: str) -> str:
    """``text`` as one preformatted block, escaped (shown literally, line breaks and indents
    kept).

    Examples
    --------
    >>> preformatted_html("a <b> & c")
    '<pre class="cl-pre">a &lt;b&gt; &amp; c</pre>'
    """
    return f'<pre class="{PRE_CLASS}">{html.escape(text, quote=False)}</pre>'


def preformatted(text: str) -> None:
    """Plain text in a monospaced block, shown literally, as ``st.code(text, language=None)``
    shows it.

    Not ``st.code``: its element brings Streamlit's syntax highlighter, a 1.5 MB script the
    browser fetched and compiled (~0.2 s) the first time a page showed any code block, here to
    highlight nothing.
    """
    st.html(preformatted_html(text))


#: A card: label and value, optionally a help text (shown on hover or focus of a "?" mark).
Card = tuple[str, str] | tuple[str, str, str | None]


def metric_cards_html(items: Sequence[Card], per_row: int = 5, *, border: bool = False) -> str:
    """Labelled values as one grid of cards, ``per_row`` a row, every string escaped.

    Examples
    --------
    >>> metric_cards_html([("ACC", "0.88"), ("a<b", "1")], per_row=2)  # doctest: +ELLIPSIS
    '<div class="cl-metrics" style="grid-template-columns: repeat(2, 1fr)">...a&lt;b...</div>'
    >>> 'data-help="x &gt; 0"' in metric_cards_html([("ACC", "1", "x > 0")])
    True
    """
    cards = []
    for label, value, *rest in items:
        tip = rest[0] if rest else None
        mark = (
            ""
            if not tip
            else f'<span class="cl-help" tabindex="0" role="note" aria-label="{html.escape(tip)}" '
            f'data-help="{html.escape(tip)}">?</span>'
        )
        cards.append(
            f'<div class="cl-metric"><div class="cl-metric-label">{html.escape(str(label))}'
            f'{mark}</div><div class="cl-metric-value">{html.escape(str(value))}</div></div>'
        )
    kind = METRICS_CLASS + (" cl-bordered" if border else "")
    return (
        f'<div class="{kind}" style="grid-template-columns: repeat({int(per_row)}, 1fr)">'
        f"{''.join(cards)}</div>"
    )


def metric_cards(items: Sequence[Card], per_row: int = 5, *, border: bool = False) -> None:
    """Labelled values shown as ``st.metric`` shows them (no delta; help on a "?" mark), in one
    element.

    Not a ``st.metric`` in a column each: two elements a value (Summary's five headline values
    were eleven elements, Learn's ten twenty), each costing the browser a few milliseconds to
    mount on every visit.
    """
    st.html(metric_cards_html(items, per_row, border=border))


#: Prefix of the key of the container that holds the open tab's content (:func:`tab_strip`).
TAB_BODY_KEY = "tab_body_"


def tab_strip(labels: Sequence[str], key: str, name: str) -> tuple[str, Any]:
    """Lazy tabs: a strip of ``labels`` (a tablist named ``name``), the label of the open tab
    (``st.session_state[key]``: the first until another is clicked, then kept for the session),
    and the container below the strip that the caller draws that tab's content in (keyed
    ``tab_body_<key>``). A click reruns; only the open tab is built.

    The strip is ours, not ``st.tabs`` (why: :mod:`dashboard.ui.tab_strip`).
    """
    return tab_strip_element.show(labels, key, name), st.container(key=TAB_BODY_KEY + key)


@contextmanager
def guarded(what: str) -> Iterator[None]:
    """Turn a failure inside the block into a message on the page (never a traceback)."""
    try:
        yield
    except ClustlensInputError as exc:
        error(exc)
    except MemoryError:
        error(f"{what}: not enough memory for this input")
    except Exception as exc:  # keep the app up; details go to the server log only
        log.exception("dashboard: %s failed", what)
        error(f"{what} failed ({type(exc).__name__}); the server log has the details")


def inputs_line(s: AppState, pred: Input | None) -> str:
    """'ground truth: a.txt (300 points) · prediction: b.txt · C: c.npz' (unescaped)."""
    parts = []
    if s.truth is not None:
        parts.append(f"ground truth: {s.truth.name} ({s.truth.n:,} points)")
    if pred is not None:
        parts.append(f"prediction: {pred.name}")
    coef = s.coef_for(pred)
    if coef is not None:
        own = pred is not None and pred.own_coef is not None
        parts.append(f"C: {coef.name}" + (" (this prediction's own)" if own else ""))
    return " · ".join(parts) if parts else "nothing loaded"


def page_header(title: str, s: AppState, pred: Input | None, conv: Conventions) -> None:
    """Page title, what it is computed on (literal), and the conventions in use."""
    st.title(title)
    note(inputs_line(s, pred))
    if s.is_demo:
        if s.truth is not None and s.truth.name.startswith("HW demo"):
            st.caption(
                "Demo data: 2,000 handwritten digits (UCI Multiple Features, pixel view); C is "
                "their 10-nearest-neighbour graph, the prediction its spectral clustering. "
                "Upload your own files in the sidebar."
            )
        else:
            st.caption(
                "Demo data: 5 synthetic subspaces; the prediction splits class 1 and merges "
                "classes 4 and 5. Upload your own files in the sidebar."
            )


def require(
    s: AppState, pred: Input | None, *, need_coef: bool = False, need_pred: bool = True
) -> bool:
    """Show what is missing or mismatched; True when the page can be drawn.

    ``need_pred=False``: the page works from the ground truth and C alone (SRE, CONN, leakage
    and the affinity plot need no prediction).
    """
    if s.truth is None:
        st.info("Upload ground-truth labels in the sidebar to start.")
        return False
    if pred is None and need_pred:
        st.info("Upload a prediction (labels) in the sidebar to start.")
        return False
    problems = s.problems(pred)
    size_problems = [p for p in problems if p.startswith("prediction")]
    for p in size_problems:
        error(p)
    if size_problems:
        return False
    if need_coef:
        why = s.points_unavailable()
        if why:
            st.info(f"This view is unavailable: {why}")
            return False
        if s.coef_for(pred) is None:
            st.info("Upload a coefficient matrix C in the sidebar to see this view.")
            return False
        if not s.coef_ok(pred):
            for p in problems:
                error(p)
            return False
    return True


def chart(fig: Any, key: str, *, export: bool = True, **kwargs: Any) -> Any:
    """Draw a Plotly figure, restyled for presentation mode (theme and font size) when it is on,
    with a small "PNG / SVG / PDF" download button under it.

    Every view draws through this, so presentation mode and the static downloads reach every
    figure, not only the ones of the page that defined them. The images are rendered on request
    only (kaleido starts the system browser).
    """
    from dashboard.ui import chart_element, downloads, presentation

    settings = presentation.current()
    if settings.on:
        fig = presentation.style_figure(fig, settings)
    # drawn as built (our template, theme=None): Streamlit's theme would re-colour text and
    # scales on screen only, and the page would no longer match the report and the downloads
    kwargs.setdefault("theme", None)
    # our element draws a chart once (Streamlit's draws it twice); Streamlit's is the fallback
    if chart_element.available() and set(kwargs) <= {"theme", "on_select", "selection_mode"}:
        event = chart_element.draw(fig, key, _selection_modes(kwargs))
    else:
        event = st.plotly_chart(fig, key=key, **kwargs)
    if export:
        downloads.figure_downloads(fig, f"clustlens_{key}", f"{key}_export")
    return event


def _selection_modes(kwargs: dict[str, Any]) -> tuple[str, ...]:
    """The selection modes of ``st.plotly_chart`` keyword arguments (none without on_select)."""
    if kwargs.get("on_select", "ignore") == "ignore":
        return ()
    mode = kwargs.get("selection_mode", ("points", "box", "lasso"))
    return (mode,) if isinstance(mode, str) else tuple(mode)
