"""Figure builders and display helpers of the dashboard, tested without Streamlit."""

from __future__ import annotations

import json

import numpy as np
import plotly.graph_objects as go
import pytest
import scipy.sparse as sp

import metrics_core as mc
from dashboard.analysis import partition as analysis
from dashboard.analysis import pooling
from dashboard.figures._style import pct
from dashboard.figures.affinity import (
    affinity_figure,
    colour_limits,
    conn_bars,
    heatmap_cells,
    heatmap_grid,
    leakage_heatmap,
    sre_class_bars,
    sre_points,
)
from dashboard.figures.contingency import contingency_heatmap, sankey
from dashboard.figures.pairs import pair_confusion_matrix, pair_scores_bar
from dashboard.figures.summary import metrics_compare

MB = 1024 * 1024


def _labels(rng, n, k):
    return rng.integers(0, k, n)


def _display(coef, truth, pred, mode, *, max_bins=pooling.MAX_BINS, cell_limit=pooling.CELL_LIMIT):
    """What compute.affinity_display does, without the cache."""
    t_uniq, t = np.unique(truth, return_inverse=True)
    p_uniq, p = np.unique(pred, return_inverse=True)
    order, groups = analysis.display_order(t, p, mode)
    bounds = pooling.group_bounds(groups)
    n = len(order)
    if n <= cell_limit:
        edges = np.arange(n + 1)
        values = pooling.cell_affinity(coef, order)
    else:
        edges = pooling.bin_edges(bounds, max_bins)
        values = pooling.pooled_affinity(coef, order, edges)
    names = p_uniq if mode == "prediction" else t_uniq
    return {
        "values": values,
        "edges": edges,
        "bounds": bounds,
        "group_names": [str(names[g]) for g in groups[bounds[:-1]]],
        "group_kind": "cluster" if mode == "prediction" else "class",
        "pooled": n > cell_limit,
        "n": n,
        "sort_mode": mode,
    }


# ------------------------------------------------------------------ pooling
@pytest.mark.parametrize("seed", range(6))
def test_bins_never_straddle_a_group_boundary(seed):
    rng = np.random.default_rng(seed)
    sizes = rng.integers(1, 400, rng.integers(1, 60))
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    max_bins = int(rng.integers(10, 300))
    edges = pooling.bin_edges(bounds, max_bins)
    assert edges[0] == 0 and edges[-1] == bounds[-1]
    assert np.all(np.diff(edges) > 0)
    assert set(bounds.tolist()) <= set(edges.tolist())  # every boundary is an edge
    assert len(edges) - 1 <= max(max_bins, len(sizes))
    if bounds[-1] > max_bins and max_bins >= len(sizes):
        assert len(edges) - 1 >= min(max_bins, bounds[-1]) - len(sizes)  # budget is used


def test_bin_sizes_are_near_equal_inside_a_group():
    edges = pooling.bin_edges(np.array([0, 1000, 3000]), max_bins=30)
    first, second = np.diff(edges[edges <= 1000]), np.diff(edges[edges >= 1000])
    assert first.max() - first.min() <= 1 and second.max() - second.min() <= 1
    assert len(first) * 2 == pytest.approx(len(second), abs=1)  # bins in proportion to size


def test_small_input_is_not_pooled():
    assert pooling.bin_edges(np.array([0, 5, 9]), 500).tolist() == list(range(10))


@pytest.mark.parametrize("sparse", [False, True])
def test_pooled_affinity_is_the_block_mean(sparse):
    rng = np.random.default_rng(3)
    n = 90
    dense = rng.standard_normal((n, n)) * (rng.random((n, n)) < 0.2)
    coef = sp.csr_array(dense) if sparse else dense
    order = rng.permutation(n)
    edges = np.array([0, 10, 40, 41, 90])
    pooled = pooling.pooled_affinity(coef, order, edges)
    w = np.abs(dense) + np.abs(dense).T
    w = w[np.ix_(order, order)]
    for a in range(4):
        for b in range(4):
            block = w[edges[a] : edges[a + 1], edges[b] : edges[b + 1]]
            assert pooled[a, b] == pytest.approx(block.mean())
    np.testing.assert_allclose(pooling.cell_affinity(coef, order), w)


