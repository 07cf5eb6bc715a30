"""Exact triangle counting: hub bitsets plus a sparse product for the rest (internal).

Vertices are ranked by decreasing degree and every edge is oriented towards its higher-ranked
endpoint, so ``out(v)`` (the higher-ranked neighbours of ``v``) has at most ``sqrt(2m)``
elements. A triangle ``x < y < z`` (ranks) is counted once, at the edge ``z -> y``, as the
common out-neighbour ``x`` of ``z`` and ``y``:

* if ``x`` is one of the ``64 * words`` top-ranked vertices (the hubs ``H``), by a popcount of
  the AND of the bitsets ``out(z) ∩ H`` and ``out(y) ∩ H``, over all oriented edges;
* otherwise ``x, y, z`` all lie outside ``H``, and the triangle is counted by ``(L @ L) * L``
  on the edges outside ``H``, in row blocks of bounded work (scipy sparse products).
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp

from dpatlas.graph import _pairs

HUB_WORDS = 16
BITSET_BUDGET_WORDS = 1 << 25
EDGE_CHUNK = 32768


def count_triangles(
    indptr: np.ndarray, indices: np.ndarray, deg: np.ndarray, order: np.ndarray
) -> int:
    """Triangles of the simple graph with symmetric CSR ``(indptr, indices)``; ``order`` lists
    the vertices by decreasing degree."""
    n = deg.size
    if indices.size == 0:
        return 0
    rank = np.empty(n, dtype=indices.dtype)  # int32 when it fits: half the memory traffic
    rank[order] = np.arange(n, dtype=indices.dtype)
    rows = np.repeat(rank, deg)
    cols = rank[indices]
    keep = cols < rows
    words = int(max(1, min(HUB_WORDS, -(-n // 64), BITSET_BUDGET_WORDS // n)))
    hubs = _hub_triangles(rows[keep], cols[keep], n, words)
    return hubs + _sparse_triangles(indptr, indices, keep & (cols >= 64 * words), n)


def _hub_triangles(src: np.ndarray, dst: np.ndarray, n: int, words: int) -> int:
    """Triangles whose top-ranked vertex is a hub: sum over edges of |out(src) ∩ out(dst) ∩ H|."""
    hub = dst < 64 * words
    flat = np.zeros(n * words, dtype=np.uint64)
    one = np.left_shift(np.uint64(1), (dst[hub] & 63).astype(np.uint64))
    np.add.at(flat, src[hub] * words + (dst[hub] >> 6), one)  # distinct bits: add == or
    bits = flat.reshape(n, words)
    busy = np.zeros(n, dtype=bool)
    busy[src[hub]] = True
    both = busy[src] & busy[dst]
    src, dst = src[both], dst[both]
    total = 0
    for start in range(0, src.size, EDGE_CHUNK):
        both_bits = np.take(bits, src[start : start + EDGE_CHUNK], axis=0)
        both_bits &= np.take(bits, dst[start : start + EDGE_CHUNK], axis=0)
        total += int(np.bitwise_count(both_bits).sum())
    return total


def _sparse_triangles(indptr: np.ndarray, indices: np.ndarray, keep: np.ndarray, n: int) -> int:
    """``sum((L @ L) * L)`` for the oriented edges selected by ``keep`` (CSR order)."""
    counts = np.concatenate([[0], np.cumsum(keep, dtype=np.int64)])
    low = sp.csr_array(
        (np.ones(int(counts[-1]), dtype=np.int32), indices[keep], counts[indptr]), shape=(n, n)
    )
    low.has_sorted_indices = True
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
