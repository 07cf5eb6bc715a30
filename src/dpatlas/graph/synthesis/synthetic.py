"""Private synthetic graphs under edge-DP: release a whole graph, analyse it freely.

:func:`synthesize` measures four statistics of the graph with noise, then builds a random graph
on the *public* node set that matches them. Everything done with the synthetic graph afterwards
(communities, centralities, path lengths, motif counts) is post-processing and costs nothing.

Stages and their share of ε (:data:`SPLIT`; one debit of the total, before any noise):

============  =====  ====================================================================
stage         share  mechanism (:mod:`dpatlas.graph.synthesis._measure`)
============  =====  ====================================================================
degrees       0.30   every node's degree + discrete Laplace(2/ε₁) (L1 sensitivity 2)
partition     0.45   one sequential noisy label-propagation pass: the hubs (top 3%) count
                     all neighbours' labels + discrete Laplace(4/ε₂), first and last; every
                     other node its earlier non-hub neighbours' + DL(1/ε₂) and its hub
                     neighbours' + DL(2/ε₂), then moves
blocks        0.15   edge counts inside and between the communities + discrete Laplace(1/ε₃)
triangles     0.10   the triangle count, ladder mechanism (:func:`triangle_count`)
============  =====  ====================================================================

Privacy (edge-DP: neighbours share the public node set and differ in one edge). Each stage is
ε_i-DP given the outputs of the earlier ones: the degree vector has L1 sensitivity 2; the
partition pass is ε₂-DP by adaptive composition over the nodes (proof in
:func:`~dpatlas.graph.synthesis._measure.private_partition`); the block counts of the released
partition have sensitivity 1 (an edge lies in one cell); the ladder mechanism is ε₄-DP
(:mod:`dpatlas.core.noise.local.ladder`). By sequential (adaptive) composition the four releases together
are ``(ε₁ + ε₂ + ε₃ + ε₄) = ε``-DP. The graph is then generated from the released values and
public randomness only (:mod:`dpatlas.graph.synthesis._bter`, :mod:`dpatlas.graph.synthesis._deconvolve`): target
degrees drawn from a deconvolution of the noisy degrees, BTER-style affinity blocks inside the
released communities whose density (and cap at the released block counts) is fitted to the
*released* triangle count (:mod:`dpatlas.graph.synthesis._fit`), and a degree-corrected block
model for the remaining edges — post-processing, so the synthetic graph
is ε-DP. The node set and ``n`` come from the caller (a release is refused without them): the
node count read off the edges is private. So are node names read off the edges (ids outside
``0 .. n-1``, relabelled): the synthetic graph names its nodes, so such names are refused; and
the nodes are processed in the sorted order of their ids, so that ties (equal noisy degrees)
are broken by an order the public node set fixes, not by the order of a file or of a networkx
graph's construction.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import pairwise
from types import MappingProxyType
from typing import Any

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import open_charge
from dpatlas.core.accounting.cost import Cost, exact_epsilon
from dpatlas.core.accounting.cost import split as split_epsilon
from dpatlas.core.noise.discrete_laplace import rational_scale
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.core.rng import RngLike, get_source
from dpatlas.core.validation import check_epsilon
from dpatlas.graph._noise import PublicChecks
from dpatlas.graph.adjacency import EdgeAdjacency
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder
from dpatlas.graph.input._convert import check_node_count, is_networkx_graph
from dpatlas.graph.input.edgegraph import EdgeGraph, as_edge_graph
from dpatlas.graph.synthesis._bter import BLOCK_CAPS, coarsen, generate, merge_parts
from dpatlas.graph.synthesis._deconvolve import deconvolved_degrees
from dpatlas.graph.synthesis._fit import fit_capped
from dpatlas.graph.synthesis._measure import (
    DEGREE_CLASSES,
    degree_class,
    noisy_blocks,
    noisy_degrees,
    partition_scales,
    partition_size,
    private_partition,
)
from dpatlas.graph.synthesis._stubs import balance_blocks, shift_to_total
from dpatlas.graph.synthesis.record import SyntheticGraph

__all__ = [
    "MECHANISMS",
    "SPLIT",
    "SyntheticGraph",
    "check_synthesize",
    "synthesis_cost",
    "synthesize",
]

SPLIT: Mapping[str, float] = MappingProxyType(
    {"degrees": 0.30, "partition": 0.45, "blocks": 0.15, "triangles": 0.10}
)
"""Default share of ε per stage (tuned on facebook and ca-HepPh; see docs/synthetic-graphs.md)."""

MECHANISMS: Mapping[str, str] = MappingProxyType(
    {
        "degrees": "discrete_laplace(sensitivity=2)",
        "partition": "sequential label propagation, discrete_laplace(sensitivity=1) per count vector",
        "blocks": "discrete_laplace(sensitivity=1)",
        "triangles": "triangle_count/ladder",
    }
)


def _check_split(split: Mapping[str, float] | None) -> dict[str, float]:
    if split is None:
        return dict(SPLIT)
    if not isinstance(split, Mapping) or set(split) != set(SPLIT):
        raise ValueError(f"split must map exactly {sorted(SPLIT)} to shares, got {split!r}")
    shares = {k: float(v) for k, v in split.items()}
    if (
        any(not (v > 0 and math.isfinite(v)) for v in shares.values())
        or abs(sum(shares.values()) - 1) > 1e-9
    ):
        raise ValueError(f"split shares must be > 0 and sum to 1, got {shares}")
    return shares


def _stage_epsilons(epsilon: float, split: Mapping[str, float] | None) -> dict[str, float]:
    """Each stage's ε (they sum to at most ``epsilon`` exactly)."""
    shares = _check_split(split)
    return dict(zip(shares, split_epsilon(epsilon, list(shares.values())), strict=True))


