"""``python -m dpatlas``: the same as the ``dpatlas`` console script."""

import sys

from dpatlas.cli import main

sys.exit(main())
