"""The catalogue of every metric ``evaluate`` returns: what it is, its range, direction, convention.

One registry feeds the README table, the dashboard's metric table and the registry-driven
property tests, so the three cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class MetricInfo:
    """Description of one ``evaluate`` key.

    ``direction`` is ``"higher"`` (higher is better), ``"lower"`` or ``"info"`` (a count or a
    ratio with no better side). ``bounds`` is the (low, high) range, ``None`` for unbounded.
    ``symmetric``: swapping labels_true and labels_pred leaves it unchanged.
    """

    key: str
    name: str
    family: str
    formula: str
    bounds: tuple[float | None, float | None]
    direction: str
    convention: str
    reference: str
    symmetric: bool = False
    adjusted: bool = False  # corrected for chance (≈ 0 for random labelings)


SET = "set matching"
PAIR = "pair counting"
INFO = "information theoretic"
AFF = "affinity (coefficient matrix)"
SIZE = "sizes"

_REF_SK = "scikit-learn sklearn.metrics.cluster"
_REF_HA = "Hubert & Arabie 1985, J. Classification"
_REF_VINH = "Vinh, Epps & Bailey 2010, JMLR 11"
_REF_RH = "Rosenberg & Hirschberg 2007, EMNLP"
_REF_YOU = "You, Li, Robinson & Vidal 2016, CVPR (SSC-OMP/EnSC); Nasihatkon & Hartley 2011"

METRICS: tuple[MetricInfo, ...] = (
    MetricInfo("n_samples", "points", SIZE, "N", (0, None), "info", "after the noise policy", ""),
    MetricInfo(
        "n_classes", "classes", SIZE, "K = #distinct true labels", (0, None), "info", "", ""
    ),
    MetricInfo(
        "n_clusters",
        "clusters",
        SIZE,
        "C = #distinct predicted labels",
        (0, None),
        "info",
        "noise kept as one cluster unless the noise policy says otherwise",
        "",
    ),
    MetricInfo(
        "n_noise",
        "noise points",
        SIZE,
        "#{j : pred_j ∈ noise labels}",
        (0, None),
        "info",
        "noise labels default to -1 (DBSCAN/HDBSCAN)",
        "",
    ),
    MetricInfo(
        "cluster_ratio",
        "cluster ratio",
        SIZE,
        "C / K",
        (0, None),
        "info",
        "> 1 over-segments, < 1 under-segments",
        "seed 003 (clustering ratio)",
    ),
    MetricInfo(
        "acc",
        "accuracy (ACC)",
        SET,
        "max_π (1/N) Σ_i n_{i,π(i)}",
        (0, 1),
        "higher",
        "one-to-one matching (Hungarian); unmatched clusters count as errors",
        "Kuhn 1955; seed 001 worked example",
        symmetric=True,
    ),
    MetricInfo(
        "clustering_error",
        "clustering error",
        SET,
        "1 − ACC",
        (0, 1),
        "lower",
        "subspace clustering error",
        "Elhamifar & Vidal 2013",
        symmetric=True,
    ),
    MetricInfo(
        "purity",
        "purity",
        SET,
        "(1/N) Σ_j max_i n_ij",
        (0, 1),
        "higher",
        "1 for any refinement of the classes (e.g. all singletons)",
        "Zhao & Karypis 2001",
    ),
    MetricInfo(
        "f_measure",
        "F-measure (class-weighted best match)",
        SET,
        "(1/N) Σ_i a_i max_j 2 n_ij / (a_i + b_j)",
        (0, 1),
        "higher",
        "not the pair F1; F_ij = harmonic mean of n_ij/b_j and n_ij/a_i",
        "Larsen & Aone 1999; seed 003",
    ),
    MetricInfo(
        "pair_tp",
        "pairs TP",
        PAIR,
        "Σ_ij C(n_ij, 2)",
        (0, None),
        "info",
        "unordered pairs (sklearn counts ordered: ×2)",
        "",
        symmetric=True,
    ),
    MetricInfo(
        "pair_fp",
        "pairs FP (merged)",
        PAIR,
        "Σ_j C(b_j, 2) − TP",
        (0, None),
        "info",
        "same cluster, different classes: many → under-segmentation",
        "",
    ),
    MetricInfo(
        "pair_fn",
        "pairs FN (split)",
        PAIR,
        "Σ_i C(a_i, 2) − TP",
        (0, None),
        "info",
        "same class, different clusters: many → over-segmentation",
        "",
    ),
    MetricInfo(
        "pair_tn",
        "pairs TN",
        PAIR,
        "C(N, 2) − TP − FP − FN",
        (0, None),
        "info",
        "unordered pairs",
        "",
        symmetric=True,
    ),
    MetricInfo(
        "pair_precision",
        "pair precision",
        PAIR,
        "TP / (TP + FP)",
        (0, 1),
        "higher",
        "0 when TP = 0",
        "",
    ),
    MetricInfo(
        "pair_recall", "pair recall", PAIR, "TP / (TP + FN)", (0, 1), "higher", "0 when TP = 0", ""
    ),
    MetricInfo(
        "pair_f1",
        "pair F1",
        PAIR,
        "2 TP / (2 TP + FP + FN)",
        (0, 1),
        "higher",
        "0 when TP = 0",
        "",
        symmetric=True,
    ),
    MetricInfo(
        "rand",
        "Rand index",
        PAIR,
        "(TP + TN) / C(N, 2)",
        (0, 1),
        "higher",
        "1 when N < 2",
        "Rand 1971",
        symmetric=True,
    ),
    MetricInfo(
        "ari",
        "adjusted Rand index",
        PAIR,
        "2(TP·TN − FN·FP) / ((TP+FN)(FN+TN) + (TP+FP)(FP+TN))",
        (-0.5, 1),
        "higher",
        "1 when FP = FN = 0",
        _REF_HA,
        symmetric=True,
        adjusted=True,
    ),
    MetricInfo(
        "fmi",
        "Fowlkes–Mallows",
        PAIR,
        "TP / √((TP+FP)(TP+FN))",
        (0, 1),
        "higher",
        "0 when TP = 0",
        "Fowlkes & Mallows 1983",
        symmetric=True,
    ),
    MetricInfo(
        "fmi_weighted",
        "weighted Fowlkes–Mallows",
        PAIR,
        "P^α R^(1−α)",
        (0, 1),
        "higher",
        "α = fmi_alpha (0.5 gives FMI)",
        "seed 001",
    ),
    MetricInfo(
        "jaccard",
        "pair Jaccard",
        PAIR,
        "TP / (TP + FP + FN)",
        (0, 1),
        "higher",
        "0 when TP = 0; never above FMI",
        "Jaccard 1912",
        symmetric=True,
    ),
    MetricInfo(
        "mi",
        "mutual information",
        INFO,
        "Σ_ij (n_ij/N) ln(N n_ij / (a_i b_j))",
        (0, None),
        "higher",
        "nats",
        _REF_SK,
        symmetric=True,
    ),
    MetricInfo(
        "nmi",
        "NMI (arithmetic)",
        INFO,
        "MI / ((H(Y) + H(C)) / 2)",
        (0, 1),
        "higher",
        "normaliser = average_method (default arithmetic; = V-measure)",
        _REF_SK,
        symmetric=True,
    ),
    MetricInfo(
        "nmi_min",
        "NMI (min)",
        INFO,
        "MI / min(H(Y), H(C))",
        (0, 1),
        "higher",
        "",
        _REF_SK,
        symmetric=True,
    ),
    MetricInfo(
        "nmi_geometric",
        "NMI (geometric)",
        INFO,
        "MI / √(H(Y) H(C))",
        (0, 1),
        "higher",
        "Strehl & Ghosh 2002",
        _REF_SK,
        symmetric=True,
    ),
    MetricInfo(
        "nmi_max",
        "NMI (max)",
        INFO,
        "MI / max(H(Y), H(C))",
        (0, 1),
        "higher",
        "",
        _REF_SK,
        symmetric=True,
    ),
    MetricInfo(
        "ami",
        "AMI (arithmetic)",
        INFO,
        "(MI − E[MI]) / (mean(H(Y), H(C)) − E[MI])",
        (None, 1),
        "higher",
        "exact E[MI] (hypergeometric); normaliser = average_method",
        _REF_VINH,
        symmetric=True,
        adjusted=True,
    ),
    MetricInfo(
        "ami_min",
        "AMI (min)",
        INFO,
        "(MI − E[MI]) / (min(H) − E[MI])",
        (None, 1),
        "higher",
        "",
        _REF_VINH,
        symmetric=True,
        adjusted=True,
    ),
    MetricInfo(
        "ami_geometric",
        "AMI (geometric)",
        INFO,
        "(MI − E[MI]) / (√(H H) − E[MI])",
        (None, 1),
        "higher",
        "",
        _REF_VINH,
        symmetric=True,
        adjusted=True,
    ),
    MetricInfo(
        "ami_max",
        "AMI (max)",
        INFO,
        "(MI − E[MI]) / (max(H) − E[MI])",
        (None, 1),
        "higher",
        "",
        _REF_VINH,
        symmetric=True,
        adjusted=True,
    ),
    MetricInfo(
        "emi",
        "expected MI",
        INFO,
        "Σ_ij Σ_x P(x | a_i, b_j, N) (x/N) ln(N x / (a_i b_j))",
        (0, None),
        "info",
        "hypergeometric null (fixed group sizes); nats",
        _REF_VINH,
        symmetric=True,
    ),
    MetricInfo(
        "homogeneity",
        "homogeneity",
        INFO,
        "MI / H(Y)",
        (0, 1),
        "higher",
        "1 when H(Y) = 0",
        _REF_RH,
    ),
    MetricInfo(
        "completeness",
        "completeness",
        INFO,
        "MI / H(C)",
        (0, 1),
        "higher",
        "1 when H(C) = 0",
        _REF_RH,
    ),
    MetricInfo(
        "v_measure",
        "V-measure",
        INFO,
        "(1+β) h c / (β h + c)",
        (0, 1),
        "higher",
        "β = beta (default 1)",
        _REF_RH,
    ),
    MetricInfo(
        "sre",
        "subspace-preserving error (SRE)",
        AFF,
        "(1/N) Σ_i ‖c_i outside class(i)‖₁ / ‖c_i‖₁",
        (0, 1),
        "lower",
        "row i of C represents point i; zero rows count 0 (policy)",
        _REF_YOU,
    ),
    MetricInfo(
        "sre_zero_rows", "all-zero rows of C", AFF, "#{i : c_i = 0}", (0, None), "info", "", ""
    ),
    MetricInfo(
        "conn_min",
        "connectivity (min)",
        AFF,
        "min_k λ₂(I − D^-½ W_k D^-½), W = |C| + |C|ᵀ",
        (0, None),
        "higher",
        "per true class; singleton classes skipped; suits synthetic data",
        _REF_YOU,
    ),
    MetricInfo(
        "conn_mean",
        "connectivity (mean)",
        AFF,
        "mean_k λ₂(class k)",
        (0, None),
        "higher",
        "suits real data",
        _REF_YOU,
    ),
    MetricInfo(
        "conn_skipped_singletons",
        "singleton classes skipped",
        AFF,
        "#{k : |Y_k| = 1}",
        (0, None),
        "info",
        "",
        "",
    ),
)

METRICS_BY_KEY: dict[str, MetricInfo] = {m.key: m for m in METRICS}


def _fmt_bound(v: float | None, low: bool) -> str:
    if v is None:
        return "−∞" if low else "∞"
    return f"{v:g}"


def markdown_table() -> str:
    """The README's metric table, generated from the catalogue (a test keeps them in sync)."""
    arrows = {"higher": "↑ higher is better", "lower": "↓ lower is better", "info": "count/info"}
    lines = [
        "| key | metric | family | formula | range | direction | convention | reference |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for m in METRICS:
        lo, hi = m.bounds
        rng = f"[{_fmt_bound(lo, True)}, {_fmt_bound(hi, False)}]"
        cells = [
            f"`{m.key}`",
            m.name,
            m.family,
            m.formula.replace("|", "\\|"),
            rng,
            arrows[m.direction],
            m.convention.replace("|", "\\|"),
            m.reference,
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)
