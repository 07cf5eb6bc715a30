"""Site input: CRS handling and round trips, refused geometries, contribution bounding."""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
from pyproj import CRS, Transformer
from scipy import stats
from shapely.geometry import LineString, MultiPoint, Point

from dpatlas.core.rng import get_source
from dpatlas.spatial import Grid, bin_points
from dpatlas.spatial.sites import bound_contributions, individual_ids, site_coordinates

EPSG_3035 = CRS.from_epsg(3035)


@pytest.mark.parametrize(
    ("target", "lon", "lat"), [(3035, (5, 15), (45, 55)), (6933, (-92, -89), (-1.5, 1.5))]
)
def test_lonlat_sites_round_trip_through_projected_grid(target, lon, lat):
    gen = np.random.default_rng(0)
    lons, lats = gen.uniform(*lon, 5_000), gen.uniform(*lat, 5_000)
    sites = gpd.GeoDataFrame(geometry=gpd.points_from_xy(lons, lats), crs="EPSG:4326")
    crs = CRS.from_epsg(target)
    x, y = site_coordinates(sites, crs)
    expected = sites.to_crs(crs)
    np.testing.assert_allclose(x, expected.geometry.x, rtol=0, atol=1e-6)
    np.testing.assert_allclose(y, expected.geometry.y, rtol=0, atol=1e-6)
    back_lon, back_lat = Transformer.from_crs(crs, 4326, always_xy=True).transform(x, y)
    np.testing.assert_allclose(back_lon, lons, atol=1e-9)
    np.testing.assert_allclose(back_lat, lats, atol=1e-9)
    # Arrays with crs= give the same coordinates as the GeoDataFrame.
    ax, ay = site_coordinates((lons, lats), crs, crs="EPSG:4326")
    np.testing.assert_array_equal(ax, x)
    np.testing.assert_array_equal(ay, y)


def test_same_crs_is_not_transformed_and_n_by_2_arrays_work():
    xy = np.array([[1.0, 2.0], [3.0, 4.0]])
    x, y = site_coordinates(xy, EPSG_3035, crs=3035)
    assert x.tolist() == [1.0, 3.0]
    assert y.tolist() == [2.0, 4.0]


@pytest.mark.parametrize(
    ("sites", "crs", "error", "match"),
    [
        (gpd.GeoSeries([Point(0, 0)]), None, ValueError, r"sites have no CRS: set .*set_crs"),
        ((np.zeros(2), np.zeros(2)), None, ValueError, r"sites have no CRS"),
        (
            gpd.GeoSeries([Point(0, 0), LineString([(0, 0), (1, 1)])], crs=3035),
            None,
            ValueError,
            r"sites must be Point geometries, got a LineString; .*centroid",
        ),
        (
            gpd.GeoSeries([MultiPoint([(0, 0), (1, 1)])], crs=3035),
            None,
            ValueError,
            r"got a MultiPoint; .*explode\(\)",
        ),
        (
            gpd.GeoSeries([Point(0, 0), Point()], crs=3035),
            None,
            ValueError,
            r"empty points, first at position 1",
        ),
        (
            gpd.GeoSeries([Point(0, 0), None], crs=3035),
            None,
            ValueError,
            r"missing \(None\) geometries, first at position 1",
        ),
        (
            gpd.GeoSeries([Point(0, np.nan)], crs=3035),
            None,
            ValueError,
            r"must be finite, got \(0.0, nan\) at position 0",
        ),
        (
            (np.array([0.0, np.inf]), np.zeros(2)),
            3035,
            ValueError,
            r"must be finite, got \(inf, 0.0\) at position 1",
        ),
        (
            (np.zeros(3), np.zeros(2)),
            3035,
            ValueError,
            r"1-D arrays of one length, got \(3,\) and \(2,\)",
        ),
        ("sites.csv", 3035, TypeError, r"sites must be a GeoDataFrame / GeoSeries .* got str"),
        ((np.array(["a"]), np.array(["b"])), 3035, TypeError, r"site coordinates must be numbers"),
        (
            gpd.GeoSeries([Point(0, 0)], crs=4326),
            3035,
            ValueError,
            r"crs=3035 disagrees with the sites' own CRS EPSG:4326",
        ),
        (  # two points, or two xs and two ys? once read as (xs, ys), the points misplaced
            [(1.0, 1.0), (2500.0, 2500.0)],
            3035,
            ValueError,
            r"is ambiguous: two sequences of two numbers could be \(xs, ys\) or two \(x, y\) points",
        ),
        (  # latitude 95 projects to inf: once dropped from the map without a word
            gpd.GeoSeries([Point(10, 50), Point(10, 95)], crs=4326),
            None,
            ValueError,
            r"site at position 1, \(10.0, 95.0\) in WGS 84, has no coordinates in ETRS89",
        ),
    ],
)
def test_bad_sites_are_refused_with_fix(sites, crs, error, match):
    with pytest.raises(error, match=match):
        site_coordinates(sites, EPSG_3035, crs)


