"""Doctest collection of the dashboard: every module's examples run with the suite.

The entry script and the page scripts are Streamlit scripts (they draw when imported); the
AppTest and browser tests run them, so doctest collection skips them.
"""

collect_ignore = ["app.py"]
collect_ignore_glob = ["views/*.py"]
