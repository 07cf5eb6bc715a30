"""``dpatlas heatmap``: one private heatmap of sites, written to every product asked for.

``--out`` may be repeated (``--out map.gpkg --out map.tif --out map.png --out map.html``): the
map is released once, debited once, and every file is post-processing of that one release.
Everything that needs no data is checked first (outputs, options, the public grid), then the
ledger, and only then are the sites read.
"""

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
    "DEFAULT_METHOD",
    "METHOD_NAMES",
    "OUT_SUFFIXES",
    "add_parser",
    "add_product_options",
    "check_outputs",
    "interval_lines",
    "read_points",
    "write_products",
]

OUT_SUFFIXES = (".gpkg", ".geojson", ".json", ".tif", ".tiff", ".png", ".html")
"""The products ``--out`` writes, chosen by the suffix (as :func:`dpatlas.spatial.products.export.to_file`)."""

_EPILOG = """\
examples:
  dpatlas heatmap sites.gpkg --study-area park.gpkg --cell-size 500 --crs EPSG:3035 \\
      --epsilon 0.5 --out sites-map.gpkg --out sites-map.html \\
      --ledger ledger.sqlite --dataset sites-2026
  dpatlas heatmap taxi.csv --no-header --x 2 --y 3 --extent 116.2,39.8,116.6,40.1 \\
      --extent-crs EPSG:4326 --crs EPSG:32650 --cell-size 500 --epsilon 0.5 \\
      --out taxi.png --out taxi.html --context roads.gpkg
  dpatlas heatmap occurrence.txt.gz --extent -92,-1.5,-89,0.7 --extent-crs EPSG:4326 \\
      --crs EPSG:32715 --cell-size 10000 --epsilon 1 --individual-column recordedBy \\
      --max-sites 3 --nonnegative --out penguins.png

The extent (or study area), cell size and CRS are public parameters: choose them
without looking at the sites. Sites outside the released cells are dropped, and how
many is never reported. The whole map costs --epsilon once (parallel composition
over disjoint cells), however many --out files it is written to. POINTS may be a
GeoPackage / GeoJSON / Shapefile, a CSV (lon/lat columns found by name, or given with
--x/--y; WGS 84 unless --points-crs), or a GBIF download (.txt, .txt.gz).
Render a saved GeoPackage again, for free: `dpatlas export map.gpkg --to map.html`.
"""

KEYWORDS = {
    "epsilon": "--epsilon",
    "method": "--method",
    "cell_size": "--cell-size",
    "crs": "--points-crs",
    "lon": "--x",
    "lat": "--y",
    "sep": "--sep",
    "individual_column": "--individual-column",
    "max_sites_per_individual": "--max-sites",
    "cmap": "--cmap",
    "scale": "--scale",
    "tiles": "--tiles",
    "unit": "--unit",
}
"""The API's keywords and the flags that set them (for error messages in the shell's words)."""

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
SCALE_NAMES = ("linear", "sqrt", "log")
"""``--scale`` choices: :data:`dpatlas.spatial.products.plot.SCALES` (a test checks it)."""


