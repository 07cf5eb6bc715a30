"""A GeoTIFF of a released heatmap: the counts and the flags as bands, the public facts as tags."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np
import rasterio

from dpatlas.core.files import written_whole
from dpatlas.spatial.products.formats.facts import describe

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = ["NODATA", "to_geotiff"]

NODATA = np.iinfo(np.int32).min
"""GeoTIFF nodata value of integer count bands (cells outside the release)."""
_NO_TAG = ("interval", "ci95_halfwidth")
"""Facts not written as tags: what intervals promise, and an interval's half-width."""


def to_geotiff(heatmap: Heatmap, path: str | Path) -> Path:
    """Write a GeoTIFF: band 1 the counts (nodata outside the release), one band per flag.

    Integer estimates are written as int32 with nodata ``-2**31``; non-integer ones as
    float64 with NaN. Tags hold ε, mechanism, noise scale, cell size, CRS and date; intervals
    are not written (use :func:`to_file`), nor any interval's half-width: a band value ± the
    95% half-width of a measured unit is no interval of the cell's count (the value is the
    map's estimate, not the raw count, and for a tree it is a leaf's count spread over its
    cells: a naive reading of such a tag covered 87% of the occupied cells of the Galápagos
    penguin map, ``method="auto"``, ``target="regions"``, ε = 1).

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
    with written_whole(path) as partial, rasterio.open(partial, "w", **profile) as dst:
        dst.write(band, 1)
        for index, name in enumerate(names[1:], start=2):
            layer = np.full(grid.shape, nodata, dtype=dtype)
            layer[grid.released] = heatmap.flags[name]
            dst.write(layer, index)
        for index, name in enumerate(names, start=1):
            dst.set_band_description(index, name)
        facts = describe(heatmap)  # no interval in a GeoTIFF: no sentence, no half-width
        dst.update_tags(**{k: v for k, v in facts.items() if not k.startswith(_NO_TAG)})
    return path
