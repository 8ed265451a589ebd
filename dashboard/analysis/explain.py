"""Step-by-step explanations of each metric for one contingency table, numbers plugged in.

UI-free: :func:`explain_all` returns plain dataclasses (a general formula in Unicode and in
KaTeX-ready LaTeX, then the same formula with this table's numbers). The Learn page renders
them with ``st.latex`` (KaTeX ships inside Streamlit, no network) and ``st.text`` (literal).
The intermediate numbers are computed here from the table; ``value`` is the library's number
(``evaluate``), so conventions for degenerate tables are the library's, and ``derived`` is what
the steps give — the tests check that the two agree wherever the formula is defined.

Examples
--------
>>> import numpy as np
>>> ex = {e.key: e for e in explain_all(np.array([[3, 44, 3], [2, 4, 44]]))}
>>> ex["acc"].steps[-1].plugged
'ACC = (44 + 44) / 100 = 0.8800'
>>> round(ex["ari"].derived, 4)
0.6526
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

import metrics_core as mc


@dataclass(frozen=True)
class Step:
    """One line of a derivation.

    ``formula`` is the general rule (Unicode), ``latex`` the same for ``st.latex`` (our own
    text only, never user strings), ``plugged`` the rule with this table's numbers.
    """

    label: str
    formula: str
    plugged: str
    latex: str = ""


@dataclass(frozen=True)
class Explanation:
    """The derivation of one metric: its steps, the library value and the value the steps give."""

    key: str
    name: str
    value: float
    derived: float | None
    steps: tuple[Step, ...]
    note: str = ""


def _f(x: float, digits: int = 4) -> str:
    if isinstance(x, (int, np.integer)):
        return f"{int(x):,}"
    if not math.isfinite(float(x)):
        return "n/a"
    return f"{float(x):.{digits}f}"


def _c2(x: np.ndarray | int) -> np.ndarray | int:
    """Binomial C(x, 2) in exact integers."""
    if isinstance(x, np.ndarray):
        x = x.astype(np.int64)
        return x * (x - 1) // 2
    return int(x) * (int(x) - 1) // 2


def _join(values: Sequence[Any], limit: int = 8) -> str:
    """``a + b + c`` with at most ``limit`` terms shown."""
    vals = [str(v) for v in values]
    if len(vals) > limit:
        return " + ".join(vals[: limit - 1]) + f" + … ({len(vals) - limit + 1} more)"
    return " + ".join(vals) if vals else "0"


def _entropy_terms(counts: np.ndarray, n: int) -> float:
    p = counts[counts > 0] / n
    return float(-(p * np.log(p)).sum()) if n else 0.0


def _div(a: float, b: float) -> float | None:
    return None if b == 0 else a / b


def _names(names: Sequence[str] | None, prefix: str, k: int) -> list[str]:
    return [str(x) for x in names] if names is not None else [f"{prefix} {i + 1}" for i in range(k)]


# --------------------------------------------------------------------- set matching
def explain_acc(
    table: np.ndarray,
    value: float,
    classes: Sequence[str] | None = None,
    clusters: Sequence[str] | None = None,
) -> Explanation:
    """ACC: the optimal one-to-one matching of classes to clusters, and the matched counts."""
    t = np.asarray(table, dtype=np.int64)
    n = int(t.sum())
    rows, cols = _names(classes, "class", t.shape[0]), _names(clusters, "cluster", t.shape[1])
    steps = [
        Step(
            "rule",
            "ACC = max over one-to-one matchings π of (1/N) Σ_i n_{i,π(i)}",
            f"N = {n:,}; a matching pairs at most min(K, C) = {min(t.shape)} classes with clusters",
            r"\mathrm{ACC}=\max_{\pi}\frac{1}{N}\sum_i n_{i,\pi(i)}",
        )
    ]
    if n == 0:
        return Explanation("acc", "accuracy (ACC)", value, None, tuple(steps), "empty table")
    m = mc.best_matching(contingency=t)
    pairs = sorted(zip(m.class_index.tolist(), m.cluster_index.tolist(), strict=True))
    matched = [int(t[i, j]) for i, j in pairs]
    lines = [f"{rows[i]} ↔ {cols[j]}: {int(t[i, j]):,}" for i, j in pairs]
    steps.append(
        Step("matching found (exact optimum)", "π* = argmax_π Σ_i n_{i,π(i)}", "; ".join(lines))
    )
    unmatched = [cols[j] for j in range(t.shape[1]) if j not in {c for _, c in pairs}]
    if unmatched:
        steps.append(
            Step(
                "unmatched clusters",
                "their points count as errors",
                ", ".join(unmatched)
                + f" ({int(t[:, [cols.index(u) for u in unmatched]].sum()):,} points)",
            )
        )
    derived = sum(matched) / n
    steps.append(
        Step("value", "ACC = Σ matched / N", f"ACC = ({_join(matched)}) / {n:,} = {_f(derived)}")
    )
    return Explanation("acc", "accuracy (ACC)", value, derived, tuple(steps))


def explain_purity(table: np.ndarray, value: float) -> Explanation:
    """Purity: each cluster's largest class."""
    t = np.asarray(table, dtype=np.int64)
    n = int(t.sum())
    col_max = t.max(axis=0) if t.size else np.zeros(0, dtype=np.int64)
    derived = _div(int(col_max.sum()), n)
    steps = (
        Step(
            "rule",
            "purity = (1/N) Σ_j max_i n_ij",
            "each cluster is credited with its largest class (many clusters may pick the same one)",
            r"\mathrm{purity}=\frac{1}{N}\sum_j \max_i n_{ij}",
        ),
        Step(
            "value",
            "",
            f"purity = ({_join(col_max.tolist())}) / {n:,} = "
            + (_f(derived) if derived is not None else "n/a"),
        ),
    )
    return Explanation("purity", "purity", value, derived, steps)


