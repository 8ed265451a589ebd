"""UI: the Streamlit helpers the pages share — the sidebar's inputs, safe text and error boxes,
charts with their PNG/SVG downloads, and presentation mode. The only layer besides the pages
and ``app.py`` that draws with ``st.*``."""
