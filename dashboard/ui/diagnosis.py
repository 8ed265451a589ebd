"""The one reading of splits and merges, as every page shows it: the thresholds (shared session
values), the verdict and the findings with their causes and links.

Summary, Contingency and Pair confusion call these, the report and the CLI print the same
verdict (:func:`metrics_core.diagnosis.verdict`), so no two surfaces can read one prediction
differently.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from dashboard.session.state import K_LEAK_SHARE, K_MIN_SHARE, K_WEAK_CONN
from dashboard.ui import widgets as ui
from metrics_core.diagnosis import CAUSE_WORDS, verdict

PAGE_OF = {"contingency": "views/contingency.py", "affinity": "views/affinity.py"}


def thresholds_controls() -> None:
    """The diagnosis thresholds (session values: moving one here moves it on every page)."""
    with st.expander("Thresholds of the diagnosis (the same on every page and in the report)"):
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


def show_findings(found: list[dict[str, Any]], *, limit: int = 8, here: str = "") -> None:
    """One finding per line, most costly first: kind, points, cause, words, and links to the
    page that shows it (not to ``here``, the page already open) and to its points."""
    for f in found[:limit]:
        pts = f"{f['points']:,} point{'s' if f['points'] != 1 else ''}"
        cause = CAUSE_WORDS.get(f["cause"], "")
        line, link, where = st.columns([6, 1.4, 1.2], vertical_alignment="center")
        line.markdown(f"**{f['kind']}** · {pts} · *{cause}* — {ui.md_escape(f['text'])}")
        target = f["link"].get("page", "")
        page = PAGE_OF.get(target)
        if page and target != here:
            link.page_link(page, label=f"open {target}")
        focus = {k: str(f["link"][k]) for k in ("class", "cluster") if k in f["link"]}
        if focus:
            where.page_link(
                "views/points.py",
                label="show points",
                query_params=focus,
                help="the Points page, with these points ringed and listed",
            )
    if len(found) > limit:
        ui.note(
            f"{len(found) - limit} smaller findings in the report and in `clustlens evaluate "
            "--explain`"
        )
