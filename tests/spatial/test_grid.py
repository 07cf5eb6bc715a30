"""Grid: public extent, projected CRS, half-open cells, polygon mask, size limit."""

from __future__ import annotations

import re
import tracemalloc

import geopandas as gpd
import numpy as np
import pytest
import shapely
from shapely.geometry import Point, Polygon, box

from dpatlas.spatial import Grid, SiteAdjacency


def test_from_bounds_shape_edges_and_transform():
    g = Grid.from_bounds((100, 200, 1_100, 700), cell_size=100, crs="EPSG:3035")
    assert g.shape == (5, 10)
    assert g.bounds == (100.0, 200.0, 1_100.0, 700.0)
    np.testing.assert_array_equal(g.x_edges, np.arange(100, 1_101, 100))
    assert g.transform @ (0, 0) == (100.0, 700.0)  # row 0 is the northern row
    assert g.mask is None
    assert g.n_released == 50
    assert g.released.all()


def test_from_bounds_rounds_up_to_whole_cells_without_float_drift():
    g = Grid.from_bounds((0, 0, 1_050, 0.3), cell_size=100, crs="EPSG:3035")
    assert g.shape == (1, 11)
    assert Grid.from_bounds((0, 0, 0.7, 0.3), cell_size=0.1, crs="EPSG:3035").shape == (3, 7)


def test_geographic_crs_refused_with_fix():
    with pytest.raises(ValueError, match=r"geographic \(degrees\); pick an equal-area .*EPSG:3035"):
        Grid.from_bounds((-10, 40, 10, 50), cell_size=1_000, crs="EPSG:4326")
    with pytest.raises(ValueError, match=r"EPSG:6933 \(global\).*`to_crs\(\)`"):
        Grid.from_polygon(box(0, 0, 1, 1), cell_size=1, crs=4326)


@pytest.mark.parametrize(
    ("crs", "kind"),
    [
        ("EPSG:4978", "geocentric (Earth-centred x, y, z: not a map projection)"),
        ("EPSG:5703", "unprojected (Vertical CRS)"),
        ('LOCAL_CS["site",UNIT["metre",1]]', "unprojected (Engineering CRS)"),
    ],
)
def test_an_unprojected_crs_is_named_for_what_it_is(crs, kind):
    """EPSG:4978 (geocentric, in metres) was called "geographic"; found by a hand fuzz."""
    with pytest.raises(ValueError, match=re.escape(f"which is {kind}; pick an equal-area")):
        Grid.from_bounds((0, 0, 10, 10), cell_size=1, crs=crs)


def test_non_metre_crs_and_missing_crs_refused():
    with pytest.raises(ValueError, match=r"axes in metres.*US survey foot"):
        Grid.from_bounds((0, 0, 10, 10), cell_size=1, crs="EPSG:2263")
    with pytest.raises(TypeError, match="crs is required"):
        Grid.from_bounds((0, 0, 10, 10), cell_size=1, crs=None)
    with pytest.raises(ValueError, match="crs could not be parsed, got 'EPSG:nope'"):
        Grid.from_bounds((0, 0, 10, 10), cell_size=1, crs="EPSG:nope")


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"cell_size": 0}, ValueError, r"cell_size must be a finite number of metres > 0, got 0"),
        ({"cell_size": float("nan")}, ValueError, r"cell_size must be .* got nan"),
        ({"cell_size": "1"}, TypeError, r"cell_size must be a number of metres > 0, got '1'"),
        ({"bounds": (0, 0, 0, 1)}, ValueError, r"minx < maxx and miny < maxy"),
        ({"bounds": (0, 0, 1)}, ValueError, r"4 finite numbers"),
        ({"bounds": "abcd"}, TypeError, r"bounds must be \(minx, miny, maxx, maxy\)"),
        ({"max_cells": 0}, ValueError, r"max_cells must be an int >= 1, got 0"),
    ],
)
def test_bad_arguments(kwargs, error, match):
    args = {"bounds": (0, 0, 10, 10), "cell_size": 1, "crs": "EPSG:3035", **kwargs}
    bounds = args.pop("bounds")
    with pytest.raises(error, match=match):
        Grid.from_bounds(bounds, **args)


