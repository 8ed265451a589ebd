"""Shares written as people read them (the figures and the words of the pages use the same)."""

from __future__ import annotations


def pct(share: float) -> str:
    """A share as a percentage that never rounds a real leak to "0%".

    Exact zero prints as "0", shares under 0.1% as "<0.1%", the rest with one decimal.

    Examples
    --------
    >>> [pct(x) for x in (0.0, 0.0004, 0.015, 0.2, 1.0)]
    ['0', '<0.1%', '1.5%', '20.0%', '100%']
    """
    if not share > 0:
        return "0"
    if share >= 1:
        return "100%"
    if share < 0.001:
        return "<0.1%"
    return f"{min(share, 0.999):.1%}"