# --------------------------------------------------------------------- pair counting
def _pair_counts(t: np.ndarray) -> dict[str, int]:
    n = int(t.sum())
    a, b = t.sum(axis=1), t.sum(axis=0)
    tp = int(_c2(t).sum())
    sa, sb = int(_c2(a).sum()), int(_c2(b).sum())
    total = _c2(n)
    return {
        "n": n,
        "total": int(total),
        "sum_nij": tp,
        "sum_a": sa,
        "sum_b": sb,
        "tp": tp,
        "fp": sb - tp,
        "fn": sa - tp,
        "tn": int(total) - sa - sb + tp,
    }


def explain_pairs(table: np.ndarray, values: Mapping[str, Any]) -> Explanation:
    """The four unordered pair counts TP, FP, FN, TN from the table's binomials."""
    t = np.asarray(table, dtype=np.int64)
    p = _pair_counts(t)
    a, b = t.sum(axis=1), t.sum(axis=0)
    nz = t[t > 1]
    steps = (
        Step(
            "all pairs",
            "C(N, 2) = N(N − 1)/2",
            f"C({p['n']:,}, 2) = {p['total']:,}",
            r"\binom{N}{2}=\frac{N(N-1)}{2}",
        ),
        Step(
            "TP: same class, same cluster",
            "TP = Σ_ij C(n_ij, 2)",
            f"TP = {_join([f'C({v},2)' for v in nz.tolist()])} = {p['tp']:,}",
            r"\mathrm{TP}=\sum_{ij}\binom{n_{ij}}{2}",
        ),
        Step(
            "pairs in the same cluster",
            "Σ_j C(b_j, 2)",
            f"{_join([f'C({v},2)' for v in b.tolist()])} = {p['sum_b']:,}",
        ),
        Step(
            "pairs in the same class",
            "Σ_i C(a_i, 2)",
            f"{_join([f'C({v},2)' for v in a.tolist()])} = {p['sum_a']:,}",
        ),
        Step(
            "FP: merged (same cluster, different classes)",
            "FP = Σ_j C(b_j, 2) − TP",
            f"FP = {p['sum_b']:,} − {p['tp']:,} = {p['fp']:,}",
        ),
        Step(
            "FN: split (same class, different clusters)",
            "FN = Σ_i C(a_i, 2) − TP",
            f"FN = {p['sum_a']:,} − {p['tp']:,} = {p['fn']:,}",
        ),
        Step(
            "TN: apart in both",
            "TN = C(N, 2) − TP − FP − FN",
            f"TN = {p['total']:,} − {p['tp']:,} − {p['fp']:,} − {p['fn']:,} = {p['tn']:,}",
        ),
    )
    return Explanation(
        "pair_tp",
        "pair confusion over unordered pairs: TP (pairs together in both)",
        float(values.get("pair_tp", p["tp"])),
        float(p["tp"]),
        steps,
        "scikit-learn's pair_confusion_matrix counts ordered pairs (×2)",
    )


