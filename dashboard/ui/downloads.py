"""Streamlit download widgets of the exports (the only Streamlit part of exporting)."""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

from dashboard.outputs.export import ExportUnavailable, figure_bytes, static_export_status


def figure_downloads(fig: Any, stem: str, key: str) -> None:
    """ "Prepare PNG/SVG" then two download buttons, or one plain line saying why not.

    Rendering starts a browser, so it happens on request only; the bytes are kept in the
    session (keyed on ``key`` and the figure's JSON) so reruns do not render again.
    ``stem`` is our own file-name stem (never a user string).
    """
    ok, why = static_export_status()
    if not ok:
        st.caption(why)
        return
    store = st.session_state.setdefault("_clustlens_exports", {})
    cached = store.get(key)
    # the figure's JSON is hashed only when there is something to compare it with: most
    # figures are never exported, and hashing a large heatmap on every rerun costs time
    digest = hashlib.sha256(fig.to_json().encode()).hexdigest()[:16] if cached else ""
    if cached is None or cached[0] != digest:
        if st.button("Prepare PNG and SVG", key=f"{key}_prepare", icon=":material/image:"):
            try:
                with st.spinner("Rendering with the system browser…"):
                    png = figure_bytes(fig, "png")
                    svg = figure_bytes(fig, "svg")
            except ExportUnavailable as exc:
                st.caption(str(exc))
                return
            digest = hashlib.sha256(fig.to_json().encode()).hexdigest()[:16]
            store[key] = (digest, png, svg)
            cached = store[key]
        else:
            return
    _, png, svg = cached
    c1, c2 = st.columns(2)
    c1.download_button("PNG", png, file_name=f"{stem}.png", mime="image/png", key=f"{key}_png")
    c2.download_button("SVG", svg, file_name=f"{stem}.svg", mime="image/svg+xml", key=f"{key}_svg")
