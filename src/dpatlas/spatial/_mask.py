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

__all__ = ["cell_coverage", "polygon_mask", "study_area_geometry", "to_crs_densified"]

_BLOCK = 32


_SEGMENTS = 512
"""Edges are cut into pieces of at most 1/_SEGMENTS of the polygon's extent before projecting."""


def to_crs_densified(series: gpd.GeoSeries, crs: Any) -> gpd.GeoSeries:
    """``series.to_crs(crs)`` with edges cut first into pieces of at most 1/512 of its extent.

    A projection moves vertices only, so a long straight edge (a lon/lat box's side) would
    become a chord, off the true edge by hundreds of metres over a degree. With edges cut into
    pieces of at most 1/512 of the extent the error falls by about 512² (mm over a degree).
    Nothing is cut when the CRS is already ``crs``.

    Examples
    --------
    >>> from shapely.geometry import box
    >>> lonlat = gpd.GeoSeries([box(5, 50, 15, 55)], crs="EPSG:4326")
    >>> chord = lonlat.to_crs("EPSG:3035").total_bounds[1]
    >>> curve = to_crs_densified(lonlat, "EPSG:3035").total_bounds[1]
    >>> round(chord - curve)  # metres of the study area the chord leaves out
    12208
    """
    if series.crs is not None and not CRS.from_user_input(series.crs).equals(crs):
        minx, miny, maxx, maxy = series.total_bounds
        extent = max(maxx - minx, maxy - miny)
        if np.isfinite(extent) and extent > 0:
            series = series.segmentize(extent / _SEGMENTS)
    return series.to_crs(crs)


def _check_rows_valid(series: gpd.GeoSeries) -> None:
    """Refuse an invalid geometry among the rows before they are merged into one."""
    values = np.asarray(series.values)
    invalid = ~shapely.is_valid(values) & ~shapely.is_missing(values)
    if invalid.any():
        row = int(np.argmax(invalid))
        raise ValueError(
            f"polygon at position {row} is not valid ({shapely.is_valid_reason(values[row])}); "
            "repair the rows with GeoSeries.make_valid()"
        )


def study_area_geometry(polygon: Any, crs: CRS) -> BaseGeometry:
    """A valid, non-empty (Multi)Polygon in ``crs`` from a shapely geometry or a GeoSeries.

    A GeoSeries in another CRS is densified before it is projected (:func:`to_crs_densified`);
    its rows are checked to be valid before they are merged.
    """
    if isinstance(polygon, (gpd.GeoSeries, gpd.GeoDataFrame)):
        if polygon.crs is None:
            raise ValueError(
                "polygon has no CRS; set the one its coordinates are in with `.set_crs(...)`"
            )
        _check_rows_valid(polygon.geometry)
        polygon = to_crs_densified(polygon.geometry, crs)
        _check_rows_valid(polygon.geometry)
        polygon = polygon.union_all()
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


def _coverage(
    polygon: BaseGeometry, x_edges: np.ndarray, y_edges: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """``(inner, rows, cols, fraction)``: cells wholly inside away from the boundary (a boolean
    grid), and the cells along the boundary with their exact area fractions."""
    shape = (len(y_edges) - 1, len(x_edges) - 1)
    size = float(x_edges[1] - x_edges[0])
    transform = Affine(size, 0.0, float(x_edges[0]), 0.0, -size, float(y_edges[-1]))
    inside = features.rasterize(
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
    inside &= ~edge
    rows, cols = np.nonzero(edge)
    boxes = _boxes(x_edges, y_edges, rows, rows + 1, cols, cols + 1)
    pieces = _pieces(polygon, x_edges, y_edges, rows, cols)
    fraction = shapely.area(shapely.intersection(boxes, pieces)) / (size * size)
    # 1.0 means "wholly inside" (region intervals rely on it): an area ratio rounded up to 1
    # is not proof of it, the containment predicate is
    fraction = np.minimum(fraction, np.nextafter(1.0, 0.0))
    shapely.prepare(polygon)
    fraction[shapely.contains(polygon, boxes)] = 1.0
    return inside, rows, cols, fraction


def cell_coverage(
    polygon: BaseGeometry, x_edges: np.ndarray, y_edges: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, cols, fraction)`` of the cells (rows from north) overlapping ``polygon``.

    ``fraction`` is the share of the cell's area inside the polygon, > 0 for every cell listed
    (a positive-area overlap is the same as interiors meeting: cells that only touch the
    polygon are left out), and exactly 1.0 for the cells inside it and only for them. Cells
    farther than one cell from the polygon's boundary lie wholly inside or outside, so the
    raster rule "centre inside" decides them exactly without a geometry per cell; the cells
    along the boundary (rasterised with ``all_touched`` and widened by one cell) are measured
    exactly with shapely, against the polygon cut first into blocks of cells so that each cut
    is small.
    """
    inner, rows, cols, fraction = _coverage(polygon, x_edges, y_edges)
    inner_rows, inner_cols = np.nonzero(inner)
    hit = fraction > 0
    return (
        np.concatenate([inner_rows, rows[hit]]),
        np.concatenate([inner_cols, cols[hit]]),
        np.concatenate([np.ones(inner_rows.size), fraction[hit]]),
    )


def _boxes(
    x_edges: np.ndarray, y_edges: np.ndarray, r0: Any, r1: Any, c0: Any, c1: Any
) -> np.ndarray:
    """Boxes of rows ``[r0, r1)`` (from north) by columns ``[c0, c1)``."""
    ny = len(y_edges) - 1
    return shapely.box(x_edges[c0], y_edges[ny - r1], x_edges[c1], y_edges[ny - r0])


def _pieces(
    polygon: BaseGeometry, x_edges: np.ndarray, y_edges: np.ndarray, rows: Any, cols: Any
) -> np.ndarray:
    """For each cell, the part of the polygon inside the block of cells that holds it."""
    ny, nx = len(y_edges) - 1, len(x_edges) - 1
    blocks, where = np.unique((rows // _BLOCK) * nx + cols // _BLOCK, return_inverse=True)
    brow, bcol = (blocks // nx) * _BLOCK, (blocks % nx) * _BLOCK
    outer = _boxes(
        x_edges, y_edges, brow, np.minimum(brow + _BLOCK, ny), bcol, np.minimum(bcol + _BLOCK, nx)
    )
    return shapely.intersection(outer, polygon)[where]


def polygon_mask(polygon: BaseGeometry, x_edges: np.ndarray, y_edges: np.ndarray) -> np.ndarray:
    """Cells (rows from north) that overlap the polygon with positive area (see cell_coverage)."""
    mask, rows, cols, fraction = _coverage(polygon, x_edges, y_edges)
    mask[rows, cols] = fraction > 0
    return mask
