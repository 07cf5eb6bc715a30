"""Exports of a released heatmap: GeoDataFrame, GeoPackage / GeoJSON, GeoTIFF, PNG, HTML.

Every interval written says what it is: its level is in the column names (``ci95_low``,
``ci95_high`` at 95%), the column ``ci_covers`` says per row whether it allows for the noise
only or for the noise and the unknown spread of sites inside a leaf, and the layer's metadata
(``interval``) says it in a sentence. Two layers: ``"cell"`` (one polygon per released cell)
and, for multi-level releases, ``"leaf"`` (one polygon per measured leaf: the units the map
actually measured, with tight noise-only intervals). The public facts and the GeoTIFF writer
live in :mod:`dpatlas.spatial.products.formats`; their names are exported here too.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import geopandas as gpd
import numpy as np
import shapely
from rasterio import features

from dpatlas.core.files import written_whole
from dpatlas.spatial.products.formats.facts import describe, interval_columns, release_facts
from dpatlas.spatial.products.formats.geotiff import NODATA, to_geotiff
from dpatlas.spatial.products.intervals import (
    Measured,
    cell_intervals,
    check_level,
    containing,
)

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = [
    "LAYERS",
    "NODATA",
    "SUFFIXES",
    "describe",
    "interval_columns",
    "release_facts",
    "to_file",
    "to_geodataframe",
    "to_geotiff",
]

LAYERS = {"cell": "cells", "leaf": "leaves"}
"""GeoPackage layer name of each unit."""
SUFFIXES = (".gpkg", ".geojson", ".json", ".tif", ".tiff", ".png", ".html")
"""The file types :func:`to_file` writes, chosen by the path's suffix."""


def _check_unit(heatmap: Heatmap, unit: str) -> Measured:
    m = heatmap.measured
    if unit not in LAYERS:
        raise ValueError(f'unit must be "cell" or "leaf", got {unit!r}')
    if unit == "leaf" and m.unit != "leaf":
        raise ValueError(
            f"unit='leaf' needs a multi-level release; {heatmap.release.mechanism!r} measured "
            "every cell on its own, so use unit='cell'"
        )
    return m


def _leaf_polygons(heatmap: Heatmap, m: Measured) -> np.ndarray:
    """Each leaf's rectangle, cut to the released cells where the grid's mask cuts it."""
    grid, h = heatmap.grid, heatmap.hierarchy
    assert h is not None
    assert m.node is not None
    node = m.node
    xe, ye = grid.x_edges, grid.y_edges
    boxes = shapely.box(
        xe[h.c0[node]], ye[grid.ny - h.r1[node]], xe[h.c1[node]], ye[grid.ny - h.r0[node]]
    )
    area = (h.r1[node] - h.r0[node]) * (h.c1[node] - h.c0[node])
    partial = m.n_cells < area
    if partial.any():
        mask = grid.released.astype(np.uint8)
        shapes = features.shapes(mask, mask=grid.released, transform=grid.transform)
        released = shapely.union_all([shapely.geometry.shape(g) for g, _ in shapes])
        boxes[partial] = shapely.intersection(boxes[partial], released)
    return boxes


def to_geodataframe(
    heatmap: Heatmap, *, level: float = 0.95, unit: str = "cell"
) -> gpd.GeoDataFrame:
    """One polygon per released cell (or per measured leaf) with its count and interval.

    ``unit="cell"``: columns ``row``, ``col``, ``count`` (the current estimate), ``raw`` (the
    released noisy value; for a tree, the leaf's raw count shared evenly), the interval
    (:meth:`Heatmap.confidence_interval`) in ``ciNN_low`` / ``ciNN_high`` (``NN`` the level
    in percent), ``ci_covers`` (``"noise"`` or ``"noise and spread"``), ``leaf`` (the leaf's
    node, multi-level releases only) and the flags. ``unit="leaf"`` (multi-level releases):
    ``leaf``, ``n_cells`` (released cells), ``count`` (the estimate summed over the leaf),
    ``raw`` (the leaf's raw noisy count), ``density_km2`` (``count`` per km² of released
    cells), the leaf's noise-only interval and ``ci_covers``. The release's public facts are
    in ``gdf.attrs["dpatlas"]``, with ``interval``: what the layer's intervals promise.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> gdf = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs="EPSG:3035",
    ...                  rng=0).to_geodataframe()
    >>> list(gdf.columns), gdf.crs.to_epsg()
    (['row', 'col', 'count', 'raw', 'ci95_low', 'ci95_high', 'ci_covers', 'geometry'], 3035)
    """
    level = check_level(level)
    m = _check_unit(heatmap, unit)
    grid = heatmap.grid
    low_name, high_name = interval_columns(level)
    facts = describe(heatmap, level)
    if unit == "leaf":
        assert m.node is not None
        count = np.bincount(m.of_cell, weights=heatmap.estimate, minlength=m.size)
        low, high = containing(*m.intervals(level), count)
        columns: dict[str, Any] = {
            "leaf": m.node,
            "n_cells": m.n_cells,
            "count": count,
            "raw": m.raw,
            "density_km2": count / (m.n_cells * grid.cell_area / 1e6),
            low_name: low,
            high_name: high,
            "ci_covers": np.full(m.size, "noise"),
        }
        geometry = _leaf_polygons(heatmap, m)
    else:
        rows, cols = np.nonzero(grid.released)
        cells = cell_intervals(m, level)
        low, high = containing(cells.low, cells.high, heatmap.estimate)
        columns = {
            "row": rows,
            "col": cols,
            "count": heatmap.estimate,
            "raw": heatmap.release.value,
            low_name: low,
            high_name: high,
            "ci_covers": np.where(cells.spread, "noise and spread", "noise"),
        }
        if m.node is not None:
            columns["leaf"] = m.node[m.of_cell]
        columns.update(heatmap.flags)
        geometry = shapely.box(*grid.cell_boxes())
    gdf = gpd.GeoDataFrame(columns, geometry=geometry, crs=grid.crs)
    gdf.attrs["dpatlas"] = {**facts, "layer_unit": unit, "interval": facts[f"interval_{unit}"]}
    return gdf


