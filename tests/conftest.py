"""Shared test configuration."""

from __future__ import annotations

import os

from hypothesis import HealthCheck, settings

# Every figure a test builds through dashboard.figures._style.figure (assembled without plotly.py's
# checks) is also built validated and must read the same in plotly.js; servers the browser tests
# start inherit it.
os.environ.setdefault("CLUSTLENS_CHECK_FIGURES", "1")

# The benchmarks' minimal app is a Streamlit script: it draws when imported.
collect_ignore = ["benchmarks/minimal_app"]

settings.register_profile(
    "clustlens",
    max_examples=int(os.environ.get("CLUSTLENS_HYPOTHESIS_EXAMPLES", "60")),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
    derandomize=True,
)
settings.load_profile("clustlens")

# As dashboard/.streamlit/config.toml says (AppTest does not read that file): no magic, so no
# ast.parse of each page per run (racy on CPython 3.11 when another thread parses too).
try:
    from streamlit import config as _st_config

    _st_config.set_option("runner.magicEnabled", False)
except ImportError:  # the library's tests run without the dashboard installed
    pass
