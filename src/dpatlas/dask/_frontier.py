"""The exact ``(a, c)`` frontier of an edge list laid out on Dask, in waves (internal).

``front[a] = max{c_ij : a_ij >= a}`` over all pairs ``i != j``. Level 0 (every pair, also those
without a common neighbour) comes from the degrees and the rows of the few highest-degree
nodes, on the driver. Levels ``>= 1``: block ``0`` with itself first, then each row block ``I``
(highest degrees first) with the blocks ``J >= I`` up to the last rank that can still hold an
undominated pair (the pruning of :mod:`dpatlas.graph.exact._pairs`: a partner ``j`` of degree
``d_j < t`` is dominated by a pair already found). Every wave's tasks run in parallel; the
driver chooses wave ``I`` from the levels of the waves before ``I - 1`` and merges wave ``I - 1``
while ``I`` runs: a lower bound of the frontier, however old, only prunes dominated pairs, so
the result is exact (a fresher bound only prunes more).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpatlas.dask._blocks import pair_levels
from dpatlas.dask._layout import Layout
from dpatlas.graph.exact._pairs import c_max_all_pairs, reach

__all__ = ["frontier"]


def _row_reader(run: Any, layout: Layout) -> Any:
    cache: dict[int, Any] = {}

    def row(p: int) -> np.ndarray:
        b = int(np.searchsorted(layout.bounds, p, side="right")) - 1
        if b not in cache:
            cache[b] = run.gather(layout.blocks[b])
        lo, _, indptr, indices = cache[b]
        return indices[indptr[p - lo] : indptr[p - lo + 1]].astype(np.int64)

    return row


def _wave(run: Any, layout: Layout, i: int, first: int, reach: int, front: Any) -> list:
    lo, hi = int(layout.bounds[i]), int(layout.bounds[i + 1])
    tasks = []
    for j in range(first, len(layout.blocks)):
        c0, c1 = max(int(layout.bounds[j]), lo), min(int(layout.bounds[j + 1]), reach)
        if c0 < c1:
            tasks.append(
                run.submit(
                    pair_levels,
                    [layout.blocks[i]],
                    (lo, hi),
                    [layout.blocks[j]],
                    (c0, c1),
                    front,
                    layout.n,
                    pure=False,
                    priority=1,  # ahead of the triangle tasks, which fill the gaps
                )
            )
    return tasks


def frontier(run: Any, layout: Layout) -> np.ndarray:
    """``front[a] = max{c_ij : a_ij >= a}`` for ``a = 0 .. d_max + 1`` (exact)."""
    ds, bounds = layout.ds, layout.bounds
    levels = np.full(int(ds[0]) + 2, -1, dtype=np.int64)
    levels[0] = c_max_all_pairs(ds, _row_reader(run, layout))
    seed = int(bounds[1])
    _merge(levels, run.gather(_wave(run, layout, 0, 0, seed, _suffix_max(levels))))
    running: list[Any] = []
    for i in range(len(layout.blocks)):
        front, r0 = _suffix_max(levels), int(bounds[i])
        if r0 >= layout.n - 1 or ds[r0] < 1:
            break
        end = reach(front, ds, r0, seed)
        if end is None:
            break
        submitted = _wave(run, layout, i, max(i, 1), end, front)
        _merge(levels, run.gather(running))  # the previous wave, while this one runs
        running = submitted
    return _suffix_max(_merge(levels, run.gather(running)))


def _suffix_max(levels: np.ndarray) -> np.ndarray:
    return np.maximum.accumulate(levels[::-1])[::-1]


def _merge(levels: np.ndarray, parts: list[np.ndarray]) -> np.ndarray:
    for part in parts:
        np.maximum(levels, part, out=levels)
    return levels
