"""``dpatlas heatmap``: a private heatmap of sites, written as GeoPackage, GeoJSON, GeoTIFF or PNG."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dpatlas.cli._common import (
    Output,
    UsageError,
    add_command,
    budget_summary,
    positive_float,
    release_budget,
)
from dpatlas.cli.progress import Steps, show_progress

__all__ = [
    "OUT_SUFFIXES",
    "add_parser",
    "interval_lines",
    "read_points",
    "study_area_grid",
    "write_heatmap",
]

OUT_SUFFIXES = (".gpkg", ".geojson", ".json", ".tif", ".tiff", ".png")

_EPILOG = """\
examples:
  dpatlas heatmap sites.gpkg --study-area park.gpkg --cell-size 500 --crs EPSG:3035 \\
      --epsilon 0.5 --out sites-map.gpkg --ledger ledger.sqlite --dataset sites-2026
  dpatlas heatmap occurrence.txt.gz --extent -92,-1.5,-89,0.7 --extent-crs EPSG:4326 \\
      --crs EPSG:6933 --cell-size 10000 --epsilon 1 --individual-column recordedBy \\
      --max-sites 3 --nonnegative --out penguins.png

The extent (or study area), cell size and CRS are public parameters: choose them
without looking at the sites. Sites outside the released cells are dropped, and how
many is never reported. The whole map costs --epsilon once (parallel composition
over disjoint cells). POINTS may be a GeoPackage / GeoJSON / Shapefile, a CSV with
lon/lat columns (WGS 84 unless --points-crs), or a GBIF download (.txt, .txt.gz).
"""


METHOD_NAMES = ("adaptive", "auto", "privtree", "uniform")
"""``--method`` choices: the keys of :data:`dpatlas.spatial.METHODS`, listed here so that
building the parser (``dpatlas --help``, ``dpatlas triangles``) does not import the spatial
stack (geopandas, scipy); a test keeps the two equal."""
DEFAULT_METHOD = "auto"
"""``--method`` default: the default of :func:`dpatlas.spatial.heatmap` (a test checks it)."""
TARGET_NAMES = ("cells", "regions")
"""``--target`` choices: :data:`dpatlas.spatial.methods.auto.TARGETS` (a test keeps them equal)."""
DEFAULT_TARGET = "cells"
"""``--target`` default: the default of :func:`dpatlas.spatial.heatmap` (a test checks it)."""


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register ``heatmap``."""
    p = add_command(
        sub,
        "heatmap",
        help="private heatmap of sensitive sites",
        description="Release a private count of sites in every cell of a public grid.",
        parents=parents,
        epilog=_EPILOG,
    )
    p.add_argument("points", metavar="POINTS", type=Path, help="the sites (one point per site)")
    area = p.add_argument_group("public grid").add_mutually_exclusive_group(required=True)
    area.add_argument(
        "--extent",
        metavar="MINX,MINY,MAXX,MAXY",
        help="public bounds (in --crs unless --extent-crs)",
    )
    area.add_argument(
        "--study-area",
        type=Path,
        metavar="FILE",
        help="public study area: its polygons, or the extent of its other geometries",
    )
    p.add_argument("--layer", help="layer of POINTS in a multi-layer file (e.g. a GeoPackage)")
    p.add_argument("--study-area-layer", metavar="LAYER", help="layer of the --study-area file")
    p.add_argument("--extent-crs", metavar="CRS", help="CRS of --extent, if not --crs")
    p.add_argument("--cell-size", type=positive_float, required=True, metavar="M", help="metres")
    p.add_argument("--crs", required=True, help="projected CRS of the grid, e.g. EPSG:3035")
    p.add_argument("--epsilon", type=positive_float, required=True, help="ε of the whole map")
    p.add_argument(
        "--method",
        choices=METHOD_NAMES,
        default=DEFAULT_METHOD,
        help=f"release method (default {DEFAULT_METHOD}: as dpatlas.spatial.heatmap)",
    )
    p.add_argument(
        "--target",
        choices=TARGET_NAMES,
        default=DEFAULT_TARGET,
        help="the question the map answers: counts per cell and hotspots (default), or counts "
        "in regions; the method and the estimate follow it",
    )
    p.add_argument("--individual-column", metavar="COL", help="column naming each site's owner")
    p.add_argument(
        "--max-sites",
        type=int,
        default=1,
        metavar="K",
        help="sites kept per individual (default 1)",
    )
    p.add_argument("--points-crs", metavar="CRS", help="CRS of CSV coordinates (default EPSG:4326)")
    p.add_argument(
        "--nonnegative",
        action="store_true",
        help="post-process to non-negative integer counts with the same total (free)",
    )
    p.add_argument("--out", type=Path, required=True, help="output: " + ", ".join(OUT_SUFFIXES))
    p.add_argument(
        "--unit",
        choices=("cell", "leaf"),
        help="GeoJSON: write one polygon per cell (default) or per leaf the map measured "
        "(adaptive / PrivTree maps); a GeoPackage holds both layers",
    )
    p.set_defaults(func=run)