def test_pooled_pixels_of_one_class_pair_come_from_that_class_pair_only():
    # C links only inside classes: every pooled pixel between two different classes is 0,
    # which fails as soon as one bin mixes two classes.
    rng = np.random.default_rng(0)
    truth = np.repeat(np.arange(7), rng.integers(30, 400, 7))
    n = truth.size
    rows, cols = [], []
    for k in range(7):
        idx = np.flatnonzero(truth == k)
        rows.append(np.repeat(idx, 5))
        cols.append(rng.choice(idx, idx.size * 5))
    r, c = np.concatenate(rows), np.concatenate(cols)
    coef = sp.csr_array((np.ones(r.size), (r, c)), shape=(n, n))
    perm = rng.permutation(n)  # the file order is shuffled; display order sorts it back
    coef, truth = sp.csr_array(coef[perm][:, perm]), truth[perm]
    d = _display(coef, truth, truth, "ground truth", max_bins=50)
    assert d["pooled"]
    bin_class = np.searchsorted(d["bounds"], d["edges"][:-1], side="right") - 1
    off = bin_class[:, None] != bin_class[None, :]
    assert np.all(d["values"][off] == 0)
    assert np.all(d["values"][~off].reshape(-1) >= 0)


# ------------------------------------------------------------------ affinity figures
def _random_sparse(n, nnz, seed=0):
    rng = np.random.default_rng(seed)
    r = rng.integers(0, n, nnz)
    c = rng.integers(0, n, nnz)
    return sp.csr_array((rng.random(nnz), (r, c)), shape=(n, n))


@pytest.mark.parametrize("log", [True, False])
def test_large_affinity_is_an_image_and_small(log):
    n = 20_000
    rng = np.random.default_rng(1)
    truth = rng.integers(0, 12, n)
    coef = _random_sparse(n, 200_000)
    fig = affinity_figure(_display(coef, truth, truth, "ground truth"), log=log)
    assert isinstance(fig.data[0], go.Image)
    assert "pooled for display" in fig.layout.title.subtitle.text
    assert len(fig.to_json()) < 5 * MB
    # one red boundary pair (vertical + horizontal) per inner class boundary, in one trace
    assert boundary_lines(fig, "class boundaries") == 2 * 11 and not fig.layout.shapes


def boundary_lines(fig: go.Figure, name: str) -> int:
    """Lines drawn by the figure's boundary trace ``name`` (``_style.grid_lines``: one gap after
    each line)."""
    (trace,) = [t for t in fig.data if t.name == name]
    assert trace.type == "scatter" and trace.mode == "lines" and trace.hoverinfo == "skip"
    return sum(v is None for v in trace.x)


def test_small_affinity_is_a_per_cell_heatmap_with_hover():
    rng = np.random.default_rng(2)
    n = 200
    truth = rng.integers(0, 4, n)
    coef = rng.random((n, n))
    fig = affinity_figure(_display(coef, truth, truth, "ground truth"), log=False)
    heat = fig.data[0]
    assert isinstance(heat, go.Heatmap)
    assert np.asarray(heat.z).shape == (n, n)
    assert "%{z" in heat.hovertemplate
    assert len(fig.to_json()) < 5 * MB
    assert list(fig.layout.xaxis.ticktext) == ["0", "1", "2", "3"]


@pytest.mark.parametrize("log", [True, False])
@pytest.mark.parametrize("diagonal", [False, True])
def test_sparse_affinity_sends_its_cells_as_columns(log, diagonal):
    """A sparse C's plot sends its non-zero cells as (x, y, z) columns: the grid Plotly builds
    from them is the per-cell grid exactly (every row and column position present, gaps NaN),
    in a small fraction of the bytes."""
    rng = np.random.default_rng(3)
    n = 300
    truth = rng.integers(0, 5, n)
    coef = _random_sparse(n, 3_000, seed=4).toarray()
    if diagonal:
        coef[np.arange(0, n, 7), np.arange(0, n, 7)] = 0.5  # some W_ii non-zero
    disp = _display(coef, truth, truth, "ground truth")
    fig = affinity_figure(disp, log=log)
    heat = fig.data[0]
    values = np.asarray(disp["values"], dtype=np.float64)
    with np.errstate(divide="ignore"):
        want = np.where(values > 0, np.log10(values) if log else values, np.nan)
    assert np.asarray(heat.z).ndim == 1
    # Plotly's column form: one cell per distinct (x, y), and every position named
    pairs = np.asarray(heat.y, dtype=np.int64) * n + np.asarray(heat.x, dtype=np.int64)
    assert np.unique(pairs).size == pairs.size
    assert set(np.asarray(heat.x).tolist()) == set(range(n)) == set(np.asarray(heat.y).tolist())
    np.testing.assert_array_equal(heatmap_grid(heat, n), want.astype(np.float32))
    dense = go.Figure(fig)
    dense.data[0].update(x=None, y=None, z=want.astype(np.float32))
    assert len(fig.to_json()) < len(dense.to_json()) / 5


