"""CSV points as they come, the public grid checked in the shell's words, before any spending."""

from __future__ import annotations

import json
import re

import numpy as np
import pytest

from dpatlas import Budget

from .conftest import SNOW

BEIJING = "116.2,39.8,116.6,40.1"


@pytest.fixture
def taxi(tmp_path):
    """A headerless CSV as T-Drive ships it: id, time, longitude, latitude."""
    gen = np.random.default_rng(0)
    lon, lat = gen.uniform(116.25, 116.55, 400), gen.uniform(39.85, 40.05, 400)
    path = tmp_path / "taxi.csv"
    rows = [
        f"{i % 9},2008-02-02 15:36:08,{x:.5f},{y:.5f}"
        for i, (x, y) in enumerate(zip(lon, lat, strict=True))
    ]
    path.write_text("\n".join(rows) + "\n")
    return path


def test_a_headerless_csv_by_column_positions_as_a_subprocess(run_cli, cli, taxi, tmp_path):
    out = tmp_path / "taxi.gpkg"
    grid = f"--extent {BEIJING} --extent-crs EPSG:4326 --crs EPSG:32650 --cell-size 2000"
    res = run_cli(
        "heatmap", taxi, opts=f"--no-header --x 2 --y 3 {grid} --epsilon 1 --out {out} --json"
    )
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["grid"]["crs"] == "EPSG:32650"
    assert data["grid"]["n_released"] > 100
    res = cli("heatmap", taxi, opts=f"{grid} --epsilon 1 --out {out}")
    assert res.code == 2
    assert "looks like data, not a header; pass --no-header and the columns' positions" in res.err
    assert "header=None" not in res.err
    res = cli("heatmap", taxi, opts=f"--no-header {grid} --epsilon 1 --out {out}")
    assert res.code == 2
    assert "a CSV without a header needs --x COL --y COL" in res.err


def test_csv_options_separator_and_names(cli, tmp_path):
    path = tmp_path / "sites.csv"
    path.write_text("east;north\n529300;181000\n529310;181020\n;\n")
    grid = ["--extent", "528900,180600,529800,181400", "--crs", "EPSG:27700", "--cell-size", "100"]
    opts = "--sep ; --x east --y north --points-crs EPSG:27700 --epsilon 1"
    res = cli("heatmap", path, *grid, "--out", tmp_path / "a.gpkg", opts=opts)
    assert res.code == 2
    assert "pass --drop-missing to drop such rows" in res.err
    res = cli("heatmap", path, *grid, "--out", tmp_path / "a.gpkg", opts=opts + " --drop-missing")
    assert res.code == 0, res.err
    res = cli("heatmap", SNOW, "--layer", "deaths", *grid, "--out", tmp_path / "b.gpkg", opts=opts)
    assert res.code == 2
    assert "--x is for CSV files" in res.err


