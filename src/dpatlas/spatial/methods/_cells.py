"""Rectangles of the user's grid cells: exact block sums by 2-D prefix sums, block edges.

Multi-level methods (adaptive grids, PrivTree) work on blocks of the user's cells, never on
finer geometry: a block is the half-open index rectangle ``rows [r0, r1) × cols [c0, c1)`` of
the ``ny × nx`` grid (row 0 north). Nothing here draws noise.
"""

from __future__ import annotations

import numba
import numpy as np

from dpatlas.spatial.grid import Grid

__all__ = ["block_edges", "cell_grid", "prefix_sums", "rect_sums"]


def cell_grid(values: np.ndarray, grid: Grid, fill: float = 0) -> np.ndarray:
    """The ``ny × nx`` array of a per-released-cell vector, ``fill`` where cells are not released.

    Examples
    --------
    >>> g = Grid.from_bounds((0, 0, 2, 2), cell_size=1, crs="EPSG:3035")
    >>> cell_grid(np.arange(4), g)
    array([[0, 1],
           [2, 3]])
    """
    values = np.asarray(values)
    full = np.full(grid.shape, fill, dtype=values.dtype)
    full[grid.released] = values
    return full


def prefix_sums(array: np.ndarray) -> np.ndarray:
    """``(ny + 1) × (nx + 1)`` int64 table ``P`` with ``P[r, c] = array[:r, :c].sum()``.

    ``array`` holds integers or booleans (counts of sites, released cells), so the sums are
    exact in any order; they are taken in one compiled pass over the grid.

    Examples
    --------
    >>> prefix_sums(np.ones((2, 3), dtype=np.int64))[2, 3]
    np.int64(6)
    >>> prefix_sums(np.array([[True, False], [True, True]])).tolist()
    [[0, 0, 0], [0, 1, 1], [0, 2, 3]]
    """
    array = np.asarray(array)
    if not (np.issubdtype(array.dtype, np.integer) or array.dtype == np.bool_):
        raise TypeError(f"prefix_sums needs integers or booleans, got dtype {array.dtype}")
    table = np.zeros((array.shape[0] + 1, array.shape[1] + 1), dtype=np.int64)
    _prefix_sums(array, table)
    return table


@numba.njit(cache=True, nogil=True)
def _prefix_sums(array: np.ndarray, table: np.ndarray) -> None:  # pragma: no cover (compiled)
    """``table[r + 1, c + 1]`` = the row above plus the running sum of row ``r`` to ``c``."""
    ny, nx = array.shape
    for r in range(ny):
        run = 0
        for c in range(nx):
            run += array[r, c]
            table[r + 1, c + 1] = table[r, c + 1] + run


def rect_sums(
    table: np.ndarray, r0: np.ndarray, r1: np.ndarray, c0: np.ndarray, c1: np.ndarray
) -> np.ndarray:
    """Sums over the index rectangles ``[r0, r1) × [c0, c1)`` from a :func:`prefix_sums` table.

    Examples
    --------
    >>> table = prefix_sums(np.arange(6).reshape(2, 3))
    >>> rect_sums(table, np.array([0, 1]), np.array([2, 2]), np.array([1, 0]), np.array([3, 1]))
    array([12,  3])
    """
    return table[r1, c1] - table[r0, c1] - table[r1, c0] + table[r0, c0]


def block_edges(n: int, m: int) -> np.ndarray:
    """Edges of ``min(m, n)`` nearly equal blocks over ``n`` cells (sizes differ by at most 1).

    Examples
    --------
    >>> block_edges(256, 10)
    array([  0,  25,  51,  76, 102, 128, 153, 179, 204, 230, 256])
    >>> block_edges(3, 5)
    array([0, 1, 2, 3])
    """
    m = max(1, min(int(m), int(n)))
    return (np.arange(m + 1, dtype=np.int64) * n) // m
