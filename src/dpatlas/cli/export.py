"""``dpatlas export``: render a saved heatmap again (HTML, GeoTIFF, PNG, ...) for free.

The GeoPackage that ``dpatlas heatmap --out map.gpkg`` writes carries the release record
(ε, mechanism, noise, grid, date, post-processing). ``export`` reads that file only: no sites,
no ledger, no budget. Rendering a release is post-processing.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dpatlas.cli._common import Output, UsageError, add_command
from dpatlas.cli.heatmap.options import KEYWORDS, add_product_options
from dpatlas.cli.heatmap.outputs import check_outputs, write_products

__all__ = ["add_parser"]

_EPILOG = """\
examples:
  dpatlas export map.gpkg --to map.html map.tif map.png
  dpatlas export map.gpkg --to map.html --context roads.gpkg --tiles OpenStreetMap

Reads only the released map in a GeoPackage written by `dpatlas heatmap --out map.gpkg`
(or Heatmap.to_file): nothing is spent and no ledger is needed.
"""


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register ``export``."""
    p = add_command(
        sub,
        "export",
        help="render a saved heatmap again (no budget spent)",
        description="Write a saved private heatmap to other formats, spending nothing.",
        parents=parents,
        epilog=_EPILOG,
    )
    p.add_argument("saved", metavar="MAP.gpkg", type=Path, help="GeoPackage written by dpatlas")
    p.add_argument(
        "--to",
        nargs="+",
        type=Path,
        required=True,
        metavar="FILE",
        help="files to write: .gpkg, .geojson, .tif, .png, .html",
    )
    add_product_options(p)
    p.set_defaults(func=run, keywords=KEYWORDS)


def run(args: argparse.Namespace, out: Output) -> int:
    """Run ``dpatlas export``."""
    from dpatlas.spatial.products.formats.facts import release_facts
    from dpatlas.spatial.products.record import read_heatmap

    check_outputs(args.to, args, flag="--to")
    if args.saved.resolve() in {p.resolve() for p in args.to}:
        raise UsageError(f"--to {args.saved} would overwrite the saved map; choose another name")
    if not args.saved.is_file():
        raise UsageError(f"saved map not found: {args.saved}; check the path")
    hm = read_heatmap(args.saved)
    paths = write_products(hm, args.to, args)
    facts = release_facts(hm)
    out.payload.update(
        {"command": "export", "saved": str(args.saved), "out": [str(p) for p in paths]}
        | {"release": facts, "spent": {"epsilon": 0.0, "delta": 0.0}}
    )
    out.line(f"rendered {args.saved} again to {', '.join(map(str, paths))}")
    out.line(
        f"  the release: epsilon {facts['epsilon']:g}, {facts['mechanism']}, "
        f"{facts['date'] or 'date unknown'}; nothing spent now"
    )
    return 0