def test_heatmap_cells_keep_a_mostly_filled_grid_as_it_is():
    z = np.arange(16, dtype=float).reshape(4, 4)
    z[0, 0] = np.nan
    cells = heatmap_cells(z)
    assert list(cells) == ["z"] and cells["z"].dtype == np.float32
    np.testing.assert_array_equal(cells["z"], z.astype(np.float32))
    assert list(heatmap_cells(np.full((2, 5), np.nan))) == ["z"]  # not square: no frame to give
    empty = heatmap_cells(np.full((3, 3), np.nan))  # no coefficient at all: the frame only
    assert empty["x"].tolist() == empty["y"].tolist() == [0, 1, 2]
    assert np.isnan(empty["z"]).all()


def test_affinity_tick_labels_are_escaped():
    truth = np.array(["<b>x</b>"] * 3 + ["=1+1"] * 3)
    coef = np.ones((6, 6))
    fig = affinity_figure(_display(coef, truth, truth, "ground truth"), log=True)
    assert "&lt;b&gt;x&lt;/b&gt;" in list(fig.layout.xaxis.ticktext)


def test_affinity_by_prediction_draws_cluster_boundaries():
    truth = np.repeat([0, 1], 50)
    pred = np.tile([0, 1, 2, 3, 4], 20)
    fig = affinity_figure(_display(np.eye(100), truth, pred, "prediction"), log=True)
    assert boundary_lines(fig, "cluster boundaries") == 2 * 4
    assert "cluster boundaries" in fig.layout.xaxis.title.text


def test_colour_limits():
    v = np.array([0.0, 1e-9, 1.0, 10.0])
    lo, hi = colour_limits(v, log=True)
    assert hi == pytest.approx(1.0) and lo == pytest.approx(-3.0)  # 4 decades below the max
    assert colour_limits(np.zeros(3), log=False) == (0.0, 1.0)


def test_conn_and_sre_bars_mark_the_weakest():
    fig = conn_bars(["a", "b", "c"], [0.5, 0.01, np.nan])
    colors = list(fig.data[0].marker.color)
    assert colors[1] != colors[0] and colors[0] == colors[2]
    assert list(fig.data[0].text) == ["", "weakest", ""]
    assert fig.layout.xaxis.type == "category"
    fig = sre_class_bars(["1", "2"], [0.1, 0.4])
    assert list(fig.data[0].x) == ["1", "2"]


def test_conn_weakest_mark_is_on_its_bar_with_numeric_looking_classes():
    """Classes "1".."5": the mark is the weakest bar's own text on a categorical axis (an
    annotation at x="1" was read by Plotly as position 1, the second bar)."""
    fig = conn_bars(["1", "2", "3", "4", "5"], [0.011, 0.19, 0.23, 0.18, 0.2])
    bar = fig.data[0]
    assert fig.layout.xaxis.type == "category"
    assert list(fig.layout.xaxis.categoryarray) == ["1", "2", "3", "4", "5"]
    assert list(bar.x) == ["1", "2", "3", "4", "5"]
    assert list(bar.text).index("weakest") == 0
    assert bar.marker.color[0] != bar.marker.color[1]
    assert not fig.layout.annotations  # nothing placed by an x value that Plotly may misread
    # short axis title (fits a half-width chart), explanation in the subtitle
    assert fig.layout.yaxis.title.text == "λ₂ (CONN)"
    assert len(fig.layout.title.text) <= 40


def test_sre_points_and_leakage():
    groups, bounds = np.array([0, 0, 1]), np.array([0, 2, 3])
    fig = sre_points(np.array([0.1, 0.2, 0.3]), groups, bounds, ["a", "b"])
    assert [len(t.y) for t in fig.data] == [2, 1]  # one trace per class
    fig = leakage_heatmap(np.array([[3.0, 1.0], [0.0, 2.0]]), ["a", "b"])
    leak, kept = fig.data
    # off-diagonal leakage and the diagonal are separate traces: the colour scale is the leak's
    np.testing.assert_allclose(np.asarray(leak.z, dtype=float), [[np.nan, 0.25], [0.0, np.nan]])
    np.testing.assert_allclose(np.asarray(kept.z, dtype=float), [[0.75, np.nan], [np.nan, 1.0]])
    assert leak.zmax == 1.0 and leak.zmin == 0  # absolute by default: one colour, one share
    stretched = leakage_heatmap(np.array([[3.0, 1.0], [0.0, 2.0]]), ["a", "b"], absolute=False)
    assert stretched.data[0].zmax == pytest.approx(0.25)
    assert "largest leak" in stretched.data[0].colorbar.title.text
    assert fig.layout.xaxis.side == "bottom"  # long names cannot run into the title


