"""Contribution bounding on Dask: a shuffle of (owner, key, row, cell) by owner (internal).

The in-memory rule (:func:`dpatlas.spatial.sites.bound_contributions`) draws one uniform key per
site, in row order, from a numpy Generator seeded with four words of the driver's source, and
keeps the ``k`` sites of each owner with the smallest ``(key, row)``. Here the driver draws the
same four words; each partition, knowing its first global row, advances a copy of that PCG64
stream to its offset (``PCG64.advance``: one 64-bit step per float64 draw), so every site gets
the very key it gets in memory. Rows are then hashed by owner into buckets (a shuffle: every
site of one owner lands in one bucket) and each bucket keeps the same sites as in memory, then
counts their cells. Keys never depend on locations; the ``-1`` cell (outside the grid rectangle)
still uses one of its owner's ``k`` places, exactly as in memory.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

__all__ = ["bound_bucket", "split_by_owner"]


def split_by_owner(
    cells_owners: tuple[np.ndarray, np.ndarray], offset: int, seed: list[int], buckets: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Give every row its key and global row number; split the rows into ``buckets`` by owner."""
    cells, owners = cells_owners
    stream = np.random.PCG64(seed)
    stream.advance(offset)
    keys = np.random.Generator(stream).random(cells.size)
    rows = np.arange(offset, offset + cells.size, dtype=np.int64)
    where = pd.util.hash_array(owners) % np.uint64(buckets)
    order = np.argsort(where, kind="stable")
    cuts = np.searchsorted(where[order], np.arange(1, buckets, dtype=np.uint64))
    parts = np.split(order, cuts)
    return [(owners[p], keys[p], rows[p], cells[p]) for p in parts]


def bound_bucket(k: int, n_cells: int, *pieces: Any) -> np.ndarray:
    """Counts per cell of the at most ``k`` sites per owner with the smallest ``(key, row)``."""
    owners = np.concatenate([p[0] for p in pieces])
    keys = np.concatenate([p[1] for p in pieces])
    rows = np.concatenate([p[2] for p in pieces])
    cells = np.concatenate([p[3] for p in pieces])
    codes, _ = pd.factorize(owners, sort=False)
    order = np.lexsort((rows, keys, codes))
    grouped = codes[order]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]]) if grouped.size else grouped
    sizes = np.diff(np.r_[starts, grouped.size])
    rank = np.arange(grouped.size) - np.repeat(starts, sizes)
    kept = cells[order[rank < k]]
    return np.bincount(kept[kept >= 0], minlength=n_cells)
