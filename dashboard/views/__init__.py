"""Thin pages, one per view; each is a script run by ``st.navigation`` (see ``app.py``)."""
