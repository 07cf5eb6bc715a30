"""The web map's page (without a browser): data, privacy facts, options; saved releases."""

from __future__ import annotations

import json
import re

import numpy as np
import pandas as pd
import pyogrio
import pytest
import rasterio
from shapely.geometry import Polygon

from dpatlas.spatial import Grid, heatmap
from dpatlas.spatial.products import webmap
from dpatlas.spatial.products.record import RECORD_KEY, read_heatmap

GRID = Grid.from_polygon(
    Polygon([(4_000_000, 3_000_000), (4_010_000, 3_000_000), (4_000_000, 3_008_000)]),
    cell_size=1_000,
    crs="EPSG:3035",
)
SITES = (np.array([4_000_123.456, 4_001_987.654]), np.array([3_000_234.567, 3_003_876.543]))


def _map(method: str = "uniform"):
    return heatmap(SITES, GRID, epsilon=0.5, method=method, crs=3035, rng=2)


def _data(page: str) -> dict:
    found = re.search(r'<script type="application/json" id="dpatlas-data">(.*?)</script>', page)
    assert found is not None
    return json.loads(found.group(1).replace("<\\/", "</"))


def test_the_page_holds_released_cells_and_public_facts_only():
    hm = _map().suppress(1)
    page = hm.explore()
    data = _data(page.html)
    features = data["cells"]["features"]
    assert page.n_cells == len(features) == GRID.n_released
    columns = set(hm.to_geodataframe().columns) - {"geometry"}
    assert all(set(f["properties"]) == columns | {"_fill"} for f in features)
    assert [f["properties"]["count"] for f in features] == hm.estimate.tolist()
    assert data["context"] == []
    assert data["tiles"] is None
    assert data["suppressed"] is True
    assert [label for _, label in data["fields"]] == [
        "private estimate",
        "raw noisy count",
        "95% interval",
        "the range allows for",
        "suppressed",
    ]
    # no site coordinate reaches the page, in the grid CRS or in WGS 84
    import geopandas as gpd

    lonlat = gpd.GeoSeries(gpd.points_from_xy(*SITES), crs=3035).to_crs(4326)
    for x, y, p in zip(*SITES, lonlat, strict=True):
        for text in (f"{x:.3f}", f"{y:.3f}", f"{p.x:.5f}", f"{p.y:.5f}"):
            assert text not in page.html
    assert "Differentially private" in data["caption"]
    assert "ε = 0.5, δ = 0 (whole map), heatmap/uniform" in data["caption"]
    assert "NOT secret" in data["caption"]


def test_the_web_map_and_png_caption_state_epsilon_and_delta_as_the_record():
    """The caption rounded ε to six digits (0.1234567 read 0.123457) and left δ out."""
    from dpatlas.spatial.products.plot import caption

    hm = heatmap(SITES, GRID, epsilon=0.1234567, method="uniform", crs=3035, rng=2)
    said = f"ε = {hm.release.epsilon!r}, δ = 0 (whole map), heatmap/uniform"
    assert hm.release.epsilon == 0.1234567
    assert hm.release.delta == 0
    assert caption(hm).startswith(said)
    assert said in _data(hm.explore().html)["caption"]


def test_options_colour_scale_tiles_and_refusals(monkeypatch):
    hm = _map()
    data = _data(hm.explore(cmap="magma", scale="sqrt", tiles="OpenStreetMap").html)
    assert data["legend"]["label"] == "private estimate (sites per cell, sqrt scale)"
    assert data["legend"]["stops"][0] == "#000004"  # magma's first colour
    assert data["tiles"]["url"].startswith("https://tile.openstreetmap.org/")
    with pytest.raises(ValueError, match="tiles must be one of 'OpenStreetMap' or an https://"):
        hm.explore(tiles="osm")
    with pytest.raises(ValueError, match="cmap must name a matplotlib colour map, got 'nope'"):
        hm.explore(cmap="nope")
    with pytest.raises(ValueError, match="scale must be one of 'linear', 'sqrt', 'log'"):
        hm.explore(scale="cubic")
    monkeypatch.setattr(webmap, "MAX_FEATURES", 10)
    with pytest.raises(ValueError, match="more than a web page draws well"):
        hm.explore()


def test_jupyter_shows_the_page_in_a_frame():
    frame = _map().explore(height=300)._repr_html_()
    assert frame.startswith('<iframe srcdoc="&lt;!DOCTYPE html&gt;')
    assert "height:300px" in frame
    assert "<script" not in frame  # the page is escaped inside srcdoc