def explain_rand_ari(table: np.ndarray, values: Mapping[str, Any]) -> list[Explanation]:
    """Rand index and the adjusted Rand index: index, expected index, max index."""
    p = _pair_counts(np.asarray(table, dtype=np.int64))
    tp, tn, total = p["tp"], p["tn"], p["total"]
    ri = _div(tp + tn, total)
    rand = Explanation(
        "rand",
        "Rand index",
        float(values["rand"]),
        ri,
        (
            Step(
                "value",
                "RI = (TP + TN) / C(N, 2)",
                f"RI = ({tp:,} + {tn:,}) / {total:,} = {_f(ri) if ri is not None else 'n/a'}",
                r"\mathrm{RI}=\frac{\mathrm{TP}+\mathrm{TN}}{\binom{N}{2}}",
            ),
        ),
    )
    index = p["sum_nij"]
    expected = _div(p["sum_a"] * p["sum_b"], total)
    max_index = (p["sum_a"] + p["sum_b"]) / 2
    steps = [
        Step(
            "index",
            "Index = Σ_ij C(n_ij, 2) (= TP)",
            f"Index = {index:,}",
            r"\mathrm{ARI}=\frac{\mathrm{Index}-\mathbb{E}[\mathrm{Index}]}"
            r"{\max\mathrm{Index}-\mathbb{E}[\mathrm{Index}]}",
        ),
        Step(
            "expected index (random labels, same sizes)",
            "E[Index] = Σ_i C(a_i, 2) · Σ_j C(b_j, 2) / C(N, 2)",
            f"E[Index] = {p['sum_a']:,} × {p['sum_b']:,} / {total:,} = "
            + (_f(expected) if expected is not None else "n/a (N < 2)"),
        ),
        Step(
            "max index",
            "max Index = ½ (Σ_i C(a_i, 2) + Σ_j C(b_j, 2))",
            f"max Index = ½ ({p['sum_a']:,} + {p['sum_b']:,}) = {_f(max_index)}",
        ),
    ]
    derived = None
    note = ""
    if expected is not None and max_index != expected:
        derived = (index - expected) / (max_index - expected)
        steps.append(
            Step(
                "value",
                "ARI = (Index − E) / (max − E)",
                f"ARI = ({index:,} − {_f(expected)}) / ({_f(max_index)} − {_f(expected)}) "
                f"= {_f(derived)}",
            )
        )
    else:
        note = "max = E (e.g. both labelings trivial): ARI is defined as 1 by convention"
    ari = Explanation(
        "ari", "adjusted Rand index", float(values["ari"]), derived, tuple(steps), note
    )
    return [rand, ari]


def explain_pair_scores(table: np.ndarray, values: Mapping[str, Any]) -> list[Explanation]:
    """Pair precision, recall, F1, Jaccard and Fowlkes–Mallows from TP, FP, FN."""
    p = _pair_counts(np.asarray(table, dtype=np.int64))
    tp, fp, fn = p["tp"], p["fp"], p["fn"]
    prec, rec = _div(tp, tp + fp), _div(tp, tp + fn)
    jac = _div(tp, tp + fp + fn)
    fmi = None if prec is None or rec is None else math.sqrt(prec * rec)

    def s(v: float | None) -> str:
        return "n/a (0/0)" if v is None else _f(v)

    out = [
        Explanation(
            "pair_precision",
            "pair precision",
            float(values["pair_precision"]),
            prec,
            (
                Step(
                    "value",
                    "P = TP / (TP + FP)",
                    f"P = {tp:,} / ({tp:,} + {fp:,}) = {s(prec)}",
                    r"P=\frac{\mathrm{TP}}{\mathrm{TP}+\mathrm{FP}}",
                ),
            ),
        ),
        Explanation(
            "pair_recall",
            "pair recall",
            float(values["pair_recall"]),
            rec,
            (
                Step(
                    "value",
                    "R = TP / (TP + FN)",
                    f"R = {tp:,} / ({tp:,} + {fn:,}) = {s(rec)}",
                    r"R=\frac{\mathrm{TP}}{\mathrm{TP}+\mathrm{FN}}",
                ),
            ),
        ),
        Explanation(
            "jaccard",
            "Jaccard",
            float(values["jaccard"]),
            jac,
            (
                Step(
                    "value",
                    "J = TP / (TP + FP + FN)",
                    f"J = {tp:,} / ({tp:,} + {fp:,} + {fn:,}) = {s(jac)}",
                    r"J=\frac{\mathrm{TP}}{\mathrm{TP}+\mathrm{FP}+\mathrm{FN}}",
                ),
            ),
        ),
        Explanation(
            "fmi",
            "Fowlkes–Mallows",
            float(values["fmi"]),
            fmi,
            (
                Step(
                    "value",
                    "FMI = √(P · R)",
                    f"FMI = √({s(prec)} × {s(rec)}) = {s(fmi)}",
                    r"\mathrm{FMI}=\sqrt{P\cdot R}",
                ),
            ),
            "FMI ≥ Jaccard always: J ≤ min(P, R) ≤ √(P·R)",
        ),
    ]
    return out