def add_product_options(p: argparse.ArgumentParser) -> None:
    """Options of the rendered maps (PNG and HTML), shared by ``heatmap`` and ``export``."""
    group = p.add_argument_group("maps (.png, .html)")
    group.add_argument(
        "--context",
        action="append",
        default=[],
        metavar="FILE[:LAYER]",
        help="public layer drawn over the map (roads, coastline, outline); repeatable",
    )
    group.add_argument("--cmap", default="viridis", help="matplotlib colour map (default viridis)")
    group.add_argument(
        "--scale", choices=SCALE_NAMES, default="linear", help="colour scale (default linear)"
    )
    group.add_argument("--title", help="title of the map")
    group.add_argument(
        "--unit",
        choices=("cell", "leaf"),
        help="for .geojson, .html, .png: the released cells (default) or the leaves an adaptive "
        "/ PrivTree map measured (GeoJSON and HTML draw them, PNG outlines them); a GeoPackage "
        "holds both layers",
    )
    group.add_argument(
        "--tiles",
        metavar="NAME|URL",
        help="web basemap under an .html map, e.g. OpenStreetMap (needs a network when viewed; "
        "the private layer does not)",
    )


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
        help="public bounds (in --crs unless --extent-crs; in degrees: west,south,east,north)",
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
    p.add_argument(
        "--nonnegative",
        action="store_true",
        help="post-process to non-negative integer counts with the same total (free)",
    )
    p.add_argument(
        "--out",
        type=Path,
        action="append",
        required=True,
        help="output, repeatable (one release, every file): " + ", ".join(OUT_SUFFIXES),
    )
    csv = p.add_argument_group("CSV points")
    csv.add_argument(
        "--x", metavar="COL", help="column of x / longitude: a name or a 0-based position"
    )
    csv.add_argument(
        "--y", metavar="COL", help="column of y / latitude: a name or a 0-based position"
    )
    csv.add_argument(
        "--no-header", action="store_true", help="the first line is data (then give --x and --y)"
    )
    csv.add_argument("--sep", help="field separator (default ',' for .csv, tab for .tsv)")
    csv.add_argument(
        "--points-crs", metavar="CRS", help="CRS of the coordinates (default EPSG:4326)"
    )
    csv.add_argument(
        "--drop-missing", action="store_true", help="drop rows without usable coordinates"
    )
    add_product_options(p)
    p.set_defaults(func=run, keywords=KEYWORDS)


def _csv_options(args: argparse.Namespace) -> dict[str, Any] | None:
    """The CSV reader's options, or None for other files (where CSV flags are refused)."""
    names = [s.lower() for s in args.points.suffixes if s.lower() not in (".gz", ".zip")]
    kind = names[-1] if names else ""
    given = [
        flag
        for flag, value in (
            ("--x", args.x),
            ("--y", args.y),
            ("--no-header", args.no_header),
            ("--sep", args.sep),
            ("--points-crs", args.points_crs),
            ("--drop-missing", args.drop_missing),
        )
        if value
    ]
    if kind not in (".csv", ".tsv"):
        if given:
            raise UsageError(
                f"{given[0]} is for CSV files; {args.points.name} carries its own columns and CRS"
            )
        return None
    if (args.x is None) != (args.y is None):
        raise UsageError("give both --x COL and --y COL (names or 0-based positions)")
    if args.no_header and args.x is None:
        raise UsageError(
            "a CSV without a header needs --x COL --y COL as 0-based positions, e.g. --x 2 --y 3"
        )
    options: dict[str, Any] = {"crs": args.points_crs or "EPSG:4326", "dropna": args.drop_missing}
    if args.x is not None:
        options["lon"] = int(args.x) if args.x.isdigit() else args.x
        options["lat"] = int(args.y) if args.y.isdigit() else args.y
    if args.no_header:
        options["header"] = None
    if args.sep is not None:
        options["sep"] = "\t" if args.sep in ("\\t", "tab") else args.sep
    return options


def read_points(path: Path, csv: dict[str, Any] | None = None, layer: str | None = None) -> Any:
    """Sites from a vector file, a CSV (``csv``: the reader's options) or a GBIF download."""
    from dpatlas.spatial import read_gbif, read_sites

    if not path.is_file():
        raise UsageError(f"POINTS file not found: {path}; check the path")
    names = [s.lower() for s in path.suffixes if s.lower() not in (".gz", ".zip")]
    if names and names[-1] == ".txt":
        return read_gbif(path)
    if csv is not None:
        return read_sites(path, **csv)
    return read_sites(path, **({} if layer is None else {"layer": layer}))


