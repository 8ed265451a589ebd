"""Points: every point on a 2-D layout; select some to see their coefficients and neighbours."""

from __future__ import annotations

import numpy as np
import streamlit as st

from dashboard import inputs
from dashboard.analysis.points import focus as focus_points
from dashboard.analysis.points import image_mosaic, point_details, rank_selection
from dashboard.compute import evaluation
from dashboard.compute import points as compute
from dashboard.figures.points import colour_options, points_figure, selected_points
from dashboard.session import budget, state
from dashboard.ui import diagnosis as diag
from dashboard.ui import widgets as ui
from metrics_core.validation import ClustlensInputError

LAYOUTS = {
    "affinity": "affinity map of C",
    "data": "PCA of the data matrix X",
    "classes": "classes as blocks",
}


def _data_controls(s: state.AppState) -> None:
    """Upload a data matrix X (and say whether its rows are images), or load the HW demo."""
    ps = s.points
    with st.expander("Data matrix X and images", expanded=s.data is None):
        c1, c2 = st.columns([3, 2])
        up = c1.file_uploader(
            "Data matrix X (one row per point, in the ground truth's order)",
            type=["npy", "npz", "csv", "tsv", "txt", "mat", "h5", "hdf5"],
            key="points_x_upload",
            help="Gives the PCA layout; when the rows are images, selected points are drawn.",
        )
        fid = f"points_x:{getattr(up, 'file_id', None) or (up.name if up else '')}"
        if up is not None and fid not in s.processed:
            s.processed.add(fid)
            try:
                old = budget.input_charge(s.data)
                x = inputs.build_input("data", up.name, up.getvalue(),
                                       room=budget.room(s, replacing=old))  # fmt: skip
                if np.ndim(x.value) != 2:
                    raise ClustlensInputError("expected a 2-D matrix", source=up.name)
                if s.truth is not None and x.n != s.truth.n:
                    raise ClustlensInputError(
                        f"it has {x.n:,} rows but the ground truth {s.truth.name} has "
                        f"{s.truth.n:,} points (expected one row per point)",
                        source=up.name,
                    )
                shape = " x ".join(f"{d:,}" for d in x.value.shape)
                budget.admit(s, up.name, budget.input_charge(x), replacing=old,
                             what=f"this data matrix ({shape})")  # fmt: skip
                s.data = x
                ps.image_shape = None
            except ClustlensInputError as exc:
                ui.error(f"{exc} — the data loaded before is kept")
        with c2:
            if st.button("Load the handwritten-digits demo", key="points_hw_demo",
                         help="UCI HW: 2,000 digits with their 16 x 15 pixel images; C is the "
                         "10-nearest-neighbour graph of the pixels, the prediction its spectral "
                         "clustering"):  # fmt: skip
                truth, pred, coef, data, shape = inputs.load_hw_demo()
                s.truth, s.preds, s.coef, s.data = truth, [pred], coef, data
                s.from_counts = None
                ps.image_shape, ps.selection = shape, None
                st.session_state.pop(state.K_ACTIVE, None)
                st.rerun()
            if s.data is not None:
                d = s.data.value.shape[1]
                is_img = st.toggle("rows are images", value=ps.image_shape is not None,
                                   key="points_is_image")  # fmt: skip
                if is_img:
                    h0, w0 = ps.image_shape or _guess_shape(d)
                    a, b = st.columns(2)
                    h = int(a.number_input("height", 1, d, h0, key="points_img_h"))
                    w = int(b.number_input("width", 1, d, w0, key="points_img_w"))
                    if h * w != d:
                        ui.error(f"{h} x {w} = {h * w:,} pixels, but X has {d:,} columns")
                    else:
                        ps.image_shape = (h, w)
                else:
                    ps.image_shape = None
        if s.data is not None:
            ui.note(f"X: {s.data.name}, {s.data.n:,} x {s.data.value.shape[1]:,}")


