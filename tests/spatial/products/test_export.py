"""Exports re-read with geopandas / rasterio: values, CRS, nodata, tags; the plot's caption."""

from __future__ import annotations

import json

import geopandas as gpd
import matplotlib.pyplot as plt
import numpy as np
import pyogrio
import pytest
import rasterio
from shapely.geometry import Polygon

from dpatlas.spatial import Grid, heatmap
from dpatlas.spatial.products.export import NODATA

TRIANGLE = Grid.from_polygon(
    Polygon([(4_000_000, 3_000_000), (4_010_000, 3_000_000), (4_000_000, 3_008_000)]),
    cell_size=1_000,
    crs="EPSG:3035",
)


def _map(seed: int = 5):
    gen = np.random.default_rng(seed)
    x = gen.uniform(4_000_000, 4_010_000, 500)
    y = gen.uniform(3_000_000, 3_008_000, 500)
    return heatmap((x, y), TRIANGLE, method="uniform", epsilon=0.5, crs=3035, rng=seed)


def test_geodataframe_has_one_polygon_per_released_cell():
    hm = _map().suppress(2)
    gdf = hm.to_geodataframe()
    assert len(gdf) == TRIANGLE.n_released < TRIANGLE.n_cells
    assert list(gdf.columns) == [
        "row",
        "col",
        "count",
        "raw",
        "ci_low",
        "ci_high",
        "suppressed",
        "geometry",
    ]
    assert gdf.crs.to_epsg() == 3035
    np.testing.assert_array_equal(gdf["count"], hm.counts[gdf["row"], gdf["col"]])
    np.testing.assert_allclose(gdf.geometry.area, 1_000**2)
    first = gdf.iloc[0]
    x0, _, _, y1 = TRIANGLE.bounds
    assert first.geometry.bounds == (
        x0 + 1_000 * first["col"],
        y1 - 1_000 * (first["row"] + 1),
        x0 + 1_000 * (first["col"] + 1),
        y1 - 1_000 * first["row"],
    )
    assert (gdf["ci_low"] >= 0).all()
    assert (gdf["ci_high"] - gdf["raw"] == 6).all()  # scale 2: 95% half-width 6
    assert gdf.attrs["dpatlas"]["epsilon"] == "0.5"


def test_geopackage_round_trip_keeps_values_crs_and_metadata(tmp_path):
    hm = _map().nonnegative()
    path = hm.to_file(tmp_path / "map.gpkg")
    back = gpd.read_file(path)
    assert back.crs.to_epsg() == 3035
    np.testing.assert_array_equal(back["count"], hm.estimate)
    np.testing.assert_array_equal(back["raw"], hm.release.value)
    meta = pyogrio.read_info(path)["layer_metadata"]
    assert meta["epsilon"] == "0.5"
    assert meta["mechanism"] == "heatmap/uniform"
    assert json.loads(meta["postprocessing"]) == ["nonnegative(integer)"]


def test_geojson_is_rfc7946_wgs84_with_description(tmp_path):
    hm = _map()
    path = hm.to_file(tmp_path / "map.geojson")
    back = gpd.read_file(path)
    assert back.crs.to_epsg() == 4326
    expected = hm.to_geodataframe().to_crs(4326).geometry
    np.testing.assert_allclose(back.geometry.iloc[0].bounds, expected.iloc[0].bounds, atol=1e-7)
    np.testing.assert_array_equal(back["count"], hm.estimate)
    document = json.loads(path.read_text())
    assert "crs" not in document  # RFC 7946: WGS 84 implied
    facts = json.loads(document["description"])
    assert facts["epsilon"] == "0.5"
    assert facts["crs"] == "EPSG:3035"
    with pytest.raises(
        ValueError, match=r"path must end in .gpkg, .geojson or .json, got '.*map.shp'"
    ):
        hm.to_file(tmp_path / "map.shp")


def test_geotiff_values_nodata_flags_and_tags(tmp_path):
    hm = _map().suppress(3)
    path = hm.to_geotiff(tmp_path / "map.tif")
    with rasterio.open(path) as src:
        assert src.crs.to_epsg() == 3035
        assert src.count == 2
        assert src.descriptions == ("count", "suppressed")
        assert src.nodata == NODATA
        assert src.transform == TRIANGLE.transform
        counts = src.read(1)
        flags = src.read(2)
        tags = src.tags()
    released = TRIANGLE.released
    np.testing.assert_array_equal(counts[released], hm.estimate)
    assert (counts[~released] == NODATA).all()
    np.testing.assert_array_equal(flags[released], hm.flags["suppressed"])
    assert tags["epsilon"] == "0.5"
    assert tags["mechanism"] == "heatmap/uniform"
    assert tags["cell_size"] == "1000"
    assert tags["crs"] == "EPSG:3035"
    assert tags["noise_scale"] == "2"
    assert tags["seeded"] == "True"
    assert tags["date"] == hm.release.metadata["created"]


def test_geotiff_float_estimate_uses_nan_nodata(tmp_path):
    hm = _map().nonnegative(integer=False)
    with rasterio.open(hm.to_geotiff(tmp_path / "float.tif")) as src:
        counts = src.read(1)
        assert np.isnan(src.nodata)
    assert np.isnan(counts[~TRIANGLE.released]).all()
    np.testing.assert_allclose(counts[TRIANGLE.released], hm.estimate)


def test_plot_title_carries_epsilon_and_mechanism(tmp_path):
    hm = _map().suppress(1)
    ax = hm.plot()
    title = ax.get_title()
    assert "ε = 0.5" in title
    assert "heatmap/uniform" in title
    assert "seeded" in title
    image = ax.get_images()[0].get_array()
    assert image.mask[~TRIANGLE.released].all()
    assert image.mask[TRIANGLE.released][hm.flags["suppressed"]].all()
    ax.figure.savefig(tmp_path / "map.png")
    assert (tmp_path / "map.png").stat().st_size > 1_000
    plt.close(ax.figure)
    fig, own = plt.subplots()
    assert hm.plot(ax=own) is own
    plt.close(fig)
