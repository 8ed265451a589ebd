"""What the tab strips of a page (``dashboard/ui/tab_strip.py``) show, read from an AppTest."""

from __future__ import annotations

import json
from typing import Any

from dashboard.ui import tab_strip


def tab_strips(at: Any) -> list[dict[str, Any]]:
    """The data of every tab strip ``at`` shows: ``labels``, ``open`` and ``name``."""
    return [
        json.loads(e.proto.json)
        for e in at.get("bidi_component")
        if e.proto.component_name.endswith(tab_strip.COMPONENT)
    ]
