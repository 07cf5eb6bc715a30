"""Tasks on pairs of rank blocks: sparse products reduced to tiny outputs (internal).

Rank space: node ``r`` has the ``r``-th largest degree; blocks hold CSR rows with rank columns.

* :func:`pair_levels`: for rows ``i`` and columns ``j > i``, ``P = A[rows] @ A[cols].T`` gives
  the common neighbours ``a_ij`` of every pair that has one; with ``c_ij = d_i + d_j - 2 x_ij``
  it returns ``levels[a] = max c_ij`` over the pairs with ``a_ij = a`` that a lower bound
  ``front`` of the frontier does not already dominate (skipping them leaves the frontier exact:
  see :mod:`dpatlas.graph.exact._pairs`).
* :func:`block_triangles`: triangles ``x < y < z`` (ranks) with ``z`` in the row block and ``x``
  in the middle block, as ``sum((L[rows, mid] @ L[mid]) * L[rows])`` with ``L`` the edges
  towards higher degree (``out(v)`` has at most ``sqrt(2m)`` nodes); every triangle is counted
  once, at its unique ``(z, x)`` block pair.
"""

from __future__ import annotations

import itertools

import numpy as np
import scipy.sparse as sp

__all__ = ["block_triangles", "pair_levels", "rows_of"]

BLOCK_FLOPS = 16_000_000
HUBS = 1024
EDGE_CHUNK = 8192

Block = tuple[int, int, np.ndarray, np.ndarray]


def rows_of(blocks: list[Block], lo: int, hi: int, n: int) -> sp.csr_array:
    """Rows ``lo .. hi - 1`` as an ``(hi - lo) x n`` CSR of ones, from blocks covering them."""
    ptrs, parts, base = [np.zeros(1, dtype=np.int64)], [], 0
    for b_lo, b_hi, indptr, indices in blocks:
        start, stop = max(lo, b_lo), min(hi, b_hi)
        if start >= stop:
            continue
        p = indptr[start - b_lo : stop - b_lo + 1]
        parts.append(indices[p[0] : p[-1]])
        ptrs.append(p[1:] - p[0] + base)
        base += int(p[-1] - p[0])
    indices = np.concatenate(parts) if parts else np.zeros(0, dtype=np.int32)
    out = sp.csr_array(
        (np.ones(indices.size, dtype=np.int32), indices, np.concatenate(ptrs)), shape=(hi - lo, n)
    )
    out.has_sorted_indices = True
    return out