def _guess_shape(d: int) -> tuple[int, int]:
    h = int(np.sqrt(d))
    while h > 1 and d % h:
        h -= 1
    return (d // h, h) if h > 1 else (1, d)


def render() -> None:
    s = state.get()
    conv = state.conventions()
    pred = state.active_pred(s)
    ui.page_header("Points", s, pred, conv)
    if not ui.require(s, pred, need_pred=False):
        return
    why = s.points_unavailable()
    if why:
        st.info(f"This view is unavailable: {why}")
        return
    _data_controls(s)
    has_c = evaluation.coef_fits(s.truth, s.coef_for(pred))
    has_x = s.data is not None and s.data.n == s.truth.n
    if s.data is not None and not has_x:
        ui.error(f"X ({s.data.name}) has {s.data.n:,} rows but the ground truth has "
                 f"{s.truth.n:,} points; it is not used")  # fmt: skip
    options = [k for k, ok in (("affinity", has_c), ("data", has_x), ("classes", True)) if ok]
    c1, c2 = st.columns([2, 3])
    layout = c1.radio("Layout", options, format_func=LAYOUTS.get, horizontal=True,
                      key="points_layout")  # fmt: skip
    with ui.guarded("laying out the points"):
        pa = compute.points(s.truth, pred, s.coef_for(pred), s.data, conv, layout)
        colours = colour_options(pa)
        colour_by = c2.radio("Colour by", colours, horizontal=True, key="points_colour")
        focus = diag.focus_from_query()
        opened = None
        if focus:
            opened = focus_points(pa, focus)
            ui.note(f"opened on {focus.describe()}: its {len(opened):,} points are ringed and "
                    "listed below")  # fmt: skip
        event = ui.chart(
            points_figure(pa, colour_by, highlight=opened),
            key=f"points_plot_{layout}_{colour_by}",
            on_select="rerun",
            selection_mode=("box", "lasso"),
        )
        ui.note(pa.layout.description)
        ui.note("Drag a box or a lasso to select points (double-click clears); hover a point for "
                "its labels and SRE. Drawn with WebGL"
                + (f"; {pa.sample_note}." if pa.sample_note else "."))  # fmt: skip
        picked = selected_points(pa, colour_by, _event_points(event))
        if not len(picked) and opened is not None:
            picked = opened
        _selection(s, pa, picked, conv, has_x, s.coef_for(pred))


def _event_points(event) -> list[dict]:
    try:
        return list(event.selection.points)  # type: ignore[union-attr]
    except AttributeError:
        return []


def _selection(s: state.AppState, pa, picked: np.ndarray, conv, has_x: bool, c_in) -> None:
    st.subheader("Selected points")
    if not len(picked):
        st.info("Select points on the plot (box or lasso) to list them here.")
        return
    parts = [f"{len(picked):,} points"]
    if pa.correct is not None:
        parts.append(f"{int((~pa.correct[picked]).sum()):,} misassigned")
    if pa.sre is not None:
        parts.append(f"mean SRE {float(pa.sre[picked].mean()):.3f}")
    classes = np.bincount(pa.truth[picked], minlength=len(pa.truth_names))
    top = np.argsort(-classes)[:4]
    parts.append("classes " + ", ".join(
        f"{pa.truth_names[k]} ({classes[k]:,})" for k in top if classes[k]))  # fmt: skip
    st.markdown(ui.md_escape(" · ".join(parts)))
    picked = rank_selection(pa, picked)
    coef = c_in.value if evaluation.coef_fits(s.truth, c_in) else None
    rows = point_details(pa, picked, coef=coef, orientation=conv.effective_orientation)
    st.dataframe(rows, hide_index=True, key="points_table")
    if len(picked) > len(rows):
        ui.note(f"first {len(rows):,} of {len(picked):,} selected points listed")
    ui.note("misassigned points first, then by SRE (highest first)")
    if coef is not None:
        ui.note("coefficients by class: where the point's |c_ij| mass goes (its row of C, "
                f"C read by {conv.effective_orientation}); nearest in W: its largest entries "
                "of W = |C| + |C|ᵀ, with their classes")  # fmt: skip
    shape = s.points.image_shape
    if has_x and shape is not None:
        mosaic = image_mosaic(s.data.value, picked, shape)
        st.image(mosaic, caption=f"the first {min(len(picked), 48)} selected points as "
                 f"{shape[0]} x {shape[1]} images, in the table's order", width=min(
                     mosaic.shape[1] * 3, 900))  # fmt: skip


if __name__ == "__main__":
    render()