def test_leakage_percentages_never_round_a_leak_to_zero():
    m = np.array([[98.5, 1.5, 0.0], [0.04, 99.96, 0.0], [0.0, 0.0, 5.0]])
    fig = leakage_heatmap(m, ["a", "b", "c"])
    leak, kept = fig.data
    assert leak.text[0][1] == "1.5%"  # was "%{z:.0%}" -> "2%", and 1.4% -> "1%", 0.4% -> "0%"
    assert leak.text[1][0] == "<0.1%"
    assert leak.text[0][2] == "0"  # exactly nothing
    assert kept.text[0][0] == "kept 98.5%" and kept.text[2][2] == "kept 100%"
    assert leak.text[0][0] == "" and kept.text[0][1] == ""
    assert [pct(x) for x in (0.0, 0.0004, 0.014, 0.2, 0.9996, 1.0)] == [
        "0",
        "<0.1%",
        "1.4%",
        "20.0%",
        "99.9%",
        "100%",
    ]


def test_affinity_zero_is_white_and_smallest_nonzero_is_visible():
    coef = np.zeros((6, 6))
    coef[0, 1] = 1.0
    coef[0, 4] = 1e-4  # a weak cross-class coefficient
    truth = np.repeat([0, 1], 3)
    fig = affinity_figure(_display(coef, truth, truth, "ground truth"), log=True)
    heat = fig.data[0]
    z = heatmap_grid(heat, 6)
    assert np.isnan(z[0, 2])  # zero: a gap, drawn white
    assert np.isfinite(z[0, 4])
    low = heat.colorscale[0][1]
    assert low != "rgb(255, 255, 217)" and sum(int(v) for v in low[4:-1].split(",")) < 600
    bar = heat.colorbar
    assert bar.orientation == "h"  # under the square plot, not at the far right


def test_sankey_keeps_the_matched_order():
    t = np.array([[40, 1, 0, 0, 39], [0, 77, 1, 1, 1], [0, 1, 79, 0, 0], [1, 1, 0, 78, 0]])
    rows, cols = ["1", "2", "3", "4"], ["1", "3", "5", "4", "2"]
    src, dst, val = analysis.sankey_links(t)
    fig = sankey(t, rows, cols, sources=src, targets=dst, values=val, n_matched=4)
    node = fig.data[0].node
    y, x = list(node.y), list(node.x)
    k = len(rows)
    assert y[:k] == sorted(y[:k]) and y[k:] == sorted(y[k:])  # top to bottom, as given
    assert all(v < 0.5 for v in x[:k]) and all(v > 0.5 for v in x[k:])
    assert list(node.label) == [f"class {r}" for r in rows] + [f"cluster {c}" for c in cols]
    colours = list(node.color)
    assert colours[k : k + 4] == colours[:4]  # a matched cluster takes its class's colour
    assert colours[-1] != colours[0]  # the unmatched one is grey
    assert fig.data[0].textfont.color == "#111827"  # dark labels on pale bands


# ------------------------------------------------------------------ contingency
@pytest.mark.parametrize("seed", range(5))
def test_order_by_matching_puts_matched_pairs_on_the_diagonal(seed):
    rng = np.random.default_rng(seed)
    truth = _labels(rng, 300, int(rng.integers(2, 8)))
    pred = _labels(rng, 300, int(rng.integers(2, 10)))
    c = mc.contingency_table(truth, pred)
    m = mc.best_matching(contingency=c)
    out = analysis.order_contingency(
        c.dense(),
        [str(x) for x in c.classes],
        [str(x) for x in c.clusters],
        m.class_index,
        m.cluster_index,
    )
    t = out["table"]
    k = out["n_matched"]
    assert np.trace(t[:k, :k]) == int(np.sum(m.matched_counts))
    assert np.trace(t[:k, :k]) / t.sum() == pytest.approx(m.accuracy)
    assert t.sum() == c.n_samples and t.shape == c.dense().shape
    assert sorted(out["cols"]) == sorted(str(x) for x in c.clusters)