def _chunks(work: np.ndarray) -> list[tuple[int, int]]:
    """Row ranges whose summed ``work`` stays near :data:`BLOCK_FLOPS` (at least one row)."""
    total = np.cumsum(work)
    if total.size == 0:
        return []
    marks = np.arange(1, int(total[-1]) // BLOCK_FLOPS + 1) * BLOCK_FLOPS
    cuts = np.unique(np.concatenate([[0], np.searchsorted(total, marks) + 1, [total.size]]))
    cuts = np.minimum(cuts, total.size)
    return [(int(a), int(b)) for a, b in itertools.pairwise(cuts) if a < b]


def pair_levels(
    rows: list[Block],
    row_range: tuple[int, int],
    cols: list[Block],
    col_range: tuple[int, int],
    front: np.ndarray,
    n: int,
) -> np.ndarray:
    """``levels[a]``: the largest undominated ``c_ij`` with ``a_ij = a`` (``-1`` for none)."""
    (r0, r1), (c0, c1) = row_range, col_range
    big, other = rows_of(rows, r0, r1, n), rows_of(cols, c0, c1, n)
    d_rows, d_cols = np.diff(big.indptr), np.diff(other.indptr)
    other_t = sp.csr_array(other.T)
    front = front.copy()
    levels = np.full(front.size, -1, dtype=np.int64)
    width = c1 - c0
    for s, e in _chunks(big @ np.diff(other_t.indptr).astype(np.int64)):
        block = big[s:e]
        p = block @ other_t
        r = np.repeat(np.arange(s, e, dtype=np.int64), np.diff(p.indptr))
        j, a = p.indices.astype(np.int64), p.data.astype(np.int64)
        bound = d_rows[r] + d_cols[j]
        cand = np.flatnonzero((j + c0 > r + r0) & (bound > front[a]))
        if cand.size == 0:
            continue
        r, j, a, bound = r[cand], j[cand], a[cand], bound[cand]
        inside = block[:, c0:c1]
        inside.sort_indices()
        keys = np.repeat(np.arange(s, e, dtype=np.int64), np.diff(inside.indptr)) * width
        keys += inside.indices
        wanted = r * width + j
        pos = np.minimum(np.searchsorted(keys, wanted), max(keys.size - 1, 0))
        edge = keys[pos] == wanted if keys.size else np.zeros(wanted.size, dtype=bool)
        np.maximum.at(levels, a, bound - 2 * edge)
        front = np.maximum(front, np.maximum.accumulate(levels[::-1])[::-1])
    return levels


def _lower(blocks: list[Block], lo: int, hi: int, cols: int, n: int) -> sp.csr_array:
    """Rows ``lo .. hi - 1`` of ``L`` (neighbours of smaller rank), columns ``< cols``."""
    full = rows_of(blocks, lo, hi, n)
    rank = np.repeat(np.arange(lo, hi, dtype=np.int64), np.diff(full.indptr))
    keep = full.indices < np.minimum(rank, cols)
    counts = np.concatenate([[0], np.cumsum(keep, dtype=np.int64)])
    out = sp.csr_array(
        (full.data[keep], full.indices[keep], counts[full.indptr]), shape=(hi - lo, cols)
    )
    out.has_sorted_indices = True
    return out


def _bits(low: sp.csr_array, hubs: int) -> np.ndarray:
    """Bitsets (``rows x ceil(hubs / 64)`` words) of each row's neighbours among ranks ``< hubs``."""
    words = max(1, -(-hubs // 64))
    part = low[:, :hubs]
    rows = np.repeat(np.arange(part.shape[0], dtype=np.int64), np.diff(part.indptr))
    cols = part.indices.astype(np.int64)
    flat = np.zeros(part.shape[0] * words, dtype=np.uint64)
    one = np.left_shift(np.uint64(1), (cols & 63).astype(np.uint64))
    np.bitwise_or.at(flat, rows * words + (cols >> 6), one)
    return flat.reshape(part.shape[0], words)


def block_triangles(
    rows: list[Block],
    row_range: tuple[int, int],
    mid: list[Block],
    mid_range: tuple[int, int],
    n: int,
) -> int:
    """Triangles ``y < x < z`` (ranks) with ``z`` in ``row_range`` and ``x`` in ``mid_range``.

    Counted at the edge ``z -> x``: those whose ``y`` is one of the :data:`HUBS` top ranks by
    AND + popcount of hub bitsets, the others by the
    sparse product on the non-hub columns.
    """
    (z0, z1), (k0, k1) = row_range, mid_range
    low_rows = _lower(rows, z0, z1, k1, n)
    low_mid = _lower(mid, k0, k1, k1, n)
    step = low_rows[:, k0:k1]
    hubs = min(HUBS, k1)
    total = _hub_triangles(step, _bits(low_rows, hubs), _bits(low_mid, hubs))
    if hubs == k1:
        return total
    shift = max(hubs - k0, 0)  # x >= hubs too, as x > y
    step, low_mid, low_rows = step[:, shift:], low_mid[shift:, hubs:], low_rows[:, hubs:]
    for s, e in _chunks(step @ np.diff(low_mid.indptr).astype(np.int64)):
        paths = step[s:e] @ low_mid
        total += int(paths.multiply(low_rows[s:e]).sum(dtype=np.int64))
    return total


def _hub_triangles(step: sp.csr_array, bits_rows: np.ndarray, bits_mid: np.ndarray) -> int:
    """``sum over edges z -> x of |out(z) ∩ out(x) ∩ hubs|``, in chunks of edges."""
    z = np.repeat(np.arange(step.shape[0], dtype=np.int64), np.diff(step.indptr))
    x = step.indices.astype(np.int64)
    busy_rows, busy_mid = np.asarray(bits_rows.any(axis=1)), np.asarray(bits_mid.any(axis=1))
    both = busy_rows[z] & busy_mid[x]
    z, x = z[both], x[both]
    total = 0
    for start in range(0, z.size, EDGE_CHUNK):
        stop = start + EDGE_CHUNK
        total += int(np.bitwise_count(bits_rows[z[start:stop]] & bits_mid[x[start:stop]]).sum())
    return total
