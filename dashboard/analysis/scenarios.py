"""Scenarios for the Learn page: small contingency tables that each make one point about a metric.

UI-free: every scenario is plain data (a name, a two-line explanation, a classes x clusters
table of counts and the values of a few metrics worked out by hand), so the page, the tests and
the docs share them. ``expected`` holds values that follow from the table by reasoning, not by
running the library — the tests check the library against them.

Examples
--------
>>> s = SCENARIOS["seed"]
>>> s.table
((3, 44, 3), (2, 4, 44))
>>> s.expected["acc"]
0.88
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from metrics_core.validation._errors import ClustlensInputError


@dataclass(frozen=True)
class Scenario:
    """One one-click example.

    Attributes
    ----------
    key : str
        Stable identifier (used in widget keys and tests).
    name : str
        Button label.
    explanation : tuple of two str
        What the table shows, and what to look at.
    table : tuple of tuples of int
        Classes (rows) x clusters (columns) counts.
    expected : dict
        ``evaluate`` key -> value derived by hand (``tolerance`` applies).
    tolerance : float
        Absolute tolerance for ``expected`` (0 for exact values up to rounding).
    classes, clusters : tuple of str
        Row and column names.
    """

    key: str
    name: str
    explanation: tuple[str, str]
    table: tuple[tuple[int, ...], ...]
    expected: dict[str, float] = field(default_factory=dict)
    tolerance: float = 1e-9
    classes: tuple[str, ...] = ()
    clusters: tuple[str, ...] = ()

    def array(self) -> np.ndarray:
        """The table as an int64 array."""
        return np.asarray(self.table, dtype=np.int64)

    def row_names(self) -> list[str]:
        k = len(self.table)
        return list(self.classes) if self.classes else [f"class {chr(65 + i)}" for i in range(k)]

    def col_names(self) -> list[str]:
        c = len(self.table[0]) if self.table else 0
        return list(self.clusters) if self.clusters else [f"cluster {j + 1}" for j in range(c)]


def _t(rows: Sequence[Sequence[int]]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(int(v) for v in r) for r in rows)


def random_table(n_per_class: int, n_classes: int, n_clusters: int, seed: int = 0) -> np.ndarray:
    """Contingency table of a random labelling: a balanced k-cluster labelling, shuffled.

    The cluster sizes are as equal as possible (the permutation null of :mod:`null_bands`), so
    a table drawn here is a draw from the null those bands describe.

    Examples
    --------
    >>> t = random_table(10, 3, 4, seed=1)
    >>> t.shape, int(t.sum()), t.sum(axis=0).tolist()
    ((3, 4), 30, [8, 8, 7, 7])
    """
    n = n_per_class * n_classes
    rng = np.random.default_rng(seed)
    truth = np.repeat(np.arange(n_classes), n_per_class)
    pred = rng.permutation(np.arange(n) % n_clusters)
    table = np.zeros((n_classes, n_clusters), dtype=np.int64)
    np.add.at(table, (truth, pred), 1)
    return table


_SINGLETONS = tuple(tuple(1 if j // 3 == i else 0 for j in range(9)) for i in range(3))

SCENARIO_LIST: tuple[Scenario, ...] = (
    Scenario(
        "perfect",
        "Perfect",
        (
            "Every class is exactly one cluster.",
            "Every metric reaches its best value: ACC, ARI, NMI, AMI, purity, V-measure are all 1.",
        ),
        _t([[5, 0, 0], [0, 5, 0], [0, 0, 5]]),
        {"acc": 1.0, "ari": 1.0, "nmi": 1.0, "ami": 1.0, "purity": 1.0, "v_measure": 1.0},
    ),
    Scenario(
        "renamed",
        "Renamed clusters",
        (
            "The same clustering with the cluster names shuffled (cluster 1 holds class B, ...).",
            "External metrics ignore names: the matching (ACC) or the counts (ARI, NMI) undo it, "
            "so everything is still 1.",
        ),
        _t([[0, 0, 5], [5, 0, 0], [0, 5, 0]]),
        {"acc": 1.0, "ari": 1.0, "nmi": 1.0, "ami": 1.0, "purity": 1.0},
    ),
    Scenario(
        "split",
        "Split (over-segmentation)",
        (
            "Class A is cut into two clusters of 3 and 2; B and C are found.",
            "Homogeneity and purity stay 1 (no cluster mixes classes); completeness, ACC (13/15) "
            "and pair recall drop: the 6 pairs cut apart are false negatives.",
        ),
        _t([[3, 2, 0, 0], [0, 0, 5, 0], [0, 0, 0, 5]]),
        {"acc": 13 / 15, "purity": 1.0, "homogeneity": 1.0, "pair_fn": 6, "pair_fp": 0},
    ),
    Scenario(
        "merged",
        "Merged (under-segmentation)",
        (
            "Classes A and B end up in one cluster; C is found.",
            "Completeness stays 1 (no class is split); homogeneity, purity (10/15) and pair "
            "precision drop: the 25 pairs merged across A and B are false positives.",
        ),
        _t([[5, 0], [5, 0], [0, 5]]),
        {"acc": 10 / 15, "purity": 10 / 15, "completeness": 1.0, "pair_fp": 25, "pair_fn": 0},
    ),
    Scenario(
        "all_in_one",
        "All in one cluster",
        (
            "Everything is put in a single cluster.",
            "Completeness is 1 (no class is split) but homogeneity is 0; ARI, NMI and AMI are 0 "
            "— yet ACC and purity still give 1/3.",
        ),
        _t([[5], [5], [5]]),
        {"completeness": 1.0, "homogeneity": 0.0, "ari": 0.0, "nmi": 0.0, "acc": 1 / 3},
    ),
    Scenario(
        "singletons",
        "Every point alone",
        (
            "Each of the 9 points is its own cluster.",
            "Homogeneity and purity are 1 (every cluster is pure) although nothing was learned; "
            "ARI is 0 and ACC is 3/9 (only three clusters can be matched).",
        ),
        _SINGLETONS,
        {"homogeneity": 1.0, "purity": 1.0, "ari": 0.0, "acc": 3 / 9, "pair_tp": 0},
    ),
    Scenario(
        "random",
        "Random labels, many clusters",
        (
            "60 points in 3 classes, labelled at random into 20 clusters.",
            "NMI (≈ 0.17) is above 0 only because there are many clusters; ARI and AMI, corrected "
            "for chance, stay near 0. The chart below shows this against the permutation null.",
        ),
        _t(random_table(20, 3, 20, seed=7)),
        {"ari": 0.0, "ami": 0.0},
        tolerance=0.1,
    ),
    Scenario(
        "unbalanced",
        "Unbalanced classes",
        (
            "Class A has 90 of the 100 points; the two small classes are mostly absorbed by A's "
            "cluster.",
            "ACC and purity read 0.90 (the big class alone gives that), Jaccard and FMI are "
            "flattered too; ARI (≈ 0.22) shows the small classes were not found.",
        ),
        _t([[88, 1, 1], [4, 1, 0], [4, 0, 1]]),
        {"acc": 0.9, "purity": 0.9},
    ),
    Scenario(
        "seed",
        "Seed example (100 objects)",
        (
            "Two classes of 50, three clusters of 5, 48 and 47 objects.",
            "The best one-to-one matching pairs class A with cluster 2 (44) and B with cluster 3 "
            "(44): ACC = 88/100 = 0.88; the 5-object cluster 1 stays unmatched.",
        ),
        _t([[3, 44, 3], [2, 4, 44]]),
        {"acc": 0.88, "clustering_error": 0.12},
    ),
)

SCENARIOS: dict[str, Scenario] = {s.key: s for s in SCENARIO_LIST}


@dataclass(frozen=True)
class Question:
    """A small question with its answer (revealed on demand)."""

    question: str
    answer: str


QUESTIONS: tuple[Question, ...] = (
    Question(
        "Which is never lower: Jaccard or Fowlkes–Mallows? Why?",
        "Fowlkes–Mallows. With P = TP/(TP+FP) and R = TP/(TP+FN), Jaccard is "
        "TP/(TP+FP+FN) = 1/(1/P + 1/R − 1), which is at most min(P, R), while FMI = √(P·R) is "
        "at least min(P, R). Equality only when FP = FN = 0 (both 1) or TP = 0 (both 0).",
    ),
    Question(
        "Can ACC be 1 when the number of clusters differs from the number of classes?",
        "No. ACC uses a one-to-one matching, so at most min(K, C) clusters are matched; any point "
        "in an unmatched cluster (or of an unmatched class) counts as an error.",
    ),
    Question(
        "Why does purity reach 1 for the all-singletons clustering?",
        "Purity takes, for every cluster, its largest class. A one-point cluster is always pure, "
        "so purity rewards over-segmentation; read it with completeness or the cluster ratio.",
    ),
    Question(
        "Random labels with 30 clusters give NMI = 0.25. Is that a signal?",
        "Not by itself. The mutual information of random labels grows with the number of "
        "clusters; the permutation null shows what chance alone gives. AMI subtracts that "
        "expectation and would be ≈ 0 here.",
    ),
    Question(
        "Can ARI be negative?",
        "Yes: when the pair agreement is below what random labelling with the same cluster sizes "
        "gives in expectation. Small negative values are just chance; large ones are rare.",
    ),
    Question(
        "SRE is 0 but CONN is 0 too. What happened?",
        "Every point is represented only by points of its own class (subspace-preserving), but "
        "inside some class the graph falls apart into pieces: spectral clustering may then split "
        "that class. Sparse models risk this; dense ones risk leaking across classes.",
    ),
)


# ------------------------------------------------------------------- SRE / CONN small C
@dataclass(frozen=True)
class SmallCoef:
    """A small self-expressive coefficient matrix with known leakage and in-class density."""

    coef: np.ndarray
    labels: np.ndarray
    leakage: float
    density: float


def small_coef(
    leakage: float,
    density: float,
    *,
    n_classes: int = 3,
    n_per_class: int = 8,
    cross_share: float = 0.3,
    seed: int = 3,
) -> SmallCoef:
    """Build a C whose rows put ``leakage`` of their ℓ1 mass on other classes.

    Inside a class, point i uses point j when a fixed uniform draw ``U_ij < density``; the draws
    are fixed by ``seed`` so a denser C always contains the sparser one (sliding the density only
    adds edges). Across classes, a fixed ``cross_share`` of the other points receive the
    ``leakage`` share of the row's mass. Every point also keeps one in-class partner, so
    SRE_i = ``leakage`` exactly while CONN depends on the density only: the two sliders show the
    two failure modes separately (sparse: a class falls apart; dense/leaky: mass crosses classes).

    Examples
    --------
    >>> s = small_coef(0.2, 0.5)
    >>> s.coef.shape, s.labels.tolist()[:9]
    ((24, 24), [0, 0, 0, 0, 0, 0, 0, 0, 1])
    >>> row = np.abs(s.coef[0]); same = s.labels == 0
    >>> round(float(row[~same].sum() / row.sum()), 6)
    0.2
    """
    if not 0.0 <= leakage <= 1.0 or not 0.0 <= density <= 1.0:
        raise ValueError("leakage and density must be in [0, 1]")
    n = n_classes * n_per_class
    labels = np.repeat(np.arange(n_classes), n_per_class)
    rng = np.random.default_rng(seed)
    u = rng.random((n, n))
    v = rng.random((n, n))
    same = labels[:, None] == labels[None, :]
    np.fill_diagonal(same, False)
    other = labels[:, None] != labels[None, :]
    # every point keeps one in-class partner (pairs 0-1, 2-3, ... inside each class), so SRE_i is
    # exactly ``leakage``; a low density leaves the class graph in pieces (CONN = 0).
    idx = np.arange(n)
    partner = (
        idx ^ 1
        if n_per_class % 2 == 0
        else np.where(idx % n_per_class == n_per_class - 1, idx - 1, idx ^ 1)
    )
    within = (same & (u < density)).astype(np.float64)
    within[idx, partner] = 1.0
    cross = (other & (v < cross_share)).astype(np.float64)
    cross[cross.sum(axis=1) == 0, :] = other[cross.sum(axis=1) == 0, :]  # never an empty row
    w_mass = within.sum(axis=1, keepdims=True)
    c_mass = cross.sum(axis=1, keepdims=True)
    coef = np.zeros((n, n))
    has_w = w_mass[:, 0] > 0
    # rows with in-class support: (1 - leakage) of the mass inside, leakage outside
    coef[has_w] = (1.0 - leakage) * within[has_w] / w_mass[has_w]
    coef[has_w] += leakage * cross[has_w] / c_mass[has_w]
    # rows with no in-class support: whatever leaks is all they have
    coef[~has_w] = leakage * cross[~has_w] / c_mass[~has_w]
    return SmallCoef(coef=coef, labels=labels, leakage=float(leakage), density=float(density))


# ------------------------------------------------------------------- editable table input
MAX_ROWS = 20
MAX_COLS = 30
MAX_COUNT = 100_000


def clean_table(values: object) -> np.ndarray:
    """Counts from the editor: blanks and NaN are 0, negatives 0, decimals rounded, capped.

    Examples
    --------
    >>> clean_table([[1.6, None], [-2, 3]]).tolist()
    [[2, 0], [0, 3]]
    """
    a = np.array(values, dtype=object)
    if a.ndim != 2:
        raise ClustlensInputError("the table must have rows and columns", source="table")
    out = np.zeros(a.shape, dtype=np.int64)
    for idx, v in np.ndenumerate(a):
        try:
            f = float(v) if v is not None and v != "" else 0.0
        except (TypeError, ValueError):
            f = 0.0
        out[idx] = 0 if not np.isfinite(f) or f < 0 else min(round(f), MAX_COUNT)
    return out


def parse_table(text: str) -> np.ndarray:
    """A classes x clusters table typed as text: one class per line, counts split by spaces,
    commas, semicolons or tabs; brackets are ignored (so ``[[3, 44, 3], [2, 4, 44]]`` works).

    Examples
    --------
    >>> parse_table("3 44 3\\n2, 4, 44").tolist()
    [[3, 44, 3], [2, 4, 44]]
    >>> parse_table("[[3, 44, 3], [2, 4, 44]]").tolist()
    [[3, 44, 3], [2, 4, 44]]
    """
    src = str(text).strip()
    if src.startswith("[["):
        src = src[1:-1] if src.endswith("]]") else src[1:]
        src = src.replace("],", "\n").replace("] ,", "\n")
    rows = []
    for number, line in enumerate(src.splitlines(), start=1):
        cells = [c for c in re.split(r"[\s,;]+", line.replace("[", " ").replace("]", " ")) if c]
        if not cells:
            continue
        try:
            row = [int(c) for c in cells]
        except ValueError:
            raise ClustlensInputError(
                "every cell must be a whole number (a count)",
                source="typed table",
                where=f"line {number}",
            ) from None
        if any(v < 0 or v > MAX_COUNT for v in row):
            raise ClustlensInputError(
                f"counts must be between 0 and {MAX_COUNT:,}",
                source="typed table",
                where=f"line {number}",
            )
        rows.append(row)
    if not rows:
        raise ClustlensInputError("no numbers found", source="typed table")
    width = len(rows[0])
    for number, r in enumerate(rows, start=1):
        if len(r) != width:
            raise ClustlensInputError(
                f"row {number} has {len(r)} counts but row 1 has {width}", source="typed table"
            )
    check_table_shape(np.asarray(rows))
    return np.asarray(rows, dtype=np.int64)


def check_table_shape(table: np.ndarray) -> None:
    """Keep the Learn page's table small enough to read and recompute as you type."""
    k, c = table.shape
    if not (1 <= k <= MAX_ROWS and 1 <= c <= MAX_COLS):
        raise ClustlensInputError(
            f"the Learn table holds 1–{MAX_ROWS} classes and 1–{MAX_COLS} clusters; this one is "
            f"{k} x {c}",
            source="table",
        )


