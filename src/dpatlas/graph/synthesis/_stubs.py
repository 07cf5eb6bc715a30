"""Stub matching for :func:`~dpatlas.graph.synthesis.synthetic.synthesize` (internal).

Everything here is post-processing: the generators read only released (noisy, post-processed)
parameters and public randomness, never the graph. Their randomness comes from a numpy
``Generator`` seeded from the release's :class:`~dpatlas.core.rng.RandomSource`; it needs no
secrecy (the privacy of a synthetic graph rests on the noise of the mechanisms that produced its
parameters), only reproducibility under a seed.

Everything is vectorised: sorts and searches over stubs, no Python loop per edge.
"""

from __future__ import annotations

import numpy as np

__all__ = ["balance_blocks", "pair_across", "pair_within", "shift_to_total"]


def shift_to_total(noisy: np.ndarray) -> np.ndarray:
    """Non-negative counts from noisy ones, keeping the noisy total: ``max(y - s, 0)`` with the
    shift ``s >= 0`` that makes the sum ``max(Σ y, 0)`` (clipping alone would add the positive
    half of the noise of every empty cell).

    >>> shift_to_total(np.array([10.0, -3.0, 2.0, -1.0])).tolist()
    [8.0, 0.0, 0.0, 0.0]
    """
    y = np.asarray(noisy, dtype=np.float64)
    total = max(float(y.sum()), 0.0)
    top = np.sort(y)[::-1]
    keep = np.cumsum(top) - np.arange(1, top.size + 1) * top  # mass above each candidate shift
    j = int(np.searchsorted(keep, total, side="right"))  # cells kept positive
    if total <= 0 or j == 0:
        return np.zeros_like(y)
    shift = max((float(top[:j].sum()) - total) / j, 0.0)
    return np.maximum(y - shift, 0.0)


def balance_blocks(blocks: np.ndarray, stubs: np.ndarray, rounds: int = 200) -> np.ndarray:
    """Scale a symmetric non-negative ``K × K`` matrix of edge counts (diagonal: edges inside)
    into stub counts (diagonal doubled) whose row sums are ``stubs`` (symmetric Sinkhorn).

    A community without any released edge keeps its stubs inside.

    >>> balance_blocks(np.array([[1, 1], [1, 1]]), np.array([3.0, 3.0])).round(2).tolist()
    [[2.0, 1.0], [1.0, 2.0]]
    """
    m = np.maximum(np.asarray(blocks, dtype=np.float64), 0.0)
    m = m + np.diag(np.diag(m))
    target = np.asarray(stubs, dtype=np.float64)
    empty = m.sum(axis=1) <= 0
    m[empty, empty] = 1.0
    for _ in range(rounds):
        rows = m.sum(axis=1)
        a = np.sqrt(np.divide(target, rows, out=np.zeros_like(target), where=rows > 0))
        m *= a[:, None] * a[None, :]
        if np.all(np.abs(a - 1.0) < 1e-9):
            break
    return m


def _groups(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Start, size and rank-inside-group of each run of equal sorted ``keys``."""
    start = np.r_[0, np.flatnonzero(keys[1:] != keys[:-1]) + 1] if keys.size else np.zeros(0, int)
    size = np.diff(np.r_[start, keys.size])
    rank = np.arange(keys.size) - np.repeat(start, size)
    return start, size, rank


def pair_within(keys: np.ndarray, nodes: np.ndarray, gen: np.random.Generator) -> np.ndarray:
    """A uniform random matching of the stubs ``nodes`` inside each group of equal ``keys``
    (one stub of an odd group stays single)."""
    order = np.lexsort((gen.random(keys.size), keys))
    k, v = keys[order], nodes[order]
    _, size, rank = _groups(k)
    left = np.flatnonzero((rank % 2 == 0) & (rank + 1 < np.repeat(size, size)))
    return np.column_stack([v[left], v[left + 1]])


def pair_across(
    pair: np.ndarray, side: np.ndarray, nodes: np.ndarray, gen: np.random.Generator
) -> np.ndarray:
    """Match side-0 stubs with side-1 stubs of the same ``pair`` id uniformly at random; the
    surplus of the larger side stays single."""
    key = pair * 2 + side
    order = np.lexsort((gen.random(key.size), key))
    k, v = key[order], nodes[order]
    start, size, rank = _groups(k)
    head = k[start]
    pos = np.minimum(np.searchsorted(head, head ^ 1), max(head.size - 1, 0))
    other = np.where((head.size > 0) & (head[pos] == (head ^ 1)), pos, -1)
    grp = np.repeat(np.arange(start.size), size)
    mate = other[grp]
    ok = (k % 2 == 0) & (mate >= 0)
    ok[ok] &= rank[ok] < size[mate[ok]]
    a = np.flatnonzero(ok)
    return np.column_stack([v[a], v[start[mate[a]] + rank[a]]])
