"""Exports of a released heatmap: GeoDataFrame, GeoPackage / GeoJSON, GeoTIFF, PNG, HTML.

Every interval written says what it is: its level is in the column names (``ci95_low``,
``ci95_high`` at 95%), the column ``ci_covers`` says per row whether it allows for the noise
only or for the noise and the unknown spread of sites inside a leaf, and the layer's metadata
(``interval``) says it in a sentence. Two layers: ``"cell"`` (one polygon per released cell)
and, for multi-level releases, ``"leaf"`` (one polygon per measured leaf: the units the map
actually measured, with tight noise-only intervals).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import geopandas as gpd
import numpy as np
import rasterio
import shapely
from rasterio import features

from dpatlas.spatial.products.intervals import Measured, cell_intervals, check_level

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

NODATA = np.iinfo(np.int32).min
"""GeoTIFF nodata value of integer count bands (cells outside the release)."""
LAYERS = {"cell": "cells", "leaf": "leaves"}
"""GeoPackage layer name of each unit."""
SUFFIXES = (".gpkg", ".geojson", ".json", ".tif", ".tiff", ".png", ".html")
"""The file types :func:`to_file` writes, chosen by the path's suffix."""


def interval_columns(level: float) -> tuple[str, str]:
    """Names of the interval's columns at ``level``: the level is in the name.

    Examples
    --------
    >>> interval_columns(0.95), interval_columns(0.975)
    (('ci95_low', 'ci95_high'), ('ci97_5_low', 'ci97_5_high'))
    """
    tag = f"ci{100 * check_level(level):.10g}".replace(".", "_")
    return f"{tag}_low", f"{tag}_high"


def _sentences(m: Measured, level: float) -> dict[str, str]:
    """What the intervals of each layer promise, in words."""
    low, high = interval_columns(level)
    pct = f"{100 * level:.10g}%"
    if m.unit == "cell":
        return {
            "cell": f"{low}, {high}: each cell's true count lies in its range with probability "
            f"at least {pct} (noise only: every cell was measured on its own)."
        }
    alone = int((m.n_cells == 1).sum())
    return {
        "cell": f"{low}, {high}: each cell's true count lies in its range with probability at "
        f"least {pct}. The map measured {m.size} leaves (blocks of cells), not single cells: "
        f"the cells of the {alone} one-cell leaves have a noise-only range; a cell in a leaf of "
        "several cells has the range from 0 to the upper end of its leaf's range (noise and "
        "spread: how sites spread inside a leaf is not released), valid but wide; column "
        "ci_covers says which, and the leaf layer has the tight ranges.",
        "leaf": f"{low}, {high}: each leaf's true count lies in its range with probability at "
        f"least {pct} (noise only: every leaf was measured once).",
    }


def release_facts(heatmap: Heatmap, level: float = 0.95) -> dict[str, Any]:
    """Public facts about the release as numbers, text and lists (``--json``, web maps).

    The same facts as :func:`describe`, typed: ``noise_scale`` is a number, a ``[low, high]``
    range when the measured units have different scales, or None when nothing was measured.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> facts = release_facts(hm)
    >>> facts["epsilon"], facts["noise_scale"], facts["ci95_halfwidth"], facts["seeded"]
    (1.0, 1.0, 3.0, True)
    """
    release, grid = heatmap.release, heatmap.grid
    m = heatmap.measured
    level = check_level(level)
    scales = np.unique(m.scale)
    widths = m.halfwidth(0.95)
    cap = release.metadata.get("max_sites_per_individual")
    facts: dict[str, Any] = {
        "epsilon": release.epsilon,
        "delta": release.delta,
        "mechanism": release.mechanism,
        "noise": m.noise if m.unit == "cell" else f"{m.noise} per leaf of a released tree",
        "noise_scale": None
        if not m.size
        else float(scales[0])
        if scales.size == 1
        else [float(scales[0]), float(scales[-1])],
        "sensitivity": release.sensitivity,
        "measured_unit": m.unit,
        "measured_units": int(m.size),
        "ci95_halfwidth": float(widths.max()) if widths.size else 0.0,
        "interval_level": level,
        "seeded": release.seeded,
        "cell_size": grid.cell_size,
        "crs": grid.crs.to_string(),
        "date": str(release.metadata.get("created", "")),
        "postprocessing": list(heatmap.steps),
        "max_sites_per_individual": None if cap is None else int(cap),
    }
    facts.update({f"interval_{unit}": text for unit, text in _sentences(m, level).items()})
    return facts


