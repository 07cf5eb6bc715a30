"""Private edge counts under edge-DP, and the input preparation shared by the graph statistics.

Neighbours (:class:`~dpatlas.graph.adjacency.EdgeAdjacency`): graphs on the same public node set
that differ in one edge. The edge count ``m`` changes by exactly 1 between neighbours, so its
global sensitivity is 1 and the discrete Laplace mechanism at scale ``1/ε`` is ε-DP.
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from functools import partial
from typing import Any

import numpy as np
import scipy.sparse as sp

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import Charge, open_charge
from dpatlas.core.accounting.cost import exact_epsilon
from dpatlas.core.noise.discrete_laplace import discrete_laplace, discrete_laplace_cost
from dpatlas.core.rng import RandomSource, RngLike, get_source
from dpatlas.core.validation import check_epsilon
from dpatlas.graph._interval import CountRelease, interval_note
from dpatlas.graph._noise import PublicChecks
from dpatlas.graph.input._convert import check_node_count, is_networkx_graph
from dpatlas.graph.input.edgegraph import EdgeGraph, as_edge_graph

__all__ = [
    "check_edge_count",
    "edge_count",
    "public_graph",
    "public_node_count",
    "require_node_set",
]


def brings_node_set(graph: Any) -> bool:
    """True when ``graph`` carries its own node set: a networkx graph, a sparse matrix, or an
    EdgeGraph built with a public node set. Reads the type only, never the edges."""
    if isinstance(graph, EdgeGraph):
        return graph.nodes_public
    return is_networkx_graph(graph) or sp.issparse(graph)


def require_node_set(graph: Any, n: int | None, nodes: Any, release: str) -> None:
    """Refuse (``ValueError`` naming ``n=`` and ``nodes=``) edges given without a public node set."""
    if n is None and nodes is None and not brings_node_set(graph):
        raise ValueError(
            f"{release} needs the public node set, and the edges alone do not give it: pass "
            "n=<number of nodes> (any integer ids: they are relabelled, and nodes without an "
            "edge are isolated nodes) or nodes=<the public node ids>. The number of nodes with "
            "an edge depends on the data, so a release on it is not edge-DP (DESIGN rule 7): "
            "nothing was released and nothing was spent"
        )


def public_node_count(graph: Any, n: Any, nodes: Any) -> int | None:
    """The public number of nodes, known without reading an edge; None when only the read tells.

    A networkx graph's node count, a square matrix's size or a public EdgeGraph's ``n``;
    ``n=`` (type-checked) for an edge array, or the length of ``nodes=`` when they are distinct
    integer ids. A release checks its public parameters that depend on ``n`` (a degree cap, a
    global sensitivity and its noise scale) on it, before the graph is read. Where the read
    would refuse the inputs themselves (an ``n=`` that does not match a graph's own size, ids
    that are not distinct integers, a matrix that is not square) this gives None, so that
    the read's refusal names the real mistake.

    Examples
    --------
    >>> public_node_count([(0, 1)], 5, None), public_node_count([(0, 1)], None, [3, 4, 9])
    (5, 3)
    >>> public_node_count([(0, 1)], None, None) is None
    True
    """
    own = _own_size(graph)
    if own is not None:
        return own if n is None or _same(n, own) else None
    if isinstance(graph, EdgeGraph):  # its ids were read off the edges: only the read tells
        return None
    if nodes is not None:
        ids = np.asarray(list(nodes) if isinstance(nodes, (set, frozenset)) else nodes)
        if ids.ndim != 1 or ids.dtype.kind not in "iu" or np.unique(ids).size != ids.size:
            return None
        return int(ids.size) if n is None or _same(n, ids.size) else None
    return check_node_count(n) if n is not None else None


def _same(n: Any, size: int) -> bool:
    return isinstance(n, numbers.Integral) and not isinstance(n, bool) and int(n) == size


def _own_size(graph: Any) -> int | None:
    """The node count a graph object brings itself: networkx, a square sparse matrix, a public
    EdgeGraph; None for edge arrays and anything else."""
    if isinstance(graph, EdgeGraph):
        return graph.n if graph.nodes_public else None
    if is_networkx_graph(graph):
        return int(graph.number_of_nodes())
    if sp.issparse(graph) and graph.ndim == 2 and graph.shape[0] == graph.shape[1]:
        return int(graph.shape[0])
    return None


def public_graph(graph: Any, n: int | None, nodes: Any, release: str) -> EdgeGraph:
    """``as_edge_graph(graph, n=n, nodes=nodes)``, refused unless the node set is public.

    Edge-DP compares graphs on one public node set, and every graph release depends on its
    size ``n`` (the global sensitivity ``n - 2`` of triangles, the histogram's total, the
    degree cap). An edge array, or an edge list read without ``n``, knows only the nodes
    that have an edge: their number is data (two disjoint edges give 4, adding the edge that
    makes a path of them gives 4 or 5). So the release is refused with a ``ValueError`` that
    names ``n=`` and ``nodes=``, before the edges are read and before any budget is checked
    or spent. networkx graphs and sparse matrices bring their node set: the caller built it,
    and it must be the public one.

    Examples
    --------
    >>> public_graph([(0, 1)], 3, None, "edge_count")
    EdgeGraph(n=3, m=1, nodes_public=True)
    >>> public_graph([(0, 1)], None, None, "edge_count")
    Traceback (most recent call last):
    ...
    ValueError: edge_count needs the public node set, ... pass n=<number of nodes> ...
    """
    require_node_set(graph, n, nodes, release)
    return as_edge_graph(graph, n=n, nodes=nodes)


def _open_release(
    graph: Any,
    n: int | None,
    nodes: Any,
    rng: RngLike,
    budget: Budget | None,
    checks: Callable[[int | None], PublicChecks],
    *,
    release: str,
    mechanism: str | None = None,
) -> tuple[RandomSource, EdgeGraph, Charge, PublicChecks]:
    """The noise source, the release's charge (opened: budget and noise scales checked, nothing
    spent; debited as ``mechanism``, default ``release``), the graph on its public node set,
    and the public checks on the graph's number of nodes.

    ``checks(n)`` is the release's public check (``check_<release>``, the one a caller that
    reads the graph itself runs first): it validates the public parameters, those that depend
    on the number of nodes when ``n`` is known, and gives the cost and the noise scales. It
    runs on :func:`public_node_count` before the graph is read and, when that is None (only
    the read tells ``n``), again on the graph's ``n`` after the read. The release debits the
    scales of the checks returned (``charge.debit(public.scales)``): what was checked is what
    is debited.
    """
    require_node_set(graph, n, nodes, release)
    known = public_node_count(graph, n, nodes)
    public = checks(known)
    src = get_source(rng)
    charge = open_charge(public.cost, budget, mechanism=mechanism or release, scales=public.scales)
    g = as_edge_graph(graph, n=n, nodes=nodes)
    if known != g.n:  # the n-dependent checks and scales wait for the graph's own n
        public = checks(g.n)
    return src, g, charge, public


def check_edge_count(n: int | None, *, epsilon: float) -> PublicChecks:
    """Refuse what :func:`edge_count` would refuse on its public parameters; its cost and scale.

    The checks :func:`edge_count` runs before the graph is read, for a caller (the command
    line) that reads the graph itself. No check of an edge count depends on the number of
    nodes ``n``; it is taken so that every graph release's checks are called alike.

    Parameters
    ----------
    n : int or None
        Public number of nodes (None: unknown).
    epsilon : float
        As in :func:`edge_count`.

    Returns
    -------
    PublicChecks
        The cost :func:`edge_count` debits and its noise scale ``1/ε``, for
        :func:`~dpatlas.core.accounting.charge.open_charge`.

    Examples
    --------
    >>> check_edge_count(10, epsilon=0.5).scales
    (Fraction(2, 1),)
    >>> check_edge_count(10, epsilon=-1.0)
    Traceback (most recent call last):
    ...
    ValueError: epsilon must be a finite number > 0, got -1.0
    """
    eps = check_epsilon(epsilon)
    return PublicChecks(discrete_laplace_cost(1, eps), (1 / exact_epsilon(eps),))


def edge_count(
    graph: Any,
    *,
    epsilon: float,
    budget: Budget | None = None,
    rng: RngLike = None,
    n: int | None = None,
    nodes: Any = None,
) -> CountRelease:
    """Release the number of edges of ``graph`` under edge-DP (discrete Laplace, Δ = 1).

    Proof sketch: neighbouring graphs differ in exactly one edge, so ``|m(G) - m(G')| = 1``;
    the discrete Laplace mechanism with sensitivity 1 is ε-DP. The scale ``1/ε`` is public,
    so ``confidence_interval()`` is free; it is cut at 0 (:class:`CountRelease`), the value
    itself is not.

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
        Public number of nodes; an edge array needs it (or ``nodes``): without either the
        release is refused before anything is spent (:func:`public_graph`).
    nodes : array-like of int, optional
        Public node ids, for an edge array (every endpoint must be one of them).

    Returns
    -------
    CountRelease
        ``value`` (int), ``sensitivity`` 1, ``scale`` ``1/ε``, metadata ``n`` (public).

    Examples
    --------
    >>> import networkx as nx
    >>> rel = edge_count(nx.karate_club_graph(), epsilon=1.0, rng=7)  # 78 edges
    >>> rel.mechanism, rel.sensitivity, abs(rel.value - 78) < 15
    ('edge_count', 1.0, True)
    >>> low, high = rel.confidence_interval(0.95)
    >>> low < rel.value < high
    True
    >>> tiny = edge_count(nx.empty_graph(3), epsilon=0.5, rng=2)
    >>> tiny.confidence_interval(0.95)[0]  # a count: never below 0
    0
    """
    eps = check_epsilon(epsilon)
    checks = partial(check_edge_count, epsilon=eps)
    src, g, charge, public = _open_release(
        graph, n, nodes, rng, budget, checks, release="edge_count"
    )
    charge.debit(public.scales)
    rel = discrete_laplace(g.m, sensitivity=1, epsilon=eps, rng=src, mechanism="edge_count")
    meta = {"n": g.n, "interval": interval_note("the exact edge count", "noise only")}
    return charge.release(
        CountRelease,
        value=rel.value,
        sensitivity=rel.sensitivity,
        scale=rel.scale,
        noise=rel.noise,
        seeded=src.seeded,
        metadata=meta,
    )
