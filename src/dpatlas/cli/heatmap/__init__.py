"""``dpatlas heatmap``: one private heatmap of sites, written to every product asked for.

``--out`` may be repeated (``--out map.gpkg --out map.tif --out map.png --out map.html``): the
map is released once, debited once, and every file is post-processing of that one release.
Everything that needs no data is checked first (outputs, options, the public grid), then the
ledger, and only then are the sites read.
"""

from dpatlas.cli.heatmap.command import add_parser, read_points, run
from dpatlas.cli.heatmap.options import (
    DEFAULT_METHOD,
    DEFAULT_TARGET,
    KEYWORDS,
    METHOD_NAMES,
    OUT_SUFFIXES,
    SCALE_NAMES,
    TARGET_NAMES,
    add_product_options,
)
from dpatlas.cli.heatmap.outputs import (
    check_outputs,
    context_layers,
    interval_lines,
    write_products,
)

__all__ = [
    "DEFAULT_METHOD",
    "DEFAULT_TARGET",
    "KEYWORDS",
    "METHOD_NAMES",
    "OUT_SUFFIXES",
    "SCALE_NAMES",
    "TARGET_NAMES",
    "add_parser",
    "add_product_options",
    "check_outputs",
    "context_layers",
    "interval_lines",
    "read_points",
    "run",
    "write_products",
]