def synthesis_cost(epsilon: float, split: Mapping[str, float] | None = None) -> Cost:
    """The privacy cost :func:`synthesize` debits, from its public parameters.

    Four pure-DP releases composed (one per stage of ``split``): ε in all, and under zCDP
    accounting less ρ than one release at ε. A caller that must refuse before reading the
    graph (the command line) checks this cost.

    Examples
    --------
    >>> cost = synthesis_cost(1.0)
    >>> cost.epsilon, cost.rho < 0.5
    (1.0, True)
    """
    part = _stage_epsilons(check_epsilon(epsilon), split)
    return Cost.compose(Cost.pure(v) for v in part.values())


def check_synthesize(
    n: int | None, *, epsilon: float, split: Mapping[str, float] | None = None
) -> PublicChecks:
    """Refuse what :func:`synthesize` would refuse on its public parameters; its cost and
    noise scales.

    The checks :func:`synthesize` runs before the graph is read, for a caller (the command
    line) that reads the graph itself: ε, ``split``, the noise scales of the four stages
    (an ε so small that one of them cannot be drawn exactly is refused) and ``n``.

    Parameters
    ----------
    n : int or None
        Public number of nodes (None: not given).
    epsilon, split
        As in :func:`synthesize`.

    Returns
    -------
    PublicChecks
        The cost :func:`synthesize` debits (:func:`synthesis_cost`) and its noise scales, for
        :func:`~dpatlas.core.accounting.charge.open_charge`.

    Examples
    --------
    >>> check_synthesize(100, epsilon=1.0).cost.epsilon
    1.0
    >>> check_synthesize(100, epsilon=1.0, split={"degrees": 1.0})
    Traceback (most recent call last):
    ...
    ValueError: split must map exactly ['blocks', 'degrees', 'partition', 'triangles'] to shares, ...
    """
    eps = check_epsilon(epsilon)
    part = _stage_epsilons(eps, split)  # sum <= ε
    scales = [2 / exact_epsilon(part[stage]) for stage in ("degrees", "triangles")]
    scales += [1 / exact_epsilon(part["blocks"]), *partition_scales(part["partition"])]
    if n is not None:  # a public parameter: refused before the graph is read
        check_node_count(n)
    return PublicChecks(synthesis_cost(eps, split), tuple(scales))  # four pure-DP releases


def _public_graph(graph: Any, n: int | None, nodes: Any) -> EdgeGraph:
    if n is None and nodes is None:
        how = (
            "pass n=G.number_of_nodes() to confirm that the graph's nodes are the public set"
            if is_networkx_graph(graph)
            else "pass n= (nodes 0..n-1) or nodes= (their ids)"
        )
        raise ValueError(
            f"synthesize needs the public node set: {how}; a node count read off the edges "
            "depends on the data and is not edge-DP"
        )
    g = as_edge_graph(graph, n=n, nodes=nodes)
    if not g.ids_public:
        top = int(g.ids.max()) if isinstance(g.ids, np.ndarray) and g.ids.size else None
        raise ValueError(
            f"synthesize names its nodes, and these node ids were read off the edges (n={g.n}"
            + ("" if top is None else f", largest id {top}")
            + "), so which ids occur would reveal which nodes have an edge: number the nodes "
            "0 .. n-1, or give the public node ids as nodes="
        )
    return _in_public_order(g)


