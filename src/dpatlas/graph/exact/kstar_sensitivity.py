"""Exact k-star counts and their local sensitivity at distance s under edge-DP (NOT private).

A k-star is a node with k chosen neighbours: ``S_k(G) = Σ_v C(d_v, k)`` (2-stars are wedges).
Write ``g(x) = C(x, k-1)``, ``c = n - 2`` and, for a pair ``i != j``, ``e_i = d_i - x_ij`` (the
degree of ``i`` not counting ``j``). Since ``C(d+1, k) - C(d, k) = C(d, k-1)``, flipping
``{i, j}`` changes ``S_k`` by exactly ``g(e_i) + g(e_j)`` (adding: degrees ``e_i, e_j`` grow by
one; removing: ``e_i + 1, e_j + 1`` shrink by one). So ``LS(G) = max_{i != j} g(e_i) + g(e_j)``.

Theorem (``LS⁽ˢ⁾``, the largest local sensitivity within ``s`` flips; cf. Karwa, Raskhodnikova,
Smith, Yaroslavtsev, VLDB 2011). ``LS⁽ˢ⁾(G) = max_{i != j} V_s(e_i, e_j)`` with
``V_s(x, y) = max { g(x + a) + g(y + b) : a + b <= s, x + a <= c, y + b <= c }``.
Proof. ``e_i`` counts edges ``{i, w}``, ``w ∉ {i, j}``; one flip changes ``e_i + e_j`` by at most
1 (the only edge touching both is ``{i, j}``, which counts in neither) and never above ``c``, so
every graph within ``s`` flips has ``(e'_i, e'_j)`` in the set. Conversely ``a`` flips adding
edges ``{i, w}`` to non-neighbours ``w != j`` (``c - e_i >= a`` of them) and ``b`` for ``j``
reach every point of it. ``g`` is convex (``k >= 2``), so on the segment ``a + b = s`` without
caps the maximum is at an end: ``a = min(s, c - x)`` or ``a = max(0, s - (c - y))``; if
``s >= 2c - x - y`` both are capped and ``V_s = 2 g(c)``, the global sensitivity ``GS``.
``V_s`` is non-decreasing in ``x`` and ``y``, so only pairs on the Pareto frontier of
``(max e, min e)`` matter: in decreasing-degree order, a node's best later partner is its first
later non-neighbour ``(d_p, d_q)`` or its first later neighbour ``(d_p - 1, d_q - 1)``; the scan
stops when a candidate dominates ``(d_p, d_{p+1})``, which bounds every later pair.

``LS⁽ᵗ⁾`` is a ladder ((L1) ``LS⁽⁰⁾ = LS``; (L2) ``LS⁽ᵗ⁾(G) <= LS⁽ᵗ⁺¹⁾(G')`` since graphs
within ``t`` of ``G`` are within ``t + 1`` of ``G'``), so :func:`~dpatlas.core.noise.local.ladder.ladder_mechanism`
and :func:`~dpatlas.core.noise.local.smooth.smooth_bound` apply unchanged, with ``GS = 2 C(n-2, k-1)``.

Interval (``interval_epsilon``), 2-stars: ``g(x) = x``, so ``V_s(x, y) = min(x + y + s, 2c)`` and
the ladder is exactly ``min(GS, c_max + s)`` with ``c_max = max_{i != j} e_i + e_j`` (the
triangle module's ``c_max``, edge sensitivity 1, see
:func:`~dpatlas.graph.exact.triangle_sensitivity.ladder_upper_bound`). The release buys ``ĉ = c_max + Z``
(``Z`` discrete Laplace of scale ``1/interval_epsilon``) and the interval is the certified rule
of :mod:`dpatlas.core.interval` on the steep ladder (the ladder *is* steep): coverage at least
the level over the count noise and ``Z`` together, for every graph.

Larger stars (``k >= 3``): the ladder climbs faster than one per step, so the steep family does
not apply. The release buys ``d̂ = d_max + Z`` (``d_max`` has edge sensitivity 1) and the
interval is the same certified rule on ladders that depth-dominate every k-star ladder with
``d_max <= D`` (:mod:`dpatlas.graph.exact.kstar_envelope`; smooth: the pair ladder
``V(D, D)``).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpatlas.graph.input.edgegraph import EdgeGraph

__all__ = [
    "kstar_exact",
    "kstar_frontier",
    "kstar_ladder",
    "ladder_of_pairs",
    "star_gain",
    "star_global_sensitivity",
]

LIMIT = 2**61


def check_k(k: Any) -> int:
    """``k`` as an int ``>= 2`` (``k = 1`` counts ``2 m``: use ``edge_count``)."""
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)):
        raise TypeError(f"k must be an integer >= 2, got {k!r}")
    if k < 2:
        raise ValueError(f"k must be >= 2, got {k}; k = 1 counts 2 m: use edge_count")
    return int(k)


def star_global_sensitivity(n: int, k: int) -> int:
    """``GS = 2 C(n - 2, k - 1)``, refused (``ValueError``) when it reaches ``2**61``.

    Public values only (``n``, ``k``): the releases check it before the graph is read.

    Examples
    --------
    >>> star_global_sensitivity(5, 2), star_global_sensitivity(2, 3)
    (6, 0)
    """
    top = math.comb(max(n - 2, 0), k - 1)
    if 2 * top >= LIMIT:
        raise ValueError(
            f"k={k} is too large for n={n}: the global sensitivity 2 C(n-2, k-1) exceeds 2**61; "
            "use a smaller k"
        )
    return 2 * top


def star_gain(n: int, k: int) -> np.ndarray:
    """``g(x) = C(x, k - 1)`` for ``x = 0 .. max(n - 2, 0)`` as int64 (exact, overflow-checked)."""
    star_global_sensitivity(n, k)
    return np.array([math.comb(x, k - 1) for x in range(max(n - 2, 0) + 1)], dtype=np.int64)


def kstar_exact(g: EdgeGraph, k: int) -> int:
    """``Σ_v C(d_v, k)``, exact (a Python int: it may exceed int64; releases clamp it).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpatlas.graph.input.edgegraph import as_edge_graph
    >>> kstar_exact(as_edge_graph(nx.star_graph(4)), 2), kstar_exact(as_edge_graph(nx.star_graph(4)), 3)
    (6, 4)
    """
    counts = np.bincount(np.asarray(g.degrees, dtype=np.int64))
    return sum(int(c) * math.comb(d, k) for d, c in enumerate(counts.tolist()) if c)


def kstar_frontier(g: EdgeGraph) -> np.ndarray:
    """Pareto frontier of ``(max(e_i, e_j), min(e_i, e_j))`` over pairs, shape (f, 2), int64."""
    deg = np.asarray(g.degrees, dtype=np.int64)
    if g.n < 2:
        return np.zeros((0, 2), dtype=np.int64)
    order = np.argsort(-deg, kind="stable")
    rank = np.empty(g.n, dtype=np.int64)
    rank[order] = np.arange(g.n)
    ds = deg[order]
    cands: list[tuple[int, int]] = []
    for p in range(g.n - 1):
        found = np.array(cands, dtype=np.int64).reshape(-1, 2)
        if np.any((found[:, 0] >= ds[p]) & (found[:, 1] >= ds[p + 1])):
            break  # every later pair is bounded by (d_p, d_{p+1}), dominated
        v = order[p]
        nb = rank[g.indices[g.indptr[v] : g.indptr[v + 1]]]
        after = np.sort(nb[nb > p])
        if after.size:
            cands.append((int(ds[p]) - 1, int(ds[after[0]]) - 1))
        gaps = np.flatnonzero(after != np.arange(p + 1, p + 1 + after.size))
        q = p + 1 + (int(gaps[0]) if gaps.size else after.size)
        if q < g.n:
            cands.append((int(ds[p]), int(ds[q])))
    arr = np.unique(np.array(cands, dtype=np.int64).reshape(-1, 2), axis=0)[::-1]
    keep = arr[:, 1] > np.concatenate([[-1], np.maximum.accumulate(arr[:-1, 1])])
    return arr[keep]


def ladder_of_pairs(pairs: np.ndarray, gain: np.ndarray, s: np.ndarray) -> np.ndarray:
    """``max over (x, y) in pairs of V_s(x, y)`` for each ``s`` (module docstring), int64."""
    c = gain.size - 1
    out = np.zeros(s.size, dtype=np.int64)
    for x, y in np.clip(np.asarray(pairs, dtype=np.int64).reshape(-1, 2), 0, c):
        a_hi = np.minimum(s, c - x)
        a_lo = np.maximum(0, s - (c - y))
        ok = a_lo <= a_hi
        hi = gain[x + a_hi] + gain[np.minimum(y + s - a_hi, c)]
        lo = gain[np.minimum(x + a_lo, c)] + gain[np.minimum(y + s - a_lo, c)]
        v = np.where(ok, np.maximum(hi, lo), 2 * gain[c])
        out = np.maximum(out, v)
    return out


def kstar_ladder(g: EdgeGraph, k: int) -> np.ndarray:
    """``LS⁽ˢ⁾`` for ``s = 0, 1, ...`` up to the first ``s`` where it equals ``GS`` (NOT private).

    Examples
    --------
    >>> import networkx as nx
    >>> from dpatlas.graph.input.edgegraph import as_edge_graph
    >>> kstar_ladder(as_edge_graph(nx.path_graph(5)), 2).tolist()
    [4, 5, 6]
    """
    gain = star_gain(g.n, check_k(k))
    gs = 2 * int(gain[-1])
    if gs == 0:
        return np.zeros(1, dtype=np.int64)
    front = kstar_frontier(g)
    c = gain.size - 1
    s = np.arange(int((2 * c - front.sum(axis=1)).max()) + 1, dtype=np.int64)
    values = ladder_of_pairs(front, gain, s)
    return values[: int(np.argmax(values >= gs)) + 1]
