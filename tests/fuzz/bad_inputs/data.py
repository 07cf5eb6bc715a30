"""Bad data: empty or wrong geometries, graphs that are not simple, CRSs, grids, sites, queries."""

from __future__ import annotations

import gzip
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import geopandas as gpd
import networkx as nx
import numpy as np
import shapely
from tests.fuzz.bad_inputs.row import CRS, GRID, K4, XY, Row

from dpatlas import graph as gr
from dpatlas import spatial as sp


def _edge_file(text: str) -> Callable[[Path], Any]:
    def call(tmp: Path) -> Any:
        path = tmp / "edges.txt"
        path.write_text(text)
        return gr.read_edgelist(path, n=3)

    return call


def _write_labelled(tmp: Path) -> Any:
    g = nx.relabel_nodes(nx.karate_club_graph(), {0: "node 0"})
    return gr.synthesize(g, n=34, epsilon=2.0, rng=1).write_edgelist(tmp / "synthetic.txt")


def _truncated_gzip(tmp: Path) -> Any:
    path = tmp / "edges.txt.gz"
    path.write_bytes(gzip.compress(b"0 1\n" * 5_000)[:30])
    return gr.read_edgelist(path)


def _edge_list_as(name: str, write: Callable[[Path], Any]) -> Callable[[Path], Any]:
    """Read, as an edge list, a file ``name`` that ``write`` fills (an archive, another text
    encoding)."""

    def call(tmp: Path) -> Any:
        path = tmp / name
        write(path)
        return gr.read_edgelist(path, n=3)

    return call


def _zip(path: Path, member: str, text: str) -> None:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(member, text)


def _empty_gpkg(tmp: Path) -> Any:
    path = tmp / "sites.gpkg"
    path.write_bytes(b"")
    return sp.read_sites(path)


def _csv(text: str, **kwargs: Any) -> Callable[[Path], Any]:
    def call(tmp: Path) -> Any:
        path = tmp / "sites.csv"
        path.write_text(text)
        return sp.read_csv_points(path, **kwargs)

    return call


def _gdf(geoms: list[Any], crs: Any = CRS) -> gpd.GeoDataFrame:
    return gpd.GeoDataFrame(geometry=gpd.GeoSeries(geoms, crs=crs))


def _outside(_: Path) -> str:
    hm = sp.heatmap(
        (np.array([50.0, 5_000.0]), np.array([50.0, 50.0])),
        GRID,
        epsilon=1.0,
        method="uniform",
        crs=CRS,
        rng=0,
    )
    return f"no error: dropped, counts shape {hm.counts.shape}"


def _uniform() -> Any:
    return sp.heatmap(XY, GRID, epsilon=1, crs=CRS, method="uniform", rng=0)