def _in_public_order(g: EdgeGraph) -> EdgeGraph:
    """``g`` with its nodes sorted by id: an order fixed by the public node set alone.

    The mechanism breaks ties by node index (the visiting order of equal noisy degrees, which
    of them are hubs), so the index order must not depend on the data (a networkx graph's
    insertion order, or an edge list's order of first appearance, may): sorted ids make the
    release a function of the labelled graph alone. Labels that do not sort into one chain
    (mixed types; sets, ordered by inclusion; NaN), which ``sorted`` would leave partly in
    their given order, are ordered by type name and ``repr``; labels that tie there too are
    refused.
    """
    ids = g.ids
    if isinstance(ids, np.ndarray):
        order = np.argsort(ids, kind="stable")
    else:
        order = np.asarray(_label_order(ids), dtype=np.int64)
    if np.array_equal(order, np.arange(g.n)):
        return g
    rank = np.empty(g.n, dtype=np.int64)
    rank[order] = np.arange(g.n)
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    upper = rows < g.indices
    edges = np.column_stack([rank[rows[upper]], rank[g.indices[upper]]])
    new_ids = ids[order] if isinstance(ids, np.ndarray) else tuple(ids[i] for i in order)
    h = as_edge_graph(edges, n=g.n)
    return EdgeGraph(h.n, h.indptr, h.indices, new_ids, nodes_public=True, ids_public=True)


def _label_order(ids: tuple[Any, ...]) -> list[int]:
    """Indices of ``ids`` in an order that does not depend on the order they are given in."""
    try:
        order = sorted(range(len(ids)), key=ids.__getitem__)
        if all(ids[a] < ids[b] for a, b in pairwise(order)):
            return order  # a chain: the one increasing order of these labels
    except TypeError:
        pass
    for x in ids:
        if type(x).__repr__ is object.__repr__:  # "<X object at 0x…>": allocation order
            raise ValueError(
                f"node label {x!r} neither sorts nor has a repr of its own (the default repr "
                "names its memory address, which follows the order the graph was built in, "
                "and that may depend on its edges): relabel the nodes with integers or "
                "strings, e.g. nx.relabel_nodes(G, mapping)"
            )
    keys = [(type(x).__name__, repr(x)) for x in ids]
    order = sorted(range(len(ids)), key=keys.__getitem__)
    for a, b in pairwise(order):
        if keys[a] == keys[b]:
            raise ValueError(
                f"node labels {ids[a]!r} and {ids[b]!r} neither sort nor differ in type and repr, "
                "so no order fixed by the public node set breaks ties between them (the order a "
                "graph lists its nodes in may depend on its edges): relabel the nodes with "
                "integers or strings, e.g. nx.relabel_nodes(G, mapping)"
            )
    return order