@pytest.mark.parametrize("method", ["uniform", "privtree"])
def test_a_saved_geopackage_renders_every_product_again(tmp_path, method):
    hm = _map(method).nonnegative().suppress(1)
    back = read_heatmap(hm.to_file(tmp_path / "map.gpkg"))
    assert back.release.to_dict() == hm.release.to_dict()
    assert back.steps == hm.steps
    assert back.grid.shape == hm.grid.shape
    np.testing.assert_array_equal(back.grid.released, hm.grid.released)
    np.testing.assert_array_equal(back.estimate, hm.estimate)
    for name in hm.flags:
        np.testing.assert_array_equal(back.flags[name], hm.flags[name])
    assert back.explore().html == hm.explore().html
    for original, again in ((hm, tmp_path / "a.tif"), (back, tmp_path / "b.tif")):
        original.to_file(again)
    with rasterio.open(tmp_path / "a.tif") as a, rasterio.open(tmp_path / "b.tif") as b:
        np.testing.assert_array_equal(a.read(), b.read())
        assert a.tags() == b.tags()
    low, high = hm.confidence_interval()
    np.testing.assert_array_equal(back.confidence_interval()[0], low)
    np.testing.assert_array_equal(back.confidence_interval()[1], high)


def test_a_geopackage_without_a_record_is_refused(tmp_path):
    path = tmp_path / "plain.gpkg"
    _map().to_geodataframe().to_file(path, layer="cells")
    with pytest.raises(ValueError, match="holds no dpatlas release record"):
        read_heatmap(path)
    old = tmp_path / "old.gpkg"
    _map().to_geodataframe().to_file(old, layer="heatmap")  # the layer of an older dpatlas
    with pytest.raises(ValueError, match=r"has no layer 'cells' \(its layers: heatmap\); a map"):
        read_heatmap(old)
    with pytest.raises(FileNotFoundError, match="saved heatmap not found"):
        read_heatmap(tmp_path / "none.gpkg")
    damaged = tmp_path / "damaged.gpkg"
    pyogrio.write_dataframe(
        _map().to_geodataframe(), damaged, layer="cells", layer_metadata={RECORD_KEY: "{bad"}
    )
    with pytest.raises(
        ValueError, match=r"damaged.gpkg: its release record .* is damaged, not valid"
    ):
        read_heatmap(damaged)


def test_a_tree_release_can_show_the_leaves_it_measured():
    hm = _map("privtree")
    cells, leaves = _data(hm.explore().html), _data(hm.explore(unit="leaf").html)
    assert len(cells["cells"]["features"]) == GRID.n_released
    assert len(leaves["cells"]["features"]) == hm.measured.size < GRID.n_released
    assert leaves["legend"]["label"] == "private estimate (sites per km²)"  # leaves differ in size
    assert "each leaf&#x27;s true count lies in its range" in leaves["caption"]  # HTML-escaped
    assert "noise and spread" in cells["caption"]  # a cell of a big leaf: a wide, valid range
    with pytest.raises(ValueError, match="unit='leaf' needs a multi-level release"):
        _map("uniform").explore(unit="leaf")


def test_a_map_with_cells_deleted_or_repeated_is_refused(tmp_path):
    hm = _map()
    frame = hm.to_geodataframe()
    path = hm.to_file(tmp_path / "map.gpkg")
    record = pyogrio.read_info(path, layer="cells")["layer_metadata"][RECORD_KEY]
    assert json.loads(record)["grid"]["cells"] == hm.grid.n_released
    for name, edited in (("cut", frame.iloc[5:]), ("twice", pd.concat([frame, frame.iloc[:1]]))):
        bad = tmp_path / f"{name}.gpkg"
        pyogrio.write_dataframe(edited, bad, layer="cells", layer_metadata={RECORD_KEY: record})
        with pytest.raises(ValueError, match=rf"{name}.gpkg: the layer holds .* cells .*edited"):
            read_heatmap(bad)


def test_the_legend_says_what_the_colour_scale_clips():
    """A sqrt scale starts at 0 and a log scale at the least positive value: the cells below
    were drawn in the lowest colour and the legend did not say so (found by a hand fuzz)."""
    hm = _map()
    hm = hm.replace(estimate=hm.estimate - 0.5)  # as a raw release's noisy counts below 0
    assert _data(hm.explore().html)["legend"]["label"] == "private estimate (sites per cell)"
    sqrt = _data(hm.explore(scale="sqrt").html)["legend"]["label"]
    assert sqrt == "private estimate (sites per cell, sqrt scale; below 0 drawn as 0)"
    log = _data(hm.explore(scale="log").html)["legend"]["label"]
    assert re.fullmatch(
        r"private estimate \(sites per cell, log scale; below (\S+) drawn as \1\)", log
    )
