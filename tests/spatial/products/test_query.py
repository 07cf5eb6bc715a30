"""Region queries: area weights, exact and normal intervals, masked cells, CRS of the polygon."""

from __future__ import annotations

import math
from statistics import NormalDist

import geopandas as gpd
import numpy as np
import pytest
import shapely
from shapely.geometry import Point, Polygon, box

from dpatlas.core.noise.discrete_laplace import _halfwidth
from dpatlas.spatial import Grid, heatmap
from dpatlas.spatial.products.query import sum_halfwidth

GRID = Grid.from_bounds((0, 0, 10_000, 10_000), cell_size=1_000, crs="EPSG:3035")


def _map(grid: Grid = GRID, epsilon: float = 0.5, seed: int = 0):
    gen = np.random.default_rng(seed)
    x, y = gen.uniform(0, 10_000, 2_000), gen.uniform(0, 10_000, 2_000)
    return heatmap((x, y), grid, method="uniform", epsilon=epsilon, crs=3035, rng=seed)


def _pmf_sum(scale: float, n: int, reach: int = 400) -> np.ndarray:
    """Exact pmf of a sum of n discrete Laplace by repeated direct convolution (truncated)."""
    p = math.exp(-1 / scale)
    ks = np.arange(-reach, reach + 1)
    one = (1 - p) / (1 + p) * p ** np.abs(ks)
    pmf = one
    for _ in range(n - 1):
        pmf = np.convolve(pmf, one)
    return pmf


@pytest.mark.parametrize("scale", [0.5, 1.0, 2.0, 10.0 / 3])
@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.99])
def test_exact_halfwidth_of_one_cell_matches_the_core(scale, level):
    assert sum_halfwidth(scale, 1, level) == _halfwidth(scale, level)


@pytest.mark.parametrize(("scale", "n"), [(1.0, 2), (2.0, 3), (4.0, 5)])
def test_exact_halfwidth_of_a_sum_matches_direct_convolution(scale, n):
    pmf = _pmf_sum(scale, n)
    centre = pmf.size // 2
    central = np.array([pmf[centre - h : centre + h + 1].sum() for h in range(200)])
    for level in (0.8, 0.95, 0.99):
        assert sum_halfwidth(scale, n, level) == int(np.argmax(central >= level))


def test_whole_cells_give_the_raw_sum_and_an_exact_interval():
    hm = _map()
    q = hm.query(box(2_000, 3_000, 5_000, 5_000))  # 3 x 2 whole cells
    rows, cols = slice(5, 7), slice(2, 5)  # row 0 is the north row: y in [9000, 10000)
    assert q.n_cells == 6
    assert q.estimate == hm.raw[rows, cols].sum()
    assert q.interval == "exact"
    assert q.variance == pytest.approx(6 * hm.release.variance())
    h = sum_halfwidth(hm.release.scale, 6, 0.95)
    assert (q.ci_low, q.ci_high) == (max(q.estimate - h, 0), q.estimate + h)
    assert q.epsilon == 0.5
    assert q.level == 0.95


def test_partial_cells_are_area_weighted_with_a_normal_interval():
    hm = _map()
    q = hm.query(box(2_500, 0, 3_000, 1_000))  # half of the cell (row 9, col 2)
    assert q.n_cells == 1
    assert q.estimate == pytest.approx(0.5 * hm.raw[9, 2])
    assert q.variance == pytest.approx(0.25 * hm.release.variance())
    assert q.interval == "normal"
    half = NormalDist().inv_cdf(0.975) * math.sqrt(q.variance)
    assert q.ci_high == pytest.approx(q.estimate + half)
    triangle = Polygon([(0, 0), (2_000, 0), (0, 2_000)])
    t = hm.query(triangle)
    expected = hm.raw[9, 0] + 0.5 * (hm.raw[8, 0] + hm.raw[9, 1])
    assert t.estimate == pytest.approx(expected)
    assert t.variance == pytest.approx(1.5 * hm.release.variance())


def test_cells_outside_the_release_or_the_grid_count_zero():
    masked = Grid.from_polygon(
        Polygon([(0, 0), (10_000, 0), (0, 10_000)]), cell_size=1_000, crs=3035
    )
    hm = _map(masked)
    q = hm.query(box(9_000, 9_000, 12_000, 12_000))  # an unreleased corner, and beyond the grid
    assert (q.n_cells, q.estimate, q.ci_low, q.ci_high) == (0, 0.0, 0.0, 0.0)
    everything = hm.query(box(-1e6, -1e6, 1e6, 1e6))
    assert everything.n_cells == masked.n_released
    assert everything.estimate == hm.release.value.sum()


def test_polygon_in_another_crs_is_reprojected():
    hm = _map()
    lonlat = gpd.GeoSeries([box(2_000, 3_000, 5_000, 5_000)], crs=3035).to_crs(4326)
    q = hm.query(lonlat)
    assert q.estimate == pytest.approx(hm.raw[5:7, 2:5].sum(), rel=1e-6)


def test_query_errors():
    hm = _map()
    with pytest.raises(ValueError, match=r"level must be in \(0, 1\), got 95"):
        hm.query(box(0, 0, 1, 1), level=95)
    with pytest.raises(TypeError, match=r"polygon must be a shapely Polygon"):
        hm.query([0, 0, 1, 1])


def test_exact_interval_covers_at_the_stated_level():
    """Over 1,000 independent maps, the 90% interval of a 4-cell sum covers as computed."""
    grid = Grid.from_bounds((0, 0, 2, 2), cell_size=1, crs=3035)
    x, y = np.array([0.5, 0.5, 1.5]), np.array([0.5, 1.5, 1.5])
    hits = 0
    for seed in range(1_000):
        q = heatmap((x, y), grid, method="uniform", epsilon=0.5, crs=3035, rng=seed).query(
            box(0, 0, 2, 2), level=0.9
        )
        hits += q.ci_low <= 3 <= q.ci_high
    h = int(sum_halfwidth(2.0, 4, 0.9))
    p = 1 - 2 * float(_pmf_sum(2.0, 4)[400 * 4 + 1 + h :].sum())  # exact coverage
    sd = math.sqrt(p * (1 - p) / 1_000)
    assert abs(hits / 1_000 - p) < 5 * sd
    assert p >= 0.9


@pytest.mark.parametrize("seed", range(4))
def test_weights_match_brute_force_area_fractions(seed):
    gen = np.random.default_rng(seed)
    hm = _map(seed=seed)
    blob = Point(*gen.uniform(2_000, 8_000, 2)).buffer(gen.uniform(500, 4_000), quad_segs=3)
    rows, cols = np.indices(GRID.shape).reshape(2, -1)
    xe, ye = GRID.x_edges, GRID.y_edges
    boxes = shapely.box(xe[cols], ye[GRID.ny - 1 - rows], xe[cols + 1], ye[GRID.ny - rows])
    fraction = shapely.area(shapely.intersection(boxes, blob)) / GRID.cell_area
    q = hm.query(blob)
    assert q.n_cells == np.count_nonzero(fraction)
    assert q.estimate == pytest.approx(fraction @ hm.release.value)
    assert q.variance == pytest.approx((fraction**2).sum() * hm.release.variance())