def read_points(path: Path, points_crs: str | None = None, layer: str | None = None) -> Any:
    """Sites from a vector file, a CSV or a GBIF download (chosen by the file name)."""
    from dpatlas.spatial import read_gbif, read_sites

    if not path.is_file():
        raise UsageError(f"POINTS file not found: {path}; check the path")
    names = [s.lower() for s in path.suffixes if s.lower() not in (".gz", ".zip")]
    if names and names[-1] == ".txt":
        return read_gbif(path)
    if names and names[-1] in (".csv", ".tsv"):
        return read_sites(path, crs=points_crs or "EPSG:4326")
    if points_crs is not None:
        raise UsageError("--points-crs is for CSV files; vector files carry their own CRS")
    return read_sites(path, **({} if layer is None else {"layer": layer}))


def _bounds(text: str) -> tuple[float, float, float, float]:
    try:
        values = tuple(float(v) for v in text.split(","))
    except ValueError:
        values = ()
    if len(values) != 4:
        raise UsageError(f"--extent must be MINX,MINY,MAXX,MAXY (4 numbers), got {text!r}")
    return values[0], values[1], values[2], values[3]


def study_area_grid(
    *,
    extent: str | None,
    study_area: Path | None,
    cell_size: float,
    crs: str,
    extent_crs: str | None = None,
    layer: str | None = None,
) -> tuple[Any, Any]:
    """The public grid and the study-area outline (a GeoSeries in the grid CRS) for plots."""
    import geopandas as gpd
    from shapely.geometry import box

    from dpatlas.spatial import Grid

    if study_area is None:
        assert extent is not None
        outline = gpd.GeoSeries([box(*_bounds(extent))], crs=extent_crs or crs).to_crs(crs)
        if extent_crs is None:
            return Grid.from_bounds(_bounds(extent), cell_size=cell_size, crs=crs), outline
        return Grid.from_polygon(outline, cell_size=cell_size, crs=crs), outline
    if not study_area.is_file():
        raise UsageError(f"--study-area file not found: {study_area}; check the path")
    area = gpd.read_file(study_area, **({} if layer is None else {"layer": layer}))
    if area.crs is None:
        raise UsageError(
            f"--study-area {study_area} has no CRS; set one (e.g. with ogr2ogr -a_srs)"
        )
    area = area.to_crs(crs)
    if area.geom_type.isin(["Polygon", "MultiPolygon"]).all():
        return Grid.from_polygon(area, cell_size=cell_size, crs=crs), area.geometry
    grid = Grid.from_bounds(tuple(area.total_bounds), cell_size=cell_size, crs=crs)
    return grid, area.geometry


def write_heatmap(hm: Any, path: Path, *, outlines: Any = None, unit: str | None = None) -> Path:
    """Write ``hm`` by the suffix of ``path`` (GeoPackage, GeoJSON, GeoTIFF or PNG).

    ``unit`` picks the GeoJSON layer (``"cell"`` or ``"leaf"``); a GeoPackage gets every layer.
    """
    suffix = path.suffix.lower()
    if suffix not in OUT_SUFFIXES:
        raise UsageError(f"--out must end in {', '.join(OUT_SUFFIXES)}, got {str(path)!r}")
    path.parent.mkdir(parents=True, exist_ok=True)
    if suffix in (".tif", ".tiff"):
        return Path(hm.to_geotiff(path))
    if suffix == ".png":
        from dpatlas.plot import plot_heatmap, save_figure

        ax = plot_heatmap(hm, outlines=outlines)
        return save_figure(ax.figure, path)
    if unit is not None and suffix == ".gpkg":
        raise UsageError("--unit is for GeoJSON; a GeoPackage holds the cells and the leaves")
    return Path(hm.to_file(path, unit=unit))


def _where(path: Path, unit: str | None) -> dict[str, str]:
    """Where each unit's ranges are in the written file (or that they are not)."""
    suffix = path.suffix.lower()
    columns = " (columns ci95_low, ci95_high)"
    if suffix == ".gpkg":
        return {"cell": ' (layer "cells")', "leaf": ' (layer "leaves")'}
    if suffix not in (".geojson", ".json"):
        return {"cell": " (write .gpkg for them)", "leaf": " (write .gpkg for them)"}
    other = " (write .gpkg, or --unit {} for them)"
    if unit == "leaf":
        return {"cell": other.format("cell"), "leaf": columns}
    return {"cell": columns, "leaf": other.format("leaf")}


