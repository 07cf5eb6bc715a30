"""The release record a GeoPackage carries, and a heatmap read back from it.

A GeoPackage written by :func:`dpatlas.spatial.products.export.to_file` holds one polygon per released
cell (estimate, raw noisy count, interval, flags) and, in its layer metadata, the *release
record*: the whole :class:`~dpatlas.core.release.Release` but its per-cell values (ε, δ, ρ,
mechanism, noise and scale, seeded, the method's metadata with its date and, for a tree, the
released tree), the grid (origin, cell size, shape, CRS as WKT) and the post-processing steps.
:func:`read_heatmap` rebuilds the :class:`~dpatlas.spatial.products.result.Heatmap` from those two,
so every other product (GeoTIFF, PNG, HTML, another GeoPackage) can be rendered again later
without the sites and without spending budget: reading a release is post-processing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dpatlas.core.release import Release
from dpatlas.spatial.grid import Grid

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = ["FORMAT", "RECORD_KEY", "read_heatmap", "release_record"]

FORMAT = "dpatlas.heatmap/1"
"""Name and version of the record's layout (a reader refuses layouts it does not know)."""
RECORD_KEY = "dpatlas_release"
"""Layer-metadata key of the record in a GeoPackage."""

_CELL_COLUMNS = ("row", "col", "count", "raw")


def release_record(heatmap: Heatmap) -> dict[str, Any]:
    """Everything but the per-cell values that is needed to rebuild ``heatmap`` (JSON-ready).

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> record = release_record(hm)
    >>> record["format"], record["release"]["epsilon"], record["grid"]["shape"]
    ('dpatlas.heatmap/1', 1.0, [1, 2])
    """
    grid = heatmap.grid
    release = heatmap.release.to_dict()
    del release["value"]
    return {
        "format": FORMAT,
        "release": release,
        "grid": {
            "x0": grid.x0,
            "y0": grid.y0,
            "cell_size": grid.cell_size,
            "shape": [grid.ny, grid.nx],
            "cells": grid.n_released,
            "crs": grid.crs.to_wkt(),
        },
        "steps": list(heatmap.steps),
        "flags": list(heatmap.flags),
    }


def read_heatmap(path: str | Path, *, layer: str = "cells") -> Heatmap:
    """The heatmap saved in a GeoPackage by ``Heatmap.to_file("....gpkg")`` (its cells layer).

    No data is read but the released one, and nothing is spent: the result renders every
    product again (``to_file``, ``to_geotiff``, ``to_html``, ``plot``) exactly as the original.

    Raises
    ------
    ValueError
        The file holds no dpatlas release record (written by another program, or by a dpatlas
        before records were saved), or a record of an unknown layout.

    Examples
    --------
    >>> import os, tempfile, numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 3, 2), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> back = read_heatmap(hm.to_file(os.path.join(tempfile.mkdtemp(), "map.gpkg")))
    >>> back.release.epsilon, bool((back.estimate == hm.estimate).all()), back.grid.shape
    (1.0, True, (2, 3))
    """
    import geopandas as gpd
    import pyogrio

    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"saved heatmap not found: {path}; check the path")
    try:
        metadata = pyogrio.read_info(path, layer=layer).get("layer_metadata") or {}
    except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError) as exc:
        layers = _layers(path)
        if layers and "leaves" in layers and layer == "cells":
            raise ValueError(
                f"{path} has no layer 'cells' (its layers: {', '.join(layers)}): it was written "
                "with unit='leaf', and the release record is kept with the cells; write the map "
                "again with unit=None (cells and leaves) to render it again"
            ) from None
        if layers:
            raise ValueError(
                f"{path} has no layer {layer!r} (its layers: {', '.join(layers)}); a map is "
                "rendered again from the cells layer a dpatlas Heatmap.to_file writes"
            ) from None
        raise ValueError(f"{path} is not a GeoPackage with a layer {layer!r}: {exc}") from None
    if RECORD_KEY not in metadata and layer != "cells" and "cells" in _layers(path):
        raise ValueError(
            f"{path}: the release record is kept in the layer 'cells', not {layer!r}; "
            "read it with read_heatmap(path)"
        )
    if RECORD_KEY not in metadata:
        raise ValueError(
            f"{path} holds no dpatlas release record (layer metadata {RECORD_KEY!r}); only a "
            "GeoPackage written by dpatlas (Heatmap.to_file or `dpatlas heatmap --out x.gpkg`) "
            "can be rendered again"
        )
    try:
        record = json.loads(metadata[RECORD_KEY])
    except json.JSONDecodeError as exc:
        raise ValueError(
            f"{path}: its release record (layer metadata {RECORD_KEY!r}) is damaged, not valid "
            f"JSON ({exc.msg} at character {exc.pos}); was the file edited? Write the map again "
            "from the release"
        ) from None
    if record.get("format") != FORMAT:
        raise ValueError(f"{path}: unknown release record {record.get('format')!r}, want {FORMAT}")
    cells = gpd.read_file(path, layer=layer, ignore_geometry=True)
    missing = [c for c in (*_CELL_COLUMNS, *record["flags"]) if c not in cells.columns]
    if missing:
        raise ValueError(f"{path}: columns {missing} are missing; was the file edited?")
    cells = cells.sort_values(["row", "col"], kind="stable")
    g = record["grid"]
    ny, nx = g["shape"]
    rows, cols = cells["row"].to_numpy(), cells["col"].to_numpy()
    outside = (rows < 0) | (rows >= ny) | (cols < 0) | (cols >= nx)
    twice = cells.duplicated(["row", "col"]).to_numpy()
    if outside.any() or twice.any() or len(cells) != g.get("cells", len(cells)):
        said = f"{g['cells']} released cells" if "cells" in g else "no count (an older file)"
        raise ValueError(
            f"{path}: the layer holds {len(cells)} cells ({int(twice.sum())} repeated, "
            f"{int(outside.sum())} outside the {ny} x {nx} grid); its release record says "
            f"{said}. Was the file edited? Write the map again from the release"
        )
    mask = np.zeros((ny, nx), dtype=bool)
    mask[rows, cols] = True
    grid = Grid(
        g["x0"], g["y0"], g["cell_size"], nx, ny, g["crs"], mask=None if mask.all() else mask
    )
    fields = record["release"]
    release = Release(value=cells["raw"].to_numpy(), **fields)
    from dpatlas.spatial.products.result import Heatmap

    return Heatmap(
        grid=grid,
        release=release,
        estimate=cells["count"].to_numpy(),
        flags={name: cells[name].to_numpy(dtype=bool) for name in record["flags"]},
        steps=tuple(record["steps"]),
    )


def _layers(path: Path) -> list[str]:
    """The layer names of a vector file, or [] when it is none."""
    import pyogrio

    try:
        return [str(name) for name in pyogrio.list_layers(path)[:, 0]]
    except (pyogrio.errors.DataSourceError, pyogrio.errors.DataLayerError):
        return []
