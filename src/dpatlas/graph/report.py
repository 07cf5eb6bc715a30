"""Exact sensitivity diagnostics of a graph for the triangle count: NOT private.

Noise scaled to any of these values is not differentially private (DESIGN.md, Graph section);
they explain what :func:`~dpatlas.graph.triangles.triangle_count` adapts to, nothing more.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from dpatlas.core.validation import check_positive_int
from dpatlas.graph.backends import TRIANGLE_STATS
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder, smooth_sensitivity
from dpatlas.graph.input.edgegraph import as_edge_graph

__all__ = ["SensitivityReport", "sensitivity_report"]


@dataclass(frozen=True)
class SensitivityReport:
    """Exact sensitivity diagnostics of one graph: NOT PRIVATE, never release them.

    Every field is computed from the data in hand. Noise scaled to any of them is not
    differentially private (two disjoint edges have local sensitivity 0, their neighbour the
    path has 1); use :func:`triangle_count` to release.

    Attributes
    ----------
    local_sensitivity_not_private : int
        ``LS(0)``: the most common neighbours of any vertex pair (``a_max``, capped at n-2).
    ladder_head_not_private : tuple of int
        ``LS(0), LS(1), ...`` (the first ``head`` rungs of the ladder).
    a_max_not_private, c_max_not_private : int
        ``max a_ij`` and ``max c_ij = d_i + d_j - 2 x_ij`` over all pairs.
    smooth_sensitivity_eps1_not_private : float
        ``max_t e^{-t/6} LS(t)``: the smooth sensitivity for pure ε = 1 (β = 1/6).
    """

    local_sensitivity_not_private: int
    ladder_head_not_private: tuple[int, ...]
    a_max_not_private: int
    c_max_not_private: int
    smooth_sensitivity_eps1_not_private: float

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={v!r}" for k, v in self.__dict__.items())
        return f"SensitivityReport(NOT PRIVATE, exact values of the data: {fields})"


def sensitivity_report(
    graph: Any,
    *,
    n: int | None = None,
    head: int = 8,
    backend: str = "memory",
    client: Any = None,
) -> SensitivityReport:
    """Exact sensitivity diagnostics of ``graph`` (NOT private: never publish them).

    This releases nothing: it spends no budget, claims no privacy, and every field is labelled
    not private. So unlike the releases it accepts an edge array without ``n``; the cap
    ``n - 2`` then counts only the nodes with an edge (itself data), and the values describe
    that smaller node set. Give the public ``n`` to see what a release on it adapts to.

    Examples
    --------
    >>> import networkx as nx
    >>> sensitivity_report(nx.path_graph(6), head=4)
    SensitivityReport(NOT PRIVATE, exact values of the data: local_sensitivity_not_private=1,
    ladder_head_not_private=(1, 2, 3, 3), a_max_not_private=1, c_max_not_private=4,
    smooth_sensitivity_eps1_not_private=2.1495...)
    """
    count = check_positive_int(head, "head")  # before the statistics (a whole Dask job)
    elsewhere = TRIANGLE_STATS.on(backend)  # e.g. an edge list on Dask (dpatlas.dask)
    if elsewhere is not None:
        stats = elsewhere(graph, n=n, client=client)
    else:
        stats = common_neighbour_stats(as_edge_graph(graph, n=n))
    ladder = sensitivity_ladder(stats)
    gs = max(stats.n - 2, 0)
    rungs = np.append(ladder, np.full(max(count - ladder.size, 0), gs))[:count]
    return SensitivityReport(
        local_sensitivity_not_private=int(ladder[0]),
        ladder_head_not_private=tuple(int(v) for v in rungs),
        a_max_not_private=stats.a_max,
        c_max_not_private=stats.c_max,
        smooth_sensitivity_eps1_not_private=smooth_sensitivity(stats, 1 / 6) if gs else 0.0,
    )
