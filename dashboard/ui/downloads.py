"""Streamlit download widgets of the exports (the only Streamlit part of exporting)."""

from __future__ import annotations

import hashlib
from typing import Any

import streamlit as st

from dashboard.outputs.export import ExportUnavailable, figure_bytes, static_export_status


def figure_downloads(fig: Any, stem: str, key: str) -> None:
    """A "PNG / SVG / PDF" button; a click renders the figure on screen (presentation theme
    included) as PNG (1×, 2×, 3×), SVG and PDF and puts their download buttons in its place,
    with "Close" to put the button back — or, when rendering is not possible, one plain line
    saying why.

    A plain button, not a menu: a popover under each chart cost the browser ~12 ms a chart on
    every visit of its page (Multi-view's four: ~45 ms of a ~0.3 s cached visit; buttons in
    their place ~15 ms). Rendering starts a browser, so it happens on request only; the bytes
    are kept in the session (keyed on ``key`` and the figure's JSON) so reruns do not render
    again. ``stem`` is our own file-name stem (never a user string).
    """
    store = st.session_state.setdefault("_clustlens_exports", {})
    cached = store.get(key)
    # the figure's JSON is hashed only when there is something to compare it with: most
    # figures are never exported, and hashing a large heatmap on every rerun costs time
    digest = hashlib.sha256(fig.to_json().encode()).hexdigest()[:16] if cached else ""
    # one slot: the button, then the downloads in its place (in the run of the click too)
    slot = st.empty()
    if cached is None or cached[0] != digest:
        if not slot.button(
            "PNG / SVG / PDF",
            key=f"{key}_prepare",
            icon=":material/download:",
            help="render this figure as PNG (1×, 2×, 3×), SVG and PDF to download",
        ):
            return
        ok, why = static_export_status()
        if not ok:
            slot.caption(why)
            return
        try:
            with slot, st.spinner("Rendering with the system browser…"):
                # every PNG scale at once: a choice widget would be one more widget per chart
                pngs = {k: figure_bytes(fig, "png", scale=k) for k in (1, 2, 3)}
                svg = figure_bytes(fig, "svg")
                pdf = figure_bytes(fig, "pdf")
        except ExportUnavailable as exc:
            slot.caption(str(exc))
            return
        digest = hashlib.sha256(fig.to_json().encode()).hexdigest()[:16]
        store[key] = (digest, pngs, svg, pdf)
        cached = store[key]
    _, pngs, svg, pdf = cached
    row = slot.container(horizontal=True, gap="small")
    for k, png in pngs.items():
        row.download_button("PNG" if k == 2 else f"PNG {k}×", png, file_name=f"{stem}@{k}x.png",
                            mime="image/png", key=f"{key}_png" if k == 2 else f"{key}_png{k}",
                            help=f"{k} pixels per point" + (" (slides)" if k == 2 else
                            " (print)" if k == 3 else ""))  # fmt: skip
    row.download_button("SVG", svg, file_name=f"{stem}.svg", mime="image/svg+xml",
                        key=f"{key}_svg")  # fmt: skip
    row.download_button("PDF", pdf, file_name=f"{stem}.pdf", mime="application/pdf",
                        key=f"{key}_pdf")  # fmt: skip
    row.button("Close", key=f"{key}_close", icon=":material/close:", on_click=store.pop,
               args=(key, None), help="the downloads go; the button comes back")  # fmt: skip
