"""Readers: CSV with lon/lat, GeoPackage, and the real GBIF Galápagos penguin download end to end."""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pytest
from shapely.geometry import Point, box

from dpatlas.core import Budget, get_source
from dpatlas.spatial import Grid, SiteAdjacency, heatmap, read_csv_points, read_gbif, read_sites
from dpatlas.spatial.heatmap import site_counts

# The archipelago's extent from a gazetteer (public), not from the records: 92.1°W–89.1°W,
# 1.5°S–1.7°N (Darwin and Wolf islands included).
GALAPAGOS = gpd.GeoSeries([box(-92.1, -1.5, -89.1, 1.7)], crs="EPSG:4326").segmentize(0.05)


def test_csv_columns_detected_or_named(tmp_path):
    path = tmp_path / "sites.csv"
    path.write_text("id,LAT,Lng,other\n1,50.1,10.2,a\n2,50.2,10.3,b\n")
    gdf = read_csv_points(path)
    assert gdf.crs.to_epsg() == 4326
    assert gdf.geometry.x.tolist() == [10.2, 10.3]
    assert gdf["other"].tolist() == ["a", "b"]
    assert gdf.attrs["dpatlas"]["rows_without_coordinates"] == 0
    named = tmp_path / "named.csv"
    named.write_text("east,north\n4000000,3000000\n")
    projected = read_csv_points(named, lon="east", lat="north", crs="EPSG:3035")
    assert projected.crs.to_epsg() == 3035
    assert projected.geometry.iloc[0].equals(Point(4_000_000, 3_000_000))


def test_csv_errors(tmp_path):
    path = tmp_path / "bad.csv"
    path.write_text("id,lat,lon\n1,50.1,10.2\n2,,10.3\n")
    with pytest.raises(
        ValueError,
        match=r"data row 2 has no usable coordinates \(column 'lon': 10.3, column 'lat': nan\)",
    ):
        read_csv_points(path)
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    with pytest.raises(ValueError, match=r"empty.csv is empty: no header line and no rows"):
        read_csv_points(empty)
    assert read_csv_points(path, dropna=True).attrs["dpatlas"]["rows_without_coordinates"] == 1
    with pytest.raises(ValueError, match=r"lon='east' is not a column"):
        read_csv_points(path, lon="east")
    nocols = tmp_path / "nocols.csv"
    nocols.write_text("a,b\n1,2\n")
    with pytest.raises(
        ValueError, match=r"no longitude column found among \['a', 'b'\]; name it with lon="
    ):
        read_csv_points(nocols)
    swapped = tmp_path / "swapped.csv"
    swapped.write_text("lat,lon\n-91.0,-0.5\n")
    with pytest.raises(
        ValueError, match=r"latitudes \(column 'lat'\) must be in \[-90, 90\] .*columns swapped"
    ):
        read_csv_points(swapped)


def test_headerless_csv_by_column_positions(tmp_path):
    path = tmp_path / "taxi.csv"
    path.write_text("1,2008-02-02 15:36:08,116.51172,39.92123\n1,2008-02-02 15:56:08,116.5,39.9\n")
    with pytest.raises(ValueError, match=r"looks like data, not a header; pass header=None"):
        read_csv_points(path)
    gdf = read_csv_points(path, header=None, lon=2, lat=3)
    assert gdf.geometry.iloc[0].equals(Point(116.51172, 39.92123))
    with pytest.raises(ValueError, match="lon=7 is not a column position: the file has 4 columns"):
        read_csv_points(path, header=None, lon=7, lat=3)


def test_read_sites_dispatches_by_extension(tmp_path):
    gdf = gpd.GeoDataFrame({"who": ["a"]}, geometry=[Point(10, 50)], crs=4326)
    gdf.to_file(tmp_path / "s.gpkg")
    assert read_sites(tmp_path / "s.gpkg").geometry.iloc[0].equals(Point(10, 50))
    (tmp_path / "s.tsv").write_text("latitude\tlongitude\n50\t10\n")
    assert read_sites(tmp_path / "s.tsv").geometry.iloc[0].equals(Point(10, 50))
    with pytest.raises(ValueError, match=r"cannot read '.*s.xlsx': use .gpkg"):
        read_sites(tmp_path / "s.xlsx")


