"""Private edge counts under edge-DP, and the input preparation shared by the graph statistics.

Neighbours (:class:`~dpatlas.graph.adjacency.EdgeAdjacency`): graphs on the same public node set
that differ in one edge. The edge count ``m`` changes by exactly 1 between neighbours, so its
global sensitivity is 1 and the discrete Laplace mechanism at scale ``1/ε`` is ε-DP.
"""

from __future__ import annotations

import warnings
from typing import Any

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.noise.discrete_laplace import discrete_laplace
from dpatlas.core.release import Release
from dpatlas.core.rng import RandomSource, RngLike, get_source
from dpatlas.core.validation import check_epsilon
from dpatlas.errors import PrivacyLeakWarning
from dpatlas.graph._interval import interval_note
from dpatlas.graph.input.edgegraph import EdgeGraph, as_edge_graph

__all__ = ["edge_count", "prepare_graph"]


def prepare_graph(graph: Any, n: int | None, *, stacklevel: int = 3) -> EdgeGraph:
    """``as_edge_graph(graph, n=n)``, warning when the node count came from the edges."""
    g = as_edge_graph(graph, n=n)
    if not g.nodes_public:
        warnings.warn(
            f"the node count n={g.n} was taken from the edges (nodes with an edge), so it depends "
            "on the data and the release is not exactly edge-DP; pass the public node count n=",
            PrivacyLeakWarning,
            stacklevel=stacklevel,
        )
    return g


def _open_release(
    graph: Any,
    n: int | None,
    rng: RngLike,
    budget: Budget | None,
    epsilon: float,
    delta: float = 0.0,
    *,
    rho: float | None = None,
) -> tuple[RandomSource, EdgeGraph]:
    """The noise source, then the graph once ``budget`` has room for the release (nothing spent)."""
    src = get_source(rng)
    if budget is not None:
        budget.check(epsilon, delta, rho=rho)
    return src, prepare_graph(graph, n, stacklevel=4)


def edge_count(
    graph: Any,
    *,
    epsilon: float,
    budget: Budget | None = None,
    rng: RngLike = None,
    n: int | None = None,
) -> Release:
    """Release the number of edges of ``graph`` under edge-DP (discrete Laplace, Δ = 1).

    Proof sketch: neighbouring graphs differ in exactly one edge, so ``|m(G) - m(G')| = 1``;
    the discrete Laplace mechanism with sensitivity 1 is ε-DP. The scale ``1/ε`` is public,
    so ``confidence_interval()`` is free.

    Parameters
    ----------
    graph : networkx.Graph, EdgeGraph, (m, 2) integer array or scipy sparse matrix
        Simple undirected graph; see :func:`~dpatlas.graph.input.edgegraph.as_edge_graph`.
    epsilon : float
        Privacy cost, > 0.
    budget : Budget, optional
        Checked before the graph is read, debited once before noise is drawn.
    rng : None, int or numpy.random.Generator
        ``None`` for secure noise; a seed is for tests and teaching (``seeded=True``).
    n : int, optional
        Public number of nodes; without it (edge arrays) a PrivacyLeakWarning is raised.

    Returns
    -------
    Release
        ``value`` (int), ``sensitivity`` 1, ``scale`` ``1/ε``, metadata ``n``, ``n_from_data``.

    Examples
    --------
    >>> import networkx as nx
    >>> rel = edge_count(nx.karate_club_graph(), epsilon=1.0, rng=7)  # 78 edges
    >>> rel.mechanism, rel.sensitivity, abs(rel.value - 78) < 15
    ('edge_count', 1.0, True)
    >>> low, high = rel.confidence_interval(0.95)
    >>> low < rel.value < high
    True
    """
    eps = check_epsilon(epsilon)
    src, g = _open_release(graph, n, rng, budget, eps)
    if budget is not None:
        budget.spend(eps, mechanism="edge_count")
    rel = discrete_laplace(g.m, sensitivity=1, epsilon=eps, rng=src, mechanism="edge_count")
    meta = {
        "n": g.n,
        "n_from_data": not g.nodes_public,
        "interval": interval_note("the exact edge count", "noise only"),
    }
    return Release(
        value=rel.value,
        epsilon=rel.epsilon,
        delta=0.0,
        mechanism="edge_count",
        sensitivity=rel.sensitivity,
        scale=rel.scale,
        noise=rel.noise,
        seeded=src.seeded,
        rho=rel.rho,
        metadata=meta,
    )
