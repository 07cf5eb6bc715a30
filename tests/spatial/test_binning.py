"""Binning: half-open cells, one cell per site, agreement with numpy, sensitivity of the counts."""

from __future__ import annotations

import numpy as np
import pytest
from shapely.geometry import Polygon

from dpatlas.core.rng import get_source
from dpatlas.spatial import Grid, SiteAdjacency, bin_points, cell_of
from dpatlas.spatial.heatmap import site_counts


def _reference_cell(grid: Grid, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """The definition: edges[i] <= v < edges[i + 1], by binary search on the published edges."""
    col = np.searchsorted(grid.x_edges, x, side="right") - 1
    row_s = np.searchsorted(grid.y_edges, y, side="right") - 1
    out = (col < 0) | (col >= grid.nx) | (row_s < 0) | (row_s >= grid.ny)
    flat = (grid.ny - 1 - row_s) * grid.nx + col
    return np.where(out, -1, flat)


def _edge_points(grid: Grid) -> tuple[np.ndarray, np.ndarray]:
    xs = np.concatenate([grid.x_edges, np.nextafter(grid.x_edges, -np.inf)])
    ys = np.concatenate([grid.y_edges, np.nextafter(grid.y_edges, np.inf)])
    gx, gy = np.meshgrid(xs, ys)
    return gx.ravel(), gy.ravel()


AWKWARD = [
    Grid.from_bounds((0.1, 0.2, 1.0, 0.9), cell_size=0.1, crs="EPSG:3035"),
    Grid.from_bounds(
        (4_321_000.3, 3_210_000.7, 4_400_000, 3_300_000), cell_size=1_000 / 3, crs=3035
    ),
    Grid.from_bounds((-5.5, -7.25, 5.5, 7.25), cell_size=0.25, crs="EPSG:3035"),
]


@pytest.mark.parametrize("grid", AWKWARD)
def test_points_on_edges_follow_half_open_rule(grid):
    x, y = _edge_points(grid)
    np.testing.assert_array_equal(cell_of(grid, x, y), _reference_cell(grid, x, y))
    # The outer maximum edges are outside; the minimum edges are inside.
    x1, y1 = grid.bounds[2], grid.bounds[3]
    assert cell_of(grid, np.array([x1, grid.x0]), np.array([grid.y0, y1])).tolist() == [-1, -1]
    assert cell_of(grid, np.array([grid.x0]), np.array([grid.y0])).tolist() == [
        grid.n_cells - grid.nx
    ]


@pytest.mark.parametrize("grid", AWKWARD)
def test_random_points_match_reference_and_histogram2d(grid):
    gen = np.random.default_rng(3)
    x0, y0, x1, y1 = grid.bounds
    x = gen.uniform(x0 - (x1 - x0) * 0.1, x1 + (x1 - x0) * 0.1, 50_000)
    y = gen.uniform(y0 - (y1 - y0) * 0.1, y1 + (y1 - y0) * 0.1, 50_000)
    np.testing.assert_array_equal(cell_of(grid, x, y), _reference_cell(grid, x, y))
    inside = (x < x1) & (y < y1)  # histogram2d closes the last bin; keep the max edges out
    hist, _, _ = np.histogram2d(y[inside], x[inside], bins=[grid.y_edges, grid.x_edges])
    np.testing.assert_array_equal(bin_points(grid, x, y), hist[::-1].astype(np.int64))


def test_non_finite_points_are_outside():
    g = AWKWARD[0]
    x = np.array([np.nan, np.inf, -np.inf, 0.5])
    y = np.array([0.5, 0.5, 0.5, np.nan])
    assert cell_of(g, x, y).tolist() == [-1, -1, -1, -1]


def test_bin_points_shape_errors():
    with pytest.raises(ValueError, match=r"x and y must be 1-D arrays of one length"):
        bin_points(AWKWARD[0], np.zeros(3), np.zeros(2))


TRIANGLE = Grid.from_polygon(
    Polygon([(0, 0), (10_000, 0), (0, 10_000)]), cell_size=1_000, crs="EPSG:3035"
)


def _counts(grid, x, y):
    data = site_counts((x, y), grid, SiteAdjacency(), get_source(0), crs="EPSG:3035")
    return data.counts


@pytest.mark.parametrize("grid", [TRIANGLE, AWKWARD[1]])
@pytest.mark.parametrize("on_borders", [False, True])
def test_adding_removing_moving_one_site(grid, on_borders):
    """Exact counts before noise: add/remove one site changes one cell by one (L1 <= 1);
    moving one (replace) changes at most two cells by one each (L1 <= 2)."""
    gen = np.random.default_rng(11)
    x0, y0, x1, y1 = grid.bounds
    if on_borders:
        ex, ey = _edge_points(grid)
        pick = gen.integers(0, ex.size, 2_000)
        x, y = ex[pick], ey[pick]
    else:
        x, y = gen.uniform(x0 - 500, x1 + 500, 2_000), gen.uniform(y0 - 500, y1 + 500, 2_000)
    base = _counts(grid, x, y)
    for i in gen.integers(0, x.size, 60):
        removed = _counts(grid, np.delete(x, i), np.delete(y, i))
        diff = base - removed
        assert np.abs(diff).sum() <= 1
        assert diff.min() >= 0
        moved_x, moved_y = x.copy(), y.copy()
        moved_x[i], moved_y[i] = x[(i + 1) % x.size], y[(i + 7) % y.size]
        moved = base - _counts(grid, moved_x, moved_y)
        assert np.abs(moved).sum() <= 2
        assert np.abs(moved).max() <= 1
        added = _counts(grid, np.append(x, x[i]), np.append(y, y[i])) - base
        assert added.sum() == np.abs(added).sum() <= 1
