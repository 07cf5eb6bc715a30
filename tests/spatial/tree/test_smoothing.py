"""pycnophylactic() against the plain implementation it replaced, on random trees and grids."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import ndimage
from shapely.geometry import Point

import dpatlas.spatial as sp
from dpatlas.spatial import Grid
from dpatlas.spatial.tree.estimates import drop_empty, empty_regions, leaf_of_cell, nonnegative
from dpatlas.spatial.tree.hierarchy import Hierarchy, least_squares
from dpatlas.spatial.tree.smoothing import MAX_ROUNDS, MIN_ROUNDS, TOLERANCE, pycnophylactic


def reference(h, values, grid, *, iterations=None, window=3):
    """The whole-grid numpy and scipy loop pycnophylactic() ran before it was compiled."""
    low, high = (MIN_ROUNDS, MAX_ROUNDS) if iterations is None else (iterations, iterations)
    leaf = leaf_of_cell(h, grid.shape)
    released = grid.released.astype(np.float64)
    total = values[leaf] * released
    per_cell = np.where(released > 0, total / np.maximum(h.n_released[leaf], 1), 0.0)
    support = ndimage.uniform_filter(released, size=window, mode="constant")
    support = np.where(released > 0, support, np.inf)
    scale = max(float(per_cell.sum()), 1e-300)
    for done in range(1, high + 1):
        smooth = ndimage.uniform_filter(per_cell, size=window, mode="constant") / support
        sums = np.bincount(leaf.ravel(), weights=smooth.ravel(), minlength=h.size)
        with np.errstate(divide="ignore", invalid="ignore"):
            factor = np.where(sums > 0, values / sums, 0.0)
        moved = smooth * factor[leaf]
        lost = (sums <= 0) & (values > 0)
        moved = np.where(lost[leaf], per_cell, moved)
        change = float(np.abs(moved - per_cell).sum()) / scale
        per_cell = moved
        if done >= low and change < TOLERANCE:
            break
    return per_cell[grid.released]


def random_case(seed, shape, *, masked):
    """A random tree of rectangles over a grid (a random study area if ``masked``) and leaf
    values with empty leaves and, when some leaf has no released cell, a lost one."""
    gen = np.random.default_rng(seed)
    ny, nx = shape
    mask = None
    if masked:
        rows, cols = np.mgrid[0:ny, 0:nx]
        mask = np.hypot((rows - ny / 2) / ny, (cols - nx / 3) / nx) < gen.uniform(0.3, 0.6)
        mask[: ny // 4, : nx // 4] = False  # a corner out of the study area: leaves with no cell
    grid = Grid(0.0, 0.0, 1.0, nx, ny, "EPSG:3035", mask=mask)
    nodes = [(0, ny, 0, nx, -1)]
    for i, (r0, r1, c0, c1, _) in enumerate(nodes):
        if (r1 - r0) * (c1 - c0) > 1 and gen.random() < 0.8:
            rm, cm = (r0 + r1 + 1) // 2, (c0 + c1 + 1) // 2
            parts = [(a, b, c, d) for a, b in ((r0, rm), (rm, r1)) for c, d in ((c0, cm), (cm, c1))]
            nodes += [(a, b, c, d, i) for a, b, c, d in parts if a < b and c < d]
    r0, r1, c0, c1, parent = (np.array(v) for v in zip(*nodes, strict=True))
    n = len(nodes)
    released = np.cumsum(np.cumsum(np.pad(grid.released, ((1, 0), (1, 0))), axis=0), axis=1)
    n_released = released[r1, c1] - released[r0, c1] - released[r1, c0] + released[r0, c0]
    h = Hierarchy(r0, r1, c0, c1, parent, np.zeros(n), np.ones(n), n_released)
    values = gen.exponential(5.0, n) * (gen.random(n) < 0.7)  # about 30% of leaves empty
    return h, values, grid


CRS = "EPSG:3035"
CASES = [
    ((23, 37), False),
    ((37, 23), True),
    ((64, 64), True),
    ((1, 9), False),
    ((9, 1), False),
    ((50, 40), False),
]


@pytest.mark.parametrize(("shape", "masked"), CASES)
def test_pycnophylactic_equals_the_plain_implementation_bit_for_bit(shape, masked):
    for seed in range(3):
        h, values, grid = random_case(seed, shape, masked=masked)
        for window in (1, 2, 3, 5):
            for iterations in (None, 0, 1, 7):
                got = pycnophylactic(h, values, grid, iterations=iterations, window=window)
                want = reference(h, values, grid, iterations=iterations, window=window)
                assert got.tobytes() == want.tobytes(), (seed, window, iterations)


def test_the_random_cases_hold_lost_and_empty_leaves():
    h, values, _ = random_case(0, (64, 64), masked=True)
    leaf = h.is_leaf
    assert ((h.n_released == 0) & leaf & (values > 0)).any()  # a leaf the average empties
    assert ((h.n_released > 0) & leaf & (values == 0)).any()


@pytest.mark.parametrize("method", ["privtree", "adaptive"])
@pytest.mark.parametrize("masked", [False, True])
def test_pycnophylactic_equals_the_plain_implementation_on_released_maps(method, masked):
    gen = np.random.default_rng(3)
    x = np.concatenate([gen.normal(40, 12, 3_000), gen.uniform(0, 128, 1_000)]).clip(0, 127.9)
    y = np.concatenate([gen.normal(90, 12, 3_000), gen.uniform(0, 128, 1_000)]).clip(0, 127.9)
    if masked:
        grid = sp.Grid.from_polygon(Point(64, 64).buffer(63), cell_size=1, crs=CRS)
    else:
        grid = sp.Grid.from_bounds((0, 0, 128, 128), cell_size=1, crs=CRS)
    hm = sp.heatmap((x, y), grid, epsilon=0.5, method=method, crs=CRS, rng=3)
    h = hm.hierarchy
    values = drop_empty(h, nonnegative(h, least_squares(h)), empty_regions(h))
    got = pycnophylactic(h, values, grid)
    assert got.tobytes() == reference(h, values, grid).tobytes()
    assert got.tobytes() == hm.estimate.tobytes()  # what heatmap() released


def test_a_leaf_the_average_empties_keeps_its_count():
    grid = Grid(0.0, 0.0, 1.0, 3, 1, CRS)  # the middle leaf's count underflows to 0 in the mean
    h = Hierarchy([0] * 4, [1] * 4, [0, 0, 1, 2], [3, 1, 2, 3], [-1, 0, 0, 0], [0.0] * 4,
                  [1.0] * 4, [3, 1, 1, 1])  # fmt: skip
    values = np.array([5e-324, 0.0, 5e-324, 0.0])
    for iterations in (None, 1):
        got = pycnophylactic(h, values, grid, iterations=iterations)
        assert got.tobytes() == reference(h, values, grid, iterations=iterations).tobytes()
        assert got.tolist() == [0.0, 5e-324, 0.0]
