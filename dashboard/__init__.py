"""clustlens dashboard: the Streamlit app (``app.py``), its state, compute layer, views and figures.

Layout: ``state.py`` holds what the user loaded (raw bytes, names, parsed arrays);
``compute.py`` is the only place that computes (cached on hashes and strings);
``figures/`` turns plain arrays into Plotly figures; ``views/`` are thin pages.
"""
