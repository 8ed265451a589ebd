"""The peer of ``bench_browser.py``: a minimal Streamlit app with the dashboard's navigation.

``python -m streamlit run tests/benchmarks/minimal_app/app.py``. The same sections, page titles,
icons and url paths as ``dashboard/app.py`` (read from its ``PAGES`` literal, so the two cannot
drift apart; nothing of clustlens is imported), ``st.navigation`` in the sidebar, wide layout;
each page is a title, a line of text and one 10-point Plotly scatter. So it pays Streamlit's and
plotly.js's fixed costs (server start, page load, websocket, one script run, one chart) and
nothing else.

The peer of an action: the page titled :data:`ACTION_PAGE` also has a "Run" button that sleeps
:data:`ACTION_SECONDS` (standing for a computation) and then shows a 10-row table, as the
dashboard's Run buttons show their results. What the click takes beyond the sleep is the least
overhead any Streamlit action has.
"""

from __future__ import annotations

import ast
import time
from pathlib import Path

import plotly.graph_objects as go
import streamlit as st

DASHBOARD_APP = Path(__file__).resolve().parents[3] / "dashboard" / "app.py"
#: The page with the peer action, and what the action "computes" (bench_browser.py reads both).
ACTION_PAGE = "Multi-view"
ACTION_SECONDS = 1.0


@st.cache_resource(show_spinner=False)
def dashboard_pages() -> dict[str, list[tuple[str, str, str, str]]]:
    """``PAGES`` of ``dashboard/app.py``: section -> [(file, title, icon, url path)]."""
    tree = ast.parse(DASHBOARD_APP.read_text(encoding="utf-8"))
    for node in tree.body:
        target = node.target if isinstance(node, ast.AnnAssign) else None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        if isinstance(target, ast.Name) and target.id == "PAGES" and node.value is not None:
            return ast.literal_eval(node.value)
    raise RuntimeError(f"no PAGES literal in {DASHBOARD_APP}")


def page_for(title: str, index: int):
    def page() -> None:
        st.title(title)
        st.write(f"The minimal app's {title} page: a title, this line and one small chart.")
        xs = list(range(10))
        fig = go.Figure(go.Scatter(x=xs, y=[(x * 7 + index) % 10 for x in xs], mode="markers"))
        fig.update_layout(height=300, margin={"l": 20, "r": 20, "t": 20, "b": 20})
        st.plotly_chart(fig, key=f"chart_{index}")
        if title == ACTION_PAGE and st.button("Run", key="peer_run"):
            time.sleep(ACTION_SECONDS)
            with st.container(key="peer_table"):
                st.dataframe({"row": list(range(10)), "value": [x * x for x in range(10)]})

    return page


def main() -> None:
    st.set_page_config(page_title="minimal app", layout="wide", initial_sidebar_state="expanded")
    pages: dict[str, list[st.Page]] = {}
    index = 0
    for section, entries in dashboard_pages().items():
        pages[section] = []
        for _file, title, icon, url in entries:
            pages[section].append(
                st.Page(page_for(title, index), title=title, icon=icon, url_path=url,
                        default=index == 0)
            )  # fmt: skip
            index += 1
    st.navigation(pages, position="sidebar").run()


main()
