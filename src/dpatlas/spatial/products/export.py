"""Exports of a released heatmap: GeoDataFrame, GeoPackage / GeoJSON, GeoTIFF."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import geopandas as gpd
import numpy as np
import rasterio
import shapely

from dpatlas.spatial.methods._tree_release import leaf_intervals, noise_of

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = ["NODATA", "describe", "to_file", "to_geodataframe", "to_geotiff"]

NODATA = np.iinfo(np.int32).min
"""GeoTIFF nodata value of integer count bands (cells outside the release)."""


def describe(heatmap: Heatmap) -> dict[str, str]:
    """Public facts about the release, as strings (GeoTIFF tags, file metadata, captions).

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> describe(hm)["noise_scale"], describe(hm)["ci95_halfwidth"]
    ('1', '3')
    """
    release, grid = heatmap.release, heatmap.grid
    noise, scale, unit = noise_of(release)
    h = heatmap.hierarchy
    low, high = release.confidence_interval(0.95) if h is None else leaf_intervals(release, h, 0.95)
    return {
        "epsilon": f"{release.epsilon:g}",
        "delta": f"{release.delta:g}",
        "mechanism": release.mechanism,
        "noise": str(noise) if unit == "cell" else f"{noise} per leaf of a released tree",
        "noise_scale": f"{scale:.17g}" if scale is not None else "private",
        "sensitivity": f"{release.sensitivity:g}" if release.sensitivity is not None else "",
        "ci95_halfwidth": f"{np.nanmax(np.r_[high - low, 0]) / 2:g}",
        "seeded": str(release.seeded),
        "cell_size": f"{grid.cell_size:g}",
        "crs": grid.crs.to_string(),
        "date": str(release.metadata.get("created", "")),
        "postprocessing": json.dumps(list(heatmap.steps)),
        "max_sites_per_individual": str(release.metadata.get("max_sites_per_individual", "")),
    }


def to_geodataframe(heatmap: Heatmap, *, level: float = 0.95) -> gpd.GeoDataFrame:
    """One polygon per released cell with ``count``, ``raw``, ``ci_low``, ``ci_high`` and flags.

    ``count`` is the current estimate, ``raw`` the released noisy count, and the interval the
    per-cell ``level`` interval of the raw release (see :meth:`Heatmap.confidence_interval`).
    The release's public facts are in ``gdf.attrs["dpatlas"]``.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> gdf = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs="EPSG:3035",
    ...                  rng=0).to_geodataframe()
    >>> list(gdf.columns), gdf.crs.to_epsg()
    (['row', 'col', 'count', 'raw', 'ci_low', 'ci_high', 'geometry'], 3035)
    """
    grid = heatmap.grid
    rows, cols = np.nonzero(grid.released)
    low, high = heatmap.confidence_interval(level)
    columns: dict[str, Any] = {
        "row": rows,
        "col": cols,
        "count": heatmap.estimate,
        "raw": heatmap.release.value,
        "ci_low": low,
        "ci_high": high,
    }
    columns.update(heatmap.flags)
    gdf = gpd.GeoDataFrame(columns, geometry=shapely.box(*grid.cell_boxes()), crs=grid.crs)
    gdf.attrs["dpatlas"] = describe(heatmap)
    return gdf


def to_file(heatmap: Heatmap, path: str | Path, *, level: float = 0.95) -> Path:
    """Write the cells to a GeoPackage (``.gpkg``, grid CRS kept) or GeoJSON (``.geojson``).

    GeoJSON follows RFC 7946: coordinates in WGS 84 (re-projected), with the release's public
    facts in the top-level ``description``. A GeoPackage keeps the equal-area grid CRS and
    stores the facts as layer metadata.

    Examples
    --------
    >>> import os, tempfile, numpy as np, geopandas as gpd, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> path = hm.to_file(os.path.join(tempfile.mkdtemp(), "map.gpkg"))
    >>> gpd.read_file(path).crs.to_epsg()
    3035
    """
    path = Path(path)
    gdf = to_geodataframe(heatmap, level=level)
    facts = gdf.attrs.pop("dpatlas")
    suffix = path.suffix.lower()
    if suffix == ".gpkg":
        gdf.to_file(path, driver="GPKG", layer="heatmap", metadata=facts)
    elif suffix in (".geojson", ".json"):
        gdf.to_crs("EPSG:4326").to_file(
            path, driver="GeoJSON", RFC7946="YES", DESCRIPTION=json.dumps(facts)
        )
    else:
        raise ValueError(
            f"path must end in .gpkg, .geojson or .json, got {str(path)!r}; use to_geotiff() "
            "for a raster"
        )
    return path


def to_geotiff(heatmap: Heatmap, path: str | Path) -> Path:
    """Write a GeoTIFF: band 1 the counts (nodata outside the release), one band per flag.

    Integer estimates are written as int32 with nodata ``-2**31``; non-integer ones as
    float64 with NaN. Tags hold ε, mechanism, noise scale, cell size, CRS and date.

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
        dst.update_tags(**describe(heatmap))
    return path
