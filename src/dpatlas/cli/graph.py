"""``dpatlas edges | degrees | kstars | clustering | triangles``: edge-DP statistics of an edge list.

The five commands share one engine: the same input options (an edge list, the public node set
as ``--nodes N`` or ``--node-list FILE``), the same budget options, the same checks before
anything is spent, and the same report. A :class:`Statistic` row says what differs: the API
function, its methods, which methods take ``--delta`` or can buy an interval, and the
command's own options (``--k``, ``--max-degree``, ``--triangle-share``).
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from dpatlas.cli._common import (
    Output,
    UsageError,
    add_command,
    budget_summary,
    positive_float,
    release_budget,
)
from dpatlas.cli.progress import Steps, show_progress
from dpatlas.core.release import Release

__all__ = [
    "COUNT_METHODS",
    "DEGREE_METHODS",
    "KSTAR_METHODS",
    "STATISTICS",
    "Statistic",
    "add_parsers",
    "interval_words",
    "release_interval",
    "report",
    "shown_value",
]

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
    """What one graph command releases, and with which options."""

    name: str
    function: str
    what: str
    help: str
    methods: tuple[str, ...] = ()
    delta_methods: tuple[str, ...] = ()
    interval_methods: tuple[str, ...] = ()
    count: bool = True
    noun: str = "count"
    options: tuple[Option, ...] = field(default=())
    notes: str = ""


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
        notes="The noise scale 1/ε is public: the 95% interval is free.",
    ),
    Statistic(
        "degrees",
        "degree_histogram",
        "degree histogram",
        "edge-DP degree histogram (bins 0 .. --max-degree)",
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

_COUNT_NOTES = (
    "Methods: piecewise (pure ε, the most accurate: piecewise-Laplace noise over the\n"
    "sensitivity ladder; the default, except for k-stars: only with --k 2), ladder (pure ε,\n"
    "Zhang et al. 2015; the k-star default), smooth (smooth sensitivity: pure ε with Cauchy\n"
    "noise, or (ε, δ) with --delta), global (Laplace at the global sensitivity). Piecewise,\n"
    "ladder and smooth noise scales depend on the graph: a 95% interval costs\n"
    "--interval-epsilon more; global releases have one for free."
)


def _epilog(stat: Statistic) -> str:
    extra = " --k 2" if stat.name == "kstars" else ""
    notes = stat.notes or _COUNT_NOTES
    return (
        "examples:\n"
        f"  dpatlas {stat.name} edges.txt.gz{extra} --nodes 36692 --epsilon 0.5\n"
        f"  dpatlas {stat.name} edges.txt{extra} --node-list nodes.txt --epsilon 1 \\\n"
        "      --ledger ledger.sqlite --dataset coauthors --json\n\n"
        "Edge-DP: two graphs on the same public node set are neighbours when they differ in one\n"
        "edge. The node set is public and required: give its size with --nodes N (every node,\n"
        "with or without an edge; ids in the file need not be 0..N-1: the distinct ids, sorted,\n"
        "become nodes 0, 1, ..., the other nodes have no edge) or list its ids with --node-list\n"
        "FILE. Without it nothing is read or spent: the nodes seen in the edge list depend on\n"
        "the data.\n" + notes + "\n"
    )


def add_parsers(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register the five graph commands."""
    for stat in STATISTICS.values():
        p = add_command(
            sub,
            stat.name,
            help=stat.help,
            description=f"Release the {stat.what} of a graph under edge-DP.",
            parents=parents,
            epilog=_epilog(stat),
        )
        p.add_argument(
            "edges", metavar="EDGES", type=Path, help="edge list (SNAP format, may be .gz)"
        )
        nodes = p.add_argument_group("public node set").add_mutually_exclusive_group()
        nodes.add_argument(
            "--nodes",
            type=int,
            metavar="N",
            help="public number of nodes, required unless --node-list (ids in the file are "
            "relabelled; nodes without an edge count too)",
        )
        nodes.add_argument(
            "--node-list",
            type=Path,
            metavar="FILE",
            help="file of the public node ids, one per line ('#' comments)",
        )
        p.add_argument(
            "--epsilon", type=positive_float, default=1.0, help="privacy loss (default 1)"
        )
        if stat.methods:
            p.add_argument(
                "--method",
                choices=stat.methods,
                default=stat.methods[0],
                help=f"mechanism (default {stat.methods[0]})",
            )
        if stat.delta_methods:
            p.add_argument(
                "--delta",
                type=float,
                default=0.0,
                help=f"δ for --method {' / '.join(stat.delta_methods)} (default 0)",
            )
        if stat.interval_methods:
            p.add_argument(
                "--interval-epsilon",
                type=positive_float,
                metavar="E",
                help="extra ε spent on a private bound on the noise size that gives "
                f"{' and '.join(stat.interval_methods)} releases a 95%% interval (global "
                "releases have one for free); what it buys: docs/intervals-graphs.md",
            )
        for option in stat.options:
            p.add_argument(option.flag, **option.settings)
        p.set_defaults(func=run, statistic=stat, keywords=KEYWORDS)


