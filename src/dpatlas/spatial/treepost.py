"""Post-processing of a released tree: non-negative and integer counts, and cell values.

Functions take a :class:`~dpatlas.spatial.hierarchy.Hierarchy` (released values and public
variances) and node values derived from it; they never see the sites.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpatlas.spatial._groups import project_groups, round_groups
from dpatlas.spatial.grid import Grid
from dpatlas.spatial.hierarchy import Hierarchy

__all__ = ["integer_counts", "leaf_of_cell", "nonnegative", "to_cells"]


def _top_down(
    h: Hierarchy, values: np.ndarray, root: float, step: Any, dtype: Any = np.float64
) -> np.ndarray:
    """Apply ``step(children values, group ids, parent targets)`` level by level from the root."""
    out = np.zeros(h.size, dtype=dtype)
    out[0] = root
    for idx in h.levels()[1:]:
        live = idx[h.n_released[idx] > 0]
        parents, group = np.unique(h.parent[live], return_inverse=True)
        out[live] = step(values[live], group, out[parents])
    return out


def nonnegative(h: Hierarchy, values: np.ndarray) -> np.ndarray:
    """Non-negative consistent counts with the root total of ``values`` (0 if negative).

    Top-down: the root keeps ``max(total, 0)``; the children of each node are projected by
    least squares onto the non-negative vectors that sum to the node's new value
    (:func:`~dpatlas.spatial._groups.project_groups`). So every node total is preserved when
    it can be (it is non-negative and its parent's was preserved) and a negative count is
    absorbed by its siblings, close to where it arose, rather than across the map. Plain
    clamping at 0 would instead inflate the total (BENCHMARKS.md: +20% at N = 10⁴, ε = 1).
    """
    values = np.asarray(values, dtype=np.float64)
    return _top_down(h, values, max(float(values[0]), 0.0), project_groups)


def integer_counts(h: Hierarchy, values: np.ndarray) -> np.ndarray:
    """Non-negative consistent integers from non-negative consistent ``values``.

    The root is rounded to the nearest integer; top-down, each node's children are floored
    and the shortfall goes to the largest remainders, so parents still equal the sum of their
    children and the total is the rounded total.
    """
    values = np.asarray(values, dtype=np.float64)
    root = int(np.floor(max(float(values[0]), 0.0) + 0.5))
    return _top_down(h, values, root, round_groups, np.int64)


def leaf_of_cell(h: Hierarchy, shape: tuple[int, int]) -> np.ndarray:
    """``ny × nx`` index of the leaf holding each cell (the leaves tile the grid)."""
    leaves = np.flatnonzero(h.is_leaf)
    ids = leaves + 1
    marks = np.zeros((shape[0] + 1, shape[1] + 1), dtype=np.int64)
    np.add.at(marks, (h.r0[leaves], h.c0[leaves]), ids)
    np.add.at(marks, (h.r0[leaves], h.c1[leaves]), -ids)
    np.add.at(marks, (h.r1[leaves], h.c0[leaves]), -ids)
    np.add.at(marks, (h.r1[leaves], h.c1[leaves]), ids)
    return marks.cumsum(axis=0).cumsum(axis=1)[: shape[0], : shape[1]] - 1


def to_cells(h: Hierarchy, values: np.ndarray, grid: Grid, *, integer: bool = False) -> np.ndarray:
    """Per-released-cell values (row-major over ``grid.released``): leaf values spread evenly.

    A leaf's value is divided equally among its released cells, the usual uniformity
    assumption inside a leaf. With ``integer=True`` (``values`` non-negative integers) each
    leaf's count is split into integers by largest remainders, so the cells still sum to it.
    """
    leaf = leaf_of_cell(h, grid.shape)[grid.released]
    values = np.asarray(values)
    share = values[leaf] / np.maximum(h.n_released[leaf], 1)
    if not integer:
        return share
    leaves, group = np.unique(leaf, return_inverse=True)
    return round_groups(share, group, values[leaves].astype(np.int64))
