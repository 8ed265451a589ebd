"""Streamlit download widgets of the exports (the only Streamlit part of exporting)."""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

from dashboard.outputs.export import ExportUnavailable, figure_bytes, static_export_status


def figure_downloads(fig: Any, stem: str, key: str) -> None:
    """ "Prepare PNG, SVG and PDF" (PNG scale chosen) then three download buttons, or one plain
    line saying why not. The figure exported is the one on screen (presentation theme included).

    Rendering starts a browser, so it happens on request only; the bytes are kept in the
    session (keyed on ``key`` and the figure's JSON) so reruns do not render again.
    ``stem`` is our own file-name stem (never a user string).
    """
    ok, why = static_export_status()
    if not ok:
        st.caption(why)
        return
    store = st.session_state.setdefault("_clustlens_exports", {})
    scale = int(
        st.radio(
            "PNG scale",
            [1, 2, 3],
            index=1,
            horizontal=True,
            format_func=lambda v: f"{v}×",
            key=f"{key}_scale",
            help="pixels per point of the PNG: 2× for slides, 3× for print",
        )
    )
    cached = store.get(key)
    # the figure's JSON is hashed only when there is something to compare it with: most
    # figures are never exported, and hashing a large heatmap on every rerun costs time
    digest = hashlib.sha256(fig.to_json().encode()).hexdigest()[:16] if cached else ""
    if cached is None or cached[0] != (digest, scale):
        if st.button("Prepare PNG, SVG and PDF", key=f"{key}_prepare", icon=":material/image:"):
            try:
                with st.spinner("Rendering with the system browser…"):
                    png = figure_bytes(fig, "png", scale=scale)
                    svg = figure_bytes(fig, "svg")
                    pdf = figure_bytes(fig, "pdf")
            except ExportUnavailable as exc:
                st.caption(str(exc))
                return
            digest = hashlib.sha256(fig.to_json().encode()).hexdigest()[:16]
            store[key] = ((digest, scale), png, svg, pdf)
            cached = store[key]
        else:
            return
    _, png, svg, pdf = cached
    c1, c2, c3 = st.columns(3)
    c1.download_button("PNG", png, file_name=f"{stem}.png", mime="image/png", key=f"{key}_png")
    c2.download_button("SVG", svg, file_name=f"{stem}.svg", mime="image/svg+xml", key=f"{key}_svg")
    c3.download_button("PDF", pdf, file_name=f"{stem}.pdf", mime="application/pdf",
                       key=f"{key}_pdf")  # fmt: skip