def _checked(stat: Statistic, args: argparse.Namespace) -> dict[str, Any]:
    """The API's keyword arguments, after the checks that need no data (usage errors)."""
    if args.nodes is None and args.node_list is None:
        raise UsageError(
            f"dpatlas {stat.name} needs the public number of nodes: pass --nodes N (every node "
            "of the graph, with or without an edge; ids need not be 0..N-1) or --node-list FILE. "
            "The nodes seen in the edge list depend on the data, so a release on them is not "
            "edge-DP: nothing was read or spent"
        )
    if not args.edges.is_file():
        raise UsageError(f"EDGES file not found: {args.edges}; check the path")
    method = getattr(args, "method", None)
    delta = getattr(args, "delta", 0.0)
    if delta and method not in stat.delta_methods:
        raise UsageError(
            f"--delta applies only to --method {' or '.join(stat.delta_methods)}; the {method} "
            "method is pure ε-DP: drop --delta"
        )
    if delta < 0 or delta >= 1:
        raise UsageError(f"--delta must be in [0, 1), got {delta:g}")
    extra = getattr(args, "interval_epsilon", None)
    if extra is not None and method not in stat.interval_methods:
        raise UsageError(
            f"--interval-epsilon is not needed with --method {method}: its noise scale is "
            "public, so its interval is free; drop --interval-epsilon"
        )
    if args.nodes is not None and args.nodes < 1:
        raise UsageError(f"--nodes must be a whole number >= 1, got {args.nodes}")
    kwargs: dict[str, Any] = {"epsilon": args.epsilon, "rng": args.seed}
    if stat.methods:
        kwargs["method"] = method
    if stat.delta_methods:
        kwargs["delta"] = delta
    if stat.interval_methods:
        kwargs["interval_epsilon"] = extra
    for option in stat.options:
        value = getattr(args, option.keyword)
        if option.methods and method not in option.methods and value not in (None, False):
            raise UsageError(
                f"{option.flag} applies only to --method {' or '.join(option.methods)}; "
                f"drop {option.flag}"
            )
        kwargs[option.keyword] = value
    return kwargs


def read_node_list(path: Path) -> Any:
    """The public node ids listed in ``path`` (one integer per line, ``#`` comments)."""
    import numpy as np

    if not path.is_file():
        raise UsageError(f"--node-list file not found: {path}; check the path")
    try:
        return np.loadtxt(path, dtype=np.int64, comments="#", ndmin=1)
    except ValueError as exc:
        raise UsageError(
            f"--node-list {path} must hold one integer node id per line: {exc}"
        ) from None


def release_interval(release: Release, level: float = 0.95) -> tuple[Any, Any] | None:
    """The release's own ``level`` interval raised to 0 at both ends (the statistics are never
    negative: this keeps the coverage and contains :func:`shown_value`), or None when it has
    none (private noise scale and no bought bound; post-processed). Post-processing."""
    try:
        low, high = release.confidence_interval(level)
    except ValueError:
        return None
    return max(low, 0), max(high, 0)


def shown_value(release: Release, stat: Statistic) -> Any:
    """The value the report prints: a count raised to 0 (post-processing), so it always lies
    in :func:`release_interval` (``low <= value <= high`` holds for the raw value, and raising
    all three to 0 keeps the order)."""
    if stat.count:
        return max(release.value, 0)
    return release.value


def interval_words(release: Release, noun: str = "count", level: float = 0.95) -> list[str]:
    """What the interval promises, in words a non-statistician can check against its use."""
    note = release.metadata.get("interval", {})
    times = round(100 * level)
    lines = [f"intervals made this way contain the true {noun} at least {times} times in 100"]
    if note.get("kind") == "noise and bound":
        cost = note.get("cost_epsilon", 0)
        lines.append("(allowing for all the noise in this release, including that of the private")
        lines.append(f"bound on the noise size, which cost {cost:g} of the epsilon below)")
    else:
        lines.append("(allowing for all the noise in this release; free: its noise size is public)")
    return lines