def check_outputs(paths: list[Path], args: argparse.Namespace) -> None:
    """Refuse unknown suffixes, repeated files and bad map options before anything is spent."""
    from matplotlib import colormaps

    if args.cmap not in colormaps:
        raise UsageError(
            f"--cmap {args.cmap} is not a matplotlib colour map; e.g. viridis, magma, cividis"
        )
    if args.tiles and not any(p.suffix.lower() == ".html" for p in paths):
        raise UsageError("--tiles is for .html maps; write one (map.html) or drop --tiles")
    if args.unit and not any(p.suffix.lower() in _UNIT_SUFFIXES for p in paths):
        raise UsageError(
            "--unit is for .geojson, .html and .png maps; a GeoPackage holds the cells and the "
            "leaves, a GeoTIFF the cells"
        )
    context_layers(args.context, getattr(args, "points", None))
    seen: set[Path] = set()
    for path in paths:
        if path.suffix.lower() not in OUT_SUFFIXES:
            raise UsageError(f"--out must end in {', '.join(OUT_SUFFIXES)}, got {str(path)!r}")
        if path.resolve() in seen:
            raise UsageError(f"--out {path} is given twice; give each file once")
        if path.is_dir():
            raise UsageError(f"--out {path} is a directory; give a file such as {path}/map.gpkg")
        seen.add(path.resolve())


_UNIT_SUFFIXES = (".geojson", ".json", ".html", ".png")
"""The products ``--unit`` applies to."""


def context_layers(specs: list[str], avoid: Path | None = None) -> list[Any]:
    """The ``--context FILE[:LAYER]`` layers (never the private POINTS file)."""
    import geopandas as gpd

    layers = []
    for spec in specs:
        path, layer = Path(spec), None
        if not path.is_file() and ":" in spec:
            head, layer = spec.rsplit(":", 1)
            path = Path(head)
        if not path.is_file():
            raise UsageError(f"--context file not found: {spec}; check the path")
        if avoid is not None and path.resolve() == avoid.resolve() and layer is None:
            raise UsageError(
                f"--context {spec} is the POINTS file: the private sites never go on the map; "
                "give public layers only (roads, coastline, the study area)"
            )
        frame = gpd.read_file(path, **({} if layer is None else {"layer": layer}))
        if frame.crs is None:
            raise UsageError(f"--context {spec} has no CRS; set one (e.g. with ogr2ogr -a_srs)")
        layers.append((layer or path.stem, frame))
    return layers


def write_products(
    hm: Any, paths: list[Path], args: argparse.Namespace, outline: Any = None
) -> list[Path]:
    """Write ``hm`` to every path (post-processing of one release); maps get the options."""
    context = dict(context_layers(args.context, getattr(args, "points", None)))
    if outline is not None:
        context = {"study area": outline, **context}
    written = []
    for path in paths:
        path.parent.mkdir(parents=True, exist_ok=True)
        options: dict[str, Any] = {}
        suffix = path.suffix.lower()
        if suffix in _UNIT_SUFFIXES and args.unit:
            options["unit"] = args.unit
        if suffix in (".png", ".html"):
            options.update(context=context, cmap=args.cmap, scale=args.scale, title=args.title)
        if suffix == ".html" and args.tiles:
            options["tiles"] = args.tiles
        written.append(Path(hm.to_file(path, **options)))
    return written


def _where(paths: list[Path], unit: str | None) -> dict[str, str]:
    """Where each unit's ranges are in the written files (or that they are not)."""
    found: dict[str, list[str]] = {"cell": [], "leaf": []}
    for path in paths:
        suffix = path.suffix.lower()
        if suffix == ".gpkg":
            found["cell"].append(f'layer "cells" of {path.name}')
            found["leaf"].append(f'layer "leaves" of {path.name}')
        elif suffix in (".geojson", ".json"):
            found[unit or "cell"].append(f"columns ci95_low, ci95_high of {path.name}")
        elif suffix == ".html":
            found[unit or "cell"].append(f"tooltips of {path.name}")
    where = {}
    for name, places in found.items():
        other = "cell" if name == "leaf" else "leaf"
        hint = f"write .gpkg, or --unit {name} with .geojson / .html" if unit == other else ""
        where[name] = f" ({'; '.join(places) or hint or 'write .gpkg for them'})"
    return where


