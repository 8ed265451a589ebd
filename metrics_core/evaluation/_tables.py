"""Tables of results: the one mean ± std and the one LaTeX writer of the project.

Every "mean ± std over runs" in clustlens — the dashboard's comparison table, its exports, the
multi-view protocol, the report — is :func:`mean_std`: the mean and the **sample** standard
deviation (``ddof = 1``, :data:`STD_DDOF`; 0.0 for a single run) over the finite values.
Every LaTeX table is :func:`to_latex` (booktabs, every cell escaped, best values bold).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: The degrees of freedom of every standard deviation over runs (sample std).
STD_DDOF = 1


def mean_std_caption(n_runs: int) -> str:
    """The caption every mean ± std table carries.

    Examples
    --------
    >>> mean_std_caption(20)
    'mean ± sample standard deviation (ddof = 1) over 20 runs'
    """
    return f"mean ± sample standard deviation (ddof = {STD_DDOF}) over {n_runs} runs"


def plain_value(value: Any) -> Any:
    """A numpy scalar as the Python number it holds; NaN and inf as ``None`` (for CSV, JSON, TeX).

    Examples
    --------
    >>> plain_value(np.float64(0.5)), plain_value(float("nan"))
    (0.5, None)
    """
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
    "|": r"\textbar{}",
}
# characters common in our own metric names that pdflatex does not take as raw UTF-8
_LATEX_UNICODE = {
    "±": r"$\pm$",
    "–": "--",
    "—": "---",
    "λ": r"$\lambda$",
    "²": r"$^2$",
    "≥": r"$\geq$",
    "≤": r"$\leq$",
    "×": r"$\times$",
    "−": "-",
}


def latex_escape(text: object) -> str:
    """Escape LaTeX's special characters so any string prints literally in a tabular cell.

    Newlines become spaces; control characters are dropped.
    """
    out = []
    for ch in str(text):
        if ch in _LATEX_SPECIAL:
            out.append(_LATEX_SPECIAL[ch])
        elif ch in _LATEX_UNICODE:
            out.append(_LATEX_UNICODE[ch])
        elif ch in "\r\n\t":
            out.append(" ")
        elif ord(ch) < 32 or ord(ch) == 127:
            continue
        else:
            out.append(ch)
    return "".join(out)


def _fmt(v: Any, digits: int) -> str:
    v = plain_value(v)
    if v is None or v == "":
        return "--"
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, int):
        return f"{v:,}".replace(",", "{,}")
    if isinstance(v, float):
        return f"{v:.{digits}f}"
    return latex_escape(v)


def to_latex(
    rows: Sequence[Mapping[str, Any]],
    columns: Sequence[str],
    *,
    headers: Mapping[str, str] | None = None,
    digits: int = 3,
    bold: Mapping[str, set[int]] | None = None,
    caption: str | None = None,
    label: str | None = None,
) -> str:
    r"""A booktabs ``table`` (``\toprule``/``\midrule``/``\bottomrule``), every cell escaped.

    ``bold`` maps a column to the row indices set in ``\textbf{}``. Needs ``\usepackage{booktabs}``.

    Examples
    --------
    >>> print(to_latex([{"method": "a_1", "acc": 0.8}], ["method", "acc"]))  # doctest: +ELLIPSIS
    \begin{table}[t]
    \centering
    \begin{tabular}{lr}
    \toprule
    method & acc \\
    \midrule
    a\_1 & 0.800 \\
    \bottomrule
    \end{tabular}
    \end{table}
    """
    headers = headers or {}
    bold = bold or {}
    aligns = []
    for c in columns:
        numeric = all(
            isinstance(plain_value(r.get(c)), (int, float)) and not isinstance(r.get(c), bool)
            for r in rows
            if r.get(c) not in (None, "")
        )
        aligns.append("r" if numeric and rows else "l")
    lines = [r"\begin{table}[t]", r"\centering"]
    if caption:
        lines.append(r"\caption{" + latex_escape(caption) + "}")
    if label:
        lines.append(r"\label{" + "".join(ch for ch in label if ch.isalnum() or ch in ":-_.") + "}")
    lines += [r"\begin{tabular}{" + "".join(aligns) + "}", r"\toprule"]
    lines.append(" & ".join(latex_escape(headers.get(c, c)) for c in columns) + r" \\")
    lines.append(r"\midrule")
    for i, r in enumerate(rows):
        cells = []
        for c in columns:
            v = r.get(c, "")
            s = v if isinstance(v, LatexCell) else _fmt(v, digits)
            s = str(s)
            if i in bold.get(c, set()):
                s = r"\textbf{" + s + "}"
            cells.append(s)
        lines.append(" & ".join(cells) + r" \\")
    lines += [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines)


class LatexCell(str):
    """A cell that is already LaTeX (our own markup, e.g. ``0.812 $\\pm$ 0.010``)."""


def best_rows(values: Sequence[float | None], direction: str) -> set[int]:
    """Indices of the best finite value(s) (ties all win); empty for direction ``"info"``.

    Examples
    --------
    >>> sorted(best_rows([0.5, 0.9, 0.9, None], "higher")), sorted(best_rows([3, 1], "lower"))
    ([1, 2], [1])
    """
    if direction not in ("higher", "lower"):
        return set()
    finite = [(i, float(v)) for i, v in enumerate(values) if v is not None and math.isfinite(v)]
    if not finite:
        return set()
    target = max(v for _, v in finite) if direction == "higher" else min(v for _, v in finite)
    return {i for i, v in finite if abs(v - target) <= 1e-12 * max(1.0, abs(target))}


@dataclass(frozen=True)
class MeanStd:
    """Mean and sample standard deviation (ddof = :data:`STD_DDOF`; 0 for one run) of one metric
    of one method, over ``n`` finite values."""

    mean: float
    std: float
    n: int


def mean_std(runs: Sequence[Mapping[str, Any]], keys: Sequence[str]) -> dict[str, MeanStd]:
    """Per key, mean ± std over the runs that have a finite number for it.

    Examples
    --------
    >>> m = mean_std([{"acc": 0.8}, {"acc": 0.9}], ["acc"])["acc"]
    >>> round(m.mean, 6), round(m.std, 6), m.n
    (0.85, 0.070711, 2)
    """
    out = {}
    for k in keys:
        vals = np.array(
            [float(r[k]) for r in runs if isinstance(plain_value(r.get(k)), (int, float))],
            dtype=float,
        )
        vals = vals[np.isfinite(vals)]
        if vals.size:
            std = float(vals.std(ddof=STD_DDOF)) if vals.size > 1 else 0.0
            out[k] = MeanStd(float(vals.mean()), std, int(vals.size))
    return out


def mean_std_table(
    results: Mapping[str, Sequence[Mapping[str, Any]]],
    keys: Sequence[str],
    *,
    directions: Mapping[str, str] | None = None,
    headers: Mapping[str, str] | None = None,
    digits: int = 3,
    caption: str | None = None,
    label: str | None = None,
) -> tuple[str, list[dict[str, Any]]]:
    r"""LaTeX booktabs of mean ± std per method (rows) and metric (columns), best mean in bold.

    ``results`` maps a method name to its runs (each a metrics dict). ``directions`` says which
    side is better per key (default: ``metrics_core.METRICS``). Returns the LaTeX and the same
    numbers as rows (for CSV/JSON).

    Examples
    --------
    >>> tex, rows = mean_std_table({"A": [{"acc": 0.8}, {"acc": 0.9}], "B": [{"acc": 0.7}]},
    ...                            ["acc"])
    >>> [l for l in tex.splitlines() if "pm" in l]
    ['A & \\textbf{0.850 $\\pm$ 0.071} \\\\', 'B & 0.700 $\\pm$ 0.000 \\\\']
    """
    if directions is None:
        from metrics_core.evaluation._catalog import METRICS_BY_KEY

        directions = {k: METRICS_BY_KEY[k].direction for k in keys if k in METRICS_BY_KEY}
    names = list(results)
    stats = {name: mean_std(runs, keys) for name, runs in results.items()}
    bold = {
        k: best_rows(
            [stats[n][k].mean if k in stats[n] else None for n in names],
            directions.get(k, "info"),
        )
        for k in keys
    }
    tex_rows: list[dict[str, Any]] = []
    plain_rows: list[dict[str, Any]] = []
    for n in names:
        tr: dict[str, Any] = {"method": n}
        pr: dict[str, Any] = {"method": n, "runs": len(results[n])}
        for k in keys:
            ms = stats[n].get(k)
            if ms is None:
                tr[k] = LatexCell("--")
                pr[f"{k}_mean"] = pr[f"{k}_std"] = None
            else:
                tr[k] = LatexCell(f"{ms.mean:.{digits}f} $\\pm$ {ms.std:.{digits}f}")
                pr[f"{k}_mean"], pr[f"{k}_std"] = ms.mean, ms.std
        tex_rows.append(tr)
        plain_rows.append(pr)
    tex = to_latex(
        tex_rows,
        ["method", *keys],
        headers=headers,
        digits=digits,
        bold=bold,
        caption=caption,
        label=label,
    )
    return tex, plain_rows


def metrics_latex(
    results: Mapping[str, Mapping[str, Any]],
    keys: Sequence[str],
    *,
    headers: Mapping[str, str] | None = None,
    digits: int = 3,
    caption: str | None = None,
) -> str:
    """One row per prediction (single runs), best value per column in bold."""
    from metrics_core.evaluation._catalog import METRICS_BY_KEY

    names = list(results)
    rows = [{"method": n, **{k: results[n].get(k) for k in keys}} for n in names]
    bold = {
        k: best_rows(
            [_num(results[n].get(k)) for n in names],
            METRICS_BY_KEY[k].direction if k in METRICS_BY_KEY else "info",
        )
        for k in keys
    }
    return to_latex(
        rows, ["method", *keys], headers=headers, digits=digits, bold=bold, caption=caption
    )


def _num(v: Any) -> float | None:
    v = plain_value(v)
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else None


def braces_balanced(tex: str) -> bool:
    r"""True when every unescaped ``{`` has its ``}`` (``\{``/``\}`` are literal braces).

    Examples
    --------
    >>> braces_balanced(r"\textbf{a\{b}"), braces_balanced(r"\textbf{a")
    (True, False)
    """
    depth = 0
    i = 0
    while i < len(tex):
        ch = tex[i]
        if ch == "\\":
            i += 2
            continue
        if ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth < 0:
                return False
        i += 1
    return depth == 0
