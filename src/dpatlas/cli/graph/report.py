"""The text report of a graph release: the value, its interval in words, ε, the mechanism.

Post-processing: it reads only the release.
"""

from __future__ import annotations

from typing import Any

from dpatlas.cli.graph.statistics import Statistic
from dpatlas.core.release import Release

__all__ = ["interval_words", "release_interval", "report", "shown_value"]


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
    >>> from dpatlas.cli.graph.statistics import STATISTICS
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
