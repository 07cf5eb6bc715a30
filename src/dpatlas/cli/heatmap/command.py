"""``dpatlas heatmap``: the parser, the CSV and points options, and the run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dpatlas.cli._common import (
    Output,
    UsageError,
    add_command,
    budget_summary,
    check_input_file,
    positive_float,
    release_budget,
)
from dpatlas.cli.heatmap.options import (
    DEFAULT_METHOD,
    DEFAULT_TARGET,
    KEYWORDS,
    METHOD_NAMES,
    OUT_SUFFIXES,
    TARGET_NAMES,
    add_product_options,
)
from dpatlas.cli.heatmap.outputs import check_outputs, interval_lines, write_products
from dpatlas.cli.progress import Steps, show_progress

__all__ = ["add_parser", "read_points", "run"]

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
    csv.add_argument(
        "--decimal", metavar="CHAR", help="decimal mark, e.g. ',' for 51,5 (default '.')"
    )
    csv.add_argument(
        "--encoding", help="text encoding, e.g. cp1252 for Excel on Windows (default utf-8)"
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
            ("--decimal", args.decimal),
            ("--encoding", args.encoding),
        )
        if value
    ]
    if kind not in (".csv", ".tsv"):
        if given:
            raise UsageError(
                f"{given[0]} is for CSV files; {args.points.name} carries its own columns and CRS"
            )
        return None
    if args.points_crs:
        from dpatlas.cli.grids import parse_crs

        parse_crs(args.points_crs, "--points-crs")
    if (args.x is None) != (args.y is None):
        raise UsageError("give both --x COL and --y COL (names or 0-based positions)")
    if args.no_header and args.x is None:
        raise UsageError(
            "a CSV without a header needs --x COL --y COL as 0-based positions, e.g. --x 2 --y 3"
        )
    from dpatlas.core.validation import check_character, check_encoding, is_integer_text

    options: dict[str, Any] = {"crs": args.points_crs or "EPSG:4326", "dropna": args.drop_missing}
    if args.x is not None:
        options["lon"] = int(args.x) if is_integer_text(args.x) else args.x
        options["lat"] = int(args.y) if is_integer_text(args.y) else args.y
    if args.no_header:
        options["header"] = None
    if args.sep is not None:
        options["sep"] = "\t" if args.sep in ("\\t", "tab") else args.sep
    if args.decimal is not None:
        options["decimal"] = check_character(args.decimal, "--decimal", example="',' or '.'")
    if args.encoding is not None:
        options["encoding"] = check_encoding(args.encoding, "--encoding")
    return options


def read_points(path: Path, csv: dict[str, Any] | None = None, layer: str | None = None) -> Any:
    """Sites from a vector file, a CSV (``csv``: the reader's options) or a GBIF download."""
    from dpatlas.spatial import read_gbif, read_sites

    check_input_file("POINTS", path, "the file of sites")
    names = [s.lower() for s in path.suffixes if s.lower() not in (".gz", ".zip")]
    if names and names[-1] == ".txt":
        return read_gbif(path)
    if csv is not None:
        return read_sites(path, **csv)
    return read_sites(path, **({} if layer is None else {"layer": layer}))


def _short(number: Any) -> str:
    """A noise scale (a number, a ``[low, high]`` range, or None) for a text line."""
    if isinstance(number, list):
        return f"{number[0]:.4g} to {number[1]:.4g}"
    return "none (nothing measured)" if number is None else f"{float(number):.4g}"


def run(args: argparse.Namespace, out: Output) -> int:
    """Run ``dpatlas heatmap``."""
    from dpatlas.cli.grids import study_area_grid
    from dpatlas.spatial import heatmap
    from dpatlas.spatial.heatmap import check_heatmap
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
        # refuse before the sites are read (checked only: the release debits)
        check_heatmap(
            grid,
            epsilon=args.epsilon,
            method=args.method,
            target=args.target,
            max_sites_per_individual=args.max_sites,
            budget=budget,
        )
        with bar.step("reading sites"):
            sites = read_points(args.points, csv, args.layer)
        if sites.crs is None:
            raise UsageError(
                f"POINTS {args.points.name} has no CRS; set the one its coordinates are in "
                "(e.g. `ogr2ogr -a_srs EPSG:4326 out.gpkg in.gpkg`)"
            )
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
            paths = write_products(hm, args.out, args, outline, written=out.files)
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
