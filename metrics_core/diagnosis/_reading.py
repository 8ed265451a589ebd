"""One reading of a prediction's errors, shared by every surface (CLI, Summary, Contingency,
Pair confusion, the report): a verdict built from the findings, in points, and what the
pair-counting scores make of the same findings, in pairs.

Two readings that count differently can disagree (one merge of two large classes puts more
pairs together than a split of a small class pulls apart, even when the split costs more
points); so the verdict is said once, in points, and the pair view is explained from it instead
of being a second verdict.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

#: how each ``cause`` of a finding is said, everywhere
CAUSE_WORDS = {
    "representation": "already in C",
    "clustering": "the clustering step",
    "unknown": "no C to trace it",
}


def _get(f: Any, key: str) -> Any:
    return f[key] if isinstance(f, Mapping) else getattr(f, key)


def _plural(n: int, word: str, words: str | None = None) -> str:
    return f"{n:,} {word if n == 1 else (words or word + 's')}"


def _totals(findings: Iterable[Any]) -> dict[str, dict[str, int]]:
    out = {
        k: {"findings": 0, "points": 0, "classes": 0, "fn_pairs": 0, "fp_pairs": 0}
        for k in ("split", "merge", "misassignment")
    }
    for f in findings:
        t = out[_get(f, "kind")]
        t["findings"] += 1
        t["points"] += int(_get(f, "points"))
        t["classes"] += len(_get(f, "classes"))
        pairs = _get(f, "evidence").get("pairs", {})
        t["fn_pairs"] += int(pairs.get("false_negative", 0))
        t["fp_pairs"] += int(pairs.get("false_positive", 0))
    return out


def verdict(findings: Iterable[Any]) -> str:
    """The prediction's errors in one sentence, from its findings (``Finding`` or dicts).

    Kinds are named by the points they cost, most costly first.

    Examples
    --------
    >>> from metrics_core.diagnosis import diagnose
    >>> v = verdict(diagnose([0] * 4 + [1] * 4 + [2] * 4, [0, 0, 1, 1] + [2] * 8))
    >>> for part in v.split(": "):
    ...     print(part)
    Over- and under-segmentation
    it merges 2 classes into 1 cluster (4 points) and splits 1 class (2 points).
    >>> verdict([])
    'No error: the prediction equals the ground truth up to renaming.'
    """
    t = _totals(findings)
    if not any(v["findings"] for v in t.values()):
        return "No error: the prediction equals the ground truth up to renaming."
    parts = []
    if t["merge"]["findings"]:
        m = t["merge"]
        parts.append(
            (
                m["points"],
                f"merges {_plural(m['classes'], 'class', 'classes')} into "
                f"{_plural(m['findings'], 'cluster')} ({_plural(m['points'], 'point')})",
            )
        )
    if t["split"]["findings"]:
        s = t["split"]
        parts.append(
            (
                s["points"],
                f"splits {_plural(s['findings'], 'class', 'classes')} "
                f"({_plural(s['points'], 'point')})",
            )
        )
    if t["misassignment"]["findings"]:
        parts.append(
            (
                t["misassignment"]["points"],
                f"misassigns {_plural(t['misassignment']['points'], 'point')}",
            )
        )
    parts.sort(key=lambda p: -p[0])
    words = [p[1] for p in parts]
    said = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
    kind = {
        (True, True): "Over- and under-segmentation",
        (True, False): "Over-segmentation",
        (False, True): "Under-segmentation",
        (False, False): "Misassignment only (no class split, no classes merged)",
    }[(t["split"]["findings"] > 0, t["merge"]["findings"] > 0)]
    return f"{kind}: it {said}."


def pair_view(findings: Iterable[Any], pair_fp: int, pair_fn: int) -> list[str]:
    """What the pair-counting scores make of the findings: the pairs each kind costs, and —
    when pairs rank the kinds differently from points — why.

    ``pair_fp`` / ``pair_fn``: the prediction's false-positive / false-negative pairs.

    Examples
    --------
    >>> from metrics_core.diagnosis import diagnose
    >>> f = diagnose([0] * 4 + [1] * 4 + [2] * 4, [0, 0, 1, 1] + [2] * 8)
    >>> for part in pair_view(f, 16, 4)[0].split("; "):
    ...     print(part)
    The merges put 16 pairs of different classes together (16 of 16 false positives)
    the splits pull 4 same-class pairs apart (4 of 4 false negatives).
    """
    findings = list(findings)
    t = _totals(findings)
    fp_total, fn_total = int(pair_fp), int(pair_fn)
    lines = []
    said = []
    if t["merge"]["findings"]:
        said.append(
            f"the merges put {_plural(t['merge']['fp_pairs'], 'pair')} of different "
            f"classes together ({t['merge']['fp_pairs']:,} of {fp_total:,} false "
            "positives)"
        )
    if t["split"]["findings"]:
        said.append(
            f"the splits pull {_plural(t['split']['fn_pairs'], 'same-class pair')} "
            f"apart ({t['split']['fn_pairs']:,} of {fn_total:,} false negatives)"
        )
    if t["misassignment"]["findings"]:
        mis = t["misassignment"]
        said.append(
            f"the misassigned points cost {mis['fp_pairs']:,} false-positive and "
            f"{mis['fn_pairs']:,} false-negative pairs"
        )
    if not said:
        return ["No pair is misplaced."]
    lines.append("; ".join(said)[0].upper() + "; ".join(said)[1:] + ".")
    rest_fp = fp_total - sum(v["fp_pairs"] for v in t.values())
    rest_fn = fn_total - sum(v["fn_pairs"] for v in t.values())
    if rest_fp > 0 or rest_fn > 0:
        lines.append(
            f"The remaining {rest_fp:,} false-positive and {rest_fn:,} false-negative pairs join "
            "two points that each belong to a finding above (e.g. points of one class "
            "misassigned to two different clusters)."
        )
    split_pts, merge_pts = t["split"]["points"], t["merge"]["points"]
    split_pairs, merge_pairs = t["split"]["fn_pairs"], t["merge"]["fp_pairs"]
    if split_pts and merge_pts and (split_pts > merge_pts) != (split_pairs > merge_pairs):
        more_pts, more_pairs = (
            ("splits", "merges") if split_pts > merge_pts else ("merges", "splits")
        )
        lines.append(
            f"Pairs rank them the other way round: the {more_pts} cost more points "
            f"({max(split_pts, merge_pts):,} against {min(split_pts, merge_pts):,}), the "
            f"{more_pairs} more pairs ({max(split_pairs, merge_pairs):,} against "
            f"{min(split_pairs, merge_pairs):,}), because a part of n points weighs about n² "
            "pairs. The pair scores (Rand, pair precision and recall) follow the pairs."
        )
    return lines