def test_many_unmatched_clusters_are_summed():
    truth = np.zeros(500, dtype=int)
    pred = np.arange(500)
    c = mc.contingency_table(truth, pred)
    m = mc.best_matching(contingency=c)
    out = analysis.order_contingency(
        c.dense(), ["a"], [str(x) for x in c.clusters], m.class_index, m.cluster_index, max_cols=20
    )
    assert out["table"].shape == (1, 21) and out["table"].sum() == 500
    assert out["cols"][-1] == "(480 other clusters)"


def test_contingency_heatmap_modes_and_categorical_axes():
    t = np.array([[5, 1, 0], [0, 4, 4]])
    fig = contingency_heatmap(t, ["1", "2"], ["10", "2", "<i>"], mode="row", n_matched=2)
    heat = fig.data[0]
    np.testing.assert_allclose(np.asarray(heat.z).sum(axis=1), [1, 1])
    assert fig.layout.xaxis.type == "category" and fig.layout.yaxis.type == "category"
    assert list(heat.x) == ["10", "2", "&lt;i&gt;"]
    assert len(fig.layout.shapes) == 2  # matched cells outlined
    fig = contingency_heatmap(t, ["1", "2"], ["a", "b", "c"], mode="column")
    np.testing.assert_allclose(np.asarray(fig.data[0].z).sum(axis=0), [1, 1, 1])
    fig = contingency_heatmap(t, ["1", "2"], ["a", "b", "c"], mode="counts")
    assert np.asarray(fig.data[0].z).tolist() == t.tolist()


def test_sankey_links():
    t = np.array([[40, 40, 0], [0, 0, 50], [0, 0, 50]])
    src, dst, val = analysis.sankey_links(t)
    assert val.sum() == t.sum()
    fig = sankey(t, ["a", "b", "c"], ["x", "y", "z"], sources=src, targets=dst, values=val)
    assert list(fig.data[0].node.label)[:1] == ["class a"]


# ------------------------------------------------------------------ pairs, summary, export
def test_pair_figures():
    m = mc.evaluate([0, 0, 0, 1, 1, 1], [0, 0, 1, 1, 2, 2])
    fig = pair_confusion_matrix(m["pair_tp"], m["pair_fp"], m["pair_fn"], m["pair_tn"])
    z = np.asarray(fig.data[0].z)
    np.testing.assert_allclose(z.sum(axis=1), [1, 1])
    fig = pair_scores_bar(m)
    assert len(fig.data[0].x) == 7
    assert len(set(fig.data[0].marker.color)) == 1  # one colour: no unexplained traffic light
    fig = metrics_compare({"<run1>": m, "run2": m}, ["acc", "ari"], {"acc": "ACC"})
    assert fig.data[0].name == "&lt;run1&gt;"


def test_report_figures_drop_the_repeated_title_and_use_the_light_template():
    from dashboard.figures._style import TEMPLATE
    from dashboard.outputs import report

    fig = conn_bars(["1", "2"], [0.1, 0.2])
    out = report.report_figure(fig)
    assert out.layout.template == TEMPLATE
    assert out.layout.title.text == "higher = better connected; 0 = the class falls apart"
    assert out.layout.margin.t < fig.layout.margin.t
    assert fig.layout.title.text == "Connectivity (CONN) per class"  # the input is untouched
    plain_fig = report.report_figure(
        pair_scores_bar({"ari": 0.5}).update_layout(title_subtitle_text="")
    )
    assert not plain_fig.layout.title.text


def test_display_order_modes():
    t = np.array([1, 0, 1, 0, 1])
    p = np.array([2, 2, 0, 1, 0])
    o, g = analysis.display_order(t, p, "ground truth, then prediction")
    assert t[o].tolist() == [0, 0, 1, 1, 1] and p[o].tolist() == [1, 2, 0, 0, 2]
    o, g = analysis.display_order(t, p, "ground truth")
    assert g.tolist() == [0, 0, 1, 1, 1]


def test_exports_escape_formulas():
    from dashboard.outputs import export

    rows = export.export_rows({"=cmd|' /C calc'!A0": {"acc": 0.5, "ari": -0.1}}, {"gt": "@x"})
    text = export.to_csv(rows)
    assert text.splitlines()[1].startswith("'=cmd") and ",'@x," in text
    assert ",-0.1" in text  # numbers are not strings: left alone
    payload = json.loads(export.to_json({"name": "+1", "v": float("nan"), "n": np.int64(3)}))
    assert payload == {"name": "'+1", "v": None, "n": 3}


