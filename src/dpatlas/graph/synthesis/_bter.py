"""The synthetic-graph generator of :func:`~dpatlas.graph.synthesis.synthetic.synthesize` (internal).

A degree-corrected block model with BTER-style affinity blocks (Seshadhri, Kolda, Pinar 2012),
post-processing only (it reads released values and public randomness):

1. *Affinity blocks*: inside each community, nodes of target degree ``>= 3`` sorted by degree
   are cut into consecutive blocks, a block at most as large as its smallest degree plus one
   (built from the highest degrees down, :func:`_affinity_blocks`); each block
   is an Erdős–Rényi graph of density ``ρ = min(1, scale · (d + 1)^-ξ)``. These make the
   triangles; ``scale`` is fitted to the released triangle count (:mod:`._fit`). The blocks
   respect the released counts (:func:`_cap`): where the blocks would put more edges between
   two groups than ``cap`` times the released count, the group's blocks shrink (size
   ``f d + 1``) and their edges are thinned by the same factor ``f``; ``cap`` is the smallest
   of :data:`BLOCK_CAPS` with which the blocks can still make the released triangles.
2. *Block model*: each node's remaining stubs stay in its community or go to another one, in the
   proportions of the released block counts scaled to the communities' degree sums; stubs are
   matched uniformly at random within a community and between each pair of communities.
3. *Repair*: stubs left single (odd groups, surplus, repeated pairs, self-loops) are matched
   at random over the whole graph, a few rounds. Most degrees land on their targets, but the
   largest fall short: a hub's stubs meet themselves and the same partners again, and its
   leftovers then meet mostly each other (on four real graphs of the bench at epsilon 3.5,
   the eight largest targets end 1-20% short, facebook's largest 1,046 at 858; 0.5-1.4% of
   all stubs stay unmatched). See "Hubs brought to their target degrees" in
   ``docs/synthetic-graphs-design.md``.
"""

from __future__ import annotations

import numpy as np
from scipy import sparse

from dpatlas.graph.synthesis._measure import DEGREE_CLASSES
from dpatlas.graph.synthesis._stubs import balance_blocks, pair_across, pair_within

__all__ = ["BLOCK_CAPS", "BLOCK_EXPONENT", "coarsen", "generate", "merge_parts"]

MIN_BLOCK_DEGREE = 3
"""Nodes of lower target degree join no affinity block: all their stubs go to the block model.
(Blocks of degree-2 nodes are paths, and chained they stretch the diameter: email-Enron's
synthetic graphs at ε = 2 had a 17-hop path against the true 13.)"""
BLOCK_EXPONENT = 0.0
"""ξ in the block density ``scale · (d + 1)^-ξ``."""

BLOCK_CAPS: tuple[float | None, ...] = (1.25, 1.5, 2.0, 3.0, 5.0, None)
"""The caps tried, smallest first (public): block edges between two groups at most ``cap``
times their released count (``None``: no cap). The generator takes the smallest that still
reaches the released triangle count (:func:`~dpatlas.graph.synthesis._fit.fit_capped`)."""

BLOCK_CAP_FROM = 2
"""The cap applies to group pairs of which one has degree class ``>= BLOCK_CAP_FROM``
(:func:`~dpatlas.graph.synthesis._measure.degree_class`; a group is ``community · C + class``)."""


