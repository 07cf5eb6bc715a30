"""Exact (not private) counts on an :class:`~dpatlas.graph.input.edgegraph.EdgeGraph`.

These are the adapter's exact answers and the inputs of the sensitivity functions. None of them
may be released as is: a mechanism in :mod:`dpatlas.graph` adds calibrated noise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpatlas.graph.exact import _pairs
from dpatlas.graph.exact._forward import count_triangles
from dpatlas.graph.input.edgegraph import EdgeGraph, as_edge_graph

__all__ = [
    "CommonNeighbourStats",
    "common_neighbour_stats",
    "triangle_count_exact",
    "wedge_count",
]


@dataclass(frozen=True, eq=False)
class CommonNeighbourStats:
    """Exact pair statistics of one graph (NOT private: inputs to a mechanism).

    For a pair ``i != j`` (adjacent or not): ``a_ij`` common neighbours, ``x_ij`` the edge
    indicator, ``c_ij = d_i + d_j - 2 x_ij`` the number of edges from ``i`` or ``j`` to the other
    ``n - 2`` nodes.

    Attributes
    ----------
    n : int
        Number of nodes.
    m : int
        Number of edges.
    d_max : int
        Largest degree.
    a_max : int
        ``max a_ij`` over all pairs: the local sensitivity of the triangle count.
    c_max : int
        ``max c_ij`` over all pairs.
    frontier : numpy.ndarray
        int64 array of shape (k, 2): the Pareto frontier of the points ``(a_ij, c_ij)``, i.e.
        every value pair not dominated in both coordinates, sorted by ``a`` increasing (``c``
        then decreases). Empty when ``n < 2``.
    triangles : int
        Exact triangle count.
    """

    n: int
    m: int
    d_max: int
    a_max: int
    c_max: int
    frontier: np.ndarray
    triangles: int


def _graph(g: Any) -> EdgeGraph:
    return g if isinstance(g, EdgeGraph) else as_edge_graph(g)


def _cached(g: EdgeGraph, key: str, compute: Callable[[EdgeGraph], Any]) -> Any:
    if key not in g._memo:
        g._memo[key] = compute(g)
    return g._memo[key]


def triangle_count_exact(g: Any) -> int:
    """Exact number of triangles (NOT private).

    Orients every edge towards its higher-degree endpoint (so every vertex keeps at most
    ``sqrt(2m)`` out-neighbours) and counts each triangle once, at its lowest-ranked edge, by
    the compact-forward algorithm (compiled with Numba), with bitsets for the ~1,000
    highest-degree vertices: ``O(m sqrt(m))`` work, memory one oriented copy of the edges.

    Parameters
    ----------
    g : EdgeGraph or anything :func:`~dpatlas.graph.input.edgegraph.as_edge_graph` accepts

    Examples
    --------
    >>> import networkx as nx
    >>> triangle_count_exact(nx.complete_graph(5))
    10
    """
    return int(_cached(_graph(g), "triangles", _triangles))


def _by_degree(g: EdgeGraph) -> np.ndarray:
    return np.argsort(-g.degrees, kind="stable")


def _triangles(g: EdgeGraph) -> int:
    return count_triangles(g.indptr, g.indices, _cached(g, "order", _by_degree))


def wedge_count(g: Any) -> int:
    """Number of wedges (paths of length 2), ``sum_i C(d_i, 2)`` (NOT private).

    Examples
    --------
    >>> import networkx as nx
    >>> wedge_count(nx.star_graph(4))
    6
    """
    d = _graph(g).degrees
    return int(np.sum(d * (d - 1) // 2))


def common_neighbour_stats(g: Any) -> CommonNeighbourStats:
    """Exact common-neighbour statistics over *all* vertex pairs (NOT private).

    ``a_max`` is the graph's local sensitivity for the triangle count; the frontier determines
    the local sensitivity at every distance (see :mod:`dpatlas.graph.exact.triangle_sensitivity`). Pairs with no
    common neighbour (absent from ``A @ A``) still enter through ``c_ij``. Computed by a pruned
    neighbour-of-neighbour search from the highest-degree vertices (``a_ij <= min(d_i, d_j)``
    prunes), in row blocks of bounded work; never a dense ``n x n`` array.

    Examples
    --------
    >>> import networkx as nx
    >>> k2r = nx.complete_bipartite_graph(2, 5)  # hubs 0 and 1 share 5 neighbours
    >>> s = common_neighbour_stats(k2r)
    >>> s.a_max, s.c_max, s.triangles, s.frontier.tolist()
    (5, 10, 0, [[5, 10]])
    """
    result: CommonNeighbourStats = _cached(_graph(g), "stats", _stats)
    return result


def _stats(g: EdgeGraph) -> CommonNeighbourStats:
    deg = g.degrees
    front = _pairs.frontier_levels(g.to_scipy(), deg, _cached(g, "order", _by_degree))
    a = np.flatnonzero((front[:-1] >= 0) & (front[:-1] > front[1:]))
    frontier = np.column_stack([a, front[a]]).astype(np.int64)
    frontier.flags.writeable = False
    return CommonNeighbourStats(
        n=g.n,
        m=g.m,
        d_max=int(deg.max()) if g.n else 0,
        a_max=int(a[-1]) if a.size else 0,
        c_max=int(front[0]) if g.n >= 2 else 0,
        frontier=frontier,
        triangles=triangle_count_exact(g),
    )
