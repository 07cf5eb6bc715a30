"""Exact (not private) counts on an :class:`~dpatlas.graph.edgegraph.EdgeGraph`.

These are the adapter's exact answers and the inputs of the sensitivity functions. None of them
may be released as is: a mechanism in :mod:`dpatlas.graph` adds calibrated noise.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.sparse as sp

from dpatlas.graph import _pairs
from dpatlas.graph.edgegraph import EdgeGraph, as_edge_graph

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


def _ranked_lower(g: EdgeGraph) -> sp.csr_array:
    """Edges oriented towards the higher-degree endpoint (ties by index): row ``i`` holds the
    neighbours ranked before ``i``. Each vertex keeps at most ``sqrt(2m)`` of them."""
    deg = g.degrees
    rank = np.empty(g.n, dtype=np.int64)
    rank[np.argsort(-deg, kind="stable")] = np.arange(g.n)
    rows = np.repeat(rank, deg)
    keep = rank[g.indices] < rows
    counts = np.concatenate([[0], np.cumsum(keep, dtype=np.int64)])
    out = sp.csr_array(
        (np.ones(int(counts[-1]), dtype=np.int32), g.indices[keep], counts[g.indptr]),
        shape=(g.n, g.n),
    )
    out.has_sorted_indices = True
    return out


def triangle_count_exact(g: Any) -> int:
    """Exact number of triangles (NOT private).

    Orients every edge towards its higher-degree endpoint (``L``) and sums
    ``(L @ L) * L`` over row blocks of bounded work, so hubs cost ``O(m sqrt(m))`` at worst and
    memory stays bounded.

    Parameters
    ----------
    g : EdgeGraph or anything :func:`~dpatlas.graph.edgegraph.as_edge_graph` accepts

    Examples
    --------
    >>> import networkx as nx
    >>> triangle_count_exact(nx.complete_graph(5))
    10
    """
    return int(_cached(_graph(g), "triangles", _triangles))


def _triangles(g: EdgeGraph) -> int:
    low = _ranked_lower(g)
    out = np.diff(low.indptr)
    left = low[np.flatnonzero(out >= 2)]
    if left.nnz == 0:
        return 0
    work = np.cumsum(left @ out.astype(np.int64))
    marks = np.arange(1, int(work[-1]) // _pairs.BLOCK_FLOPS + 1) * _pairs.BLOCK_FLOPS
    cuts = np.unique(np.concatenate([[0], np.searchsorted(work, marks), [left.shape[0]]]))
    total = 0
    for start, stop in zip(cuts[:-1].tolist(), cuts[1:].tolist(), strict=True):
        block = left[start:stop]
        total += int((block @ low).multiply(block).sum(dtype=np.int64))
    return total


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
    the local sensitivity at every distance (see :mod:`dpatlas.graph.sensitivity`). Pairs with no
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
    front = _pairs.frontier_levels(g.to_scipy(), deg)
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