# --------------------------------------------------------------------- information theoretic
_NORMALISERS = {
    "arithmetic": ("(H(U) + H(V)) / 2", r"\tfrac{1}{2}(H(U)+H(V))"),
    "geometric": ("√(H(U) · H(V))", r"\sqrt{H(U)H(V)}"),
    "min": ("min(H(U), H(V))", r"\min(H(U),H(V))"),
    "max": ("max(H(U), H(V))", r"\max(H(U),H(V))"),
}


def _normaliser(hu: float, hv: float, method: str) -> float:
    return {
        "arithmetic": (hu + hv) / 2,
        "geometric": math.sqrt(hu * hv),
        "min": min(hu, hv),
        "max": max(hu, hv),
    }[method]


def information_parts(table: np.ndarray) -> dict[str, float]:
    """H(U) (classes), H(V) (clusters), MI, in nats, straight from the table's definitions."""
    t = np.asarray(table, dtype=np.int64)
    n = int(t.sum())
    a, b = t.sum(axis=1), t.sum(axis=0)
    hu, hv = _entropy_terms(a, n), _entropy_terms(b, n)
    mi = 0.0
    if n:
        i, j = np.nonzero(t)
        v = t[i, j].astype(np.float64)
        mi = float((v / n * np.log(n * v / (a[i].astype(np.float64) * b[j]))).sum())
    return {"n": n, "h_true": hu, "h_pred": hv, "mi": max(mi, 0.0)}


