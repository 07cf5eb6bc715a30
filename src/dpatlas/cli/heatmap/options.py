"""The options of ``dpatlas heatmap`` that need no data: choices, defaults, the map options.

Kept free of the spatial stack, so that building the parser imports no geopandas or scipy.
"""

from __future__ import annotations

import argparse

OUT_SUFFIXES = (".gpkg", ".geojson", ".json", ".tif", ".tiff", ".png", ".html")
"""The products ``--out`` writes, chosen by the suffix (as :func:`dpatlas.spatial.products.export.to_file`)."""

KEYWORDS = {
    "epsilon": "--epsilon",
    "method": "--method",
    "cell_size": "--cell-size",
    "crs": "--points-crs",
    "lon": "--x",
    "lat": "--y",
    "sep": "--sep",
    "decimal": "--decimal",
    "encoding": "--encoding",
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
