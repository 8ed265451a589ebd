"""Benchmarks are scripts run by hand; the minimal app is a Streamlit script (it runs on import)."""

collect_ignore = ["minimal_app"]
