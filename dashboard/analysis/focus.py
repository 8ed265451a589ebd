"""What a finding opened a page on: a class (or several) and/or a cluster.

A finding's links carry its classes and clusters as label text in the URL (``?class=1`` /
``?cluster=3``, repeated for several); every page reads them into one :class:`Focus`, outlines
those rows, columns, blocks or bars in its figures and says so in words.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from dashboard.analysis.shares import pct


@dataclass(frozen=True)
class Focus:
    """Classes and clusters to outline, by label text (as the figures name them)."""

    classes: tuple[str, ...] = ()
    clusters: tuple[str, ...] = ()

    @classmethod
    def of(cls, classes: Iterable[Any] = (), clusters: Iterable[Any] = ()) -> Focus:
        return cls(
            tuple(dict.fromkeys(map(str, classes))), tuple(dict.fromkeys(map(str, clusters)))
        )

    def __bool__(self) -> bool:
        return bool(self.classes or self.clusters)

    @staticmethod
    def positions(wanted: Sequence[str], names: Sequence[Any]) -> list[int]:
        """Positions in ``names`` (compared as text) of the ``wanted`` labels; unknown ones are
        left out (a stale link must not outline a wrong row)."""
        text = [str(n) for n in names]
        return [text.index(w) for w in wanted if w in text]

    def class_positions(self, names: Sequence[Any]) -> list[int]:
        return self.positions(self.classes, names)

    def cluster_positions(self, names: Sequence[Any]) -> list[int]:
        return self.positions(self.clusters, names)

    def describe(self) -> str:
        """``"class 1"``, ``"classes 4 and 5"``, ``"cluster 3"``, ``"class 1 and cluster 3"``."""
        parts = []
        for word, items in (("class", self.classes), ("cluster", self.clusters)):
            if items:
                plural = "es" if word == "class" else "s"
                head = word + (plural if len(items) > 1 else "")
                body = items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]
                parts.append(f"{head} {body}")
        return " and ".join(parts)

    def query(self) -> dict[str, list[str]]:
        """The URL query parameters that open a page on this focus."""
        q = {}
        if self.classes:
            q["class"] = list(self.classes)
        if self.clusters:
            q["cluster"] = list(self.clusters)
        return q


def where_it_goes(
    table: np.ndarray, rows: Sequence[Any], cols: Sequence[Any], focus: Focus, *, top: int = 4
) -> list[str]:
    """In words, for each focused class where its points go and for each focused cluster which
    classes it holds (counts and shares, largest first, at most ``top`` each)."""
    t = np.asarray(table, dtype=np.int64)
    out = []

    def spread(counts: np.ndarray, names: Sequence[Any], word: str) -> str:
        total = int(counts.sum())
        order = [int(j) for j in np.argsort(-counts, kind="stable") if counts[j] > 0]
        parts = [f"{word} {names[j]} {counts[j]:,} ({counts[j] / total:.0%})" for j in order[:top]]
        if len(order) > top:
            rest = int(counts[order[top:]].sum())
            parts.append(f"{len(order) - top} more {word}s {rest:,}")
        return ", ".join(parts)

    for i in focus.class_positions(rows):
        row = t[i]
        out.append(f"class {rows[i]}: {int(row.sum()):,} points → " + spread(row, cols, "cluster"))
    for j in focus.cluster_positions(cols):
        col = t[:, j]
        out.append(f"cluster {cols[j]}: {int(col.sum()):,} points ← " + spread(col, rows, "class"))
    return out


def affinity_reading(aa: Any, focus: Focus, *, weak_conn: float, top: int = 2) -> list[str]:
    """In words, for each focused class (of an
    :class:`~dashboard.analysis.objects.AffinityAnalysis`): its λ₂ against the weak-CONN
    threshold, its SRE, the share of its |C| mass kept inside and where the rest leaks."""
    out = []
    conn_names = [str(c) for c in aa.conn_classes]
    sre_names = [str(c) for c in aa.sre_classes]
    leak_names = [str(c) for c in aa.leakage_classes]
    m = np.asarray(aa.leakage, dtype=np.float64)
    for c in focus.classes:
        parts = []
        if c in conn_names:
            lam = float(aa.conn_per_class[conn_names.index(c)])
            weak = lam < weak_conn
            parts.append(
                f"CONN λ₂ {lam:.3g} ("
                + ("below" if weak else "at or above")
                + f" the weak-CONN threshold {weak_conn:g}"
                + (": held together by weak links or not at all)" if weak else ")")
            )
        elif c in {str(s) for s in aa.conn_skipped}:
            parts.append("no CONN (a one-point class)")
        if c in sre_names:
            parts.append(f"SRE {float(aa.sre_per_class[sre_names.index(c)]):.3f}")
        if c in leak_names:
            i = leak_names.index(c)
            row = m[i]
            total = float(row.sum())
            if total > 0:
                parts.append(f"keeps {pct(row[i] / total)} of its |C| mass inside")
                others = [j for j in np.argsort(-row, kind="stable") if j != i and row[j] > 0]
                leaks = [f"{pct(row[j] / total)} onto class {leak_names[j]}" for j in others[:top]]
                if leaks:
                    parts.append("leaks " + ", ".join(leaks))
            else:
                parts.append("no |C| mass at all")
        if parts:
            out.append(f"class {c}: " + "; ".join(parts))
    return out


def involves(finding: dict[str, Any], focus: Focus) -> bool:
    """Whether a finding (a :func:`metrics_core.diagnosis.diagnose` dict) is about a class or
    cluster of ``focus``."""
    classes = {str(c) for c in finding.get("classes", ())}
    clusters = {str(k) for k in finding.get("clusters", ())}
    return bool(classes & set(focus.classes) or clusters & set(focus.clusters))