def synthesize(
    graph: Any,
    *,
    epsilon: float,
    n: int | None = None,
    nodes: Any = None,
    budget: Budget | None = None,
    rng: RngLike = None,
    split: Mapping[str, float] | None = None,
) -> SyntheticGraph:
    """Release an edge-DP synthetic graph of ``graph`` on its public node set.

    Parameters
    ----------
    graph : networkx.Graph, EdgeGraph, (m, 2) integer array or scipy sparse matrix
        Simple undirected graph; see :func:`~dpatlas.graph.input.edgegraph.as_edge_graph`.
    epsilon : float
        Privacy cost of the whole graph, > 0 (split between the stages by ``split``).
    n : int, optional
        Public number of nodes (ids ``0 .. n-1`` for an edge array; must match a networkx
        graph's node count). Required unless ``nodes`` is given.
    nodes : array-like of int, optional
        Public node ids, for an edge array.
    budget : Budget, optional
        Checked before the graph is read, debited once by ``epsilon`` before any noise.
    rng : None, int or numpy.random.Generator
        ``None`` for secure noise; a seed is for tests and teaching (``seeded=True``).
    split : mapping, optional
        Shares of ε per stage (keys of :data:`SPLIT`, positive, summing to 1).

    Returns
    -------
    SyntheticGraph
        ``value``: a :class:`networkx.Graph` on the public nodes (ids as given, sorted);
        ``metadata``: ``n``, ``split`` (ε per stage), ``mechanisms``, ``communities``,
        ``triangles`` (the released count the generator was fitted to), ``block_density``,
        ``block_cap`` (the cap chosen from :data:`~dpatlas.graph.synthesis._bter.BLOCK_CAPS`).

    Examples
    --------
    >>> import networkx as nx
    >>> G = nx.planted_partition_graph(4, 50, 0.3, 0.01, seed=1)
    >>> rel = synthesize(G, n=200, epsilon=2.0, rng=7)
    >>> rel.value.number_of_nodes(), rel.epsilon, rel.seeded
    (200, 2.0, True)
    >>> rel.metadata["split"]["triangles"]
    0.2
    >>> synthesize(G, epsilon=1.0)
    Traceback (most recent call last):
    ...
    ValueError: synthesize needs the public node set: pass n=G.number_of_nodes() ...
    """
    eps = check_epsilon(epsilon)
    part = _stage_epsilons(eps, split)  # sum <= ε
    public = check_synthesize(n, epsilon=eps, split=split)  # before the graph is read
    src = get_source(rng)
    charge = open_charge(public.cost, budget, mechanism="synthesize", scales=public.scales)
    g = _public_graph(graph, n, nodes)
    charge.debit(public.scales)  # none depends on n: as checked before the read
    # Drawn first: a seed then fixes the released count whatever the later stages draw.
    triangles = _noisy_triangles(g, part["triangles"], src)
    gen = src.generator()
    raw = noisy_degrees(g, part["degrees"], src)
    t, s = rational_scale(2 / exact_epsilon(part["degrees"]))
    target = deconvolved_degrees(raw, t / s, g.n, gen)
    labels = private_partition(g, np.maximum(raw, 1), part["partition"], src, gen)
    parts = partition_size(part["partition"])
    classes = degree_class(raw)
    fine = noisy_blocks(
        g, labels * DEGREE_CLASSES + classes, parts * DEGREE_CLASSES, part["blocks"], src
    )
    merged = merge_parts(fine, parts, gen)
    communities = merged[labels]
    groups = communities * DEGREE_CLASSES + classes
    blocks = _nonnegative(coarsen(fine, merged))
    mix = balance_blocks(blocks, np.bincount(groups, weights=target, minlength=blocks.shape[0]))
    keys, density, cap = fit_capped(
        max(triangles, 0),
        lambda scale, cap: generate(
            target, communities, groups, blocks, scale, gen, mix=mix, cap=cap
        ),
        g.n,
        BLOCK_CAPS,
    )
    import networkx as nx

    ids = g.ids.tolist() if isinstance(g.ids, np.ndarray) else list(g.ids)
    out = nx.Graph()
    out.add_nodes_from(ids)
    out.add_edges_from(
        (ids[u], ids[v]) for u, v in zip((keys // g.n).tolist(), (keys % g.n).tolist(), strict=True)
    )
    meta = {
        "n": g.n,
        "split": part,
        "mechanisms": dict(MECHANISMS),
        "communities": int(communities.max()) + 1 if g.n else 0,
        "triangles": triangles,
        "block_density": density,
        "block_cap": cap,
    }
    return charge.release(
        SyntheticGraph,
        value=out,
        sensitivity=None,
        scale=None,
        noise=None,
        seeded=src.seeded,
        metadata=meta,
        communities=communities,
    )


def _nonnegative(blocks: np.ndarray) -> np.ndarray:
    """Symmetric non-negative counts keeping the noisy total of the upper triangle."""
    cells = np.triu_indices(blocks.shape[0])
    out = np.zeros(blocks.shape)
    out[cells] = shift_to_total(blocks[cells])
    return out + np.triu(out, 1).T


def _noisy_triangles(g: EdgeGraph, epsilon: float, src: Any) -> int:
    """The ladder release of the triangle count (ε-DP; a constant 0 when ``n < 3``)."""
    gs = EdgeAdjacency().triangle_global_sensitivity(g.n)
    if gs == 0:
        return 0
    stats = common_neighbour_stats(g)
    rel = ladder_mechanism(
        stats.triangles, sensitivity_ladder(stats), epsilon=epsilon, global_sensitivity=gs, rng=src
    )
    return int(rel.value)