def _affinity_blocks(
    degrees: np.ndarray,
    labels: np.ndarray,
    gen: np.random.Generator,
    shrink: np.ndarray | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Members (by community, then degree *decreasing*), block start offsets and block sizes.

    From the top: a block takes the next nodes while its size stays at most one more than the
    degree of its newest (smallest) member — the largest group of top nodes that could all be
    adjacent. (BTER builds from the bottom; its leftover top block is then a few hubs apart
    from the dense core they belong with.)
    """
    idx = np.flatnonzero(degrees >= MIN_BLOCK_DEGREE)
    idx = idx[np.lexsort((gen.random(idx.size), -degrees[idx], labels[idx]))]
    lab = labels[idx].tolist()
    lim = (degrees[idx] * (1.0 if shrink is None else shrink[idx]) + 1.0).tolist()
    starts, size = [], 0
    for i in range(len(idx)):  # one step per node
        if size == 0 or lab[i] != lab[i - 1] or size + 1 > lim[i]:
            starts.append(i)
            size = 0
        size += 1
    start = np.asarray(starts, dtype=np.int64)
    return idx, start, np.diff(np.r_[start, idx.size])


def _unrank(p: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pair number ``p`` in ``0 .. s(s-1)/2 - 1`` of a block of size ``s`` as ``(i, j)``, i < j
    (row-major over the upper triangle; float root, then an exact integer correction)."""
    total = s * (s - 1) // 2
    i = s - 2 - np.floor((np.sqrt(8.0 * (total - 1 - p) + 1) - 1) / 2).astype(np.int64)
    i = np.clip(i, 0, np.maximum(s - 2, 0))
    for _ in range(2):
        i -= (i * s - i * (i + 1) // 2) > p  # first pair of row i lies after p
        i += ((i + 1) * s - (i + 1) * (i + 2) // 2) <= p  # row i ends before p
    return i, p - (i * s - i * (i + 1) // 2) + i + 1


def _block_edges(
    idx: np.ndarray, start: np.ndarray, size: np.ndarray, rho: np.ndarray, gen: np.random.Generator
) -> np.ndarray:
    """Each pair inside each block independently with the block's ``rho`` (all pairs at once:
    a block of size ``d + 1`` has ``d(d + 1)/2`` pairs, so about ``Σ d / 2`` in all)."""
    pairs = size * (size - 1) // 2
    block = np.repeat(np.arange(size.size), pairs)
    keep = gen.random(block.size) < np.clip(rho, 0.0, 1.0)[block]
    block = block[keep]
    local = (np.arange(keep.size) - np.repeat(np.cumsum(pairs) - pairs, pairs))[keep]
    i, j = _unrank(local, size[block])
    return np.column_stack([idx[start[block] + i], idx[start[block] + j]])


def _cap(
    groups: np.ndarray,
    idx: np.ndarray,
    start: np.ndarray,
    size: np.ndarray,
    rho: np.ndarray,
    mix: np.ndarray,
    cap: float,
) -> np.ndarray:
    """``G × G`` keep factors ``f_ab = min(1, cap · released_ab / expected_ab)``: kept
    with probability ``f_ab``, the block edges between groups ``a`` and ``b`` are in
    expectation at most ``cap`` times their released count (``mix`` holds stubs, its
    diagonal doubled); ``expected_ab = Σ_blocks ρ · pairs_ab``. Post-processing: it reads the
    block structure (target degrees, communities) and released counts only."""
    k = mix.shape[0]
    block = np.repeat(np.arange(size.size), size)
    weight = np.sqrt(np.clip(rho, 0.0, 1.0))[block]
    m = sparse.csr_matrix((weight, (block, groups[idx])), shape=(size.size, k))  # sums repeats
    expected = (m.T @ m).toarray()  # Σ_blocks ρ n_a n_b
    alone = np.bincount(groups[idx], weights=weight**2, minlength=k)  # Σ ρ n_a: no self-pairs
    expected[np.diag_indices(k)] = (np.diag(expected) - alone) / 2.0
    released = mix.astype(np.float64).copy()
    released[np.diag_indices(k)] /= 2.0
    keep = np.minimum(1.0, cap * released / np.maximum(expected, 1e-12))
    cls = np.arange(k) % DEGREE_CLASSES
    keep[np.maximum(cls[:, None], cls[None, :]) < BLOCK_CAP_FROM] = 1.0
    return keep


def _keys(e: np.ndarray, n: int) -> np.ndarray:
    e = e[e[:, 0] != e[:, 1]]
    return _distinct(np.minimum(e[:, 0], e[:, 1]) * n + np.maximum(e[:, 0], e[:, 1]))


def _distinct(keys: np.ndarray) -> np.ndarray:
    keys = np.sort(keys, kind="stable")
    return keys[np.r_[True, keys[1:] != keys[:-1]]] if keys.size else keys


def _merge(keys: np.ndarray, e: np.ndarray, n: int) -> np.ndarray:
    return _distinct(np.r_[keys, _keys(e, n)])


def generate(
    degrees: np.ndarray,
    labels: np.ndarray,
    groups: np.ndarray,
    blocks: np.ndarray,
    scale: float,
    gen: np.random.Generator,
    *,
    repair: int = 3,
    mix: np.ndarray | None = None,
    cap: float | None = None,
) -> np.ndarray:
    """Edges (sorted keys ``u·n + v``, ``u < v``) of one graph with target ``degrees``.

    ``labels`` (communities) delimit the affinity blocks; ``groups`` (``0 .. G-1``) are the
    block-model classes whose released ``G × G`` edge counts are ``blocks``. ``mix``, if
    given, is ``balance_blocks(blocks, group degree sums)`` computed once by the caller (it does
    not depend on ``scale``, so the triangle fit need not redo it every round). ``cap``: the
    block edges between two groups of degree class ``>= BLOCK_CAP_FROM`` are at most ``cap``
    times the released count (:func:`_cap`); ``None``: no cap.
    """
    n, k = degrees.size, blocks.shape[0]
    deg = np.asarray(degrees, dtype=np.int64)
    if mix is None:
        mix = balance_blocks(blocks, np.bincount(groups, weights=deg, minlength=k))
    idx, start, size = _affinity_blocks(deg, labels, gen)
    first = deg[idx[start + size - 1]] if idx.size else np.zeros(0, dtype=np.int64)
    rho = scale * (first + 1.0) ** -BLOCK_EXPONENT
    if cap is not None:  # an over-full group's blocks shrink first (size f d + 1)
        keep = _cap(groups, idx, start, size, rho, mix, cap)
        idx, start, size = _affinity_blocks(deg, labels, gen, np.diag(keep)[groups])
        first = deg[idx[start + size - 1]] if idx.size else np.zeros(0, dtype=np.int64)
        rho = scale * (first + 1.0) ** -BLOCK_EXPONENT
    edges = _block_edges(idx, start, size, rho, gen)
    if cap is not None:
        keep = _cap(groups, idx, start, size, rho, mix, cap)
        edges = edges[gen.random(edges.shape[0]) < keep[groups[edges[:, 0]], groups[edges[:, 1]]]]
    keys = _keys(edges, n)
    u, v = groups[keys // n], groups[keys % n]
    used = np.bincount(np.r_[u * k + v, v * k + u], minlength=k * k).reshape(k, k)
    room = np.maximum(mix - used, 0.0)
    have = np.bincount(np.r_[keys // n, keys % n], minlength=n)
    node = np.repeat(np.arange(n), np.maximum(deg - have, 0))
    com = groups[node]
    rows = room.sum(axis=1)
    room[rows <= 0, rows <= 0] = 1.0  # no room left: stay inside the group
    cum = np.cumsum(room / room.sum(axis=1)[:, None], axis=1) + np.arange(k)[:, None]
    pos = np.searchsorted(cum.ravel(), com + gen.random(node.size), side="right")
    target = np.clip(pos - com * k, 0, k - 1)
    same = target == com
    parts = [pair_within(com[same], node[same], gen)]
    node, com, target = node[~same], com[~same], target[~same]
    lo, hi = np.minimum(com, target), np.maximum(com, target)
    parts.append(pair_across(lo * k + hi, (com != lo).astype(np.int64), node, gen))
    keys = _merge(keys, np.concatenate(parts), n)
    for _ in range(repair):
        have = np.bincount(np.r_[keys // n, keys % n], minlength=n)
        miss = np.repeat(np.arange(n), np.maximum(deg - have, 0))
        if miss.size < 2:
            break
        keys = _merge(keys, pair_within(np.zeros(miss.size, dtype=np.int64), miss, gen), n)
    return keys


def merge_parts(blocks: np.ndarray, parts: int, gen: np.random.Generator) -> np.ndarray:
    """Communities of the ``parts`` partition classes: Louvain (networkx, ``seed`` from ``gen``)
    on the released block counts summed over the degree classes — the aggregation step of
    Louvain, run on released values only. ``blocks`` is ``(parts·C) × (parts·C)``, part-major,
    the raw noisy counts (summed before clipping, so that the noise of empty cells cancels).

    >>> b = np.array([[50, 1, 0, 0], [1, 50, 0, 0], [0, 0, 5, 60], [0, 0, 60, 5]])
    >>> merge_parts(b, 4, np.random.default_rng(0)).tolist()
    [0, 1, 2, 2]
    """
    import networkx as nx

    c = blocks.shape[0] // parts
    agg = np.maximum(blocks.reshape(parts, c, parts, c).sum(axis=(1, 3)), 0).astype(np.float64)
    graph = nx.Graph()
    graph.add_nodes_from(range(parts))
    rows, cols = np.triu_indices(parts)
    keep = agg[rows, cols] > 0
    graph.add_weighted_edges_from(
        zip(rows[keep].tolist(), cols[keep].tolist(), agg[rows, cols][keep].tolist(), strict=True)
    )
    out = np.zeros(parts, dtype=np.int64)
    if graph.number_of_edges():
        found = nx.community.louvain_communities(graph, seed=int(gen.integers(2**31)))
        for i, members in enumerate(sorted(found, key=min)):
            out[sorted(members)] = i
    return out


def coarsen(blocks: np.ndarray, parts: np.ndarray) -> np.ndarray:
    """Sum a symmetric ``(P·C) × (P·C)`` block matrix (part-major) into ``(Q·C) × (Q·C)`` by the
    map ``parts`` (``P`` entries in ``0 .. Q-1``): counts between merged classes.

    >>> coarsen(np.arange(16).reshape(4, 4), np.array([0, 0, 1, 1])).tolist()
    [[10, 18], [42, 50]]
    """
    p, q = parts.size, int(parts.max()) + 1 if parts.size else 0
    c = blocks.shape[0] // max(p, 1)
    lift = np.zeros((p * c, q * c), dtype=blocks.dtype)
    rows = np.arange(p * c)
    lift[rows, parts[rows // c] * c + rows % c] = 1
    return lift.T @ blocks @ lift
