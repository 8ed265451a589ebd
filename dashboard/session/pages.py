"""Typed per-page session state of the Explore and Teach pages (Sweep, Multi-view, Learn).

One dataclass per page, held as a field of :class:`dashboard.session.state.AppState`, so a
page never keeps its own raw ``st.session_state`` keys or an untyped dict.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class SweepState:
    """What the Sweep page keeps between reruns.

    ``run``: the sweep being shown (data source, model, grid, rows finished so far, the
    orientation of its C); ``message``: (level, text) to show once after opening a setting.
    """

    run: dict[str, Any] | None = None
    upload: tuple[tuple[str, str], Any] | None = None  # ((X, labels) SHA-256, SweepData) parsed
    message: tuple[str, str] | None = None
    last_pick: tuple[str, int] | None = None  # (sweep's box key, setting) last clicked
    # what "Run sweep" runs, as the "Data and model" form last set it (None: the box closed)
    ready: dict[str, Any] | None = None


@dataclass
class MultiviewState:
    """What the Multi-view page keeps between reruns.

    ``config``: the data source, its arguments and the SSF parameters last applied;
    ``protocol``: the settings of the method comparison last requested (runs, kNN grid);
    ``job``: the comparison computing for it (a :class:`dashboard.compute.background.Job`).
    """

    config: dict[str, Any] | None = None
    protocol: dict[str, Any] | None = None
    result: tuple[str, Any] | None = None  # (what it was run on, the comparison) last computed
    job: Any = None  # the comparison being computed, on a thread of its own
    data: Any = None  # the uploaded views (MVData) in use, parsed once


@dataclass
class LearnState:
    """What the Learn page keeps between reruns.

    ``table``: the contingency table being taught (from a scenario, the editor or the points);
    ``scenario``: the scenario it came from (``None`` once edited); ``table_version`` and
    ``points_version`` renew the editor and the scatter widgets when the table or the points are
    replaced; ``points``: the cluster of each point of the Move-points tab; ``report_html``: the
    report prepared for download.
    """

    table: Any = None
    scenario: str | None = None
    table_version: int = 0
    points: Any = None
    points_version: int = 0
    report_html: str | None = None


@dataclass
class PointsState:
    """What the Points page keeps between reruns.

    ``image_shape``: (height, width) of one row of X drawn as an image, or ``None`` when the
    rows of X are not images; ``selection``: the point indices last selected on the plot.
    """

    image_shape: tuple[int, int] | None = None
    selection: Any = None