@pytest.mark.parametrize(
    ("grid", "needle"),
    [
        (
            "--extent 39.8,116.2,40.1,116.6 --extent-crs EPSG:4326 --crs EPSG:32650",
            "latitude 116.2 is out of range [-90, 90]: are x and y swapped? In degrees --extent "
            f"is WEST,SOUTH,EAST,NORTH (longitudes first): try --extent {BEIJING}",
        ),
        (
            f"--extent {BEIJING} --extent-crs EPSG:4326 --crs EPSG:4326",
            "--crs EPSG:4326 is geographic (degrees), but cells are measured in metres: use "
            "--crs EPSG:32650 (WGS 84 / UTM zone 50N, for the study area around 116.4°E 40.0°N)",
        ),
        (  # once "is in metre": geocentric x, y, z in metres are no map
            f"--extent {BEIJING} --extent-crs EPSG:4326 --crs EPSG:4978",
            "--crs EPSG:4978 is geocentric (Earth-centred x, y, z: not a map projection), but "
            "cells are measured in metres: use --crs EPSG:32650 (WGS 84 / UTM zone 50N",
        ),
        (
            f"--extent {BEIJING} --extent-crs EPSG:4326 --crs EPSG:5703",
            "--crs EPSG:5703 is unprojected (Vertical CRS), but cells are measured in metres",
        ),
        (
            f"--extent {BEIJING} --crs EPSG:32650",
            "the study area is 0.4 x 0.3 m in EPSG:32650, smaller than one 500 m cell; these look "
            "like degrees: add --extent-crs EPSG:4326",
        ),
        (
            "--extent 0,0,400,300 --crs EPSG:32650",
            "smaller than one 500 m cell; use a smaller --cell-size",
        ),
        (
            "--extent 0,0,500,500 --crs EPSG:32650",
            "a grid of 1 x 1 cell of 500 m releases only the noisy total",
        ),
        ("--extent 0,0,1000,1000 --crs EPSG:9999999", "--crs 'EPSG:9999999' is not a CRS"),
        (  # once a pyproj traceback
            "--extent 0,0,1000,1000 --crs EPSG:32650 --points-crs garbage",
            "--points-crs 'garbage' is not a CRS; give e.g. EPSG:3035",
        ),
    ],
)
def test_the_public_grid_is_checked_before_the_ledger(cli, ledger, taxi, tmp_path, grid, needle):
    opts = f"--no-header --x 2 --y 3 {grid} --cell-size 500 --epsilon 0.5 --ledger {ledger} --dataset d"
    res = cli("heatmap", taxi, "--out", tmp_path / "m.gpkg", opts=opts)
    assert res.code == 2, res.err
    assert needle in res.err
    assert len(res.err.strip().splitlines()) == 1
    assert Budget.open(ledger, dataset="d").history == ()


PYTHON_WORDS = re.compile(r"(?<![\w-])[a-z_]+=|to_crs\(|set_crs\(|dropna|header=None")


TAXI = "heatmap {taxi} --no-header --extent 0,0,9000,9000 --cell-size 500 --epsilon 1"


@pytest.mark.parametrize(
    "args",
    [
        TAXI + " --x 2 --y 9 --crs EPSG:32650 --out {tmp}/m.gpkg",
        TAXI + " --x 2 --y 3 --crs EPSG:32650 --out {tmp}/m.gpkg --individual-column who",
        TAXI + " --x 2 --y 3 --crs EPSG:4326 --out {tmp}/m.gpkg",
        TAXI + " --x 3 --y 2 --crs EPSG:32650 --out {tmp}/m.gpkg",
        TAXI + " --x 2 --y 3 --crs EPSG:32650 --out {tmp}/m.png --cmap nope",
        "triangles {edges} --nodes 2",
        "triangles {edges} --node-list {tmp}/few.txt",
        "kstars {edges} --k 1 --nodes 5",
        "clustering {edges} --nodes 5 --triangle-share 1.5",
        "degrees {edges} --nodes 5 --max-degree -1",
        "budget show {tmp}/l.sqlite --dataset d",
    ],
)
def test_errors_speak_in_flags_not_python_keywords(cli, taxi, tmp_path, args):
    edges = tmp_path / "edges.txt"
    edges.write_text("0 1\n1 2\n2 4\n")
    (tmp_path / "few.txt").write_text("0\n1\n")
    res = cli(*args.format(taxi=taxi, tmp=tmp_path, edges=edges).split())
    assert res.code == 2, res.err
    message = res.err.split(": error: ", 1)[1]
    assert PYTHON_WORDS.search(message) is None, message


def test_a_study_area_with_an_invalid_row_exits_2_in_one_line(cli, tmp_path):
    import geopandas as gpd
    from shapely.geometry import Polygon, box

    bowtie = Polygon([(0, 0), (1_000, 1_000), (1_000, 0), (0, 1_000)])
    area = tmp_path / "area.gpkg"
    gpd.GeoDataFrame(geometry=[box(2_000, 0, 3_000, 1_000), bowtie], crs=3035).to_file(area)
    opts = f"--study-area {area} --cell-size 100 --crs EPSG:3035 --epsilon 1"
    res = cli("heatmap", SNOW, "--layer", "deaths", "--out", tmp_path / "m.gpkg", opts=opts)
    assert res.code == 2
    assert "polygon at position 1 is not valid (Self-intersection" in res.err
    assert len(res.err.strip().splitlines()) == 1, res.err