def explain_information(
    table: np.ndarray, values: Mapping[str, Any], average_method: str = "arithmetic"
) -> list[Explanation]:
    """Entropies, MI, the chosen NMI normaliser, E[MI] and AMI, homogeneity/completeness."""
    t = np.asarray(table, dtype=np.int64)
    parts = information_parts(t)
    n, hu, hv, mi = parts["n"], parts["h_true"], parts["h_pred"], parts["mi"]
    a, b = t.sum(axis=1), t.sum(axis=0)
    ent = (
        Step(
            "entropy of the classes",
            "H(U) = −Σ_i (a_i/N) ln(a_i/N)",
            f"a = ({', '.join(map(str, a.tolist()[:12]))}{', …' if a.size > 12 else ''}), "
            f"N = {n:,} → H(U) = {_f(hu)} nats",
            r"H(U)=-\sum_i \frac{a_i}{N}\ln\frac{a_i}{N}",
        ),
        Step(
            "entropy of the clusters",
            "H(V) = −Σ_j (b_j/N) ln(b_j/N)",
            f"b = ({', '.join(map(str, b.tolist()[:12]))}{', …' if b.size > 12 else ''}) "
            f"→ H(V) = {_f(hv)} nats",
            r"H(V)=-\sum_j \frac{b_j}{N}\ln\frac{b_j}{N}",
        ),
        Step(
            "mutual information",
            "MI = Σ_ij (n_ij/N) ln(N n_ij / (a_i b_j))",
            f"MI = {_f(mi)} nats (natural log; every normalised score is unit-free)",
            r"\mathrm{MI}=\sum_{ij}\frac{n_{ij}}{N}\ln\frac{N\,n_{ij}}{a_i b_j}",
        ),
    )
    norm_txt, norm_tex = _NORMALISERS[average_method]
    norm = _normaliser(hu, hv, average_method)
    nmi_derived = _div(mi, norm) if mi > 0 else None
    nmi = Explanation(
        "nmi",
        f"NMI ({average_method} normaliser)",
        float(values["nmi"]),
        nmi_derived,
        (
            *ent,
            Step(
                f"normaliser: {average_method}",
                f"norm = {norm_txt}",
                f"norm = {_f(norm)}",
                r"\mathrm{NMI}=\frac{\mathrm{MI}}{" + norm_tex + "}",
            ),
            Step(
                "value",
                "NMI = MI / norm",
                f"NMI = {_f(mi)} / {_f(norm)} = "
                + (_f(nmi_derived) if nmi_derived is not None else "0 or 1 by convention"),
            ),
        ),
        "switch the normaliser on the Summary page; arithmetic is scikit-learn's default",
    )
    emi = float(values.get("emi", mc.expected_mutual_info(contingency=t) if n else 0.0))
    ami_derived = None
    if min(t.shape) > 1 and abs(norm - emi) > 1e-10 * max(norm, 1.0):
        ami_derived = (mi - emi) / (norm - emi)
    ami = Explanation(
        "ami",
        f"AMI ({average_method} normaliser)",
        float(values["ami"]),
        ami_derived,
        (
            Step(
                "expected MI under random labelling",
                "E[MI] = Σ_ij Σ_x P_hyp(x; a_i, b_j, N) (x/N) ln(N x / (a_i b_j))",
                f"E[MI] = {_f(emi)} nats (same class and cluster sizes, labels shuffled)",
                r"\mathrm{AMI}=\frac{\mathrm{MI}-\mathbb{E}[\mathrm{MI}]}"
                r"{" + norm_tex + r"-\mathbb{E}[\mathrm{MI}]}",
            ),
            Step(
                "value",
                "AMI = (MI − E[MI]) / (norm − E[MI])",
                f"AMI = ({_f(mi)} − {_f(emi)}) / ({_f(norm)} − {_f(emi)}) = "
                + (_f(ami_derived) if ami_derived is not None else "n/a (convention applies)"),
            ),
        ),
        "E[MI] grows with the number of clusters; that is why NMI of random labels is not 0",
    )
    h_d = _div(mi, hu)
    c_d = _div(mi, hv)
    hcv = Explanation(
        "homogeneity",
        "homogeneity and completeness",
        float(values["homogeneity"]),
        h_d,
        (
            Step(
                "homogeneity: each cluster holds one class",
                "h = MI / H(U) = 1 − H(U|V)/H(U)",
                f"h = {_f(mi)} / {_f(hu)} = " + (_f(h_d) if h_d is not None else "1 (H(U) = 0)"),
                r"h=\frac{\mathrm{MI}}{H(U)},\quad c=\frac{\mathrm{MI}}{H(V)},\quad "
                r"V=\frac{2hc}{h+c}",
            ),
            Step(
                "completeness: each class sits in one cluster",
                "c = MI / H(V) = 1 − H(V|U)/H(V)",
                f"c = {_f(mi)} / {_f(hv)} = " + (_f(c_d) if c_d is not None else "1 (H(V) = 0)"),
            ),
            Step(
                "V-measure",
                "V = 2 h c / (h + c)",
                f"V = {_f(float(values['v_measure']))} (equals NMI with the arithmetic normaliser)",
            ),
        ),
    )
    return [nmi, ami, hcv]


def explain_all(
    table: np.ndarray,
    values: Mapping[str, Any] | None = None,
    *,
    average_method: str = "arithmetic",
    classes: Sequence[str] | None = None,
    clusters: Sequence[str] | None = None,
) -> list[Explanation]:
    """Every explanation for one classes x clusters table (``values`` from ``evaluate``)."""
    t = np.asarray(table, dtype=np.int64)
    if values is None:
        values = mc.evaluate(None, None, contingency=t, average_method=average_method)
    out = [
        explain_acc(t, float(values["acc"]), classes, clusters),
        explain_purity(t, values["purity"]),
    ]
    out.append(explain_pairs(t, values))
    out += explain_rand_ari(t, values)
    out += explain_pair_scores(t, values)
    out += explain_information(t, values, average_method)
    return out


def as_text(ex: Explanation) -> str:
    """One explanation as plain text (for ``st.text``/``st.code`` and reports)."""
    lines = []
    for s in ex.steps:
        head = f"{s.label}: {s.formula}" if s.formula else s.label
        lines.append(head)
        lines.append(f"    {s.plugged}")
    if ex.note:
        lines.append(f"note: {ex.note}")
    return "\n".join(lines)


def evaluate_table(table: np.ndarray, average_method: str = "arithmetic") -> dict[str, Any]:
    """Every partition metric of a small classes x clusters table (``evaluate`` on the table).

    Examples
    --------
    >>> evaluate_table(np.array([[3, 44, 3], [2, 4, 44]]))["acc"]
    0.88
    """
    t = np.asarray(table, dtype=np.int64)
    return mc.evaluate(None, None, contingency=t, average_method=average_method)
