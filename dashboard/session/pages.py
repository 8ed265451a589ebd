"""Typed per-page session state of the Explore and Teach pages (Sweep, Multi-view, Learn).

One dataclass per page, held as a field of :class:`dashboard.session.state.AppState`, so a
page never keeps its own raw ``st.session_state`` keys or an untyped dict.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SweepState:
    """What the Sweep page keeps between reruns."""


@dataclass
class MultiviewState:
    """What the Multi-view page keeps between reruns."""


@dataclass
class LearnState:
    """What the Learn page keeps between reruns."""