def to_file(
    heatmap: Heatmap,
    path: str | Path,
    *,
    level: float = 0.95,
    unit: str | None = None,
    **options: Any,
) -> Path:
    """Write the released map to ``path``; the format follows the suffix.

    ``.gpkg``
        The layer ``"cells"`` and, for a multi-level release, ``"leaves"`` (or only the layer
        of ``unit``), in the equal-area grid CRS, each with the release's public facts and
        what its intervals promise as layer metadata; the cells layer also carries the
        release record that :func:`~dpatlas.spatial.products.record.read_heatmap` reads
        back.
    ``.geojson`` / ``.json``
        One layer (cells unless ``unit="leaf"``), RFC 7946: coordinates in WGS 84
        (re-projected), the facts in the top-level ``description``.
    ``.tif`` / ``.tiff``
        A GeoTIFF (:func:`to_geotiff`).
    ``.png``
        A map with colour bar and privacy caption (:func:`~dpatlas.spatial.products.plot.save_png`;
        ``options``: ``context``, ``cmap``, ``scale``, ``title``; ``unit="leaf"`` outlines
        the leaves).
    ``.html``
        A self-contained interactive web map of the cells or, with ``unit="leaf"``, of the
        leaves (:func:`~dpatlas.spatial.products.webmap.to_html`; ``options``: ``context``,
        ``cmap``, ``scale``, ``tiles``, ``title``).

    Every format is post-processing of the one release: writing several costs nothing more.
    See :func:`to_geodataframe` for the columns. Every format is written beside ``path`` and
    swapped in whole (:func:`~dpatlas.core.files.written_whole`): a write that fails leaves an
    existing file as it was.

    Examples
    --------
    >>> import os, tempfile, numpy as np, geopandas as gpd, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> path = hm.to_file(os.path.join(tempfile.mkdtemp(), "map.gpkg"))
    >>> gpd.read_file(path, layer="cells").crs.to_epsg()
    3035
    """
    path = Path(path)
    suffix = path.suffix.lower()
    if suffix not in SUFFIXES:
        raise ValueError(f"path must end in {', '.join(SUFFIXES)}, got {str(path)!r}")
    if not path.parent.is_dir():
        raise FileNotFoundError(
            f"path {str(path)!r} is in a folder that does not exist; create {str(path.parent)!r} "
            "first"
        )
    if unit is not None:
        _check_unit(heatmap, unit)
    vector = suffix in (".gpkg", ".geojson", ".json")
    if options and (vector or suffix in (".tif", ".tiff")):
        raise TypeError(
            f"{', '.join(sorted(options))} apply only to .png and .html maps, not to {suffix}"
        )
    if suffix in (".tif", ".tiff"):
        if unit == "leaf":
            raise ValueError("a GeoTIFF holds cells; write the leaves to .gpkg or .geojson")
        return to_geotiff(heatmap, path)
    if suffix == ".png":
        from dpatlas.spatial.products.plot import save_png

        return save_png(heatmap, path, leaves=unit == "leaf", **options)
    if suffix == ".html":
        from dpatlas.spatial.products.webmap import to_html

        return to_html(heatmap, path, level=level, unit=unit or "cell", **options)
    if suffix == ".gpkg":
        from dpatlas.spatial.products.record import RECORD_KEY, release_record

        units = (
            [unit]
            if unit is not None
            else list(LAYERS)[: 2 if heatmap.measured.unit == "leaf" else 1]
        )
        layers = []
        for name in units:  # every layer built (and every argument checked) before writing
            gdf = to_geodataframe(heatmap, level=level, unit=name)
            facts = gdf.attrs.pop("dpatlas")
            if name == "cell":
                facts[RECORD_KEY] = json.dumps(release_record(heatmap))
            layers.append((gdf, LAYERS[name], facts))
        with written_whole(path) as partial:
            for gdf, layer, facts in layers:
                gdf.to_file(partial, driver="GPKG", layer=layer, metadata=facts)
        return path
    gdf = to_geodataframe(heatmap, level=level, unit=unit or "cell")
    facts = gdf.attrs.pop("dpatlas")
    with written_whole(path) as partial:
        gdf.to_crs("EPSG:4326").to_file(
            partial, driver="GeoJSON", RFC7946="YES", DESCRIPTION=json.dumps(facts)
        )
    return path
