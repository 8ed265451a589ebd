"""The first page's imports, done while the browser is still loading the app.

A cold first visit used to spend most of its first script run importing pandas, scipy, plotly,
pyarrow and our own modules, with the server otherwise idle while the browser fetched and parsed
Streamlit's JavaScript. ``clustlens dashboard`` starts the server through :mod:`dashboard.launch`,
which calls :func:`start`: a thread that waits until Streamlit's runtime is up (so it does not
slow the server's own start), then imports :data:`MODULES`. The entry script calls :func:`wait`
before its own imports, so no module is ever imported by two threads at once (a concurrent
import of pandas from two threads has left it half-initialised here). Without the launcher
(``streamlit run dashboard/app.py``, ``AppTest``) nothing is started and :func:`wait` returns at
once. Its imports done, the thread starts the one that runs Python's full garbage collections in
pauses (:mod:`dashboard.session.heap`).
"""

from __future__ import annotations

import importlib
import logging
import threading
import time

from dashboard.session import heap, scripts

#: What the first page (Summary, the demo loaded) imports, heaviest first; the dashboard's own
#: modules last (they need the runtime only at call time, and it exists by then).
MODULES: tuple[str, ...] = (
    "numpy",
    "scipy.sparse",
    "scipy.sparse.csgraph",
    "scipy.linalg",
    "pandas",
    "pyarrow",
    "plotly.graph_objects",
    "plotly.io",
    "metrics_core.evaluation",
    "metrics_core.diagnosis",
    "metrics_core.affinity._diagnostics",
    "metrics_core.datasets",
    "metrics_core.io",
    "dashboard.inputs",
    "dashboard.session.state",
    "dashboard.compute.evaluation",
    "dashboard.figures.summary",
    "dashboard.ui.sidebar",
    "dashboard.ui.sessions",
    "dashboard.ui.widgets",
    "dashboard.ui.diagnosis",
    "dashboard.ui.links_element",
    "dashboard.ui.downloads",
    "dashboard.ui.presentation",
    "dashboard.analysis.focus",
    "demo_data.make_demo",
    "streamlit.emojis",  # the page icon (st.set_page_config)
    "streamlit.material_icon_names",
    # The other pages' own modules (0.09 s in all, none of them scikit-learn's): a first visit
    # imported them while its page was built and sent — Multi-view's ~40 ms, more on a busy
    # server. Last, so the first page never waits for them unless the browser is quicker.
    "PIL.Image",
    "PIL.PngImagePlugin",
    "dashboard.figures.panels",
    "dashboard.figures.contingency",
    "dashboard.analysis.compare",
    "dashboard.figures.pairs",
    "dashboard.figures.points",
    "dashboard.compute.points",
    "dashboard.compute.sweep",
    "dashboard.compute.sweep_job",
    "metrics_core.sweep",
    "demo_data.make_sweep_demo",
    "dashboard.figures.sweep",
    "metrics_core.multiview._data",
    "metrics_core.multiview._ssf",
    "metrics_core.multiview._baselines",
    "metrics_core.multiview._protocol",
    "dashboard.compute.background",
    "dashboard.compute.multiview",
    "dashboard.figures.multiview",
    "demo_data.make_multiview_ssf",
    "demo_data.make_multiview_table",
    "dashboard.compute.learn",
    "dashboard.figures.learn",
    "dashboard.ui.table_editor",
    "dashboard.outputs.report",
)
#: Longest a script run waits for the warm-up (a stuck import must not hold the page forever).
WAIT_S = 60.0
#: How often the thread looks whether the runtime has started, and how long it looks at most.
_POLL_S = 0.05
_START_WAIT_S = 120.0

_log = logging.getLogger(__name__)
_done = threading.Event()
_done.set()  # nothing to wait for until start() is called
_started = threading.Lock()


def start() -> bool:
    """Start the warm-up thread (once per process); False if it was already started."""
    if not _started.acquire(blocking=False):
        return False
    _done.clear()
    threading.Thread(target=_run, name="clustlens-warmup", daemon=True).start()
    return True


def wait(timeout: float = WAIT_S) -> bool:
    """Block until the warm-up is over (at once if none runs); False if ``timeout`` ran out."""
    return _done.wait(timeout)


def _runtime_started() -> bool:
    from streamlit.runtime import Runtime, RuntimeState

    return Runtime.exists() and Runtime.instance().state != RuntimeState.INITIAL


def _exercise() -> None:
    """What the first charts and tables import on first use, past the modules themselves:
    plotly loads the class of each trace type and layout part the first time a figure uses
    it (two dozen modules across the pages' figures: images, colour bars, subtitles, axis
    titles, sankey nodes...; ~10 ms of a first visit of Multi-view) and checks arrays through
    narwhals; PIL loads its image plugins on the first PNG written; pyarrow its pandas layer."""
    import numpy as np
    import pandas as pd
    import plotly.graph_objects as go
    import plotly.io as pio
    import pyarrow as pa
    from PIL import Image

    one = np.zeros(1)
    font = {"size": 9}
    bar = {"title": {"text": "c"}}
    figure = go.Figure(
        [
            go.Image(source="data:,", x0=0, y0=0, dx=1, dy=1),
            go.Heatmap(z=[one], texttemplate="%{z}", textfont=font, colorbar=bar),
            go.Scatter(x=one, y=one, line={"width": 1}, marker={"color": one, "colorbar": bar}),
            go.Bar(x=one, y=one, textfont=font),
            go.Sankey(
                node={"label": ["a", "b"], "line": {"width": 0}},
                link={"source": [0], "target": [1], "value": [1]},
            ),
        ],
        {
            "title": {"text": "t", "subtitle": {"text": "s", "font": font}},
            "annotations": [{"text": "a", "font": font}],
            "legend": {"title": {"text": "l"}},
            "coloraxis": {"colorbar": bar},
            "xaxis": {"title": {"text": "x", "font": font}, "tickfont": font},
            "yaxis": {"title": {"text": "y", "font": font}, "tickfont": font},
        },
    )
    pio.to_json(figure)
    Image.preinit()
    pa.Table.from_pandas(pd.DataFrame({"a": [1]}))


def _run() -> None:
    try:
        deadline = time.monotonic() + _START_WAIT_S
        while not _runtime_started() and time.monotonic() < deadline:
            time.sleep(_POLL_S)
        t0 = time.perf_counter()
        for name in MODULES:
            try:
                importlib.import_module(name)
            except Exception:  # the page imports it again and reports what is wrong
                _log.warning("warm-up could not import %s", name, exc_info=True)
        try:
            _exercise()
        except Exception:
            _log.warning("warm-up: a first figure or table could not be built", exc_info=True)
        _log.debug("warm-up imports took %.2f s", time.perf_counter() - t0)
        # from now on full collections wait for a pause (dashboard.session.heap); started
        # after the imports, so that none runs beside them while the first page waits
        heap.start(scripts.building, scripts.wait_built)
    finally:
        _done.set()