def _text(value: Any) -> str:
    """A fact as text: numbers short but exact (``1``, ``0.5``, ``1.3333333333333333``)."""
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, (int, float)):
        short = f"{value:g}"
        return short if float(short) == value else repr(float(value))
    if isinstance(value, list):
        return json.dumps(value)
    return "" if value is None else str(value)


def describe(heatmap: Heatmap, level: float = 0.95) -> dict[str, str]:
    """Public facts about the release, as strings (GeoTIFF tags, file metadata, captions).

    ``measured_unit`` says what the noisy values measure (``cell`` or ``leaf``),
    ``ci95_halfwidth`` the largest noise-only 95% half-width of one such unit, and
    ``interval_cell`` (and ``interval_leaf``) what each layer's ``level`` intervals promise.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> facts = describe(hm)
    >>> facts["noise_scale"], facts["measured_unit"], facts["ci95_halfwidth"]
    ('1', 'cell', '3')
    >>> print(facts["interval_cell"])
    ci95_low, ci95_high: each cell's true count lies in its range with probability at least 95%
    (noise only: every cell was measured on its own).
    """
    facts = release_facts(heatmap, level)
    text = {key: _text(value) for key, value in facts.items()}
    scale = facts["noise_scale"]
    if isinstance(scale, list):
        text["noise_scale"] = f"{scale[0]:.17g} to {scale[1]:.17g}"
    elif scale is not None:
        text["noise_scale"] = f"{scale:.17g}"
    return text


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
        low, high = m.intervals(level)
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
        columns = {
            "row": rows,
            "col": cols,
            "count": heatmap.estimate,
            "raw": heatmap.release.value,
            low_name: cells.low,
            high_name: cells.high,
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
        back. An existing file is replaced.
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
    See :func:`to_geodataframe` for the columns.

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
        path.unlink(missing_ok=True)
        for name in units:
            gdf = to_geodataframe(heatmap, level=level, unit=name)
            facts = gdf.attrs.pop("dpatlas")
            if name == "cell":
                facts[RECORD_KEY] = json.dumps(release_record(heatmap))
            gdf.to_file(path, driver="GPKG", layer=LAYERS[name], metadata=facts)
        return path
    gdf = to_geodataframe(heatmap, level=level, unit=unit or "cell")
    facts = gdf.attrs.pop("dpatlas")
    gdf.to_crs("EPSG:4326").to_file(
        path, driver="GeoJSON", RFC7946="YES", DESCRIPTION=json.dumps(facts)
    )
    return path


def to_geotiff(heatmap: Heatmap, path: str | Path) -> Path:
    """Write a GeoTIFF: band 1 the counts (nodata outside the release), one band per flag.

    Integer estimates are written as int32 with nodata ``-2**31``; non-integer ones as
    float64 with NaN. Tags hold ε, mechanism, noise scale, cell size, CRS and date; intervals
    are not written (use :func:`to_file`).

    Examples
    --------
    >>> import os, tempfile, numpy as np, rasterio, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> with rasterio.open(hm.to_geotiff(os.path.join(tempfile.mkdtemp(), "m.tif"))) as src:
    ...     src.tags()["epsilon"], src.tags()["mechanism"], src.read(1).shape
    ('1', 'heatmap/uniform', (1, 2))
    """
    path = Path(path)
    grid = heatmap.grid
    estimate = np.asarray(heatmap.estimate)
    integer = np.issubdtype(estimate.dtype, np.integer)
    dtype, nodata = ("int32", NODATA) if integer else ("float64", np.nan)
    if integer and estimate.size and np.abs(estimate).max() >= 2**31 - 1:
        raise ValueError("counts do not fit in int32; use nonnegative(integer=False) first")
    band = np.full(grid.shape, nodata, dtype=dtype)
    band[grid.released] = estimate
    names = ["count", *heatmap.flags]
    profile = {
        "driver": "GTiff",
        "width": grid.nx,
        "height": grid.ny,
        "count": len(names),
        "dtype": dtype,
        "crs": grid.crs.to_wkt(),
        "transform": grid.transform,
        "nodata": nodata,
        "compress": "deflate",
    }
    with rasterio.open(path, "w", **profile) as dst:
        dst.write(band, 1)
        for index, name in enumerate(names[1:], start=2):
            layer = np.full(grid.shape, nodata, dtype=dtype)
            layer[grid.released] = heatmap.flags[name]
            dst.write(layer, index)
        for index, name in enumerate(names, start=1):
            dst.set_band_description(index, name)
        facts = describe(heatmap)  # no interval in a GeoTIFF: no sentence about its columns
        dst.update_tags(**{k: v for k, v in facts.items() if not k.startswith("interval")})
    return path
