"""Pruned all-pairs search for the (common neighbours, c) Pareto frontier (internal).

For a pair ``i != j``: ``a_ij`` common neighbours and ``c_ij = d_i + d_j - 2 x_ij``. The search
returns ``front[a] = max{c_ij : a_ij >= a}`` for ``a = 0 .. d_max + 1`` (``-1`` where no pair
has ``a_ij >= a``), from which the frontier, ``a_max`` and ``c_max`` follow.

* Level 0 (every pair, including those with no common neighbour): a scan of the top-degree
  vertices (:func:`c_max_all_pairs`).
* Levels >= 1: vertices in decreasing degree order ("rank"); for a block of vertices, one sparse
  product ``A[block] @ A[:, cols]`` gives ``a_ij`` for their partners ``j`` of lower rank. A
  partner with degree ``d_j <= d_i`` has ``a_ij <= d_j`` and ``c_ij <= d_i + d_j``, so it can
  only add to the frontier if ``front[d_j] < d_i + d_j``; since ``front`` is non-increasing this
  holds exactly for ``d_j >= t_i``: partners with smaller degree are skipped (they are dominated
  by a pair already found, so the frontier is exact), and the search stops when no ``t_i <= d_i``
  exists (every later pair is dominated). A first block gives the exact values of all pairs among
  the ``SEED_VERTICES`` top-degree vertices, which usually prunes everything else at once.
  The partner columns form a window of ranks, rebuilt when half of it is no longer needed.
  Memory is bounded by the block's product size (``BLOCK_FLOPS``).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import scipy.sparse as sp

BLOCK_FLOPS = 4_000_000
MAX_BLOCK_ROWS = 4096
SEED_VERTICES = 48


def c_max_all_pairs(ds: np.ndarray, row: Callable[[int], np.ndarray]) -> int:
    """``max_{p != q} ds[p] + ds[q] - 2 x_pq`` over all pairs of ranks (``ds``: degrees by rank).

    ``row(p)`` gives the ranks of the neighbours of the vertex of rank ``p``. For each rank
    ``p``, its best partner of lower rank is its first neighbour (value ``d_p + d_q - 2``) or its
    first non-neighbour (``d_p + d_q``) after it; stop once ``d_p + d_{p+1}`` cannot beat the best
    value. Only top-degree vertices are visited.
    """
    best = 0
    for p in range(ds.size - 1):
        if ds[p] + ds[p + 1] <= best:
            break
        nb = row(p)
        after = nb[nb > p] - (p + 1)
        if after.size:
            best = max(best, int(ds[p] + ds[p + 1 + after.min()]) - 2)
        taken = np.zeros(after.size + 1, dtype=bool)
        taken[after[after <= after.size]] = True
        q = p + 1 + int(np.argmin(taken))
        if q < ds.size:
            best = max(best, int(ds[p] + ds[q]))
    return best


def _columns(a: sp.csr_array, order: np.ndarray, lo: int, hi: int) -> sp.csr_array:
    """``A[:, order[lo:hi]]`` as an ``n x (hi - lo)`` CSR: column ``c`` is the vertex of rank
    ``lo + c``. Costs the degrees of those vertices plus ``n``."""
    return sp.csr_array(a[order[lo:hi]].T)


def _threshold(front: np.ndarray, d: int) -> int | None:
    """Smallest ``t`` in ``[1, d]`` with ``front[t] < d + t`` (None when there is none)."""
    ts = np.arange(1, d + 1)
    ok = front[1 : d + 1] < d + ts
    return int(ts[np.argmax(ok)]) if ok.any() else None


def reach(front: np.ndarray, ds: np.ndarray, r0: int, seed: int) -> int | None:
    """End of the ranks that can still pair with rank ``r0`` undominated (None: search is over).

    Partners need ``d_j >= t`` (:func:`_threshold`), i.e. a rank ``< end``; the search is over
    when no such rank lies past ``r0`` and the first ``seed`` ranks (their pairs are scanned).
    """
    t = _threshold(front, int(ds[r0]))
    if t is None:
        return None
    end = int(np.searchsorted(-ds, -t, side="right"))
    return None if end <= max(r0 + 1, seed) else end


def _scan(
    a: sp.csr_array,
    order: np.ndarray,
    ds: np.ndarray,
    cols: sp.csr_array,
    lo: int,
    rows: tuple[int, int],
    levels: np.ndarray,
    front: np.ndarray,
) -> np.ndarray:
    """Add the pairs (rank ``i`` in ``rows``, rank ``j > i`` among the columns ``cols``, which
    start at rank ``lo``) to ``levels``; return the updated ``front``.

    ``c_ij`` is first bounded by ``d_i + d_j``; the edge indicator is looked up only for the
    few pairs that this bound does not already dominate."""
    r0, r1 = rows
    block = order[r0:r1]
    p = a[block] @ cols
    small = np.int32 if ds[0] < 2**30 else np.int64  # halves the memory traffic
    r = np.repeat(np.arange(r1 - r0, dtype=small), np.diff(p.indptr))
    j, aa = p.indices, p.data
    bound = ds[r0:r1].astype(small)[r] + ds[lo : lo + cols.shape[1]].astype(small)[j]
    cand = np.flatnonzero((bound > front.astype(small)[aa]) & (j > r + (r0 - lo)))
    if cand.size == 0:
        return front
    r, j, aa = r[cand].astype(np.int64), j[cand].astype(np.int64) + lo, aa[cand]
    cc = bound[cand].astype(np.int64)
    x = cols[block]
    width = cols.shape[1]
    edge_keys = np.repeat(np.arange(r1 - r0), np.diff(x.indptr)) * width + x.indices
    cc = cc - 2 * np.isin(r * width + (j - lo), edge_keys)
    better = cc > front[aa]
    if not better.any():
        return front
    np.maximum.at(levels, aa[better], cc[better])
    return np.maximum.accumulate(levels[::-1])[::-1]


def frontier_levels(a: sp.csr_array, deg: np.ndarray, order: np.ndarray) -> np.ndarray:
    """``front[k] = max{c_ij : a_ij >= k}`` for ``k = 0 .. d_max + 1`` (``-1`` when empty);
    ``order`` lists the vertices by decreasing degree."""
    n = deg.size
    levels = np.full((int(deg.max()) if n else 0) + 2, -1, dtype=np.int64)
    if n < 2:
        return levels
    rank = np.empty(n, dtype=np.int64)
    rank[order] = np.arange(n)
    ds = deg[order]
    levels[0] = c_max_all_pairs(
        ds, lambda p: rank[a.indices[a.indptr[order[p]] : a.indptr[order[p] + 1]]]
    )
    seed = min(n, SEED_VERTICES)
    front = _scan(a, order, ds, _columns(a, order, 0, seed), 0, (0, seed), levels, levels.copy())
    cols, lo, hi, r0, rows = None, 0, n, 0, 1
    while r0 < hi - 1 and ds[r0] >= 1:
        end = reach(front, ds, r0, seed)
        if end is None:
            break
        if cols is None or 2 * (end - r0) < hi - lo:
            lo, hi = r0 + 1, end
            cols = _columns(a, order, lo, hi)
            counts = np.diff(cols.indptr)
        stop = min(r0 + rows, end - 1)
        work = np.cumsum(a[order[r0:stop]] @ counts)
        stop = r0 + max(1, int(np.searchsorted(work, BLOCK_FLOPS, side="right")))
        front = _scan(a, order, ds, cols, lo, (r0, stop), levels, front)
        r0, rows = stop, min(2 * rows, MAX_BLOCK_ROWS)
    return front