@pytest.mark.parametrize("given", ["--extent", "--study-area"])
def test_a_study_area_in_degrees_keeps_its_curved_edges_in_the_grid_crs(cli, tmp_path, given):
    import geopandas as gpd
    from shapely.geometry import box

    from dpatlas.spatial import Grid

    lonlat = gpd.GeoSeries([box(5, 50, 15, 55)], crs="EPSG:4326")
    lonlat.to_file(tmp_path / "area.gpkg")
    area = {"--extent": "--extent 5,50,15,55 --extent-crs EPSG:4326"}.get(
        given, f"--study-area {tmp_path / 'area.gpkg'}"
    )
    opts = f"{area} --cell-size 10000 --crs EPSG:3035 --epsilon 1 --seed 0 --json"
    res = cli("heatmap", SNOW, "--layer", "deaths", "--out", tmp_path / "m.gpkg", opts=opts)
    assert res.code == 0, res.err
    grid = json.loads(res.out)["grid"]
    expected = Grid.from_polygon(lonlat, cell_size=10_000, crs="EPSG:3035")
    assert grid["bounds"] == pytest.approx(list(expected.bounds))  # the chord cut 12 km off
    assert grid["n_released"] == expected.n_released


def test_a_european_excel_csv_is_read_with_decimal_and_encoding(cli, tmp_path):
    path = tmp_path / "nests.csv"
    rows = "".join(f"Île {i};51,5{i};-0,1{i}\n" for i in range(10))
    path.write_bytes(f"nom;lat;lon\n{rows}".encode("cp1252"))
    grid = "--extent -0.5,51.3,0.3,51.8 --extent-crs EPSG:4326 --crs EPSG:32630 --cell-size 5000"
    opts = f"{grid} --epsilon 1 --sep ; --drop-missing --json"
    out = tmp_path / "m.gpkg"
    res = cli("heatmap", path, "--out", out, opts=opts)
    assert res.code == 2
    assert "is not utf-8 text" in res.err
    assert "--encoding cp1252" in res.err
    res = cli("heatmap", path, "--out", out, opts=opts + " --encoding cp1252")
    assert res.code == 2  # before: every row dropped, a map of no sites released
    assert "'-0,10' is not a number; the file writes decimal commas: pass --decimal ," in res.err
    assert not out.exists()
    res = cli("heatmap", path, "--out", out, opts=opts + " --encoding cp1252 --decimal ,")
    assert res.code == 0, res.err


@pytest.mark.filterwarnings("ignore:'crs' was not provided:UserWarning")  # writing nocrs.gpkg
def test_vector_inputs_errors_give_shell_fixes_not_python(cli, tmp_path):
    import geopandas as gpd
    from shapely.geometry import MultiPoint, Point, Polygon

    files = {
        "nocrs": gpd.GeoDataFrame(geometry=[Point(500, 500)]),
        "multi": gpd.GeoDataFrame(geometry=[MultiPoint([(1, 1), (2, 2)])], crs=3035),
        "none": gpd.GeoDataFrame(geometry=[Point(1, 1), None], crs=3035),
        "bowtie": gpd.GeoDataFrame(
            geometry=[Polygon([(0, 0), (5e3, 5e3), (5e3, 0), (0, 5e3)])], crs=3035
        ),
    }
    for name, frame in files.items():
        frame.to_file(tmp_path / f"{name}.gpkg")
    grid = "--cell-size 1000 --crs EPSG:3035 --epsilon 1"
    out = tmp_path / "m.gpkg"
    runs = {
        "nocrs": ("POINTS nocrs.gpkg has no CRS", "ogr2ogr -a_srs"),
        "multi": ("got a MultiPoint", "ogr2ogr -explodecollections"),
        "none": ("missing (None) geometries, first at position 1; drop them", "drop them"),
        "bowtie": ("polygon at position 0 is not valid", "ogr2ogr -makevalid"),
    }
    for name, (what, fix) in runs.items():
        points = tmp_path / f"{name}.gpkg" if name != "bowtie" else SNOW
        area = tmp_path / f"{name}.gpkg" if name == "bowtie" else None
        where = f"--study-area {area}" if area else "--extent 0,0,5000,5000"
        layer = "--layer deaths" if name == "bowtie" else ""
        res = cli("heatmap", points, "--out", out, opts=f"{layer} {where} {grid}")
        assert res.code == 2, res.err
        assert what in res.err
        assert fix in res.err
        for python in ("set_crs", "make_valid", ".explode()", ".centroid", "sites["):
            assert python not in res.err, res.err