DATA: tuple[Row, ...] = (
    Row(
        "empty polygon",
        "spatial.Grid.from_polygon",
        lambda _: sp.Grid.from_polygon(shapely.Polygon(), cell_size=10, crs=CRS),
        ValueError,
        "polygon must be a non-empty Polygon or MultiPolygon",
    ),
    Row(
        "empty point geometry",
        "spatial.heatmap",
        lambda _: sp.heatmap(_gdf([shapely.Point(), shapely.Point(5, 5)]), GRID, epsilon=1),
        ValueError,
        "sites have empty points, first at position 0",
    ),
    Row(
        "Polygon sites",
        "spatial.heatmap",
        lambda _: sp.heatmap(_gdf([shapely.box(0, 0, 10, 10)]), GRID, epsilon=1),
        ValueError,
        "sites must be Point geometries, got a Polygon",
    ),
    Row(
        "directed graph",
        "graph.triangle_count",
        lambda _: gr.triangle_count(nx.DiGraph([(0, 1), (1, 2)]), epsilon=1),
        TypeError,
        "graph is directed",
    ),
    Row(
        "multigraph",
        "graph.as_edge_graph",
        lambda _: gr.as_edge_graph(nx.MultiGraph([(0, 1), (0, 1)])),
        TypeError,
        "graph is a multigraph",
    ),
    Row(
        "self-loop in an edge array",
        "graph.as_edge_graph",
        lambda _: gr.as_edge_graph(np.array([[0, 0], [0, 1]]), n=3),
        ValueError,
        "edges contain 1 self-loop(s)",
    ),
    Row(
        "a negative id among the public node ids",
        "graph.as_edge_graph",
        lambda _: gr.as_edge_graph(np.array([[0, 1]]), nodes=[0, 1, -4]),
        ValueError,
        "nodes must be non-negative integer ids, as node ids in edges are, got -4",
    ),
    Row(
        "self-loop in a networkx graph",
        "graph.triangle_count",
        lambda _: gr.triangle_count(nx.Graph([(0, 0), (0, 1)]), epsilon=1),
        ValueError,
        "graph has 1 self-loop(s)",
    ),
    Row(
        "a weight column on every line of an edge-list file",
        "graph.read_edgelist",
        _edge_file("0 1 1.0\n1 2 1.0\n"),
        ValueError,
        "edges.txt, line 1: expected 2 node ids, found 3 field(s)",
    ),
    Row(
        "a node label with a space, written by a synthetic graph",
        "graph.SyntheticGraph.write_edgelist",
        _write_labelled,
        ValueError,
        "node label 'node 0' would not read back from a 'u v' line",
    ),
    Row(
        "self-loop line in an edge-list file",
        "graph.read_edgelist",
        _edge_file("0 0\n0 1\n"),
        UserWarning,
        "edges.txt: dropped 1 self-loop(s)",
    ),
    Row(
        "fewer than 3 nodes (n=2)",
        "graph.triangle_count",
        lambda _: f"no error: value {gr.triangle_count(np.array([[0, 1]]), epsilon=1, n=2).value}",
        "no error: value 0",
        "",
    ),
    Row(
        "edges without a public node set (no n= or nodes=)",
        "graph.triangle_count",
        lambda _: gr.triangle_count(np.array([[0, 1], [1, 2]]), epsilon=1),
        ValueError,
        "triangle_count/piecewise needs the public node set, and the edges alone do not give it: "
        "pass n=",
    ),
    Row(
        "more distinct node ids than the public n",
        "graph.triangle_count",
        lambda _: gr.triangle_count(np.array([[0, 1], [1, 2]]), epsilon=1, n=2),
        ValueError,
        "the edges use 3 distinct node ids but n=2: a graph on n nodes has at most n",
    ),
    Row(
        "unknown method",
        "graph.triangle_count",
        lambda _: gr.triangle_count(K4, epsilon=1, method="exact", n=4),
        ValueError,
        "method must be one of 'piecewise', 'ladder', 'smooth', 'global', got 'exact'",
    ),
    Row(
        "geographic CRS",
        "spatial.Grid.from_bounds",
        lambda _: sp.Grid.from_bounds((0, 0, 1, 1), cell_size=0.1, crs="EPSG:4326"),
        ValueError,
        "crs must be a projected CRS so that cells have a size in metres, got EPSG:4326",
    ),
    Row(
        "geocentric CRS (x, y, z in metres)",
        "spatial.Grid.from_bounds",
        lambda _: sp.Grid.from_bounds((0, 0, 1, 1), cell_size=0.1, crs="EPSG:4978"),
        ValueError,
        "crs must be a projected CRS so that cells have a size in metres, got EPSG:4978 (WGS 84), "
        "which is geocentric (Earth-centred x, y, z: not a map projection); pick an equal-area",
    ),
    Row(
        "missing grid CRS",
        "spatial.Grid.from_bounds",
        lambda _: sp.Grid.from_bounds((0, 0, 1, 1), cell_size=0.1, crs=None),
        TypeError,
        "crs is required (a projected CRS in metres), got None",
    ),
    Row(
        "sites without a CRS",
        "spatial.heatmap",
        lambda _: sp.heatmap(XY, GRID, epsilon=1),
        ValueError,
        "sites have no CRS",
    ),
    Row(
        "grid too large",
        "spatial.Grid.from_bounds",
        lambda _: sp.Grid.from_bounds((0, 0, 1e7, 1e7), cell_size=1, crs=CRS),
        ValueError,
        "more than max_cells=100,000,000",
    ),
    Row(
        "cell_size=1e-300 (a cell count beyond the float range)",
        "spatial.Grid.from_bounds",
        lambda _: sp.Grid.from_bounds((0, 0, 1000, 1000), cell_size=1e-300, crs=CRS),
        ValueError,
        "= 1.00e+606 cells at cell_size=1e-300, more than max_cells=100,000,000",
    ),
    Row(
        "n_sites=9e307 (more suggested cells than a grid may have)",
        "spatial.suggest_cell_size",
        lambda _: sp.suggest_cell_size((0, 0, 1000, 1000), 1.0, 9e307),
        ValueError,
        "n_sites * epsilon / c = 9e+306 suggested cells, more than max_cells=100,000,000",
    ),
    Row(
        "points outside the extent",
        "spatial.heatmap",
        _outside,
        "no error: dropped, counts shape (10, 10)",
        "",
    ),
    Row(
        "sites in another CRS than the grid",
        "spatial.heatmap",
        lambda _: (
            "no error: re-projected, crs "
            + sp.heatmap(
                _gdf([shapely.Point(5, 5)], "EPSG:3857"), GRID, epsilon=1, rng=0
            ).release.metadata["grid"]["crs"]
        ),
        "no error: re-projected, crs EPSG:3035",
        "",
    ),
    Row(
        "max_sites_per_individual=0",
        "spatial.heatmap",
        lambda _: sp.heatmap(XY, GRID, epsilon=1, crs=CRS, max_sites_per_individual=0),
        ValueError,
        "max_sites_per_individual must be an int >= 1, got 0",
    ),
    Row(
        "query level=1",
        "spatial.Heatmap.query",
        lambda _: sp.heatmap(XY, GRID, epsilon=1, crs=CRS, method="uniform", rng=0).query(
            shapely.box(0, 0, 100, 100), level=1.0
        ),
        ValueError,
        "level must be in (0, 1), got 1.0",
    ),
    Row(
        "edge ids outside 0..n-1 (they would name the synthetic graph's nodes)",
        "graph.synthesize",
        lambda _: gr.synthesize(np.array([[10, 20], [20, 30]]), n=5, epsilon=1.0),
        ValueError,
        "synthesize names its nodes, and these node ids were read off the edges (n=5, largest id 30)",
    ),
    Row(
        "a zip archive as an edge list",
        "graph.read_edgelist",
        _edge_list_as("edges.zip", lambda p: _zip(p, "edges.txt", "0 1\n1 2\n")),
        ValueError,
        "edges.zip is a zip archive (it may hold several files); extract the edge list (unzip "
        "edges.zip) and give its path, or compress it with gzip instead",
    ),
    Row(
        "a UTF-16 edge list",
        "graph.read_edgelist",
        _edge_list_as("edges.txt", lambda p: p.write_text("0 1\n1 2\n", encoding="utf-16")),
        ValueError,
        "edges.txt is UTF-16 text; save it as UTF-8 or plain text (iconv -f UTF-16 -t UTF-8 "
        "edges.txt > edges-utf8.txt)",
    ),
    Row(
        "a spreadsheet as an edge list",
        "graph.read_edgelist",
        _edge_list_as("edges.xlsx", lambda p: _zip(p, "[Content_Types].xml", "<Types/>")),
        ValueError,
        "edges.xlsx is a spreadsheet; export the sheet as tab-separated text (TSV) with the two "
        "id columns and give that file's path",
    ),
    Row(
        "a UTF-32 edge list",
        "graph.read_edgelist",
        _edge_list_as("edges.txt", lambda p: p.write_text("0 1\n1 2\n", encoding="utf-32")),
        ValueError,
        "edges.txt is UTF-32 text; save it as UTF-8 or plain text (iconv -f UTF-32 -t UTF-8 "
        "edges.txt > edges-utf8.txt)",
    ),
    Row(
        "a superscript digit (²) in an edge list",
        "graph.read_edgelist",
        _edge_file("0 1\n2 \u00b2\n"),
        ValueError,
        "edges.txt, line 2: not an integer",
    ),
    Row(
        "a folder as an edge list",
        "graph.read_edgelist",
        lambda tmp: gr.read_edgelist(tmp, n=3),
        IsADirectoryError,
        "edge list '<tmp>' is a directory; give the edge list file inside it",
    ),
    Row(
        "truncated gzip edge list",
        "graph.read_edgelist",
        _truncated_gzip,
        ValueError,
        "edges.txt.gz is a truncated or corrupt gzip file",
    ),
    Row(
        "two sequences of two numbers as sites",
        "spatial.heatmap",
        lambda _: sp.heatmap([(50.0, 50.0), (450.0, 950.0)], GRID, epsilon=1, crs=CRS),
        ValueError,
        "is ambiguous: two sequences of two numbers could be (xs, ys) or two (x, y) points",
    ),
    Row(
        "site beyond the grid CRS's domain (latitude 95)",
        "spatial.heatmap",
        lambda _: sp.heatmap(
            _gdf([shapely.Point(10, 50), shapely.Point(10, 95)], 4326), GRID, epsilon=1
        ),
        ValueError,
        "site at position 1, (10.0, 95.0) in WGS 84, has no coordinates in ETRS89",
    ),
    Row(
        "individual_column=0 (a column position)",
        "spatial.heatmap",
        lambda _: sp.heatmap(_gdf([shapely.Point(5, 5)]), GRID, epsilon=1, individual_column=0),
        TypeError,
        "individual_column=0: give a column name (a string) or one id per site",
    ),
    Row(
        "n_sites=inf",
        "spatial.heatmap",
        lambda _: sp.heatmap(
            XY, GRID, epsilon=1, crs=CRS, method="adaptive", method_options={"n_sites": np.inf}
        ),
        ValueError,
        "n_sites must be a finite public number >= 0 or None, got inf",
    ),
    Row(
        "grid origin NaN (a Grid built directly)",
        "spatial.Grid",
        lambda _: sp.Grid(np.nan, 0.0, 100, 10, 10, CRS),
        ValueError,
        "x0 must be a finite number, got nan",
    ),
    Row(
        "empty GeoPackage as sites",
        "spatial.read_sites",
        _empty_gpkg,
        ValueError,
        "cannot be read as a vector file (empty, truncated",
    ),
    Row(
        "CSV with decimal commas, read with dropna=True (not taken for missing values)",
        "spatial.read_csv_points",
        _csv("lat;lon\n51,5;-0,12\n", sep=";", dropna=True),
        ValueError,
        "data row 1, column 'lon': '-0,12' is not a number; the file writes decimal commas: "
        "pass decimal=','",
    ),
    Row(
        "CSV with a thousands separator or a decimal comma (three digits after it)",
        "spatial.read_csv_points",
        _csv('x,y\n"529,090","181,000"\n'),
        ValueError,
        "data row 1, column 'x': '529,090' is not a number; pass decimal=',' if the comma is a "
        "decimal mark (529,090 reads as 529.090), or thousands=',' if it separates thousands "
        "(it reads as 529090)",
    ),
    Row(
        "CSV with a coordinate written 1_000 (Python's digit grouping)",
        "spatial.read_csv_points",
        _csv("x,y\n1_000,2\n3,4\n", dropna=True),
        ValueError,
        "data row 1, column 'x': '1_000' is not a number; correct or delete that row (empty "
        "cells, NA and NaN are read as missing)",
    ),
    Row(
        "';'-separated CSV read with the default sep",
        "spatial.read_csv_points",
        _csv("lat;lon\n51.5;-0.12\n"),
        ValueError,
        "no longitude column found: the header 'lat;lon' is one column holding ';'; pass sep=';'",
    ),
    Row(
        "CSV read with an encoding Python does not know",
        "spatial.read_csv_points",
        _csv("lat,lon\n51.5,-0.12\n", encoding="foo"),
        ValueError,
        "encoding must be a text encoding such as 'utf-8', 'cp1252' or 'latin-1', got 'foo'",
    ),
    Row(
        "CSV read with a two-character decimal mark",
        "spatial.read_csv_points",
        _csv("lat;lon\n51,5;-0,12\n", sep=";", decimal=",,"),
        ValueError,
        "decimal must be one character such as ',' or '.', got ',,'",
    ),
    Row(
        "study area with a self-intersecting row among several",
        "spatial.Grid.from_polygon",
        lambda _: sp.Grid.from_polygon(
            _gdf([shapely.box(0, 0, 100, 100), shapely.Polygon([(0, 0), (9, 9), (9, 0), (0, 9)])]),
            cell_size=10,
            crs=CRS,
        ),
        ValueError,
        "polygon at position 1 is not valid (Self-intersection[4.5 4.5]); repair the rows with "
        "GeoSeries.make_valid()",
    ),
    Row(
        "query level above 1 - 1e-9",
        "spatial.Heatmap.query",
        lambda _: _uniform().query(shapely.box(0, 0, 100, 100), level=0.9999999999),
        ValueError,
        "level must be at most 1 - 1e-9 (a 99.9999999% interval), got 0.9999999999",
    ),
    Row(
        "query region beside the grid (a CRS or axis-order slip)",
        "spatial.Heatmap.query",
        lambda _: _uniform().query(shapely.box(2_000, 0, 3_000, 1_000)),
        ValueError,
        "polygon overlaps none of the released cells",
    ),
    Row(
        "query with a GeoSeries of two regions",
        "spatial.Heatmap.query",
        lambda _: _uniform().query(
            gpd.GeoSeries([shapely.box(0, 0, 100, 100), shapely.box(0, 0, 200, 200)], crs=CRS)
        ),
        ValueError,
        "polygon holds 2 geometries; query one region at a time",
    ),
    Row(
        "a new estimate after suppress()",
        "spatial.nonnegative",
        lambda _: sp.nonnegative(
            sp.suppress(
                sp.heatmap(XY, GRID, epsilon=1, crs=CRS, target="regions", rng=0), threshold=1
            )
        ),
        ValueError,
        "a new estimate would leave that flag stale: call suppress last",
    ),
    Row(
        "suppress threshold=nan",
        "spatial.suppress",
        lambda _: sp.suppress(sp.heatmap(XY, GRID, epsilon=1, crs=CRS, rng=0), float("nan")),
        ValueError,
        "threshold must be finite, got nan",
    ),
)
