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
from dpatlas.spatial.products.intervals import containing

TRIANGLE = Grid.from_polygon(
    Polygon([(4_000_000, 3_000_000), (4_010_000, 3_000_000), (4_000_000, 3_008_000)]),
    cell_size=1_000,
    crs="EPSG:3035",
)


def _map(seed: int = 5):
    gen = np.random.default_rng(seed)
    x = gen.uniform(4_000_000, 4_010_000, 500)
    y = gen.uniform(3_000_000, 3_008_000, 500)
    return heatmap(
        (x, y), TRIANGLE, method="uniform", target="regions", epsilon=0.5, crs=3035, rng=seed
    )


def test_geodataframe_has_one_polygon_per_released_cell():
    hm = _map().suppress(2)
    gdf = hm.to_geodataframe()
    assert len(gdf) == TRIANGLE.n_released < TRIANGLE.n_cells
    assert list(gdf.columns) == [
        "row",
        "col",
        "count",
        "raw",
        "ci95_low",
        "ci95_high",
        "ci_covers",
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
    assert (gdf["ci95_low"] >= 0).all()
    assert (gdf["ci95_high"] - gdf["raw"] == 6).all()  # scale 2: 95% half-width 6
    assert (gdf["ci_covers"] == "noise").all()
    assert gdf.attrs["dpatlas"]["epsilon"] == "0.5"
    assert gdf.attrs["dpatlas"]["layer_unit"] == "cell"
    assert "every cell was measured on its own" in gdf.attrs["dpatlas"]["interval"]
    assert list(hm.to_geodataframe(level=0.9).columns[4:6]) == ["ci90_low", "ci90_high"]
    with pytest.raises(ValueError, match="unit='leaf' needs a multi-level release"):
        hm.to_geodataframe(unit="leaf")


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
        ValueError,
        match=r"path must end in .gpkg, .geojson, .json, .tif, .tiff, .png, .html, got .*map.shp",
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


def _tree_map(seed: int = 5):
    """A PrivTree map on the triangle (masked) grid: some leaves are cut by the mask."""
    grid = Grid.from_polygon(
        Polygon([(4_000_000, 3_000_000), (4_040_000, 3_000_000), (4_000_000, 3_032_000)]),
        cell_size=1_000,
        crs="EPSG:3035",
    )
    gen = np.random.default_rng(seed)
    x = np.r_[gen.normal(4_008_000, 2_000, 1_500), gen.uniform(4_000_000, 4_020_000, 300)]
    y = np.r_[gen.normal(3_008_000, 2_000, 1_500), gen.uniform(3_000_000, 3_016_000, 300)]
    return heatmap((x, y), grid, method="privtree", epsilon=1.0, crs=3035, rng=seed)


def test_leaf_layer_has_one_polygon_per_measured_leaf_with_count_density_and_interval():
    hm = _tree_map()
    m, h, grid = hm.measured, hm.hierarchy, hm.grid
    gdf = hm.to_geodataframe(unit="leaf")
    assert list(gdf.columns) == [
        "leaf",
        "n_cells",
        "count",
        "raw",
        "density_km2",
        "ci95_low",
        "ci95_high",
        "ci_covers",
        "geometry",
    ]
    assert len(gdf) == m.size == np.count_nonzero(h.is_leaf & (h.n_released > 0))
    np.testing.assert_array_equal(gdf["raw"], h.noisy[gdf["leaf"]])
    np.testing.assert_array_equal(gdf["n_cells"], h.n_released[gdf["leaf"]])
    # polygons: the leaves' released cells exactly (cut by the mask where it cuts them)
    nodes = gdf["leaf"].to_numpy()
    rectangles = (h.r1 - h.r0)[nodes] * (h.c1 - h.c0)[nodes]
    assert (gdf["n_cells"] < rectangles).any()
    np.testing.assert_allclose(gdf.geometry.area, gdf["n_cells"] * grid.cell_area)
    assert gdf.geometry.union_all().area == pytest.approx(grid.n_released * grid.cell_area)
    assert gdf["count"].sum() == pytest.approx(hm.estimate.sum())
    np.testing.assert_allclose(gdf["density_km2"], gdf["count"] / gdf["n_cells"])  # 1 km² cells
    low, high = containing(*hm.confidence_interval(unit="leaf"), gdf["count"].to_numpy())
    np.testing.assert_array_equal(gdf["ci95_low"], low)  # the noise interval, holding the count
    np.testing.assert_array_equal(gdf["ci95_high"], high)
    assert (gdf["ci_covers"] == "noise").all()
    facts = gdf.attrs["dpatlas"]
    assert (facts["layer_unit"], facts["measured_unit"]) == ("leaf", "leaf")
    assert "each leaf's true count" in facts["interval"]


def test_geopackage_of_a_tree_map_holds_cells_and_leaves_and_replaces_the_file(tmp_path):
    path = tmp_path / "map.gpkg"
    _map().to_file(path)
    hm = _tree_map()
    hm.to_file(path)
    assert pyogrio.list_layers(path)[:, 0].tolist() == ["cells", "leaves"]
    cells, leaves = gpd.read_file(path, layer="cells"), gpd.read_file(path, layer="leaves")
    assert len(cells) == hm.grid.n_released
    assert len(leaves) == hm.measured.size
    meta = pyogrio.read_info(path, layer="leaves")["layer_metadata"]
    assert meta["layer_unit"] == "leaf"
    assert meta["mechanism"] == "heatmap/privtree"
    assert (
        "noise and spread" in pyogrio.read_info(path, layer="cells")["layer_metadata"]["interval"]
    )
    _map().to_file(path)  # a one-level map: the old leaves are gone with the old file
    assert pyogrio.list_layers(path)[:, 0].tolist() == ["cells"]
    hm.to_file(path, unit="leaf")
    assert pyogrio.list_layers(path)[:, 0].tolist() == ["leaves"]
    geojson = hm.to_file(tmp_path / "leaves.geojson", unit="leaf", level=0.9)
    back = gpd.read_file(geojson)
    assert len(back) == hm.measured.size
    assert {"ci90_low", "ci90_high"} <= set(back.columns)
    with pytest.raises(ValueError, match="unit='leaf' needs a multi-level release"):
        _map().to_file(tmp_path / "no.geojson", unit="leaf")


def test_plots_outline_the_leaves_and_say_what_the_interval_map_shows():
    from dpatlas.plot import plot_interval_map

    hm = _tree_map()
    ax = hm.plot(leaves=True)
    assert len(ax.collections[-1].get_paths()) == hm.measured.size
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="leaves=True needs a multi-level release"):
        _map().plot(leaves=True)
    fig = plot_interval_map(hm, unit="leaf")
    assert fig.axes[0].get_title() == "lower end of 95% interval, leaf average per cell"
    assert "noise only" in fig.texts[0].get_text()
    plt.close(fig)
    fig = plot_interval_map(hm)
    assert "[0, upper end of the leaf's]" in fig.texts[0].get_text().replace("\n", " ")
    plt.close(fig)