def test_gbif_reader_errors(tmp_path):
    path = tmp_path / "notgbif.txt"
    path.write_text("a\tb\n1\t2\n")
    with pytest.raises(ValueError, match=r"'decimalLatitude' is missing: is .* a GBIF"):
        read_gbif(path)
    good = tmp_path / "gbif.txt"
    good.write_text("decimalLatitude\tdecimalLongitude\n0\t-90\n")
    with pytest.raises(ValueError, match=r"individual_column='observer' is not a column"):
        read_gbif(good, individual_column="observer")


def _exact(sites, grid: Grid, k: int, seed: int = 0) -> np.ndarray:
    adjacency = SiteAdjacency(max_sites_per_individual=k)
    data = site_counts(sites, grid, adjacency, get_source(seed), individual_column="recordedBy")
    return data.counts


@pytest.mark.shared
def test_galapagos_penguins_end_to_end(shared_datasets, tmp_path):
    sites = read_gbif(
        shared_datasets / "spatial" / "galapagos-penguin-occurrence.txt.gz",
        individual_column="recordedBy",
    )
    meta = sites.attrs["dpatlas"]
    assert (meta["records"], meta["rows_without_coordinates"], len(sites)) == (1_211, 19, 1_192)
    assert sites.crs.to_epsg() == 4326
    grid = Grid.from_polygon(GALAPAGOS, cell_size=10_000, crs="EPSG:6933")
    # Exact counts before noise: one record per observer with k = 1, every record with a
    # large k (all records lie in the archipelago's extent).
    assert _exact(sites, grid, 1).sum() == sites["recordedBy"].nunique() == 665
    assert _exact(sites, grid, 50).sum() == 1_192
    budget = Budget(1.0)
    hm = heatmap(
        sites,
        grid,
        method="uniform",
        target="regions",
        epsilon=0.5,
        budget=budget,
        rng=11,
        individual_column="recordedBy",
        max_sites_per_individual=2,
    )
    assert hm.release.scale == 4.0
    assert hm.release.sensitivity == 2
    assert budget.remaining.epsilon == pytest.approx(0.5)
    two = _exact(sites, grid, 2, seed=11)  # the same seed keeps the same records
    assert np.abs(hm.release.value - two).max() < 4.0 * 20  # P(|Z| > 80) < 1e-8 per cell
    total = hm.query(GALAPAGOS)
    assert total.n_cells == grid.n_released
    assert total.ci_low <= two.sum() <= total.ci_high
    path = hm.nonnegative().to_file(tmp_path / "penguins.gpkg")
    back = gpd.read_file(path)
    assert len(back) == grid.n_released
    assert back["count"].sum() == max(int(hm.release.value.sum()), 0)
    # The same map in a UTM zone (15S) instead of the global equal-area CRS.
    utm = Grid.from_polygon(GALAPAGOS, cell_size=5_000, crs="EPSG:32715")
    assert _exact(sites, utm, 50).sum() == 1_192


def test_read_vector_names_the_file_and_the_fix(tmp_path):
    from dpatlas.spatial.io import read_vector

    empty = tmp_path / "empty.gpkg"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match=r"--study-area .*empty.gpkg cannot be read as a vector"):
        read_vector(empty, what="--study-area")
    good = tmp_path / "area.gpkg"
    gpd.GeoDataFrame(geometry=[box(0, 0, 1, 1)], crs=3035).to_file(good, layer="parks")
    with pytest.raises(
        ValueError, match=r"area.gpkg: no layer 'roads'; its layers are \['parks'\]"
    ):
        read_vector(good, layer="roads")
    table = tmp_path / "sites.csv"
    table.write_text("x,y\n1,2\n")
    with pytest.raises(
        ValueError, match=r"sites.csv has no geometries \(a table such as a CSV\?\)"
    ):
        read_vector(table)
    assert len(read_vector(good, layer="parks")) == 1
    with pytest.raises(ValueError, match=r"cannot be read as a vector file"):
        read_sites(empty)  # the sites reader goes through it too


