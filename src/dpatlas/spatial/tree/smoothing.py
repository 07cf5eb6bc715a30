"""Mass-preserving smoothing of leaf counts over cells (Tobler's pycnophylactic interpolation).

A multi-level release gives one count per leaf (a block of cells). Spreading it evenly puts
a step at every leaf edge, and a big sparse leaf next to a dense area gets its sites spread
far from where they most likely are. Tobler (1979) replaces the steps by a smooth surface that
keeps every region's total: repeat (1) a moving average over the released cells, (2) a rescale
of each leaf's cells to the leaf's count. We rescale multiplicatively, so an empty leaf stays
empty and cells stay non-negative; every leaf total, hence every node total of the tree, is
preserved exactly. It reads only released values: post-processing, no privacy cost. The
rounds run in compiled code, cached on disk: the first call after an install compiles it, once.
"""

from __future__ import annotations

import numba
import numpy as np
from scipy import ndimage

from dpatlas.core.validation import check_positive_int
from dpatlas.spatial.grid import Grid
from dpatlas.spatial.tree.estimates import leaf_of_cell, spread_evenly
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
    per_cell = spread_evenly(h, values, leaf, grid.released)
    released = grid.released.astype(np.float64)
    support = ndimage.uniform_filter(released, size=window, mode="constant")
    # a released cell's window holds the cell itself, so its support is > 0; x / inf = 0 keeps
    # the cells outside the study area at 0 without a second pass over the grid
    support = np.where(released > 0, support, np.inf)
    scale = max(float(per_cell.sum()), 1e-300)
    leaf = leaf.astype(np.int32)  # half the bytes a round reads (fewer nodes than 2^31)
    smooth = np.empty_like(per_cell)
    for done in range(1, high + 1):
        sums = np.zeros(h.size)
        _average(per_cell, window, support, leaf, smooth, sums)
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = np.where(sums > 0, values / sums, 0.0)
        lost = (sums <= 0) & (values > 0)  # a leaf the average emptied: keep it even
        check = done >= low
        _rescale(smooth, leaf, factor, lost, per_cell, check)
        per_cell, smooth = smooth, per_cell  # smooth now holds the change if check
        # numpy sums the change (pairwise), as it did when the stopping rule was set
        if check and float(smooth.sum()) / scale < TOLERANCE:
            break
    return per_cell[grid.released]


# Why compiled code: a round is a handful of passes over the grid (the two running sums of
# the moving average, the division, the sums over leaves, the rescale, the change); as numpy
# and scipy calls each pass reads and writes the whole grid from memory, which dominates on
# large grids. Each kernel below goes through the grid once, row by row, and does the same
# floating-point operations in the same order as those calls did (scipy's uniform_filter:
# a running sum of the window along each axis, columns first, divided by the window at each
# cell; np.bincount: every leaf's cells added in row-major order), so the values are the
# same to the last bit (numba leaves fastmath off, so no multiply and add are fused).


@numba.njit(cache=True, nogil=True)
def _average(
    cells: np.ndarray,
    window: int,
    support: np.ndarray,
    leaf: np.ndarray,
    smooth: np.ndarray,
    sums: np.ndarray,
) -> None:  # pragma: no cover (compiled)
    """``smooth`` = the ``window × window`` mean of ``cells`` (zeros beyond the grid) divided
    by ``support``; each cell's value added to ``sums[leaf]``."""
    ny, nx = cells.shape
    before = window // 2
    after = window - 1 - before
    zeros = np.zeros(nx)
    column = np.zeros(nx)  # the running sums down the columns
    means = np.zeros(nx + window - 1)  # a row of column means, with zeros beyond the grid
    for k in range(ny):
        if window == 1:  # scipy skips a window of 1: the average is the values themselves
            smooth[k] = cells[k]
        else:
            if k == 0:  # the first window: 0 + the rows in it, in order (zero rows add nothing)
                for r in range(min(after + 1, ny)):
                    for j in range(nx):
                        column[j] += cells[r, j]
            else:  # the row entering the window minus the one leaving it
                entering = cells[k + after] if k + after < ny else zeros
                leaving = cells[k - before - 1] if k > before else zeros
                for j in range(nx):
                    column[j] += entering[j] - leaving[j]
            for j in range(nx):
                means[before + j] = column[j] / window
            total = 0.0
            for j in range(window):
                total += means[j]
            smooth[k, 0] = total / window
            for j in range(1, nx):
                total += means[j + window - 1] - means[j - 1]
                smooth[k, j] = total / window
        # a leaf's cells come in runs along a row (leaves are rectangles): its sum is carried
        # along a run (the same additions in the same order, without a store and load per cell)
        i = leaf[k, 0]
        run = sums[i]
        for j in range(nx):
            value = smooth[k, j]
            if support[k, j] != 1.0:  # dividing by 1 changes nothing
                value /= support[k, j]
                smooth[k, j] = value
            if leaf[k, j] != i:
                sums[i] = run
                i = leaf[k, j]
                run = sums[i]
            run += value
        sums[i] = run


@numba.njit(cache=True, nogil=True)
def _rescale(
    smooth: np.ndarray,
    leaf: np.ndarray,
    factor: np.ndarray,
    lost: np.ndarray,
    cells: np.ndarray,
    check: bool,
) -> None:  # pragma: no cover (compiled)
    """In place: ``smooth`` becomes the next round's values, ``smooth * factor[leaf]`` (the
    current ``cells`` in a ``lost`` leaf), and, if ``check``, ``cells`` their change."""
    ny, nx = cells.shape
    for k in range(ny):
        for j in range(nx):
            i = leaf[k, j]
            new = cells[k, j] if lost[i] else smooth[k, j] * factor[i]
            smooth[k, j] = new
            if check:
                cells[k, j] = abs(new - cells[k, j])
