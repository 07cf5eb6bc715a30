"""Post-processing of a released tree: non-negative, integer and empty-aware counts, cell values.

Functions take a :class:`~dpatlas.spatial.tree.hierarchy.Hierarchy` (released values and public
variances) and node values derived from it; they never see the sites.
"""

from __future__ import annotations

from typing import Any

import numba
import numpy as np

from dpatlas.spatial.grid import Grid
from dpatlas.spatial.tree._groups import project_groups, round_groups
from dpatlas.spatial.tree.hierarchy import Hierarchy, subtree_estimates

__all__ = [
    "drop_empty",
    "empty_regions",
    "integer_counts",
    "leaf_of_cell",
    "nonnegative",
    "spread_evenly",
    "to_cells",
]

EMPTY_Z = 1.5
"""Default of :func:`empty_regions`: a region is judged empty when its own release is within
1.5 noise standard deviations of zero (or below)."""
EMPTY_MIN_SHARE = 1 / 256
"""Default smallest region :func:`empty_regions` may judge empty: 1/256 of the released cells
(a 16×16 block of a 256×256 grid)."""


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
    (:func:`~dpatlas.spatial.tree._groups.project_groups`). So every node total is preserved when
    it can be (it is non-negative and its parent's was preserved) and a negative count is
    absorbed by its siblings, close to where it arose, rather than across the map. Plain
    clamping at 0 would instead inflate the total (docs/dpbench.md, "Figures behind the
    defaults").
    """
    values = np.asarray(values, dtype=np.float64)
    return _top_down(h, values, max(float(values[0]), 0.0), project_groups)


def empty_regions(
    h: Hierarchy, *, z: float = EMPTY_Z, min_share: float = EMPTY_MIN_SHARE
) -> np.ndarray:
    """Nodes judged empty: large regions whose own release does not tell them from zero.

    A node other than the root with at least ``min_share`` of the released cells is judged
    empty when its subtree estimate (:func:`~dpatlas.spatial.tree.hierarchy.subtree_estimates`:
    its own measurements only) is at most ``z`` times that estimate's noise standard
    deviation; the descendants of an empty node are empty too. Point data leave most of a
    map empty, and a multi-level release gives every empty region noisy leaves whose
    positive draws survive non-negativity and would be spread over the region; the test
    removes them where the region's own evidence is no larger than its noise. It reads
    released values, public variances and the public tree only: post-processing.

    Examples
    --------
    >>> h = Hierarchy(r0=[0, 0, 0], r1=[1, 1, 1], c0=[0, 0, 1], c1=[2, 1, 2], parent=[-1, 0, 0],
    ...               noisy=[np.nan, 40.0, 1.0], variance=[np.inf, 2.0, 2.0], n_released=[2, 1, 1])
    >>> empty_regions(h, min_share=0.5).tolist()
    [False, False, True]
    """
    if isinstance(z, bool) or not (isinstance(z, (int, float)) and 0 <= z < np.inf):
        raise ValueError(f"z must be a finite number >= 0, got {z!r}")
    if isinstance(min_share, bool) or not (
        isinstance(min_share, (int, float)) and 0 < min_share <= 1
    ):
        raise ValueError(f"min_share must be a number in (0, 1], got {min_share!r}")
    own, var = subtree_estimates(h)
    min_cells = max(1, int(np.ceil(min_share * h.n_released[0] - 1e-9)))
    empty = (h.n_released >= min_cells) & (var > 0) & (own <= z * np.sqrt(var))
    empty[0] = False
    for idx in h.levels()[1:]:
        empty[idx] |= empty[h.parent[idx]]
    return empty


def drop_empty(h: Hierarchy, values: np.ndarray, empty: np.ndarray) -> np.ndarray:
    """Consistent node counts with the ``empty`` nodes at 0 and the root total of ``values``.

    ``values`` are non-negative consistent counts (e.g. :func:`nonnegative`). The leaves of
    empty regions get 0 and the other leaves are scaled up together so that the total is
    unchanged (the noise mass the empty regions held goes back to the map in proportion);
    internal nodes are the sums of their leaves. If every leaf with a count is empty the
    values are returned unchanged.

    Examples
    --------
    >>> h = Hierarchy(r0=[0, 0, 0], r1=[1, 1, 1], c0=[0, 0, 1], c1=[2, 1, 2], parent=[-1, 0, 0],
    ...               noisy=[np.nan, 40.0, 1.0], variance=[np.inf, 2.0, 2.0], n_released=[2, 1, 1])
    >>> drop_empty(h, np.array([41.0, 40.0, 1.0]), np.array([False, False, True])).tolist()
    [41.0, 41.0, 0.0]
    """
    values = np.asarray(values, dtype=np.float64)
    kept = np.where(h.is_leaf & ~np.asarray(empty, dtype=bool), values, 0.0)
    mass = float(kept.sum())
    if mass <= 0:
        return values.copy()
    kept *= float(values[0]) / mass
    for idx in reversed(h.levels()[1:]):
        np.add.at(kept, h.parent[idx], kept[idx])
    return kept


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
    """``ny × nx`` index of the leaf holding each cell (the leaves tile the grid).

    Examples
    --------
    >>> h = Hierarchy(r0=[0, 0, 0], r1=[1, 1, 1], c0=[0, 0, 1], c1=[3, 1, 3], parent=[-1, 0, 0],
    ...               noisy=[np.nan, 1.0, 2.0], variance=[np.inf, 1.0, 1.0], n_released=[3, 1, 2])
    >>> leaf_of_cell(h, (1, 3)).tolist()
    [[1, 2, 2]]
    """
    out = np.full(shape, -1, dtype=np.int64)
    _paint(out, np.flatnonzero(h.is_leaf), h.r0, h.r1, h.c0, h.c1)
    return out


@numba.njit(cache=True, nogil=True)
def _paint(
    out: np.ndarray,
    leaves: np.ndarray,
    r0: np.ndarray,
    r1: np.ndarray,
    c0: np.ndarray,
    c1: np.ndarray,
) -> None:  # pragma: no cover (compiled)
    """Write each leaf's index over its rectangle of ``out``."""
    for i in leaves:
        for r in range(r0[i], r1[i]):
            for c in range(c0[i], c1[i]):
                out[r, c] = i


def to_cells(h: Hierarchy, values: np.ndarray, grid: Grid, *, integer: bool = False) -> np.ndarray:
    """Per-released-cell values (row-major over ``grid.released``): leaf values spread evenly.

    A leaf's value is divided equally among its released cells, the usual uniformity
    assumption inside a leaf. With ``integer=True`` (``values`` non-negative integers) each
    leaf's count is split into integers by largest remainders, so the cells still sum to it.
    """
    values = np.asarray(values)
    leaf = leaf_of_cell(h, grid.shape)
    share = spread_evenly(h, values, leaf, grid.released)[grid.released]
    if not integer:
        return share
    leaves, group = np.unique(leaf[grid.released], return_inverse=True)
    return round_groups(share, group, values[leaves].astype(np.int64))


def spread_evenly(
    h: Hierarchy, values: np.ndarray, leaf: np.ndarray, released: np.ndarray
) -> np.ndarray:
    """``ny × nx`` float64 grid: each released cell gets its leaf's value over the leaf's
    released cells (``leaf`` from :func:`leaf_of_cell`), the other cells 0.

    Examples
    --------
    >>> h = Hierarchy(r0=[0, 0, 0], r1=[1, 1, 1], c0=[0, 0, 1], c1=[3, 1, 3], parent=[-1, 0, 0],
    ...               noisy=[np.nan, 1.0, 2.0], variance=[np.inf, 1.0, 1.0], n_released=[2, 1, 1])
    >>> released = np.array([[True, True, False]])
    >>> spread_evenly(h, np.array([3.0, 1.0, 2.0]), leaf_of_cell(h, (1, 3)), released).tolist()
    [[1.0, 2.0, 0.0]]
    """
    out = np.empty(leaf.shape)
    _spread(np.asarray(values, dtype=np.float64), h.n_released, leaf, released, out)
    return out


@numba.njit(cache=True, nogil=True)
def _spread(
    values: np.ndarray,
    n_released: np.ndarray,
    leaf: np.ndarray,
    released: np.ndarray,
    out: np.ndarray,
) -> None:  # pragma: no cover (compiled)
    """``out`` = ``values[leaf] / max(n_released[leaf], 1)`` on released cells, else 0 (the
    division numpy does on those arrays: int64 to float64, then one division)."""
    ny, nx = leaf.shape
    for r in range(ny):
        for c in range(nx):
            if released[r, c]:
                i = leaf[r, c]
                out[r, c] = values[i] / float(max(n_released[i], 1))
            else:
                out[r, c] = 0.0