def report(release: Release, stat: Statistic, *, exact: Any = None, source: str = "") -> list[str]:
    """The text report of a release (``exact`` only for public data, such as the demo's).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpatlas.graph import triangle_count
    >>> rel = triangle_count(nx.karate_club_graph(), epsilon=1.0, method="global", rng=0)
    >>> lines = report(rel, STATISTICS["triangles"], exact=45, source="the karate club")
    >>> print("\\n".join(lines))
    Private triangle count of the karate club
      private value  ...
      95% interval   [..., ...]
                     intervals made this way contain the true count at least 95 times in 100
                     (allowing for all the noise in this release; free: its noise size is public)
      epsilon        1   delta 0
      mechanism      triangle_count/global
      node count     34 (public)
      seeded         yes: reproducible and NOT secret (teaching only)
      exact value    45   (shown only because this data is public)
    """
    lines = [f"Private {stat.what}{f' of {source}' if source else ''}"]
    value = shown_value(release, stat)
    if stat.name == "degrees":
        lines += _histogram_lines(release)
    else:
        shown = f"{value:.4g}" if isinstance(value, float) else str(value)
        if value != release.value:
            shown += f"   (noisy value {release.value} raised to 0: a count is never negative)"
        lines.append(f"  private value  {shown}")
        interval = release_interval(release)
        if interval is not None:
            low, high = (f"{v:.4g}" if isinstance(v, float) else str(v) for v in interval)
            lines.append(f"  95% interval   [{low}, {high}]")
            lines += [f"                 {line}" for line in interval_words(release, stat.noun)]
        elif stat.interval_methods:
            lines.append(
                "  95% interval   none: this mechanism's noise scale is private; buy one with "
                "--interval-epsilon E"
            )
    spent = f"  epsilon        {release.epsilon:g}   delta {release.delta:g}"
    if release.metadata.get("interval_epsilon"):
        spent += f"   (of which {release.metadata['interval_epsilon']:g} for the interval)"
    lines.append(spent)
    lines.append(f"  mechanism      {release.mechanism}")
    if release.metadata.get("n") is not None:
        lines.append(f"  node count     {release.metadata['n']} (public)")
    if release.seeded:
        lines.append("  seeded         yes: reproducible and NOT secret (teaching only)")
    if exact is not None:
        lines.append(f"  exact value    {exact}   (shown only because this data is public)")
    return lines


def _histogram_lines(release: Release, most: int = 20) -> list[str]:
    counts = [int(c) for c in release.value]
    shown = [(d, c) for d, c in enumerate(counts) if c]
    lines = [f"  degree bins    0 .. {len(counts) - 1} ({len(shown)} non-empty; all in --json)"]
    lines += [f"    degree {d:>6}  {c} nodes" for d, c in shown[:most]]
    if len(shown) > most:
        lines.append(f"    ... {len(shown) - most} more non-empty bins")
    return lines


def run(args: argparse.Namespace, out: Output) -> int:
    """Run one graph command (the row of :data:`STATISTICS` in ``args.statistic``)."""
    import dpatlas.graph as graphs

    stat: Statistic = args.statistic
    kwargs = _checked(stat, args)
    nodes = None if args.node_list is None else read_node_list(args.node_list)
    budget = release_budget(args, out)
    if budget is not None and budget.accounting == "basic":  # refuse before reading the file
        budget.check(args.epsilon + (kwargs.get("interval_epsilon") or 0.0), kwargs.get("delta", 0))
    steps = ["read edge list", f"release the {stat.what}"]
    with Steps(steps, enabled=show_progress(args.quiet), desc=stat.name) as bar:
        with bar.step(f"reading {args.edges.name}"):
            g = graphs.read_edgelist(args.edges, n=args.nodes, nodes=nodes)
        with bar.step(f"computing the {stat.what} and drawing noise"):
            release = getattr(graphs, stat.function)(g, budget=budget, **kwargs)
    interval = release_interval(release)
    out.payload.update(
        {
            "command": stat.name,
            "edges": str(args.edges),
            "value": shown_value(release, stat),
            "interval95": None if interval is None else list(interval),
            "interval": release.metadata.get("interval"),
            "release": release.to_dict(),
            "budget": None if budget is None else budget_summary(budget),
        }
    )
    for line in report(release, stat, source=args.edges.name):
        out.line(line)
    out.budget_left(args.dataset, budget)
    out.seeded(release)
    return 0
