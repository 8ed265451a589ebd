"""Analysis: UI-free objects and derivations that every surface shows (no Streamlit, no Plotly).

``conventions.Conventions`` is the frozen set of conventions; ``objects`` builds the analysis
objects (``PartitionAnalysis``, ``AffinityAnalysis``, ``Analysis``) that the pages, the report,
the exports and ``clustlens report`` all draw from; ``partition`` orders tables and reads
splits and merges, ``pooling`` reduces |C| + |C|ᵀ for display without densifying it, and
``explain``, ``scenarios``, ``null_bands`` are the Learn page's maths.
"""
