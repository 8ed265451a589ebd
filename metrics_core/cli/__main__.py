"""``python -m metrics_core.cli``: the library's commands without the dashboard."""

import sys

from metrics_core.cli import main

sys.exit(main())