def interval_lines(hm: Any, path: Path, unit: str | None = None) -> list[str]:
    """What the 95% ranges of the map promise, in words a non-statistician reads.

    ``path`` and ``unit`` (the GeoJSON layer) say where the ranges were written.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> for line in interval_lines(hm, Path("map.geojson")):
    ...     print(line)
      95% ranges per cell (columns ci95_low, ci95_high): each cell's true count lies in its
        range with at least 95% probability; a range is the raw noisy count ± 3, cut at 0
        (only noise to allow for: every cell was measured on its own)
    """
    m = hm.measured
    where = _where(path, unit)
    widths = m.halfwidth(0.95)
    width = f"{widths.max() if m.size else 0:g}"
    if m.size and widths.min() < widths.max():  # units measured at several scales
        width = f"up to {width}"
    if m.unit == "cell":
        return [
            f"  95% ranges per cell{where['cell']}: each cell's true count lies in its",
            f"    range with at least 95% probability; a range is the raw noisy count ± {width}, "
            "cut at 0",
            "    (only noise to allow for: every cell was measured on its own)",
        ]
    alone = int((m.n_cells == 1).sum())
    return [
        f"  this map measured {m.size} leaves (blocks of cells), not single cells:",
        f"  95% ranges per leaf{where['leaf']}: each leaf's true count lies in its range",
        f"    with at least 95% probability; a range is the leaf's raw noisy count ± {width}, "
        "cut at 0",
        f"  95% ranges per cell{where['cell']}: the {alone} cells that are a leaf",
        "    on their own get the same; any other cell gets 0 to the upper end of its leaf's range,",
        "    because how the sites spread inside a leaf is not released: valid, but wide;",
        "    read the leaves for tight ranges",
    ]


def _short(number: str) -> str:
    """A release fact ("1.3333333333333333", or a word such as "private") for a text line."""
    try:
        return f"{float(number):.4g}"
    except ValueError:
        return number


def run(args: argparse.Namespace, out: Output) -> int:
    """Run ``dpatlas heatmap``."""
    from dpatlas.spatial import heatmap
    from dpatlas.spatial.products.export import describe

    if args.out.suffix.lower() not in OUT_SUFFIXES:
        raise UsageError(f"--out must end in {', '.join(OUT_SUFFIXES)}, got {str(args.out)!r}")
    if args.max_sites < 1:
        raise UsageError(f"--max-sites must be an integer >= 1, got {args.max_sites}")
    budget = release_budget(args, out)
    steps = ["read sites", "build the public grid", "bin and release", "write"]
    with Steps(steps, enabled=show_progress(args.quiet), desc="heatmap") as bar:
        with bar.step("reading sites"):
            sites = read_points(args.points, args.points_crs, args.layer)
        with bar.step("building the public grid"):
            grid, outline = study_area_grid(
                extent=args.extent,
                study_area=args.study_area,
                cell_size=args.cell_size,
                crs=args.crs,
                extent_crs=args.extent_crs,
                layer=args.study_area_layer,
            )
        with bar.step("binning sites and drawing noise"):
            hm = heatmap(
                sites,
                grid,
                epsilon=args.epsilon,
                method=args.method,
                target=args.target,
                budget=budget,
                rng=args.seed,
                individual_column=args.individual_column,
                max_sites_per_individual=args.max_sites,
            )
            if args.nonnegative:
                hm = hm.nonnegative()
        with bar.step(f"writing {args.out.name}"):
            path = write_heatmap(hm, args.out, outlines=outline, unit=args.unit)
    facts = describe(hm)
    out.payload.update(
        {
            "command": "heatmap",
            "out": str(path),
            "release": facts,
            "grid": dict(hm.release.metadata["grid"]),
            "budget": None if budget is None else budget_summary(budget),
        }
    )
    out.line(f"private heatmap written to {path}")
    out.line(
        f"  epsilon {facts['epsilon']} for the whole map ({grid.n_released} cells), "
        f"mechanism {facts['mechanism']}"
    )
    each = "leaf" if hm.measured.unit == "leaf" else "cell"
    out.line(f"  noise {hm.measured.noise} of scale {_short(facts['noise_scale'])} on each {each}")
    for text in interval_lines(hm, path, args.unit):
        out.line(text)
    out.line(f"  grid {grid.nx} x {grid.ny} cells of {grid.cell_size:g} m in {facts['crs']}")
    if "empirical_bayes" in hm.steps:
        out.line(
            "  map counts: each cell's most likely count given its noisy count and the whole map "
            "(posterior median); for totals over an area use --target regions"
        )
    if budget is not None:
        left = budget.remaining
        out.line(
            f"  budget of {args.dataset!r} left: epsilon={left.epsilon:g}, delta={left.delta:g}"
        )
    out.seeded(hm.release)
    return 0
