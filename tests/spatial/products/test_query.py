"""Region queries: area weights, intervals of whole and cut cells, masked cells, polygon CRS."""

from __future__ import annotations

import math

import geopandas as gpd
import numpy as np
import pytest
import shapely
from shapely.geometry import Point, Polygon, box

from dpatlas.core.noise.discrete_laplace import _halfwidth
from dpatlas.spatial import Grid, heatmap
from dpatlas.spatial.products._noise_sums import NoiseSum
from dpatlas.spatial.products.query import RegionEstimate

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


def _upper(scale: float, n: int, prob: float) -> float:
    return NoiseSum("discrete_laplace", np.full(n, scale)).upper(prob)


@pytest.mark.parametrize("scale", [0.5, 1.0, 2.0, 10.0 / 3])
@pytest.mark.parametrize("level", [0.5, 0.9, 0.95, 0.99])
def test_equal_tailed_quantile_of_one_cell_is_the_cores_halfwidth(scale, level):
    assert _upper(scale, 1, (1 + level) / 2) == _halfwidth(scale, level)


@pytest.mark.parametrize(("scale", "n"), [(1.0, 2), (2.0, 3), (4.0, 5)])
def test_quantile_of_a_sum_matches_direct_convolution(scale, n):
    pmf = _pmf_sum(scale, n)
    cdf = np.cumsum(pmf)
    centre = pmf.size // 2
    for prob in (0.8, 0.95, 0.975, 0.995):
        assert _upper(scale, n, prob) == int(np.argmax(cdf >= prob)) - centre


def test_whole_cells_give_the_raw_sum_and_an_exact_noise_only_interval():
    hm = _map()
    q = hm.query(box(2_000, 3_000, 5_000, 5_000))  # 3 x 2 whole cells
    rows, cols = slice(5, 7), slice(2, 5)  # row 0 is the north row: y in [9000, 10000)
    assert (q.n_cells, q.n_whole, q.n_cut, q.unit) == (6, 6, 0, "cell")
    assert q.estimate == hm.raw[rows, cols].sum()
    assert (q.interval, q.covers) == ("exact", "noise")
    assert q.variance == pytest.approx(6 * hm.release.variance())
    h = _upper(hm.release.scale, 6, 0.975)
    assert (q.ci_low, q.ci_high) == (max(q.estimate - h, 0), q.estimate + h)
    assert q.epsilon == 0.5
    assert q.level == 0.95
    assert "6 cells wholly inside" in q.describe()


def test_cut_cells_are_area_weighted_and_bounded_by_their_whole_count():
    hm = _map()
    q = hm.query(box(2_500, 0, 3_000, 1_000))  # half of the cell (row 9, col 2)
    assert (q.n_cells, q.n_whole, q.n_cut) == (1, 0, 1)
    assert q.estimate == pytest.approx(0.5 * hm.raw[9, 2])
    assert q.variance == pytest.approx(0.25 * hm.release.variance())
    assert (q.interval, q.covers) == ("exact", "noise and spread")
    # the half cell holds between 0 and all of the cell's sites: [0, one-sided upper end]
    assert (q.ci_low, q.ci_high) == (0.0, max(hm.raw[9, 2] + _upper(2.0, 1, 0.95), 0.0))
    assert (
        "This range allows for any spread of sites inside the 1 cell its edge cuts." in q.describe()
    )
    triangle = Polygon([(0, 0), (2_000, 0), (0, 2_000)])
    t = hm.query(triangle)
    expected = hm.raw[9, 0] + 0.5 * (hm.raw[8, 0] + hm.raw[9, 1])
    assert t.estimate == pytest.approx(expected)
    assert t.variance == pytest.approx(1.5 * hm.release.variance())
    assert (t.n_whole, t.n_cut) == (1, 2)
    outer = hm.raw[9, 0] + hm.raw[8, 0] + hm.raw[9, 1]
    assert hm.raw[9, 0] - 6 <= t.ci_low <= hm.raw[9, 0]  # lower end: the whole cell's sum
    assert outer <= t.ci_high <= outer + 10  # upper end: all three cells' sum


