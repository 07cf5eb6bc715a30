"""Exact triangle counting: the compact-forward algorithm with hub bitsets, compiled (internal).

Vertices are ranked by decreasing degree and every edge is oriented towards its higher-ranked
endpoint, so ``out(v)`` (the higher-ranked neighbours of ``v``) has at most ``sqrt(2m)``
elements (Schank and Wagner 2005; Latapy 2008). A triangle ``x < y < z`` (ranks) is counted
once, at the edge ``z -> y``, as the common out-neighbour ``x`` of ``z`` and ``y``:

* if ``x`` is one of the ``64 * words`` top-ranked vertices (the hubs), by a popcount of the
  AND of the hub bitsets of ``z`` and ``y`` (``words`` machine words per vertex);
* otherwise by marking the non-hub part of ``out(z)`` in a flag array and scanning the
  non-hub part of ``out(y)`` (out-lists are built sorted by rank, hubs first).

The work is at most the sum over oriented edges ``z -> y`` of ``|out(y)|``, ``O(m sqrt(m))``;
hubs take most of it on the SNAP graphs (docs/design-notes.md). The memory is one oriented copy of the edges (one
index each), ``n`` flags and ``n * words`` bitset words, capped at :data:`BITSET_BUDGET_WORDS`.

Why compiled code: the per-edge set intersection is a data-dependent inner loop. Numpy can only
express it by materialising wedges or bitsets per edge (the previous implementation: hub bitsets
gathered per edge plus a scipy sparse product for the rest); this kernel is faster than that
(docs/design-notes.md) and needs no blocking to bound its memory. It is cached on disk
(``cache=True``): the first call after an install compiles it, once.
"""

from __future__ import annotations

import numba
import numpy as np

HUB_WORDS = 16
BITSET_BUDGET_WORDS = 1 << 25


def count_triangles(indptr: np.ndarray, indices: np.ndarray, order: np.ndarray) -> int:
    """Triangles of the simple graph with symmetric CSR ``(indptr, indices)``; ``order`` lists
    the vertices by decreasing degree."""
    n = order.size
    if indices.size == 0:
        return 0
    rank = np.empty(n, dtype=indices.dtype)
    rank[order] = np.arange(n, dtype=indices.dtype)
    words = int(max(1, min(HUB_WORDS, -(-n // 64), BITSET_BUDGET_WORDS // n)))
    return int(_forward(indptr, indices, rank, order.astype(indices.dtype), words))


@numba.njit(inline="always")
def _popcount(x: np.uint64) -> np.uint64:  # pragma: no cover (compiled)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return (x * np.uint64(0x0101010101010101)) >> np.uint64(56)


@numba.njit(cache=True, nogil=True)
def _forward(
    indptr: np.ndarray, indices: np.ndarray, rank: np.ndarray, order: np.ndarray, words: int
) -> int:  # pragma: no cover (compiled)
    n = rank.size
    hubs = 64 * words
    optr = np.zeros(n + 1, dtype=np.int64)  # the oriented graph, in rank space
    for u in range(n):
        ru = rank[u]
        for k in range(indptr[u], indptr[u + 1]):
            if rank[indices[k]] < ru:
                optr[ru + 1] += 1
    for r in range(n):
        optr[r + 1] += optr[r]
    out = np.empty(optr[n], dtype=indices.dtype)
    fill = optr[:-1].copy()
    bits = np.zeros((n, words), dtype=np.uint64)
    for r in range(n):  # in rank order: every out-list comes out sorted
        v = order[r]
        for k in range(indptr[v], indptr[v + 1]):
            w = rank[indices[k]]
            if w > r:
                out[fill[w]] = r
                fill[w] += 1
                if r < hubs:
                    bits[w, r >> 6] |= np.uint64(1) << np.uint64(r & 63)
    rest = np.empty(n, dtype=np.int64)  # where each out-list leaves the hubs
    for r in range(n):
        j = optr[r]
        while j < optr[r + 1] and out[j] < hubs:
            j += 1
        rest[r] = j
    marked = np.zeros(n, dtype=np.uint8)
    total = 0
    for z in range(n):
        for k in range(rest[z], optr[z + 1]):
            marked[out[k]] = 1
        for k in range(optr[z], optr[z + 1]):
            y = out[k]
            common = 0
            for i in range(words):
                common += _popcount(bits[z, i] & bits[y, i])
            for j in range(rest[y], optr[y + 1]):
                common += marked[out[j]]  # no branch: faster than `if marked[...]`
            total += common
        for k in range(rest[z], optr[z + 1]):
            marked[out[k]] = 0
    return total