# ------------------------------------------------------------------- points to move around
@dataclass(frozen=True, eq=False)
class PointSet:
    """A small 2-D point set: positions, true classes and a starting clustering."""

    xy: np.ndarray
    classes: np.ndarray
    clusters: np.ndarray


def point_set(n_per_class: int = 10, seed: int = 4) -> PointSet:
    """Three blobs (classes A, B, C); the starting clustering puts the 3 points of B nearest to
    A in A's cluster, so there is something to fix.

    Examples
    --------
    >>> p = point_set()
    >>> p.xy.shape, np.bincount(p.clusters).tolist()
    ((30, 2), [13, 7, 10])
    """
    rng = np.random.default_rng(seed)
    centres = np.array([[0.0, 0.0], [3.2, 0.6], [1.4, 3.0]])
    classes = np.repeat(np.arange(3), n_per_class)
    xy = centres[classes] + rng.normal(scale=0.75, size=(classes.size, 2))
    clusters = classes.copy()
    b = np.flatnonzero(classes == 1)
    near_a = b[np.argsort(np.linalg.norm(xy[b] - centres[0], axis=1))[:3]]
    clusters[near_a] = 0
    return PointSet(np.round(xy, 3), classes, clusters)


def move_points(clusters: Sequence[int], points: Sequence[int], target: int | None) -> np.ndarray:
    """Move ``points`` to cluster ``target`` (``None``: a new cluster); codes stay 0..k-1.

    Clusters left empty disappear and the others are renumbered in order.

    Examples
    --------
    >>> move_points([0, 0, 1, 2], [2], None).tolist()
    [0, 0, 2, 1]
    >>> move_points([0, 0, 1, 2], [2], 0).tolist()
    [0, 0, 0, 1]
    """
    cl = np.asarray(clusters, dtype=np.int64).copy()
    idx = np.asarray(list(points), dtype=np.int64)
    if idx.size and (idx.min() < 0 or idx.max() >= cl.size):
        raise ClustlensInputError("point index out of range", source="selection")
    cl[idx] = (int(cl.max()) + 1 if cl.size else 0) if target is None else int(target)
    _, codes = np.unique(cl, return_inverse=True)
    return codes.reshape(-1).astype(np.int64)


def table_of(classes: Sequence[int], clusters: Sequence[int]) -> np.ndarray:
    """Classes x clusters counts of two code vectors (codes 0..k-1)."""
    a = np.asarray(classes, dtype=np.int64)
    b = np.asarray(clusters, dtype=np.int64)
    k, c = int(a.max()) + 1, int(b.max()) + 1
    return np.bincount(a * c + b, minlength=k * c).reshape(k, c)
