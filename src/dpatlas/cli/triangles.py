"""``dpatlas triangles``: an edge-DP triangle count of an edge list."""

from __future__ import annotations

import argparse
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
    "METHODS",
    "add_parser",
    "interval_words",
    "release_interval",
    "shown_value",
    "triangle_report",
]

METHODS = ("piecewise", "ladder", "smooth", "global")

_EPILOG = """\
examples:
  dpatlas triangles edges.txt.gz --nodes 36692 --epsilon 0.5
  dpatlas triangles edges.txt --nodes 5242 --epsilon 1 --method smooth --delta 1e-6 \\
      --ledger ledger.sqlite --dataset coauthors --json

Edge-DP: two graphs on the same public node set are neighbours when they differ by one
edge. The node count is public and required: give it with --nodes (every node, with or
without an edge; ids in the file need not be 0..N-1). Without it nothing is read or spent:
the nodes seen in the edge list depend on the data.
Methods: piecewise (pure ε, the most accurate: piecewise-Laplace noise over the sensitivity
ladder), ladder (pure ε, Zhang et al. 2015), smooth (smooth sensitivity: pure ε with Cauchy
noise, or (ε, δ) with --delta), global (Laplace at the global sensitivity n - 2).
"""


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register ``triangles``."""
    p = add_command(
        sub,
        "triangles",
        help="edge-DP triangle count of a graph",
        description="Release the number of triangles of a graph under edge-DP.",
        parents=parents,
        epilog=_EPILOG,
    )
    p.add_argument("edges", metavar="EDGES", type=Path, help="edge list (SNAP format, may be .gz)")
    p.add_argument("--epsilon", type=positive_float, default=1.0, help="privacy loss (default 1)")
    p.add_argument(
        "--method", choices=METHODS, default="piecewise", help="mechanism (default piecewise)"
    )
    p.add_argument("--delta", type=float, default=0.0, help="δ for --method smooth (default 0)")
    p.add_argument(
        "--nodes",
        type=int,
        metavar="N",
        help="public number of nodes, required (ids in the file are relabelled; nodes without "
        "an edge count too)",
    )
    p.add_argument(
        "--interval-epsilon",
        type=positive_float,
        metavar="E",
        help="extra ε spent on a private bound on the noise size that gives piecewise, ladder "
        "and smooth releases a 95%% interval (global releases have one for free); what it buys: "
        "docs/intervals-graphs.md",
    )
    p.set_defaults(func=run)


def release_interval(release: Release, level: float = 0.95) -> tuple[Any, Any] | None:
    """The release's own ``level`` interval raised to 0 at both ends (a count is never negative:
    this keeps the coverage and contains :func:`shown_value`), or None when the noise scale is
    private and no bound was bought (post-processing either way)."""
    try:
        low, high = release.confidence_interval(level)
    except ValueError:
        return None
    return max(low, 0), max(high, 0)


def shown_value(release: Release) -> Any:
    """The value the report prints: the release raised to 0 (post-processing), so it always lies
    in :func:`release_interval` (``low <= value <= high`` holds for the raw value, and raising
    all three to 0 keeps the order)."""
    return max(release.value, 0)


def interval_words(release: Release, level: float = 0.95) -> list[str]:
    """What the interval promises, in words a non-statistician can check against its use."""
    note = release.metadata.get("interval", {})
    times = round(100 * level)
    lines = [f"intervals made this way contain the true count at least {times} times in 100"]
    if note.get("kind") == "noise and bound":
        cost = note.get("cost_epsilon", 0)
        lines.append("(allowing for all the noise in this release, including that of the private")
        lines.append(f"bound on the noise size, which cost {cost:g} of the epsilon below)")
    else:
        lines.append("(allowing for all the noise in this release; free: its noise size is public)")
    return lines


def triangle_report(release: Release, *, exact: int | None = None, source: str = "") -> str:
    """A short text report of a private triangle count (``exact`` only for public data).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpatlas.graph import triangle_count
    >>> rel = triangle_count(nx.karate_club_graph(), epsilon=1.0, method="global", rng=0)
    >>> print(triangle_report(rel, exact=45, source="the karate club"))
    Private triangle count of the karate club
      private value  ...
      95% interval   [..., ...]
                     intervals made this way contain the true count at least 95 times in 100
                     (allowing for all the noise in this release; free: its noise size is public)
      epsilon        1   delta 0
      mechanism      triangle_count/global
      seeded         yes: reproducible and NOT secret (teaching only)
      exact value    45   (shown only because this data is public)
    """
    lines = [f"Private triangle count{f' of {source}' if source else ''}"]
    value = shown_value(release)
    raised = (
        ""
        if value == release.value
        else f"   (noisy value {release.value} raised to 0: a count is never negative)"
    )
    lines.append(f"  private value  {value}{raised}")
    interval = release_interval(release)
    if interval is not None:
        lines.append(f"  95% interval   [{interval[0]}, {interval[1]}]")
        lines += [f"                 {line}" for line in interval_words(release)]
    else:
        lines.append(
            "  95% interval   none: this mechanism's noise scale is private; buy one with "
            "interval_epsilon (CLI: --interval-epsilon)"
        )
    spent = f"  epsilon        {release.epsilon:g}   delta {release.delta:g}"
    if release.metadata.get("interval_epsilon"):
        spent += f"   (of which {release.metadata['interval_epsilon']:g} for the interval)"
    lines.append(spent)
    lines.append(f"  mechanism      {release.mechanism}")
    if release.seeded:
        lines.append("  seeded         yes: reproducible and NOT secret (teaching only)")
    if exact is not None:
        lines.append(f"  exact value    {exact}   (shown only because this data is public)")
    return "\n".join(lines)


def run(args: argparse.Namespace, out: Output) -> int:
    """Run ``dpatlas triangles``."""
    from dpatlas.graph import read_edgelist, triangle_count

    if args.nodes is None:
        raise UsageError(
            "dpatlas triangles needs the public number of nodes: pass --nodes N (every node of "
            "the graph, with or without an edge; ids need not be 0..N-1). The nodes seen in the "
            "edge list depend on the data, so a count on them is not edge-DP: nothing was read "
            "or spent"
        )
    if not args.edges.is_file():
        raise UsageError(f"EDGES file not found: {args.edges}; check the path")
    budget = release_budget(args, out)
    extra = args.interval_epsilon or 0.0
    if budget is not None:  # refuse before reading a large file; triangle_count checks again
        rho = None if args.delta > 0 else (args.epsilon**2 + extra**2) / 2
        budget.check(args.epsilon + extra, args.delta, rho=rho)
    steps = ["read edge list", "count and search sensitivity"]
    with Steps(steps, enabled=show_progress(args.quiet), desc="triangles") as bar:
        with bar.step(f"reading {args.edges.name}"):
            graph = read_edgelist(args.edges, n=args.nodes)
        with bar.step("counting triangles, searching the sensitivity, drawing noise"):
            release = triangle_count(
                graph,
                epsilon=args.epsilon,
                delta=args.delta,
                method=args.method,
                budget=budget,
                rng=args.seed,
                interval_epsilon=args.interval_epsilon,
            )
    interval = release_interval(release)
    out.payload.update(
        {
            "command": "triangles",
            "edges": str(args.edges),
            "value": shown_value(release),
            "interval95": None if interval is None else list(interval),
            "interval": release.metadata.get("interval"),
            "release": release.to_dict(),
            "budget": None if budget is None else budget_summary(budget),
        }
    )
    out.line(triangle_report(release, source=args.edges.name))
    if budget is not None:
        left = budget.remaining
        out.line(
            f"  budget of {args.dataset!r} left: epsilon={left.epsilon:g}, delta={left.delta:g}"
        )
    out.seeded(release)
    return 0
