"""The Points page: its layouts (oracles and properties), selections, details and the page."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest
import scipy.sparse as sp
from html_links import page_links
from streamlit.testing.v1 import AppTest

from dashboard.analysis import points as P
from dashboard.figures.points import colour_options, points_figure, selected_points, trace_members

APP = Path(__file__).resolve().parents[1] / "dashboard" / "app.py"


def ok(at: AppTest) -> AppTest:
    assert not at.exception, [(e.value, e.stack_trace) for e in at.exception]
    return at


def start() -> AppTest:
    return ok(AppTest.from_file(str(APP), default_timeout=90).run())


def charts(at: AppTest) -> set[str]:
    """Keys of the Plotly charts on the page."""
    return {el.proto.id.rsplit("-", 1)[-1] for el in at.get("plotly_chart")}


def two_blocks(n: int = 10, leak: float = 0.0) -> np.ndarray:
    """Two classes of ``n`` points, each a clique; every point of class 1 puts ``leak`` on one
    point of class 0."""
    c = np.kron(np.eye(2), np.ones((n, n))) - np.eye(2 * n)
    if leak:
        c[n:, 0] = leak
    return c


# ------------------------------------------------------------------------------ layouts
def test_clean_classes_sit_around_their_own_anchor_within_the_spread_radius() -> None:
    truth = np.repeat([0, 1, 2], 12)
    c = np.kron(np.eye(3), np.ones((12, 12))) - np.eye(36)
    lay = P.affinity_layout(truth, c)
    a = P.anchors(3)
    r = 0.3 * 2 * np.sin(np.pi / 3)
    d = np.hypot(lay.x - a[truth, 0], lay.y - a[truth, 1])
    assert (d <= r + 1e-5).all()


def test_leaking_points_are_pulled_toward_the_class_they_lean_on() -> None:
    truth = np.repeat([0, 1], 10)
    clean = P.affinity_layout(truth, two_blocks())
    leaky = P.affinity_layout(truth, two_blocks(leak=9.0))  # half of each row on class 0
    a = P.anchors(2)
    pulled = np.hypot(leaky.x[10:] - a[1, 0], leaky.y[10:] - a[1, 1])
    still = np.hypot(clean.x[10:] - a[1, 0], clean.y[10:] - a[1, 1])
    assert pulled.mean() > still.mean() + 0.5


def test_a_class_in_two_disconnected_pieces_falls_apart_in_the_spread() -> None:
    # class 0 = two cliques of 15 with no link between them; class 1 a clique
    c = np.zeros((45, 45))
    for lo, hi in ((0, 15), (15, 30), (30, 45)):
        c[lo:hi, lo:hi] = 1.0
    np.fill_diagonal(c, 0)
    truth = np.repeat([0, 1], [30, 15])
    v = P.class_spread(np.abs(c), truth, 2)
    a, b = v[:15, 0], v[15:30, 0]
    # the first coordinate separates the two pieces: no overlap of their ranges
    assert a.max() < b.min() or b.max() < a.min()
    assert np.ptp(a) < 1e-3 and np.ptp(b) < 1e-3  # each piece collapses (it is a clique)


def test_sparse_and_dense_c_give_the_same_layout() -> None:
    rng = np.random.default_rng(1)
    c = rng.random((60, 60)) * (rng.random((60, 60)) < 0.2)
    truth = rng.integers(0, 4, 60)
    dense = P.affinity_layout(truth, c, orientation="columns")
    sparse = P.affinity_layout(truth, sp.csr_array(c), orientation="columns")
    np.testing.assert_allclose(dense.x, sparse.x, atol=1e-5)
    np.testing.assert_allclose(dense.y, sparse.y, atol=1e-5)


def test_pca_layout_matches_scikit_learn_up_to_sign() -> None:
    from sklearn.decomposition import PCA

    X = np.random.default_rng(0).normal(size=(200, 6)) * [5, 3, 1, 1, 1, 1]
    lay = P.data_layout(X)
    ref = PCA(2).fit(X)
    want = ref.transform(X)
    for got, w in ((lay.x, want[:, 0]), (lay.y, want[:, 1])):
        assert min(np.abs(got - w).max(), np.abs(got + w).max()) < 1e-4
    assert f"{ref.explained_variance_ratio_[0]:.0%}" in lay.x_title


def test_class_blocks_hold_each_class_together_sorted_by_cluster() -> None:
    truth = np.repeat([0, 1], [9, 4])
    pred = np.array([2, 2, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1])
    lay = P.class_layout(truth, pred, 2)
    assert len({(float(x), float(y)) for x, y in zip(lay.x, lay.y, strict=True)}) == 13
    assert lay.x[truth == 0].max() < lay.x[truth == 1].min()


def test_above_the_drawing_limit_every_misassigned_point_is_drawn_and_it_is_said() -> None:
    truth = np.repeat(np.arange(4), 250)
    pred = truth.copy()
    pred[::37] = (pred[::37] + 1) % 4
    pa = P.analyse_points(truth, pred, max_drawn=300)
    assert len(pa.drawn) == 300
    assert set(np.flatnonzero(~pa.correct)) <= set(pa.drawn)
    assert "300 of 1,000 points drawn" in pa.sample_note


# ------------------------------------------------------------------------------ selections
def test_selection_events_map_back_to_point_indices_for_every_colouring() -> None:
    truth = np.repeat([0, 1, 2], 5)
    pred = np.array([0, 0, 0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 0, 0])
    pa = P.analyse_points(truth, pred, coef=np.ones((15, 15)) - np.eye(15),
                          sre=np.linspace(0, 1, 15))  # fmt: skip
    for colour in colour_options(pa):
        members = trace_members(pa, colour)
        events = [{"curve_number": t, "point_index": i}
                  for t, m in enumerate(members) for i in range(len(m))]  # fmt: skip
        assert selected_points(pa, colour, events).tolist() == list(range(15)), colour
    assert selected_points(pa, "prediction", [{"curve_number": 99, "point_index": 0}]).size == 0


def test_details_give_class_shares_and_nearest_neighbours_like_a_brute_force() -> None:
    rng = np.random.default_rng(3)
    c = rng.random((30, 30)) * (rng.random((30, 30)) < 0.3)
    np.fill_diagonal(c, 0)
    truth = rng.integers(0, 3, 30)
    pa = P.analyse_points(truth, truth)
    w = np.abs(c) + np.abs(c).T
    for coef in (c, sp.csr_array(c)):
        rows = P.point_details(pa, [4, 17], coef=coef, n_neighbours=3)
        for row in rows:
            i = row["point"]
            best = [j for j in np.argsort(-w[i], kind="stable") if j != i and w[i, j] > 0][:3]
            assert row["nearest in W"].split(", ")[0].startswith(f"{best[0]} ")
            by = np.bincount(truth, weights=np.abs(c[i]), minlength=3)
            k = int(np.argmax(by))
            assert row["coefficients by class"].startswith(f"{k}: {by[k] / by.sum():.0%}")


def test_selection_is_ranked_misassigned_first_then_by_sre() -> None:
    truth = np.array([0, 0, 0, 1, 1])
    pred = np.array([0, 0, 1, 1, 1])
    pa = P.analyse_points(truth, pred, sre=[0.1, 0.5, 0.0, 0.9, 0.2])
    assert P.rank_selection(pa, [0, 1, 2, 3, 4]).tolist() == [2, 3, 1, 4, 0]


def test_image_mosaic_draws_each_row_and_refuses_a_wrong_shape() -> None:
    X = np.arange(2 * 12, dtype=float).reshape(2, 12)
    m = P.image_mosaic(X, [0, 1], (3, 4))
    assert m.dtype == np.uint8 and m.shape == (3 + 4, 2 * (4 + 2) + 2)
    with pytest.raises(ValueError, match="3 x 5 = 15 pixels, but X has 12 columns"):
        P.image_mosaic(X, [0], (3, 5))


def test_the_figure_draws_every_point_once_as_svg_when_few() -> None:
    truth = np.repeat([0, 1], 10)
    pa = P.analyse_points(truth, truth[::-1], coef=two_blocks(), sre=np.zeros(20))
    for colour in colour_options(pa):
        fig = points_figure(pa, colour, highlight=np.arange(3))
        drawn = [t for t in fig.data if not str(t.name).startswith("opened")]
        # a WebGL context costs the browser more than 20 SVG markers
        assert all(t.type == "scatter" for t in fig.data)
        assert sum(len(t.x) for t in drawn) == 20


def test_the_figure_switches_to_webgl_above_the_svg_limit() -> None:
    from dashboard.figures._style import SVG_MAX_POINTS

    for n, kind in ((SVG_MAX_POINTS, "scatter"), (SVG_MAX_POINTS + 2, "scattergl")):
        truth = np.repeat([0, 1], n // 2)
        pa = P.analyse_points(truth, truth, X=np.random.default_rng(0).normal(size=(n, 2)))
        for colour in colour_options(pa):
            fig = points_figure(pa, colour, highlight=np.arange(3))
            assert {t.type for t in fig.data} == {kind}
            drawn = [t for t in fig.data if not str(t.name).startswith("opened")]
            assert sum(len(t.x) for t in drawn) == len(pa.drawn) == n


# ------------------------------------------------------------------------------ the page
def points_page() -> AppTest:
    at = start()
    return ok(at.switch_page("views/points.py").run())


def test_page_draws_the_demo_with_the_affinity_map_and_every_colouring() -> None:
    at = points_page()
    assert "points_plot_affinity_prediction" in charts(at)
    colour = next(r for r in at.radio if r.key == "points_colour")
    assert colour.options == ["prediction", "ground truth", "correct / misassigned", "SRE"]
    for option in colour.options:
        ok(colour.set_value(option).run())
        assert any(k.startswith("points_plot_affinity") for k in charts(at))
    layout = next(r for r in at.radio if r.key == "points_layout")
    ok(layout.set_value("classes").run())
    assert any(k.startswith("points_plot_classes") for k in charts(at))


def test_a_summary_finding_opens_the_page_on_its_class() -> None:
    at = points_page()
    at.query_params["class"] = "1"
    ok(at.run())
    text = " ".join(m.value for m in at.markdown)
    assert "80 points · 40 misassigned" in text and r"classes 1 \(80\)" in text
    assert len(at.dataframe) == 1
    assert any("opened on class 1" in c.value for c in at.caption)


def test_summary_findings_link_to_the_points_page() -> None:
    at = start()
    links = [link.query_string for link in page_links(at) if link.page == "points"]
    # the costliest finding is the demo's merge: its cluster's points; the split: its class's
    assert links and links[0].startswith("cluster=4&sid=") and links[1].startswith("class=1&sid=")


def test_hw_demo_brings_images_and_the_pca_layout() -> None:
    at = points_page()
    ok(at.button(key="points_hw_demo").click().run())
    assert [t.value for t in at.toggle if t.key == "points_is_image"] == [True]
    layout = next(r for r in at.radio if r.key == "points_layout")
    assert "PCA of the data matrix X" in layout.options
    ok(layout.set_value("data").run())
    assert "points_plot_data_prediction" in charts(at)
    at.query_params["cluster"] = "3"
    ok(at.run())
    assert at.get("image"), "the selected digits are drawn as images"


def test_wrong_x_is_refused_with_rows_named_and_earlier_x_kept() -> None:
    at = points_page()
    ok(at.button(key="points_hw_demo").click().run())
    buf = io.BytesIO()
    np.save(buf, np.zeros((7, 3)))
    at.file_uploader(key="points_x_upload").set_value(
        ("x.npy", buf.getvalue(), "application/octet-stream")
    ).run()
    ok(at)
    errors = " ".join(e.value for e in at.error).replace("\\", "")  # Markdown escapes
    assert "x.npy" in errors and "7 rows" in errors and "2,000 points" in errors
    assert "kept" in errors
    assert "pixel view" in " ".join(c.value for c in at.caption).replace("\\", "")


def test_image_shape_that_does_not_fit_the_columns_is_named() -> None:
    at = points_page()
    ok(at.button(key="points_hw_demo").click().run())
    at.number_input(key="points_img_h").set_value(10).run()
    ok(at)
    errors = " ".join(e.value for e in at.error).replace("\\", "")
    assert "10 x 15 = 150 pixels, but X has 240 columns" in errors


def test_counts_table_says_the_points_page_is_unavailable() -> None:
    at = start()
    s = at.session_state["clustlens"]
    s.from_counts = "counts.csv"
    ok(at.switch_page("views/points.py").run())
    assert any("unavailable" in i.value and "counts.csv" in i.value for i in at.info)
