"""``python -m dpatlas.cli``: the same as the ``dpatlas`` console script."""

import sys

from dpatlas.cli import main

sys.exit(main())
