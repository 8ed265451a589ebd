"""``python -m dashboard.launch run APP [streamlit options]``: Streamlit's own command line, with
the first page's imports done while the browser loads (:mod:`dashboard.ui.warmup`).

``clustlens dashboard`` starts its server with this. Importing this module does nothing: the
upload worker's forkserver re-imports the server's ``__main__`` module, and it must stay cheap.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def no_config_file_polling() -> bool:
    """Stop Streamlit from polling its config files; False if this Streamlit has no such step.

    Streamlit (1.67) looks at every ``config.toml`` it could read (the user's and the working
    directory's) every 0.2 s, from pool threads, whatever ``server.fileWatcherType`` says, to
    reload its options when one changes. ``clustlens dashboard`` gives every option that
    matters as a flag (:func:`dashboard.cli._serve.command`), so all that is lost is a
    config file edited while the server runs being read before the next start. Each look took
    the interpreter lock from the page being computed: ~230 of the ~1,250 wake-ups of the
    server's other threads during the demo's "Run comparison" (:mod:`dashboard.session.scripts`).
    """
    from streamlit.web import bootstrap

    if not callable(getattr(bootstrap, "_install_config_watchers", None)):
        return False
    bootstrap._install_config_watchers = _no_config_watchers
    return True


def _no_config_watchers(_flag_options: object) -> None:
    """Stands for Streamlit's ``_install_config_watchers``: installs none."""


def main(argv: Sequence[str] | None = None) -> None:
    """Run ``streamlit`` with ``argv`` (default: this process's arguments); exits the process."""
    from streamlit.web import cli as streamlit_cli

    from dashboard.ui import chart_element, warmup

    chart_element.prepare()
    no_config_file_polling()
    warmup.start()
    streamlit_cli.main(args=list(sys.argv[1:] if argv is None else argv), prog_name="streamlit")


if __name__ == "__main__":
    main()
