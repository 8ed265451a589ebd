"""What went wrong, from the contingency table alone: splits, merges and plain misassignments.

Definitions (every threshold is a named field of :class:`Thresholds`):

- the **home** of a class is the cluster holding most of its points; the **owner** of a cluster
  is the class making up most of it (ties: the first in label order, and the finding says so);
- a class is **split** when two or more clusters each hold at least ``min_share`` of the class
  *and are owned by it*: the class was cut into pieces that are clusters of their own;
- a cluster is a **merge** when it is the home of two or more classes each making up at least
  ``min_share`` of it: several whole classes were put together;
- every other point outside its class's home is **misassigned**: it sits in a cluster owned by
  another class, which is neither a piece of its own class nor a merge of the two (with the same
  number of classes and clusters, points swapped between clusters are exactly this — not an
  over- plus an under-segmentation).

The points a finding costs: a split, the class's points in its pieces other than the home; a
merge, the points of every merged class but the largest; a misassignment, its points. Findings
are ranked by that cost, largest first.

The pairs a finding costs (``evidence["pairs"]``, how the pair-counting scores see it): a split,
the same-class pairs it pulls apart (false negatives between its pieces); a merge, the
different-class pairs it puts together (false positives between its classes); a misassignment,
the pairs its points lose with their class's home part (false negatives) and form with the
owners of the clusters they sit in (false positives). A part of size n weighs ~n² pairs, so a
merge of two large classes can outweigh a split costing more points.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from metrics_core.partition._contingency import Contingency


@dataclass(frozen=True)
class Thresholds:
    """Every threshold the diagnosis uses, with its default (shown next to each finding).

    Attributes
    ----------
    min_share : float
        A cluster is a piece of a split class, or a class part of a merge, when it holds at
        least this share of the class (split) or of the cluster (merge).
    weak_conn : float
        A class whose λ2 (CONN of its affinity subgraph) is below this is "held together by
        weak links": a split along its weakest cut is already in C.
    leak_share : float
        Two merged classes "leak" when at least this share of their coefficient mass lies on
        each other.
    coincide : float
        The predicted pieces of a split class "coincide" with the cut of its affinity subgraph
        when they agree on at least this share of the class's points.
    off_class : float
        Misassigned points are explained by C when their mean SRE (share of ℓ1 mass off their
        class) is at least this.
    """

    min_share: float = 0.1
    weak_conn: float = 0.05
    leak_share: float = 0.05
    coincide: float = 0.9
    off_class: float = 0.5

    def as_dict(self) -> dict[str, float]:
        return dict(self.__dict__)


@dataclass
class Finding:
    """One thing that went wrong, with its numbers.

    ``kind``: ``"split"``, ``"merge"`` or ``"misassignment"``; ``classes`` and ``clusters``:
    original label values; ``points``: how many points it costs; ``cause``:
    ``"representation"`` (C already shows it), ``"clustering"`` (C is clean there) or
    ``"unknown"`` (no C); ``evidence``: the numbers; ``text``: one line saying it;
    ``link``: the page (and class or cluster) that shows it.
    """

    kind: str
    classes: list[Any]
    clusters: list[Any]
    points: int
    cause: str = "unknown"
    evidence: dict[str, Any] = field(default_factory=dict)
    text: str = ""
    link: dict[str, Any] = field(default_factory=dict)

    def as_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "classes": [_plain(c) for c in self.classes],
            "clusters": [_plain(c) for c in self.clusters],
            "points": int(self.points),
            "cause": self.cause,
            "evidence": self.evidence,
            "text": self.text,
            "link": self.link,
        }


def _plain(v: Any) -> Any:
    return v.item() if hasattr(v, "item") else (v if isinstance(v, (int, str)) else str(v))


def _pairs_between(counts: list[Any]) -> int:
    """Unordered pairs with their two points in different parts of sizes ``counts``."""
    c = [int(x) for x in counts]
    return (sum(c) ** 2 - sum(x * x for x in c)) // 2


def _pct(x: float) -> str:
    return f"{100 * x:.0f}%"


def partition_findings(c: Contingency, th: Thresholds) -> list[Finding]:
    """Splits, merges and misassignments of one table (no cause yet), most costly first."""
    t = c.dense().astype(np.int64)
    classes, clusters = [_plain(x) for x in c.classes], [_plain(x) for x in c.clusters]
    a, b = t.sum(axis=1), t.sum(axis=0)
    home = np.argmax(t, axis=1)  # ties: first cluster in label order
    owner = np.argmax(t, axis=0)
    explained = np.zeros_like(t, dtype=bool)  # cells a split or a merge accounts for
    findings: list[Finding] = []
    for i in range(t.shape[0]):
        pieces = [j for j in np.flatnonzero(t[i] >= th.min_share * a[i]) if owner[j] == i]
        if len(pieces) < 2:
            continue
        pieces.sort(key=lambda j: -t[i, j])
        cost = int(sum(t[i, j] for j in pieces if j != home[i]))
        explained[i, pieces] = True
        shares = {clusters[j]: float(t[i, j] / a[i]) for j in pieces}
        tie = len({int(t[i, j]) for j in pieces[:2]}) == 1
        findings.append(
            Finding(
                "split",
                [classes[i]],
                [clusters[j] for j in pieces],
                cost,
                evidence={
                    "class_size": int(a[i]),
                    "pairs": {"false_negative": _pairs_between([t[i, j] for j in pieces])},
                    "cluster_counts": {str(clusters[j]): int(t[i, j]) for j in pieces},
                    "cluster_shares": {str(k): round(v, 4) for k, v in shares.items()},
                    "equal_largest_pieces": bool(tie),
                },
                text=(
                    f"class {classes[i]} ({a[i]:,} points) is split over "
                    f"{len(pieces)} clusters: "
                    + ", ".join(
                        f"cluster {clusters[j]}: {t[i, j]:,} ({_pct(t[i, j] / a[i])})"
                        for j in pieces
                    )
                    + (" — two pieces of equal size" if tie else "")
                ),
                link={"page": "contingency", "class": _plain(classes[i])},
            )
        )
    for j in range(t.shape[1]):
        members = [i for i in np.flatnonzero(t[:, j] >= th.min_share * b[j]) if home[i] == j]
        if len(members) < 2:
            continue
        members.sort(key=lambda i: -t[i, j])
        cost = int(sum(t[i, j] for i in members[1:]))
        explained[members, j] = True
        tie = len({int(t[i, j]) for i in members[:2]}) == 1
        findings.append(
            Finding(
                "merge",
                [classes[i] for i in members],
                [clusters[j]],
                cost,
                evidence={
                    "cluster_size": int(b[j]),
                    "pairs": {"false_positive": _pairs_between([t[i, j] for i in members])},
                    "class_counts": {str(classes[i]): int(t[i, j]) for i in members},
                    "class_shares": {
                        str(classes[i]): round(float(t[i, j] / b[j]), 4) for i in members
                    },
                    "equal_largest_classes": bool(tie),
                },
                text=(
                    f"cluster {clusters[j]} ({b[j]:,} points) merges "
                    + ", ".join(
                        f"class {classes[i]}: {t[i, j]:,} ({_pct(t[i, j] / b[j])})" for i in members
                    )
                    + (" — in equal parts" if tie else "")
                ),
                link={"page": "contingency", "cluster": _plain(clusters[j])},
            )
        )
    for i in range(t.shape[0]):
        dest = [j for j in np.flatnonzero(t[i] > 0) if j != home[i] and not explained[i, j]]
        n = int(sum(t[i, j] for j in dest))
        if n == 0:
            continue
        dest.sort(key=lambda j: -t[i, j])
        findings.append(
            Finding(
                "misassignment",
                [classes[i]],
                [clusters[j] for j in dest],
                n,
                evidence={
                    "class_size": int(a[i]),
                    "pairs": {
                        # the moved points with their own class's home part, and with the
                        # owners of the clusters they sit in
                        "false_negative": int(sum(int(t[i, j]) * int(t[i, home[i]]) for j in dest)),
                        "false_positive": int(
                            sum(int(t[i, j]) * int(t[owner[j], j]) for j in dest)
                        ),
                    },
                    "home_cluster": _plain(clusters[home[i]]),
                    "cluster_counts": {str(clusters[j]): int(t[i, j]) for j in dest},
                    "owners": {str(clusters[j]): _plain(classes[owner[j]]) for j in dest},
                },
                text=(
                    f"{n:,} point{'s' if n != 1 else ''} of class {classes[i]} "
                    f"{'sit' if n != 1 else 'sits'} in "
                    + (
                        "clusters of other classes: "
                        if len(dest) > 1
                        else "another class's cluster: "
                    )
                    + ", ".join(
                        f"{t[i, j]:,} in cluster {clusters[j]} (class {classes[owner[j]]}'s)"
                        for j in dest
                    )
                ),
                link={"page": "contingency", "class": _plain(classes[i])},
            )
        )
    findings.sort(key=lambda f: -f.points)
    return findings