def test_ties_are_named_as_ties_in_the_bars():
    """Two classes with the same λ₂ (or SRE): both marked, the word says it is a tie."""
    from dashboard.figures.affinity import conn_bars, sre_class_bars

    fig = conn_bars(["a", "b", "c"], [0.5, 0.1, 0.1])
    assert list(fig.data[0].text) == ["", "tied weakest (2)", "tied weakest (2)"]
    fig = sre_class_bars(["a", "b", "c"], [0.3, 0.3, 0.1])
    assert list(fig.data[0].text) == ["tied worst (2)", "tied worst (2)", ""]


def test_long_titles_wrap_and_stand_on_the_plot() -> None:
    """Plotly never wraps a title, and a title hung from the figure's top was cut whenever a
    colour bar or a second line pushed the margin: titles wrap and stand on the plot area."""
    import plotly.graph_objects as go

    from dashboard.figures._style import SUBTITLE_CHARS, TITLE_CHARS, style, wrap_words

    assert wrap_words("a b c", 3) == ("a b<br>c", 2)
    assert wrap_words("averyveryverylongword x", 5) == ("averyveryverylongword<br>x", 2)
    assert wrap_words("one<br>two", 80) == ("one<br>two", 2)
    # as even as the number of lines allows: no word alone on the last line
    sub = "one marker per setting, joined in parameter order, colour = ACC; top left is best"
    text, n = wrap_words(sub, SUBTITLE_CHARS)
    assert n == 2 and text.replace("<br>", " ") == sub
    first, second = text.split("<br>")
    assert abs(len(first) - len(second)) <= len("parameter ")  # 43 and 37 characters
    long = "Subspace-preserving error of every point and class, with every convention named"
    fig = style(go.Figure(), long, subtitle=long + " " + long, height=400)
    t = fig.layout.title
    lines = t.text.split("<br>")
    assert len(lines) == 2 and all(len(x) <= TITLE_CHARS for x in lines)
    assert all(len(x) <= SUBTITLE_CHARS for x in t.subtitle.text.split("<br>"))
    assert (t.yref, t.y, t.yanchor) == ("paper", 1, "bottom")
    # the pad holds the title's second line and the subtitle's three; the margin the first too
    assert t.pad.b >= 22 + 3 * 17 and fig.layout.margin.t >= t.pad.b + 22
    assert fig.layout.height > 400  # the extra lines do not shrink the plot


def test_template_keeps_the_defaults_of_every_trace_type_we_draw():
    """The slim template must cover every trace type a figure builder uses, else that trace
    would lose plotly_white's look silently."""
    import ast
    from pathlib import Path

    import plotly.io as pio

    from dashboard.figures._style import TEMPLATE, TRACE_TYPES

    used = set()
    for path in Path(__file__).resolve().parents[1].joinpath("dashboard").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name):
                if node.value.id == "go" and node.attr[:1].isupper() and node.attr != "Figure":
                    used.add(node.attr.lower())
    white = set(pio.templates["plotly_white"].to_plotly_json()["data"])
    assert used & white <= set(TRACE_TYPES), used & white - set(TRACE_TYPES)
    kept = TEMPLATE.to_plotly_json()["data"]
    for kind in TRACE_TYPES:
        assert kept[kind] == pio.templates["plotly_white"].to_plotly_json()["data"][kind]


