"""The files a heatmap is written to: checked before anything is spent, written after the one
release, and what their 95% ranges promise, in words. Post-processing of the release."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dpatlas.cli._common import UsageError, check_output_path
from dpatlas.cli.heatmap.options import OUT_SUFFIXES

__all__ = ["check_outputs", "context_layers", "interval_lines", "write_products"]


def check_outputs(paths: list[Path], args: argparse.Namespace, flag: str = "--out") -> None:
    """Refuse unknown suffixes, repeated files, paths that cannot be written or would overwrite
    an input (the points, the study area, the ledger) and bad map options, before anything is
    spent; ``flag`` names the option in the messages."""
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
    inputs = {
        "POINTS": getattr(args, "points", None),
        "--study-area": getattr(args, "study_area", None),
        "--ledger": getattr(args, "ledger", None),
    }
    seen: set[Path] = set()
    for path in paths:
        if path.suffix.lower() not in OUT_SUFFIXES:
            raise UsageError(f"{flag} must end in {', '.join(OUT_SUFFIXES)}, got {str(path)!r}")
        if path.resolve() in seen:
            raise UsageError(f"{flag} {path} is given twice; give each file once")
        check_output_path(flag, path, inputs)
        seen.add(path.resolve())


_UNIT_SUFFIXES = (".geojson", ".json", ".html", ".png")
"""The products ``--unit`` applies to."""


def context_layers(specs: list[str], avoid: Path | None = None) -> list[Any]:
    """The ``--context FILE[:LAYER]`` layers (never the private POINTS file)."""
    from dpatlas.spatial.io import read_vector

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
        frame = read_vector(path, layer=layer, what="--context")
        if frame.crs is None:
            raise UsageError(f"--context {spec} has no CRS; set one (e.g. with ogr2ogr -a_srs)")
        layers.append((layer or path.stem, frame))
    return layers


def write_products(
    hm: Any,
    paths: list[Path],
    args: argparse.Namespace,
    outline: Any = None,
    written: list[Path] | None = None,
) -> list[Path]:
    """Write ``hm`` to every path (post-processing of one release); maps get the options.

    Each path is appended to ``written`` (a new list if None, returned) once its file is
    whole, so a caller whose later write fails knows which files exist.
    """
    context = dict(context_layers(args.context, getattr(args, "points", None)))
    if outline is not None:
        context = {"study area": outline, **context}
    written = [] if written is None else written
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
    import textwrap

    from dpatlas.spatial.products.intervals import kept_sites

    lines = _unit_lines(hm.measured, _where(paths, unit))
    kept = kept_sites(hm.release)
    if not kept:
        return lines
    return [
        *lines,
        *textwrap.wrap(
            f"true counts are those {kept}", 96, initial_indent="    ", subsequent_indent="    "
        ),
    ]


def _unit_lines(m: Any, where: dict[str, str]) -> list[str]:
    """The lines of :func:`interval_lines` for the units ``m`` measured."""
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
