"""The one reading of splits and merges, as every page shows it: the thresholds (shared session
values), the verdict and the findings with their causes and links.

Summary, Contingency and Pair confusion call these, the report and the CLI print the same
verdict (:func:`metrics_core.diagnosis.verdict`), so no two surfaces can read one prediction
differently.
"""

from __future__ import annotations

import html
from typing import Any

import streamlit as st

from dashboard.analysis.focus import Focus
from dashboard.session.state import K_LEAK_SHARE, K_MIN_SHARE, K_WEAK_CONN
from dashboard.ui import links_element
from dashboard.ui import widgets as ui
from dashboard.ui.sessions import SID
from metrics_core.diagnosis import CAUSE_WORDS, verdict

#: Whether the thresholds' box is open (its widgets are built only then).
K_THRESHOLDS_OPEN = "diag_thresholds_open"
#: Session key prefix of each page's "more findings" box (its open state).
K_MORE_OPEN = "diag_more_open_"
#: Session key prefix of each page's findings element (its click reports the link followed).
K_FINDINGS = "diag_findings_"
#: Findings shown at once; the rest are in a box built when opened.
FIRST_FINDINGS = 3

PAGE_OF = {
    "contingency": "views/contingency.py",
    "affinity": "views/affinity.py",
    "points": "views/points.py",
}


def focus_from_query() -> Focus:
    """The classes and clusters a finding's link opened this page on (``?class=`` and
    ``?cluster=``, each possibly repeated)."""
    q = st.query_params
    return Focus.of(q.get_all("class"), q.get_all("cluster"))


def show_focus(focus: Focus, lines: list[str], *, outlined: str) -> None:
    """Say what the page was opened on, what is outlined, and the numbers of it."""
    if not focus:
        return
    body = (
        "  \n".join(ui.md_escape(line) for line in lines)
        if lines
        else ("not in this data (the link came from another prediction or file)")
    )
    st.info(f"**Opened on {ui.md_escape(focus.describe())}** ({outlined}):  \n{body}")


def thresholds_controls() -> None:
    """The diagnosis thresholds (session values: moving one here moves it on every page)."""
    # built only when opened (a rerun); the values are session values, kept while it is closed
    box = st.expander(
        "Thresholds of the diagnosis (the same on every page and in the report)",
        key=K_THRESHOLDS_OPEN,
        on_change="rerun",
    )
    if not box.open:
        return
    with box:
        c = st.columns(3)
        c[0].number_input(
            "piece / part share", 0.01, 0.99, step=0.05, key=K_MIN_SHARE,
            persist_state="session",
            help="a cluster holding at least this share of a class is a piece of a split; a "
            "class making up this share of a cluster is part of a merge",
        )  # fmt: skip
        c[1].number_input(
            "weak CONN below", 0.0, 2.0, step=0.01, key=K_WEAK_CONN, persist_state="session",
            help="a class whose λ2 is below this is held together by weak links",
        )  # fmt: skip
        c[2].number_input(
            "leakage from", 0.0, 1.0, step=0.01, key=K_LEAK_SHARE, persist_state="session",
            help="share of two classes' coefficient mass on each other that counts as a leak",
        )  # fmt: skip


def show_verdict(found: list[dict[str, Any]]) -> None:
    """The verdict in one sentence (a success box when nothing went wrong)."""
    if found:
        # counts and fixed words only (no class or file name), so no escaping is needed
        st.markdown(f"**{verdict(found)}**")
    else:
        st.success(verdict(found))


def show_findings(
    found: list[dict[str, Any]], *, limit: int = 8, here: str = "", first: int = FIRST_FINDINGS
) -> None:
    """One finding per line, most costly first: kind, points, cause, words, and links that open
    the pages showing it on its classes or clusters: Contingency (its row or column outlined),
    Affinity when C is given (its classes' blocks, bars and leaks) and Points (its points
    ringed). A link to ``here`` outlines the finding on the page already open.

    The ``first`` costliest are shown; the others (up to ``limit``) sit in a box built when
    opened. The lines and their links are one element (``links_element``): as a markdown line
    and three page links each, the three shown were fifteen elements, a third of Summary's.
    """
    shown = found[:limit]
    page = here or "summary"
    _findings(shown[:first], here, key=f"{K_FINDINGS}{page}")
    rest = shown[first:]
    if rest:
        points = sum(int(f["points"]) for f in rest)
        box = st.expander(
            f"{len(rest)} more finding{'s' if len(rest) != 1 else ''} "
            f"({points:,} point{'s' if points != 1 else ''} in all)",
            key=f"{K_MORE_OPEN}{page}",
            on_change="rerun",
        )
        if box.open:
            with box:
                _findings(rest, here, key=f"{K_FINDINGS}more_{page}")
    if len(found) > limit:
        ui.note(
            f"{len(found) - limit} smaller findings in the report and in `clustlens evaluate "
            "--explain`"
        )


def _findings(found: list[dict[str, Any]], here: str, key: str) -> None:
    """The findings' lines and links, one element; a click on a link opens its page."""
    if not found:
        return
    extra = _session_query()
    clicked = links_element.show(
        "".join(finding_html(f, here, extra) for f in found),
        key=key,
        pages=PAGE_OF,
        params=("class", "cluster", SID),
    )
    if clicked is not None:
        page, query = clicked
        st.switch_page(PAGE_OF[page], query_params=query)


def _session_query() -> dict[str, list[str]]:
    """The session id, which travels with every link (a reload there keeps the session)."""
    sid = st.query_params.get(SID)
    return {SID: [sid]} if sid else {}


def finding_html(f: dict[str, Any], here: str, extra: dict[str, list[str]]) -> str:
    """One finding: its line (kind, points, cause, words; escaped) and its links, whose
    addresses carry ``extra`` (the session id) after the focus."""
    pts = f"{f['points']:,} point{'s' if f['points'] != 1 else ''}"
    cause = CAUSE_WORDS.get(f["cause"], "")
    line = (
        f"<p><strong>{html.escape(str(f['kind']))}</strong> · {pts} · "
        f"<em>{html.escape(cause)}</em> — {html.escape(str(f['text']))}</p>"
    )
    own = Focus.of(clusters=f["clusters"][:1]) if f["kind"] == "merge" else Focus.of(f["classes"])
    classes = Focus.of(f["classes"])
    targets = [("contingency", own, "its row or column outlined")]
    if f["cause"] != "unknown" and classes:
        targets.append(("affinity", classes, "its classes outlined, with CONN, SRE, leaks"))
    targets.append(("points", own, "its points ringed and listed"))
    anchors = [
        links_element.anchor(
            page,
            "outline it here" if page == here else f"→ {page.capitalize()}",
            {**focus.query(), **extra},
            f"the {page.capitalize()} page, {what}",
        )
        for page, focus, what in targets
        if focus
    ]
    return f'<div class="cl-finding">{line}{links_element.links_row(anchors)}</div>'
