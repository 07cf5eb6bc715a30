"""``dpatlas edges | degrees | kstars | clustering | triangles``: edge-DP statistics of an edge list.

The five commands share one engine: the same input options (an edge list, the public node set
as ``--nodes N`` or ``--node-list FILE``), the same budget options, the same checks before
anything is spent, and the same report. A :class:`Statistic` row says what differs: the API
function, its methods, which methods take ``--delta`` or can buy an interval, and the
command's own options (``--k``, ``--max-degree``, ``--triangle-share``).
"""

from dpatlas.cli.graph.commands import add_parsers, public_nodes, read_node_list, run
from dpatlas.cli.graph.report import interval_words, release_interval, report, shown_value
from dpatlas.cli.graph.statistics import (
    COUNT_METHODS,
    DEGREE_METHODS,
    KEYWORDS,
    KSTAR_METHODS,
    STATISTICS,
    Statistic,
)

__all__ = [
    "COUNT_METHODS",
    "DEGREE_METHODS",
    "KEYWORDS",
    "KSTAR_METHODS",
    "STATISTICS",
    "Statistic",
    "add_parsers",
    "interval_words",
    "public_nodes",
    "read_node_list",
    "release_interval",
    "report",
    "run",
    "shown_value",
]