def interval_lines(hm: Any, paths: list[Path], unit: str | None = None) -> list[str]:
    """What the 95% ranges of the map promise, in words a non-statistician reads.

    ``paths`` and ``unit`` (the layer of GeoJSON and HTML maps) say where the ranges were
    written.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> for line in interval_lines(hm, [Path("map.geojson")]):
    ...     print(line)
      95% ranges per cell (columns ci95_low, ci95_high of map.geojson): each cell's true count lies in its
        range with at least 95% probability; a range is the raw noisy count ± 3, cut at 0
        (only noise to allow for: every cell was measured on its own)
    """
    m = hm.measured
    where = _where(paths, unit)
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


def _short(number: Any) -> str:
    """A noise scale (a number, a ``[low, high]`` range, or None) for a text line."""
    if isinstance(number, list):
        return f"{number[0]:.4g} to {number[1]:.4g}"
    return "none (nothing measured)" if number is None else f"{float(number):.4g}"


def run(args: argparse.Namespace, out: Output) -> int:
    """Run ``dpatlas heatmap``."""
    from dpatlas.cli.grids import study_area_grid
    from dpatlas.spatial import heatmap
    from dpatlas.spatial.products.formats.facts import release_facts

    check_outputs(args.out, args)
    if args.max_sites < 1:
        raise UsageError(f"--max-sites must be an integer >= 1, got {args.max_sites}")
    csv = _csv_options(args)
    steps = ["build the public grid", "read sites", "bin and release", "write"]
    with Steps(steps, enabled=show_progress(args.quiet), desc="heatmap") as bar:
        with bar.step("building the public grid"):
            grid, outline = study_area_grid(
                extent=args.extent,
                study_area=args.study_area,
                cell_size=args.cell_size,
                crs=args.crs,
                extent_crs=args.extent_crs,
                layer=args.study_area_layer,
            )
        budget = release_budget(args, out)
        if budget is not None:
            budget.check(args.epsilon)  # refuse before the sites are read
        with bar.step("reading sites"):
            sites = read_points(args.points, csv, args.layer)
        column = args.individual_column
        if column is not None and column not in sites.columns:
            names = [str(c) for c in sites.columns if c != sites.geometry.name][:20]
            raise UsageError(
                f"--individual-column {column} is not a column of {args.points.name}; its "
                f"columns are {', '.join(names)}"
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
        with bar.step("writing " + ", ".join(p.name for p in args.out)):
            paths = write_products(hm, args.out, args, outline)
    if budget is not None and budget.made_here:
        budget.record_products(budget.made_here[-1], paths)
    facts = release_facts(hm)
    out.payload.update(
        {
            "command": "heatmap",
            "out": [str(p) for p in paths],
            "release": facts,
            "grid": dict(hm.release.metadata["grid"]),
            "budget": None if budget is None else budget_summary(budget),
        }
    )
    out.line(f"private heatmap written to {', '.join(map(str, paths))}")
    out.line(
        f"  epsilon {facts['epsilon']:g} for the whole map ({grid.n_released} cells) and all "
        f"{len(paths)} file(s), mechanism {facts['mechanism']}"
    )
    each = "leaf" if hm.measured.unit == "leaf" else "cell"
    out.line(f"  noise {hm.measured.noise} of scale {_short(facts['noise_scale'])} on each {each}")
    for text in interval_lines(hm, paths, args.unit):
        out.line(text)
    out.line(f"  grid {grid.nx} x {grid.ny} cells of {grid.cell_size:g} m in {facts['crs']}")
    if "empirical_bayes" in hm.steps:
        out.line(
            "  map counts: each cell's most likely count given its noisy count and the whole map "
            "(posterior median); for totals over an area use --target regions"
        )
    out.budget_left(args.dataset, budget)
    out.seeded(hm.release)
    return 0
