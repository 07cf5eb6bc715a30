"""Which cells of a grid overlap a public study-area polygon (exact, without a box per cell)."""

from __future__ import annotations

from typing import Any

import geopandas as gpd
import numpy as np
import shapely
from affine import Affine
from pyproj import CRS
from rasterio import features
from scipy import ndimage
from shapely.geometry.base import BaseGeometry

__all__ = ["polygon_mask", "study_area_geometry"]


def study_area_geometry(polygon: Any, crs: CRS) -> BaseGeometry:
    """A valid, non-empty (Multi)Polygon in ``crs`` from a shapely geometry or a GeoSeries."""
    if isinstance(polygon, (gpd.GeoSeries, gpd.GeoDataFrame)):
        if polygon.crs is None:
            raise ValueError(
                "polygon has no CRS; set the one its coordinates are in with `.set_crs(...)`"
            )
        polygon = polygon.to_crs(crs).union_all()
    if not isinstance(polygon, BaseGeometry):
        raise TypeError(
            "polygon must be a shapely Polygon / MultiPolygon or a GeoSeries, "
            f"got {type(polygon).__name__}"
        )
    if polygon.geom_type not in ("Polygon", "MultiPolygon") or polygon.is_empty:
        raise ValueError(
            f"polygon must be a non-empty Polygon or MultiPolygon, got {polygon.geom_type}"
            + (" (empty)" if polygon.is_empty else "")
        )
    if not polygon.is_valid:
        raise ValueError(
            f"polygon is not valid ({shapely.is_valid_reason(polygon)}); "
            "repair it with shapely.make_valid(polygon)"
        )
    return polygon


def polygon_mask(
    polygon: BaseGeometry, x_edges: np.ndarray, y_edges: np.ndarray, transform: Affine
) -> np.ndarray:
    """Cells (north-up rows) whose interior meets the polygon's interior.

    Cells farther than one cell from the polygon's boundary lie wholly inside or outside, so the
    raster rule "centre inside" decides them exactly; the cells along the boundary (rasterised
    with ``all_touched`` and widened by one cell) are decided exactly with shapely:
    ``intersects and not touches``.
    """
    shape = (len(y_edges) - 1, len(x_edges) - 1)
    mask = features.rasterize(
        [(polygon, 1)], out_shape=shape, transform=transform, fill=0, dtype="uint8"
    ).astype(bool)
    edge = features.rasterize(
        [(polygon.boundary, 1)],
        out_shape=shape,
        transform=transform,
        fill=0,
        all_touched=True,
        dtype="uint8",
    ).astype(bool)
    edge = ndimage.binary_dilation(edge, structure=np.ones((3, 3), dtype=bool))
    rows, cols = np.nonzero(edge)
    ny = shape[0]
    boxes = shapely.box(
        x_edges[cols], y_edges[ny - 1 - rows], x_edges[cols + 1], y_edges[ny - rows]
    )
    shapely.prepare(polygon)
    mask[rows, cols] = shapely.intersects(polygon, boxes) & ~shapely.touches(polygon, boxes)
    return mask
