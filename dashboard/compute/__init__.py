"""Compute: Streamlit caches around the UI-free analysis builders, keyed on content hashes.

The only place the pages get numbers from. Each module wraps the functions of
:mod:`dashboard.analysis` (and of ``metrics_core``) in ``st.cache_data``/``st.cache_resource``,
keyed on input SHA-256 keys and ``Conventions.key``, never on arrays: ``evaluation`` for the
Evaluate pages and the report, ``sweep``, ``multiview`` and ``learn`` for theirs.
"""