def test_individual_ids_from_column_or_array():
    frame = gpd.GeoDataFrame({"who": ["a", "b", "a"]}, geometry=[Point(0, 0)] * 3, crs=3035)
    assert individual_ids(frame, "who", 3).tolist() == [0, 1, 0]
    assert individual_ids(frame, np.array([7, 7, 9]), 3).tolist() == [0, 0, 1]
    with pytest.raises(ValueError, match=r"individual_column='nobody' is not a column"):
        individual_ids(frame, "nobody", 3)
    with pytest.raises(ValueError, match=r"one id per site \(3\), got 2"):
        individual_ids(frame, [1, 2], 3)
    with pytest.raises(TypeError, match=r"individual_column=0: give a column name .* positions"):
        individual_ids(frame, 0, 3)
    with pytest.raises(ValueError, match=r"must be 1-D, one id per site, got shape \(3, 1\)"):
        individual_ids(frame, [[1], [2], [3]], 3)
    shuffled = pd.Series(["x", "y", "x"], index=[2, 0, 1])  # once used by position, silently
    with pytest.raises(ValueError, match=r"index differs from the sites' index; align it"):
        individual_ids(frame, shuffled, 3)
    assert individual_ids(frame, shuffled.reindex(frame.index), 3).tolist() == [0, 1, 1]
    frame.loc[1, "who"] = None
    with pytest.raises(ValueError, match=r"individual_column has missing ids; fill them"):
        individual_ids(frame, "who", 3)


def test_bounding_keeps_at_most_k_per_individual():
    owners = np.repeat(np.arange(50), np.arange(1, 51))  # individual i owns i + 1 sites
    for k in (1, 3, 10):
        keep = bound_contributions(owners, k, get_source(k))
        kept = np.bincount(owners[keep], minlength=50)
        np.testing.assert_array_equal(kept, np.minimum(np.arange(1, 51), k))


def test_bounding_picks_uniformly_and_ignores_location():
    """One individual with 5 sites, k = 2: each of the 10 pairs is kept equally often."""
    owners = np.array([0, 0, 0, 0, 0, 1, 2])
    tallies = np.zeros(32, dtype=np.int64)
    for seed in range(5_000):
        keep = bound_contributions(owners, 2, get_source(seed))
        tallies[int(np.packbits(keep[:5], bitorder="little")[0])] += 1
        assert keep[5]
        assert keep[6]
    pairs = tallies[tallies > 0]
    assert pairs.size == 10
    assert stats.chisquare(pairs).pvalue > 1e-6
    # The selection never sees coordinates: the same owners and seed keep the same rows.
    grid = Grid.from_bounds((0, 0, 10, 10), cell_size=1, crs=3035)
    keep = bound_contributions(owners, 2, get_source(5))
    assert np.array_equal(keep, bound_contributions(owners, 2, get_source(5)))
    assert bin_points(grid, np.arange(7.0)[keep], np.zeros(7)[keep]).sum() == 4
