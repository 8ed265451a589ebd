"""``python -m dashboard.launch run APP [streamlit options]``: Streamlit's own command line, with
the first page's imports done while the browser loads (:mod:`dashboard.ui.warmup`).

``clustlens dashboard`` starts its server with this. Importing this module does nothing: the
upload worker's forkserver re-imports the server's ``__main__`` module, and it must stay cheap.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``streamlit`` with ``argv`` (default: this process's arguments); exits the process."""
    from streamlit.web import cli as streamlit_cli

    from dashboard.ui import chart_element, warmup

    chart_element.prepare()
    warmup.start()
    streamlit_cli.main(args=list(sys.argv[1:] if argv is None else argv), prog_name="streamlit")


if __name__ == "__main__":
    main()