def test_too_large_grid_refused_before_allocating():
    # memory, not wall time, shows nothing was allocated: timing fails on a loaded CI machine
    tracemalloc.start()
    try:
        with pytest.raises(
            ValueError, match=r"1,000,000 x 1,000,000 = .* more than max_cells=100,000,000"
        ):
            Grid.from_bounds((0, 0, 1e9, 1e9), cell_size=1_000, crs="EPSG:3035")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 16 * 2**20
    with pytest.raises(ValueError, match=r"raise max_cells"):
        Grid.from_bounds((0, 0, 100, 100), cell_size=1, crs="EPSG:3035", max_cells=9_999)
    assert (
        Grid.from_bounds((0, 0, 100, 100), cell_size=1, crs=3035, max_cells=10_000).n_cells
        == 10_000
    )


def _brute_force_mask(grid: Grid, polygon) -> np.ndarray:
    rows, cols = np.indices(grid.shape).reshape(2, -1)
    xe, ye = grid.x_edges, grid.y_edges
    boxes = shapely.box(xe[cols], ye[grid.ny - 1 - rows], xe[cols + 1], ye[grid.ny - rows])
    inter = shapely.intersection(boxes, polygon)
    return (shapely.area(inter) > 0).reshape(grid.shape)


def test_polygon_mask_rule_interior_overlap_not_touching():
    # An L shape whose inner corner touches cell (0, 1) at a point and cell (0, 2) along an edge.
    ell = Polygon([(0, 0), (3, 0), (3, 1), (1, 1), (1, 3), (0, 3)])
    g = Grid.from_polygon(ell, cell_size=1, crs="EPSG:3035")
    np.testing.assert_array_equal(g.released, [[1, 0, 0], [1, 0, 0], [1, 1, 1]])
    assert g.n_released == 5
    assert g.study_area.equals(ell)


@pytest.mark.parametrize("seed", range(8))
def test_polygon_mask_matches_brute_force(seed):
    gen = np.random.default_rng(seed)
    centre = gen.uniform(0, 50, 2)
    blob = Point(*centre).buffer(gen.uniform(10, 30), quad_segs=gen.integers(1, 8))
    hole = Point(*centre).buffer(gen.uniform(1, 8))
    poly = blob.difference(hole).union(box(*(centre + 35), *(centre + 41)))  # a multipolygon
    g = Grid.from_polygon(poly, cell_size=gen.choice([0.5, 1.0, 2.5]), crs="EPSG:3035")
    np.testing.assert_array_equal(g.released, _brute_force_mask(g, poly))


def test_polygon_from_geoseries_is_reprojected():
    lonlat = gpd.GeoSeries([box(10.0, 50.0, 10.2, 50.1)], crs="EPSG:4326")
    g = Grid.from_polygon(lonlat, cell_size=1_000, crs="EPSG:3035")
    projected = lonlat.to_crs(3035).iloc[0]
    assert g.bounds[0] == pytest.approx(projected.bounds[0])
    assert g.crs.to_epsg() == 3035
    assert 0 < g.n_released <= g.n_cells


def test_polygon_errors():
    with pytest.raises(ValueError, match=r"polygon has no CRS; .*set_crs"):
        Grid.from_polygon(gpd.GeoSeries([box(0, 0, 1, 1)]), cell_size=1, crs=3035)
    with pytest.raises(ValueError, match=r"non-empty Polygon or MultiPolygon, got LineString"):
        Grid.from_polygon(shapely.LineString([(0, 0), (1, 1)]), cell_size=1, crs=3035)
    bowtie = Polygon([(0, 0), (1, 1), (1, 0), (0, 1)])
    with pytest.raises(ValueError, match=r"polygon is not valid .*make_valid"):
        Grid.from_polygon(bowtie, cell_size=1, crs=3035)
    with pytest.raises(TypeError, match=r"polygon must be a shapely Polygon .* got tuple"):
        Grid.from_polygon((0, 0, 1, 1), cell_size=1, crs=3035)