@pytest.mark.parametrize("rows", [1, 2, 3])
@pytest.mark.parametrize("cols", [1, 2, 3, 4])
@pytest.mark.parametrize("n_titles", [0, 1, -1])
def test_subplot_grid_lays_out_cells_as_make_subplots(rows, cols, n_titles):
    """Our grid (built in one go, no per-cell plotly calls) is make_subplots' to the last bit:
    domains, anchors, the titles' annotations; cells named row by row from the top left."""
    from plotly.subplots import make_subplots

    from dashboard.figures._style import subplot_grid

    titles = [f"panel {i}" for i in range(rows * cols if n_titles < 0 else n_titles)]
    for h, v in [(0.04, 0.09), (0.07, 0.14), (0.2, 0.3 / rows)]:
        ref = make_subplots(rows=rows, cols=cols, subplot_titles=titles or None,
                            horizontal_spacing=h, vertical_spacing=v)  # fmt: skip
        layout, cells = subplot_grid(rows, cols, titles, horizontal_spacing=h, vertical_spacing=v)
        ours = go.Figure(layout=layout).to_plotly_json()["layout"]
        want = ref.to_plotly_json()["layout"]
        assert ours == want
        for k, (x_name, y_name) in enumerate(cells):
            sub = ref.get_subplot(k // cols + 1, k % cols + 1)
            assert (x_name, y_name) == (sub.xaxis.plotly_name, sub.yaxis.plotly_name)


def test_every_figure_starts_with_our_template_unvalidated_once():
    """Plotly's default template is ours once the figures are imported (a new figure takes it
    as validated); style() still sets it on a figure if the default was changed since, and
    every axis of a many-panel figure grows its margins through the template, and shows every
    tick label (plotly's default hides one past the figure's edge, at one forced browser layout
    per label: the margins are grown to fit them instead)."""
    import plotly.io as pio

    from dashboard.figures._style import TEMPLATE, TEMPLATE_NAME, style
    from dashboard.figures.sweep import metrics_vs_param

    assert pio.templates.default == TEMPLATE_NAME
    assert go.Figure().layout.template == TEMPLATE
    assert TEMPLATE.layout.xaxis.automargin and TEMPLATE.layout.yaxis.automargin
    assert TEMPLATE.layout.xaxis.ticklabeloverflow == "allow"
    assert TEMPLATE.layout.yaxis.ticklabeloverflow == "allow"
    rows = [{"lam": x, "acc": x / 10, "nmi": 1 - x / 10, "sre": 0.1} for x in (1, 2, 3)]
    fig = metrics_vs_param.__wrapped_builder__(rows, "lam", ["acc", "nmi", "sre", "acc"])
    assert fig.layout.template == TEMPLATE and fig.layout.xaxis4.anchor == "y4"
    old = pio.templates.default
    try:
        pio.templates.default = "plotly"
        assert style(go.Figure(), "t").layout.template == TEMPLATE
    finally:
        pio.templates.default = old


def test_every_public_figure_builder_is_kept_by_content():
    import inspect
    import pkgutil

    import dashboard.figures as figs

    missing = []
    for info in pkgutil.iter_modules(figs.__path__):
        if info.name.startswith("_"):
            continue
        mod = __import__(f"dashboard.figures.{info.name}", fromlist=["x"])
        for name, fn in vars(mod).items():
            if name.startswith("_") or not inspect.isfunction(fn) or fn.__module__ != mod.__name__:
                continue
            ret = inspect.signature(fn).return_annotation
            if "go.Figure" in str(ret) and "list" not in str(ret):
                if not hasattr(fn, "__wrapped_builder__"):
                    missing.append(f"{info.name}.{name}")
    assert not missing, missing


def test_kept_figures_follow_the_content_of_their_inputs():
    import numpy as np

    from dashboard.figures import _memo
    from dashboard.figures.learn import coef_heatmap

    _memo.clear()
    c = np.arange(16.0).reshape(4, 4)
    a = coef_heatmap(c, [0, 0, 1, 1], title="t")
    b = coef_heatmap(c.copy(), [0, 0, 1, 1], title="t")  # equal content, another array
    assert a is b and _memo.stats()["hits"] == 1
    c2 = c.copy()
    c2[0, 1] = 99.0
    assert coef_heatmap(c2, [0, 0, 1, 1], title="t") is not a  # one value changed
    assert coef_heatmap(c, [0, 0, 1, 2], title="t") is not a
    assert coef_heatmap(c, [0, 0, 1, 1], title="u") is not a
    fresh = coef_heatmap.__wrapped_builder__(c, [0, 0, 1, 1], title="t")
    assert fresh.to_json() == a.to_json()


def test_presentation_mode_restyles_a_copy_never_the_kept_figure():
    from dashboard.figures.pairs import pair_confusion_matrix
    from dashboard.ui import presentation

    fig = pair_confusion_matrix(5, 2, 1, 20)
    before = fig.to_json()
    settings = presentation.Settings(on=True, theme="dark", font_scale=1.6)
    styled = presentation.style_figure(fig, settings)
    assert styled is not fig and styled.to_json() != before
    assert fig.to_json() == before
    assert pair_confusion_matrix(5, 2, 1, 20) is fig


def test_margins_are_reserved_for_labels_titles_colour_bars_and_legends():
    """style() widens the margins to what tick labels, axis titles, a colour bar and a legend
    need (estimated generously), so the browser draws once; it never narrows them, and leaves
    grids of panels alone. The browser test checks the estimate against Plotly's measure."""
    from dashboard.figures import _margins as margins
    from dashboard.figures._style import style, subplot_grid

    def bars(names, **layout):
        return go.Figure(go.Bar(x=[1] * len(names), y=names, orientation="h"), layout=layout)

    short = margins.needs(bars(["a", "b"]))
    long = margins.needs(bars(["a class with a long name", "b"]))
    assert long["l"] - short["l"] >= 20 * margins.CHAR_EM * 14 - 1
    titled = margins.needs(bars(["a"], yaxis={"title": "class"}, xaxis={"title": "share"}))
    assert titled["l"] > short["l"] and titled["b"] > short["b"]
    empty_title = margins.needs(bars(["a"], xaxis={"title": ""}))
    assert empty_title["b"] == titled["b"]  # Plotly keeps a line for an empty title too
    heat = go.Figure(go.Heatmap(z=[[0, 1500.5]], colorbar={"title": {"text": "points"}}))
    assert margins.needs(heat)["r"] > 30 + 2 * margins.COLORBAR_PAD
    legend = go.Figure([go.Scatter(x=[0], y=[0], name=f"cluster {i}") for i in range(3)])
    assert margins.needs(legend)["r"] >= 60 + len("cluster 0") * margins.CHAR_EM * 14
    below = go.Figure(legend).update_layout(legend={"orientation": "h", "y": -0.2})
    assert margins.needs(below)["b"] > margins.needs(legend)["b"] + 20
    layout, _ = subplot_grid(1, 2, horizontal_spacing=0.1, vertical_spacing=0.1)
    assert margins.needs(go.Figure(layout=layout)) is None

    fig = style(bars(["a class with a long name"]), "t")
    assert fig.layout.margin.l >= long["l"]
    wide = go.Figure(fig).update_layout(margin={"l": 400})
    assert margins.reserve(wide).layout.margin.l == 400  # never narrower
    assert margins.at_least(go.Figure(fig), l=1, b=99).layout.margin.b == 99


@pytest.mark.parametrize(
    "kw",
    [
        {},
        {"height": 380, "subtitle": "a subtitle long enough to wrap onto a second line, or more"},
        {"top_axis": True, "top_labels_px": 30, "height": 500},
        {"above_plot_px": 28, "after": {"margin": {"l": 40, "b": 40}}},
    ],
)
def test_a_figure_built_in_one_call_equals_the_styled_figure(kw):
    """``_style.figure`` (one constructor) gives the JSON that building the figure and then
    ``style()`` gives (several updates): one layout formula, two costs."""
    from dashboard.figures._style import figure, style

    bars = [go.Bar(x=["a", "b"], y=[1, 2], name="n"), go.Scatter(x=["a"], y=[1], name="m")]
    layout = {"xaxis": {"title": {"text": "class"}}, "margin": {"l": 99}, "legend": {"x": 0}}
    after = kw.pop("after", None)
    one = figure(bars, layout, "A title", after=after, **kw)
    two = style(go.Figure(data=bars, layout=layout), "A title", **kw)
    if after:
        two.update_layout(after)
    assert json.loads(one.to_json()) == json.loads(two.to_json())


def test_unchecked_figures_are_checked_in_the_tests(monkeypatch):
    """``_style.figure`` assembles figures without plotly.py's checks; under the test suite
    (``CLUSTLENS_CHECK_FIGURES``) each is also validated, and a property plotly.js would not read
    as meant — a bare-string legend title, a colour scale named as only plotly.py knows it — fails
    the figure, where outside the tests it would reach the browser as written."""
    from dashboard.figures._style import CHECK_ENV, figure

    bad = [
        {"legend": {"title": "bare"}},
        {"coloraxis": {"colorscale": "OrRd"}},
    ]
    monkeypatch.setenv(CHECK_ENV, "1")
    for layout in bad:
        with pytest.raises(ValueError, match=r"not what plotly\.py would validate it to"):
            figure([go.Bar(x=["a"], y=[1])], layout, "t")
    # as meant: a title as {"text": ...}, NaN, a null property, no shapes at all
    fig = figure(
        [{"type": "scatter", "x": [1, 2], "y": [float("nan"), 1.0], "name": None}],
        {"xaxis": {"title": {"text": "x"}}, "shapes": []},
        "t",
    )
    assert fig.layout.xaxis.title.text == "x"
    monkeypatch.delenv(CHECK_ENV)
    assert figure([go.Bar(x=["a"], y=[1])], bad[1], "t").layout.coloraxis.colorscale == "OrRd"
