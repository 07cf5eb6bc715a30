"""Mass-preserving smoothing of leaf counts over cells (Tobler's pycnophylactic interpolation).

A multi-level release gives one count per leaf (a block of cells). Spreading it evenly puts
a step at every leaf edge, and a big sparse leaf next to a dense area gets its sites spread
far from where they most likely are. Tobler (1979) replaces the steps by a smooth surface that
keeps every region's total: repeat (1) a moving average over the released cells, (2) a rescale
of each leaf's cells to the leaf's count. We rescale multiplicatively, so an empty leaf stays
empty and cells stay non-negative; every leaf total, hence every node total of the tree, is
preserved exactly. It reads only released values: post-processing, no privacy cost.
"""

from __future__ import annotations

import numpy as np
from scipy import ndimage

from dpatlas.core.validation import check_positive_int
from dpatlas.spatial.grid import Grid
from dpatlas.spatial.tree.estimates import leaf_of_cell
from dpatlas.spatial.tree.hierarchy import Hierarchy

__all__ = ["pycnophylactic"]


MIN_ROUNDS = 20
MAX_ROUNDS = 200
TOLERANCE = 1e-4


def pycnophylactic(
    h: Hierarchy, values: np.ndarray, grid: Grid, *, iterations: int | None = None, window: int = 3
) -> np.ndarray:
    """Per-released-cell counts, smooth across leaf edges, with every leaf's total kept.

    Parameters
    ----------
    h : Hierarchy
        The released tree (its leaves tile the grid).
    values : numpy.ndarray
        Non-negative count per node (e.g. after :func:`~dpatlas.spatial.tree.hierarchy.nonnegative`);
        only the leaves' values are used.
    grid : Grid
        The public grid the tree is over.
    iterations : int, optional
        Smoothing rounds. The default ``None`` runs until a round moves less than
        ``TOLERANCE`` (1e-4) of the total (L1), at least ``MIN_ROUNDS`` (20) and at most
        ``MAX_ROUNDS`` (200) rounds: dense maps of small leaves settle early, sparse maps of
        large leaves need more (what that gains and what a round costs: docs/dpbench.md,
        "Figures behind the defaults").
    window : int
        The side (cells) of the moving-average window.

    Returns
    -------
    numpy.ndarray
        One value per released cell (row-major over ``grid.released``).

    Examples
    --------
    >>> g = Grid.from_bounds((0, 0, 4, 1), cell_size=1, crs="EPSG:3035")
    >>> h = Hierarchy([0, 0, 0], [1, 1, 1], [0, 0, 2], [4, 2, 4], [-1, 0, 0],
    ...               [np.nan, 0.0, 8.0], [np.inf, 1.0, 1.0], [4, 2, 2])
    >>> cells = pycnophylactic(h, np.array([8.0, 0.0, 8.0]), g, iterations=5)
    >>> cells.round(2).tolist()
    [0.0, 0.0, 3.2, 4.8]
    """
    if iterations is None:
        low, high = MIN_ROUNDS, MAX_ROUNDS
    else:
        low = high = check_positive_int(iterations, "iterations", minimum=0)
    window = check_positive_int(window, "window")
    values = np.asarray(values, dtype=np.float64)
    if (values[h.is_leaf] < 0).any():
        raise ValueError("values must be non-negative at the leaves; apply nonnegative() first")
    leaf = leaf_of_cell(h, grid.shape)
    released = grid.released.astype(np.float64)
    total = values[leaf] * released
    per_cell = np.where(released > 0, total / np.maximum(h.n_released[leaf], 1), 0.0)
    support = ndimage.uniform_filter(released, size=window, mode="constant")
    # a released cell's window holds the cell itself, so its support is > 0; x / inf = 0 keeps
    # the cells outside the study area at 0 without a second pass over the grid
    support = np.where(released > 0, support, np.inf)
    flat = leaf.ravel()
    scale = max(float(per_cell.sum()), 1e-300)
    # three buffers reused every round (a round on 9 M cells otherwise allocates ~300 MB)
    smooth, moved, cell_factor = (np.empty_like(per_cell) for _ in range(3))
    for done in range(1, high + 1):
        ndimage.uniform_filter(per_cell, size=window, mode="constant", output=smooth)
        np.divide(smooth, support, out=smooth)
        sums = np.bincount(flat, weights=smooth.ravel(), minlength=h.size)
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = np.where(sums > 0, values / sums, 0.0)
        np.take(factor, leaf, out=cell_factor)
        np.multiply(smooth, cell_factor, out=moved)
        lost = (sums <= 0) & (values > 0)  # a leaf the average emptied: keep it even
        if lost.any():
            np.copyto(moved, per_cell, where=lost[leaf])
        np.subtract(moved, per_cell, out=smooth)  # smooth is free until the next round
        change = float(np.abs(smooth, out=smooth).sum()) / scale
        per_cell, moved = moved, per_cell
        if done >= low and change < TOLERANCE:
            break
    return per_cell[grid.released]
