"""``python -m dashboard.cli``: the same as the ``clustlens`` console script."""

import sys

from dashboard.cli import main

sys.exit(main())