def test_an_invalid_row_of_a_study_area_is_refused_in_one_line_not_a_geos_error():
    bowtie = Polygon([(0, 0), (1_000, 1_000), (1_000, 0), (0, 1_000)])
    rows = gpd.GeoDataFrame(geometry=[None, box(5_000, 0, 6_000, 1_000), bowtie], crs=3035)
    with pytest.raises(ValueError, match=r"^polygon at position 2 is not valid \(Self-inter"):
        Grid.from_polygon(rows, cell_size=500, crs="EPSG:3035")
    with pytest.raises(ValueError, match=r"polygon at position 2 is not valid .*make_valid"):
        Grid.from_polygon(rows.to_crs(4326), cell_size=500, crs="EPSG:3035")
    assert Grid.from_polygon(rows.make_valid(), cell_size=500, crs="EPSG:3035").n_released == 8


def test_grid_mask_is_read_only_and_shape_checked():
    g = Grid.from_polygon(box(0, 0, 3, 3), cell_size=1, crs=3035)
    with pytest.raises(ValueError, match="read-only"):
        g.mask[0, 0] = False
    with pytest.raises(ValueError, match=r"mask must have shape \(2, 2\), got \(3, 3\)"):
        Grid(0, 0, 1, 2, 2, "EPSG:3035", mask=np.ones((3, 3)))


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"max_sites_per_individual": 0}, ValueError, "must be an int >= 1, got 0"),
        ({"max_sites_per_individual": 1.5}, TypeError, "must be an int >= 1, got 1.5"),
        ({"max_sites_per_individual": True}, TypeError, "must be an int >= 1, got True"),
        ({"relation": "swap"}, ValueError, r"relation must be one of .* got 'swap'"),
    ],
)
def test_site_adjacency_validates(kwargs, error, match):
    with pytest.raises(error, match=match):
        SiteAdjacency(**kwargs)


def test_site_adjacency_sensitivity_and_frozen():
    assert SiteAdjacency(max_sites_per_individual=4).sensitivity == 4
    assert SiteAdjacency(max_sites_per_individual=4, relation="replace").sensitivity == 8
    with pytest.raises(AttributeError):
        SiteAdjacency().max_sites_per_individual = 2  # type: ignore[misc]


@pytest.mark.parametrize("bad", [np.nan, np.inf, "a", True, None])
def test_a_grid_built_directly_checks_its_origin(bad):
    # read_heatmap builds grids this way: a NaN origin once made every site fall outside
    with pytest.raises(ValueError, match=r"x0 must be a finite number, got"):
        Grid(bad, 0, 1_000, 2, 2, "EPSG:3035")
    with pytest.raises(ValueError, match=r"y0 must be a finite number, got"):
        Grid(0, bad, 1_000, 2, 2, "EPSG:3035")
    assert Grid(np.int64(3), 0.5, 1_000, 2, 2, "EPSG:3035").bounds == (3.0, 0.5, 2003.0, 2000.5)


def test_a_grid_shows_in_one_line_in_a_notebook():
    """A Heatmap's repr (what a notebook cell shows) held pyproj's 30-line CRS description."""
    grid = Grid.from_bounds((0, 0, 3_000, 2_000), cell_size=1_000, crs="EPSG:3035")
    assert repr(grid) == "Grid(x0=0.0, y0=0.0, cell_size=1000.0, nx=3, ny=2, crs='EPSG:3035')"
    area = Grid.from_polygon(box(0, 0, 2_500, 2_000), cell_size=1_000, crs="EPSG:3035")
    assert "\n" not in repr(area)
    assert repr(area).endswith(f"crs='EPSG:3035', released={area.n_released})")