@pytest.mark.parametrize("mark", [";", "|", "\t"])
def test_the_advised_separator_works_pasted_into_a_shell(cli, tmp_path, mark):
    import shlex
    import subprocess
    import sys

    path = tmp_path / "sites.csv"
    path.write_text(f"lat{mark}lon\n51.51{mark}-0.13\n51.52{mark}-0.12\n")
    grid = "--extent -0.5,51.3,0.3,51.8 --extent-crs EPSG:4326 --crs EPSG:32630 --cell-size 5000"
    out = tmp_path / "m.gpkg"
    res = cli("heatmap", path, "--out", out, opts=f"{grid} --epsilon 1 --seed 0")
    assert res.code == 2
    advised = re.search(r"pass (--sep (?:'[^']*'|\S+))", res.err)
    assert advised, res.err  # before: `pass --sep ;`, which a shell takes for two commands
    command = [sys.executable, "-m", "dpatlas.cli", "heatmap", str(path), "--out", str(out)]
    line = f"{shlex.join(command)} {grid} --epsilon 1 --seed 0 --quiet {advised[1]}"
    proc = subprocess.run(line, shell=True, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, (line, proc.stderr)
    assert out.exists()


@pytest.mark.parametrize(
    ("flag", "message"),
    [
        ("--encoding foo", "--encoding must be a text encoding such as 'utf-8', "),
        ("--decimal ,,", "--decimal must be one character such as ',' or '.', got ',,'"),
    ],
)
def test_a_bad_encoding_or_decimal_mark_is_a_usage_error_before_the_ledger(
    cli, ledger, tmp_path, flag, message
):
    path = tmp_path / "sites.csv"
    path.write_text("lat;lon\n51,5;-0,12\n")
    grid = "--extent -0.5,51.3,0.3,51.8 --extent-crs EPSG:4326 --crs EPSG:32630 --cell-size 5000"
    opts = f"{grid} --epsilon 1 --sep ; {flag} --ledger {ledger} --dataset d"
    res = cli("heatmap", path, "--out", tmp_path / "m.gpkg", opts=opts)
    assert res.code == 2, res.err  # before: a LookupError traceback and exit code 1
    assert message in res.err
    assert len(res.err.strip().splitlines()) == 1, res.err
    assert Budget.open(ledger, dataset="d").history == ()


def test_a_thousands_separator_is_not_advised_as_a_missing_flag(cli, tmp_path):
    path = tmp_path / "bng.csv"
    path.write_text('x,y\n"529,090","181,680"\n')
    opts = "--extent 528900,180600,529800,181400 --crs EPSG:27700 --cell-size 100 --epsilon 1"
    res = cli(
        "heatmap", path, "--points-crs", "EPSG:27700", "--out", tmp_path / "m.gpkg", opts=opts
    )
    assert res.code == 2
    assert "pass --decimal , if the comma is a decimal mark" in res.err
    assert "or delete the commas if they separate thousands (it reads as 529090)" in res.err
    assert "thousands=" not in res.err
