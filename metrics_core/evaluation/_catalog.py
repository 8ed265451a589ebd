"""The catalogue of every key ``evaluate`` returns: what it is, its range, direction, convention.

The partition metrics' entries live with their kernels (:mod:`metrics_core.partition`); this
module adds the affinity keys and the short column labels of non-metric result columns. The
catalogue feeds the README table, every dashboard table, the report and the registry-driven
property tests, so they cannot drift apart.
"""

from __future__ import annotations

from metrics_core import partition as _partition  # noqa: F401  (fills the registry)
from metrics_core.partition._registry import AFF, MetricInfo, registered_infos

_REF_YOU = "You, Li, Robinson & Vidal 2016, CVPR (SSC-OMP/EnSC); Nasihatkon & Hartley 2011"

#: The affinity keys ``evaluate`` adds given C (computed by :mod:`metrics_core.affinity`).
AFFINITY_METRICS: tuple[MetricInfo, ...] = (
    MetricInfo(
        "sre",
        "subspace-preserving error (SRE)",
        AFF,
        "(1/N) Σ_i ‖c_i outside class(i)‖₁ / ‖c_i‖₁",
        (0, 1),
        "lower",
        "row i of C represents point i; zero rows count 0 (policy)",
        _REF_YOU,
        short="SRE",
    ),
    MetricInfo(
        "sre_zero_rows",
        "all-zero rows of C",
        AFF,
        "#{i : c_i = 0}",
        (0, None),
        "info",
        "",
        "",
        short="zero rows",
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
        short="CONN (min)",
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
        short="CONN (mean)",
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
        short="singletons skipped",
    ),
)

#: Every ``evaluate`` key: the partition registry (family order), then the affinity keys.
METRICS: tuple[MetricInfo, ...] = (*registered_infos(), *AFFINITY_METRICS)

METRICS_BY_KEY: dict[str, MetricInfo] = {m.key: m for m in METRICS}


#: Labels of result columns that are not metrics (sweeps, multi-view runs): the one other table.
COLUMN_LABELS: dict[str, str] = {
    "sparsity": "non-zeros per point",
    "seconds": "seconds",
    "seconds_fit": "seconds (fit)",
    "seconds_cluster": "seconds (clustering)",
    "n_components": "components",
    "n_iter": "iterations",
}


def column_label(key: str) -> str:
    """The display name of a result column: the catalogue's short name of a metric, the label
    of a known non-metric column, else the key itself.

    Examples
    --------
    >>> column_label("conn_min"), column_label("sparsity"), column_label("lambda")
    ('CONN (min)', 'non-zeros per point', 'lambda')
    """
    info = METRICS_BY_KEY.get(key)
    if info is not None:
        return info.label
    return COLUMN_LABELS.get(key, key)


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