def test_geotiff_tags_do_not_describe_interval_columns_it_lacks(tmp_path):
    with rasterio.open(_tree_map().to_geotiff(tmp_path / "tree.tif")) as src:
        tags = src.tags()
    assert tags["measured_unit"] == "leaf"
    assert not any(key.startswith("interval") for key in tags)


def test_a_failed_geopackage_export_leaves_the_existing_file_whole(tmp_path):
    # was: the file was deleted, then the level refused (the archived release lost)
    from dpatlas.spatial import read_heatmap

    path = _map().to_file(tmp_path / "map.gpkg")
    before = path.read_bytes()
    archived = read_heatmap(path)
    with pytest.raises(ValueError, match="level must be in"):
        archived.to_file(path, level=95)
    assert path.read_bytes() == before
    archived.to_file(path, level=0.9)  # re-exported over the file it was read from
    np.testing.assert_array_equal(read_heatmap(path).release.value, archived.release.value)
    assert [p.name for p in tmp_path.iterdir()] == ["map.gpkg"]


def test_an_export_into_a_missing_folder_says_so(tmp_path):
    with pytest.raises(FileNotFoundError, match=r"in a folder that does not exist; create"):
        _map().to_file(tmp_path / "nope" / "map.gpkg")


def test_read_heatmap_says_where_the_release_record_is(tmp_path):
    # was "is not a GeoPackage" / "holds no dpatlas release record" for dpatlas's own files
    from dpatlas.spatial import read_heatmap

    hm = _tree_map()
    leaves = hm.to_file(tmp_path / "leaves.gpkg", unit="leaf")
    with pytest.raises(
        ValueError, match=r"has no layer 'cells' \(its layers: leaves\): .*unit='leaf'"
    ):
        read_heatmap(leaves)
    both = hm.to_file(tmp_path / "both.gpkg")
    with pytest.raises(ValueError, match=r"record is kept in the layer 'cells', not 'leaves'"):
        read_heatmap(both, layer="leaves")
    with pytest.raises(ValueError, match=r"has no layer 'nope' \(its layers: cells, leaves\)"):
        read_heatmap(both, layer="nope")
