"""clustlens dashboard entry script: ``streamlit run dashboard/app.py`` or ``clustlens dashboard``.

Sets up the page, draws the sidebar (shared by every view) and routes with ``st.navigation``.
New views (Sweep, Multi-view, Learn, ...) are one file in ``views/`` plus one line in ``PAGES``.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
if str(ROOT) not in sys.path:  # `streamlit run dashboard/app.py` from a source checkout
    sys.path.insert(0, str(ROOT))

import streamlit as st  # noqa: E402

from dashboard.ui import chart_element, warmup  # noqa: E402

if __name__ == "__main__":  # (not in a worker that imports this script)
    # first of all: the browser fetches plotly.js while this run waits for the warm-up below
    chart_element.preload()
# before our own imports: the launcher's thread may be importing them right now
warmup.wait()

from dashboard import inputs  # noqa: E402
from dashboard.session import state  # noqa: E402
from dashboard.ui import presentation, sessions, sidebar  # noqa: E402

#: section -> [(page file relative to this script, title, icon, url path)]; the first is default.
PAGES: dict[str, list[tuple[str, str, str, str]]] = {
    "Evaluate": [
        ("views/summary.py", "Summary", ":material/summarize:", "summary"),
        ("views/contingency.py", "Contingency", ":material/grid_on:", "contingency"),
        ("views/pairs.py", "Pair confusion", ":material/join_inner:", "pairs"),
        ("views/compare.py", "Compare", ":material/compare_arrows:", "compare"),
        ("views/affinity.py", "Affinity", ":material/hub:", "affinity"),
        ("views/points.py", "Points", ":material/scatter_plot:", "points"),
    ],
    "Explore": [
        ("views/sweep.py", "Sweep", ":material/tune:", "sweep"),
        ("views/multiview.py", "Multi-view", ":material/view_column:", "multiview"),
    ],
    "Teach": [
        ("views/learn.py", "Learn", ":material/school:", "learn"),
    ],
}


def _pages() -> dict[str, list[st.Page]]:
    out: dict[str, list[st.Page]] = {}
    first = True
    for section, pages in PAGES.items():
        out[section] = []
        for rel, title, icon, url in pages:
            out[section].append(
                st.Page(HERE / rel, title=title, icon=icon, url_path=url, default=first)
            )
            first = False
    return out


def main() -> None:
    # Also set here what .streamlit/config.toml sets, for `streamlit run dashboard/app.py` run
    # from another folder (then our config file is not read): no tracebacks to the browser.
    # CLUSTLENS_DEBUG_ERRORS=1 keeps the details (for the test suite's AppTest runs only)
    if not os.environ.get("CLUSTLENS_DEBUG_ERRORS"):
        st.set_option("client.showErrorDetails", "none")
    st.set_option("client.toolbarMode", "minimal")
    st.set_page_config(
        page_title="clustlens",
        page_icon="📊",  # an emoji is drawn inline; a :material: icon is fetched from Google
        layout="wide",
        initial_sidebar_state="expanded",
    )
    # presentation mode hides the sidebar: the navigation moves to the top so it stays
    nav = st.navigation(_pages(), position="top" if presentation.current().on else "sidebar")
    s = state.get()
    if not s.started:
        _load_demo(s)
    else:
        # a later run: the session's first page is done (the user acted on it), and the
        # server's warm-up need not wait for a pause any more
        inputs.first_page_done()
    sidebar.render(s)
    with st.sidebar:
        sessions.controls()
        presentation.controls()
    presentation.apply()
    sessions.offer_last()
    nav.run()
    sessions.autosave()
    # after the page is out: start the upload worker's fork server for the first upload
    inputs.warm_up_worker()


def _load_demo(s: state.AppState) -> None:
    """Put the demo into a new session (once); a broken install starts empty, with a message."""
    s.started = True
    try:
        s.truth, preds, s.coef = inputs.load_demo()
        s.preds = list(preds)
    except Exception as exc:  # the app must still open: the user can upload files
        s.messages.append(("warning", f"the demo could not be loaded ({exc}); upload files"))


# Streamlit runs this script as "__main__"; a worker process that imports it (multiprocessing
# preloads "__main__" as "__mp_main__") must not draw anything.
if __name__ == "__main__":
    main()
