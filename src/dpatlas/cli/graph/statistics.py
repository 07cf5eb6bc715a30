"""The table of graph commands: one :class:`Statistic` row per command, with its API function,
its methods, which methods take ``--delta`` or can buy an interval, and its own options."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

COUNT_METHODS = ("piecewise", "ladder", "smooth", "global")
"""Methods of triangle and clustering releases (a test checks the API's list)."""
KSTAR_METHODS = ("ladder", "piecewise", "smooth", "global")
"""Methods of k-star releases, the API's default (ladder: piecewise needs k = 2) first."""
DEGREE_METHODS = ("sorted", "direct")
"""Methods of degree histograms (a test checks the API's list)."""

KEYWORDS = {
    "n": "--nodes",
    "nodes": "--node-list",
    "epsilon": "--epsilon",
    "delta": "--delta",
    "method": "--method",
    "interval_epsilon": "--interval-epsilon",
    "k": "--k",
    "max_degree": "--max-degree",
    "triangle_share": "--triangle-share",
}
"""The API's keywords and the flags that set them (for error messages in the shell's words)."""


@dataclass(frozen=True)
class Option:
    """A command's own option: its flag, the API keyword it sets, argparse settings, and the
    methods that use it (empty: all)."""

    flag: str
    keyword: str
    settings: Mapping[str, Any]
    methods: tuple[str, ...] = ()


@dataclass(frozen=True)
class Statistic:
    """What one graph command releases, and with which options.

    ``bytes_per_node`` is the command's peak memory per public node (``--nodes``), read,
    release and report, on a graph with almost no edges (measured with tracemalloc at
    ``--nodes 1000000`` over every method, rounded up); ``json_bytes_per_node`` is added
    with ``--json`` when the result lists one value per node.
    """

    name: str
    function: str
    what: str
    help: str
    bytes_per_node: int
    methods: tuple[str, ...] = ()
    delta_methods: tuple[str, ...] = ()
    interval_methods: tuple[str, ...] = ()
    count: bool = True
    noun: str = "count"
    options: tuple[Option, ...] = field(default=())
    notes: str = ""
    json_bytes_per_node: int = 0


_COUNTING: dict[str, Any] = {
    "methods": COUNT_METHODS,
    "delta_methods": ("smooth",),
    "interval_methods": ("piecewise", "ladder", "smooth"),
}
"""What the triangle, k-star and clustering commands share: methods, δ, bought intervals."""

_ROWS = (
    Statistic(
        "edges",
        "edge_count",
        "edge count",
        "edge-DP edge count (discrete Laplace, sensitivity 1)",
        bytes_per_node=32,  # measured 29: the graph alone
        notes="The noise scale 1/ε is public: the 95% interval is free.",
    ),
    Statistic(
        "degrees",
        "degree_histogram",
        "degree histogram",
        "edge-DP degree histogram (bins 0 .. --max-degree)",
        bytes_per_node=200,  # measured 178 (sorted) and 190 (direct)
        json_bytes_per_node=450,  # measured 592 in all: the noisy degrees and their intervals
        methods=DEGREE_METHODS,
        count=False,
        options=(
            Option(
                "--max-degree",
                "max_degree",
                {
                    "type": int,
                    "metavar": "D",
                    "help": "public top bin (default: nodes - 1, nothing clipped)",
                },
            ),
        ),
        notes="Methods: sorted (noisy sorted degrees + isotonic fit, the default), direct "
        "(noisy bins).\nThe histogram is post-processed to sum to the node count; it has no "
        "per-bin interval.",
    ),
    Statistic(
        "kstars",
        "kstar_count",
        "k-star count",
        "edge-DP k-star count (k = 2: wedges)",
        bytes_per_node=200,  # measured 182
        methods=KSTAR_METHODS,
        delta_methods=_COUNTING["delta_methods"],
        interval_methods=_COUNTING["interval_methods"],
        options=(
            Option(
                "--k",
                "k",
                {"type": int, "required": True, "metavar": "K", "help": "star size >= 2"},
            ),
        ),
    ),
    Statistic(
        "clustering",
        "clustering_coefficient",
        "global clustering coefficient",
        "edge-DP global clustering coefficient (3 x triangles / wedges)",
        bytes_per_node=224,  # measured 205
        **_COUNTING,
        count=False,
        noun="coefficient",
        options=(
            Option(
                "--triangle-share",
                "triangle_share",
                {
                    "type": float,
                    "default": 0.5,
                    "metavar": "F",
                    "help": "share of --epsilon spent on the triangles (default 0.5)",
                },
            ),
        ),
    ),
    Statistic(
        "triangles",
        "triangle_count",
        "triangle count",
        "edge-DP triangle count of a graph",
        bytes_per_node=200,  # measured 181
        **_COUNTING,
        options=(
            Option(
                "--relaxed",
                "relaxed",
                {
                    "action": "store_true",
                    "help": "the cheaper ladder U(t) >= LS(t): private too, a little wider",
                },
                methods=("piecewise", "ladder", "smooth"),
            ),
        ),
    ),
)
STATISTICS = {stat.name: stat for stat in _ROWS}
"""The graph commands by name, in the order ``dpatlas --help`` lists them."""
