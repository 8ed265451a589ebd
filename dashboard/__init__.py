"""clustlens dashboard: one flow from the user's files to every surface that shows a number.

``inputs/`` turns bytes into inputs (one builder) → ``session/`` holds them in one typed
``AppState`` → ``compute/`` caches the UI-free analysis objects of ``analysis/`` on content
hashes → ``figures/`` draws them (pure builders) → ``views/`` (pages), ``outputs/`` (HTML
report, exports) and ``cli/`` (``clustlens report``) show them; ``ui/`` holds the Streamlit
helpers and ``app.py`` routes. import-linter keeps these layers (contracts in pyproject.toml).
"""
