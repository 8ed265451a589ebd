"""Real-browser tests: Playwright driving Debian's chromium against a live Streamlit server."""