def test_text_that_is_not_a_number_is_refused_even_with_dropna(tmp_path):
    path = tmp_path / "excel.csv"
    path.write_text("id;lat;lon\n1;51,5;-0,12\n2;;\n3;52,1;0,3\n")
    with pytest.raises(ValueError, match=r"column 'lon': '-0,12' is not a number; .*decimal=','"):
        read_csv_points(path, sep=";", dropna=True)  # before: every row dropped, 0 sites
    gdf = read_csv_points(path, sep=";", decimal=",", dropna=True)
    assert [(p.x, p.y) for p in gdf.geometry] == [(-0.12, 51.5), (0.3, 52.1)]
    assert gdf.attrs["dpatlas"]["rows_without_coordinates"] == 1
    dms = tmp_path / "dms.csv"
    dms.write_text('lat,lon\n51.5,-0.12\n"51°30\'N","0°7\'W"\n')
    with pytest.raises(ValueError, match=r"data row 2, column 'lon': \"0°7'W\" is not a number"):
        read_csv_points(dms, dropna=True)


def test_a_csv_not_in_utf8_names_the_file_and_the_encoding_to_pass(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes("Région,lat,lon\nÎle,51.5,-0.12\n".encode("cp1252"))
    with pytest.raises(ValueError, match=r"latin.csv is not utf-8 text .*encoding='cp1252'"):
        read_csv_points(path)
    assert read_csv_points(path, encoding="cp1252")["Région"].tolist() == ["Île"]
    utf16 = tmp_path / "utf16.csv"
    utf16.write_text("lat,lon\n51.5,-0.12\n", encoding="utf-16")
    with pytest.raises(ValueError, match=r"encoding='utf-16'$"):
        read_csv_points(utf16)


def test_a_header_split_by_another_separator_or_matching_twice_says_so(tmp_path):
    semi = tmp_path / "semi.csv"
    semi.write_text("id;lat;lon\n1;51.5;-0.12\n")
    with pytest.raises(ValueError, match=r"the header 'id;lat;lon' is one column .*; pass sep=';'"):
        read_csv_points(semi)
    assert len(read_csv_points(semi, sep=";")) == 1
    twice = tmp_path / "twice.csv"
    twice.write_text("lat,lon,Lat\n51.5,-0.12,0\n")
    with pytest.raises(
        ValueError, match=r"^2 columns could be the latitude: \['lat', 'Lat'\]; .* lat="
    ):
        read_csv_points(twice)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"encoding": "foo"}, "encoding must be a text encoding such as 'utf-8', .*got 'foo'$"),
        ({"encoding": "base64"}, "encoding must be a text encoding .*got 'base64'$"),
        ({"decimal": ",,"}, "decimal must be one character such as ',' or '.', got ',,'$"),
        ({"decimal": ""}, "decimal must be one character .*got ''$"),
    ],
)
def test_an_unknown_encoding_or_a_long_decimal_mark_is_refused_naming_it(tmp_path, kwargs, message):
    path = tmp_path / "sites.csv"
    path.write_text("lat;lon\n51,5;-0,12\n")
    with pytest.raises(ValueError, match=message):  # before: LookupError, or pandas' words
        read_csv_points(path, sep=";", **kwargs)


@pytest.mark.parametrize("text", ["1_000", "\u0663", "\uff15\uff11"])
def test_text_float_reads_but_pandas_does_not_is_refused_not_dropped(tmp_path, text):
    path = tmp_path / "sites.csv"
    path.write_text(f'lat,lon\n"{text}",1.0\n52,2\n', encoding="utf-8")
    with pytest.raises(ValueError, match=r"data row 1, column 'lat': .* is not a number"):
        read_csv_points(path, dropna=True)  # before: the row dropped as missing
    spelled = tmp_path / "nan.csv"
    spelled.write_text("lat,lon\nnan,1\n-NaN,1\n52,2\n")
    assert len(read_csv_points(spelled, dropna=True)) == 1  # NaN spelled out is still missing


def test_three_digits_after_a_comma_name_both_readings(tmp_path):
    path = tmp_path / "bng.csv"
    path.write_text('x,y\n"529,090","181,680"\n')
    with pytest.raises(
        ValueError,
        match=r"'529,090' is not a number; pass decimal=',' if the "
        r"comma is a decimal mark \(529,090 reads as 529.090\), or thousands=',' "
        r"if it separates thousands \(it reads as 529090\)$",
    ):
        read_csv_points(path, crs=27700)  # before: only decimal=',', which reads 529.09
    assert read_csv_points(path, crs=27700, thousands=",").geometry.iloc[0].x == 529090