def test_cells_outside_the_release_or_the_grid_count_zero():
    masked = Grid.from_polygon(
        Polygon([(0, 0), (10_000, 0), (0, 10_000)]), cell_size=1_000, crs=3035
    )
    hm = _map(masked)
    with pytest.raises(ValueError, match="overlaps none of the released cells"):
        hm.query(box(9_000, 9_000, 12_000, 12_000))  # an unreleased corner, and beyond the grid
    everything = hm.query(box(-1e6, -1e6, 1e6, 1e6))
    assert everything.n_cells == masked.n_released
    assert everything.estimate == hm.release.value.sum()


def test_polygon_in_another_crs_is_reprojected():
    hm = _map()
    cells = gpd.GeoSeries([box(2_000, 3_000, 5_000, 5_000)], crs=3035)
    lonlat = cells.segmentize(1.0).to_crs(4326)  # the box's edges, faithfully in lon/lat
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
    h = int(_upper(2.0, 4, 0.95))
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


@pytest.mark.parametrize("seed", range(6))
def test_rectangles_take_a_fast_path_with_the_same_weights(seed):
    from dpatlas.spatial._mask import cell_coverage
    from dpatlas.spatial.products.query import _box_coverage

    gen = np.random.default_rng(seed)
    x_edges, y_edges = GRID.x_edges, GRID.y_edges
    corners = np.sort(gen.uniform(-500, 10_500, (2, 2)), axis=1)
    if seed == 0:
        corners = np.array([[2_000.0, 5_000.0], [3_000.0, 5_000.0]])  # on cell edges
    bounds = (corners[0, 0], corners[1, 0], corners[0, 1], corners[1, 1])
    fast = _box_coverage(bounds, x_edges, y_edges)
    slow = cell_coverage(box(*bounds), x_edges, y_edges)
    order_fast = np.lexsort((fast[1], fast[0]))
    order_slow = np.lexsort((slow[1], slow[0]))
    for a, b in zip(fast, slow, strict=True):
        np.testing.assert_allclose(a[order_fast], b[order_slow], rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(fast[2][order_fast] == 1.0, slow[2][order_slow] == 1.0)


def test_noise_sum_quantile_grows_with_the_level_beyond_the_lattice_resolution() -> None:
    # was 0 (np.argmax of an all-False array) at tails below ~1e-10: a region interval of
    # width 0 printed as "100%" that covered in 22 of 300 releases
    s = NoiseSum("discrete_laplace", np.full(4, 2.0))
    probs = [0.999, 0.999999, 1 - 1e-9, 1 - 5e-10, 1 - 1e-10, 1 - 1e-12, 1 - 1e-14]
    q = [s.upper(p) for p in probs]
    assert q == sorted(q)
    assert q[2] == 53.0  # exact
    assert q[-1] > 53.0  # Chernoff, valid at any tail
    with pytest.raises(ValueError, match=r"prob must be < 1, got 1\.0"):
        s.upper(1.0)


def test_levels_above_one_minus_1e9_are_refused() -> None:
    hm = _map()
    region = box(2_000, 3_000, 5_500, 5_000)  # whole cells and cut ones
    with pytest.raises(ValueError, match=r"level must be at most 1 - 1e-9 .*got 0\.9999999999"):
        hm.query(region, level=0.9999999999)
    widths = [
        (q.ci_high - q.ci_low) for q in (hm.query(region, level=v) for v in (0.999, 1 - 1e-9))
    ]
    assert widths[1] > widths[0]


def test_a_region_that_overlaps_no_released_cell_is_refused() -> None:
    # was "between 0 and 0 with 95% probability" (often a CRS or axis-order mistake)
    with pytest.raises(ValueError, match=r"overlaps none of the released cells .*EPSG:3035"):
        _map().query(box(20_000, 0, 30_000, 5_000))


def test_the_share_of_a_region_outside_the_released_cells_is_given_and_said() -> None:
    q = _map().query(box(5_000, 0, 15_000, 10_000))  # half beyond the grid's east edge
    assert q.outside == pytest.approx(0.5)
    assert q.n_whole == 50
    assert "50% of the region lies outside the released cells" in q.describe()
    assert _map().query(box(0, 0, 5_000, 5_000)).outside == 0.0


def test_several_regions_are_refused_not_unioned() -> None:
    regions = gpd.GeoSeries([box(0, 0, 2_000, 2_000), box(1_000, 0, 3_000, 2_000)], crs=3035)
    with pytest.raises(ValueError, match=r"polygon holds 2 geometries; query one region"):
        _map().query(regions)
    one = _map().query(regions.iloc[[0]])
    assert one.n_cells == 4


def test_a_region_in_another_crs_is_densified_before_it_is_projected() -> None:
    # a lon/lat box's sides are curves in EPSG:3035; projecting its 4 corners only gave
    # chords ~400 m off: 3,000 sites along the south edge, inside the reserve, fell outside
    # the polygon the interval was proved for, which missed them ([0, 2607])
    reserve = gpd.GeoSeries([box(10.0, 60.0, 12.0, 61.0)], crs=4326)
    gen = np.random.default_rng(0)
    lon, lat = gen.uniform(10.5, 11.5, 3_000), gen.uniform(60.0002, 60.003, 3_000)
    sites = gpd.GeoSeries(gpd.points_from_xy(lon, lat), crs=4326)
    x0, y0, x1, y1 = reserve.segmentize(0.001).to_crs(3035).total_bounds
    grid = Grid.from_bounds((x0 - 2e3, y0 - 2e3, x1 + 2e3, y1 + 2e3), cell_size=1e3, crs=3035)
    hm = heatmap(sites, grid, method="uniform", target="regions", epsilon=2.0, rng=0)
    q = hm.query(reserve)
    assert q.ci_low <= 3_000 <= q.ci_high


def test_chernoff_bound_takes_scales_below_one_over_700() -> None:
    # was OverflowError: math.exp(λ) with λ up to 1/b = 1000
    tiny = NoiseSum("discrete_laplace", np.full(10, 0.001), max_lattice=1)
    assert tiny.method == "chernoff"
    assert tiny.upper(0.975) == 0.0  # P(any noise != 0) = 20 e^-1000 / (1 + e^-1000)
    mixed = NoiseSum("discrete_laplace", np.r_[np.full(10, 0.001), 2.0, 2.0], max_lattice=1)
    assert mixed.upper(0.975) >= NoiseSum("discrete_laplace", np.full(2, 2.0)).upper(0.975)


@pytest.mark.parametrize(
    ("estimate", "n_whole", "n_cut", "unit", "expected"),
    [
        (
            -0.4,
            1,
            0,
            "cell",
            "about 0 sites; with 95% probability the true number lies between 0 "
            "and 3. This range allows for the noise of the 1 cell wholly inside the region.",
        ),
        (
            2.4,
            0,
            1,
            "leaf",
            "about 2 sites; with 95% probability the true number lies between 0 "
            "and 3. This range allows for any spread of sites inside the 1 leaf its edge cuts.",
        ),
        (
            0.0,
            0,
            0,
            "cell",
            "about 0 sites; with 95% probability the true number lies between 0 and 3.",
        ),
    ],
)
def test_describe_reads_as_english(estimate, n_whole, n_cut, unit, expected):
    """Before: "about -0 sites", "the 1 cells", "the noise of the 0 leaves wholly inside"."""
    q = RegionEstimate(
        estimate,
        0.0,
        3.0,
        0.95,
        1.0,
        n_whole + n_cut,
        "exact",
        1.0,
        "noise" if not n_cut else "noise and spread",
        unit,
        n_whole,
        n_cut,
    )
    assert q.describe() == expected
