"""Region queries answered from a released heatmap (post-processing: no privacy cost)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import geopandas as gpd
import numpy as np
import shapely

from dpatlas.core.validation import percent
from dpatlas.spatial._mask import cell_coverage, study_area_geometry
from dpatlas.spatial.products.intervals import (
    check_level,
    containing,
    kept_sites,
    region_interval,
)
from dpatlas.spatial.tree.estimates import leaf_of_cell
from dpatlas.spatial.tree.hierarchy import Hierarchy, least_squares, query_variance

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = ["RegionEstimate", "region_query"]


@dataclass(frozen=True)
class RegionEstimate:
    """Private estimate of the number of sites in a region, with an interval that covers it.

    Attributes
    ----------
    estimate : float
        The point estimate (area-weighted; least squares over the tree for multi-level maps).
    ci_low, ci_high : float
        The interval: the true number of sites in the region (among those the map counts: in
        its released cells and, with contribution bounding, kept) lies in it with probability
        >= ``level``.
    level : float
        The interval's level.
    variance : float
        Noise variance of ``estimate`` (it leaves out the spread of sites inside cut units).
    n_cells : int
        Released cells the region overlaps.
    interval : str
        How the summed noise was bounded: ``"exact"`` (its exact distribution), ``"chernoff"``
        (a proven bound, for sums too large for the exact lattice) or ``"union bound"``.
    epsilon : float
        The map's privacy cost (already spent; a query costs nothing more).
    covers : str
        ``"noise"`` when the region is made of whole measured units, else
        ``"noise and spread"``: the interval also allows for any spread of sites inside the
        units the region's edge cuts.
    unit : str
        The measured units, ``"cell"`` or ``"leaf"``.
    n_whole, n_cut : int
        Measured units wholly inside the region, and cut by its edge.
    outside : float
        Share of the region's area outside the released cells (beyond the grid or its study
        area): sites there are not counted, and ``describe`` says so.
    kept : str
        What the true number leaves out (``""``: nothing; else the sites beyond ``k`` per
        individual, :func:`~dpatlas.spatial.products.intervals.kept_sites`); ``describe``
        says it.
    """

    estimate: float
    ci_low: float
    ci_high: float
    level: float
    variance: float
    n_cells: int
    interval: str
    epsilon: float
    covers: str = "noise"
    unit: str = "cell"
    n_whole: int = 0
    n_cut: int = 0
    outside: float = 0.0
    kept: str = ""

    def describe(self) -> str:
        """The interval in words a non-statistician reads.

        Examples
        --------
        >>> q = RegionEstimate(20.0, 12.0, 40.0, 0.95, 9.0, 8, "exact", 1.0,
        ...                    "noise and spread", "cell", 3, 5)
        >>> print(q.describe())
        about 20 sites; with 95% probability the true number lies between 12 and 40. This range
        allows for the noise of the 3 cells wholly inside the region and for any spread of sites
        inside the 5 cells its edge cuts.
        >>> print(RegionEstimate(-57.0, 0.0, 40.0, 0.95, 9.0, 8, "exact", 1.0,
        ...                      "noise", "cell", 12, 0).describe())
        about 0 sites (the noisy estimate, -57, is below zero); with 95% probability the true
        number lies between 0 and 40. This range allows for the noise of the 12 cells wholly
        inside the region.
        """
        plural = {"cell": "cells", "leaf": "leaves"}[self.unit]

        def units(n: int) -> str:
            return f"{n} {self.unit if n == 1 else plural}"

        shown = round(float(self.estimate))
        about = f"about {max(shown, 0)} sites"  # never "about -0 sites"
        if shown < 0:  # a noisy sum below zero: say so, not "about -5 sites"
            about = f"about 0 sites (the noisy estimate, {shown}, is below zero)"
        text = (
            f"{about}; with {percent(self.level)} probability the true "
            f"number lies between {self.ci_low:.0f} and {self.ci_high:.0f}"
        )
        allows = []
        if self.n_whole:
            allows.append(f"the noise of the {units(self.n_whole)} wholly inside the region")
        if self.n_cut:
            allows.append(f"any spread of sites inside the {units(self.n_cut)} its edge cuts")
        if allows:
            text += ". This range allows for " + " and for ".join(allows)
        if self.outside > 0:
            share = f"{self.outside:.0%}" if self.outside >= 0.01 else "less than 1%"
            text += (
                f". {share} of the region lies outside the released cells: sites there are "
                "not counted"
            )
        if self.kept:
            text += f". The true number is that {self.kept}"
        return text + "."


def _box_coverage(
    bounds: tuple[float, float, float, float], x_edges: np.ndarray, y_edges: np.ndarray
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """:func:`~dpatlas.spatial._mask.cell_coverage` for an axis-aligned rectangle, exactly.

    Overlaps are products of the overlaps along x and y; 1.0 is given by the containment
    test on the edges (and only by it), as there.
    """
    minx, miny, maxx, maxy = bounds
    x_lo, x_hi, y_lo, y_hi = x_edges[:-1], x_edges[1:], y_edges[-2::-1], y_edges[:0:-1]
    fx = (np.minimum(x_hi, maxx) - np.maximum(x_lo, minx)) / (x_hi - x_lo)
    fy = (np.minimum(y_hi, maxy) - np.maximum(y_lo, miny)) / (y_hi - y_lo)  # rows from north
    fraction = np.minimum(np.outer(fy, fx), np.nextafter(1.0, 0.0))
    whole = np.outer((miny <= y_lo) & (y_hi <= maxy), (minx <= x_lo) & (x_hi <= maxx))
    fraction[whole] = 1.0
    rows, cols = np.nonzero((fy > 0)[:, None] & (fx > 0)[None, :])
    return rows, cols, fraction[rows, cols]


def _weights(heatmap: Heatmap, polygon: Any) -> tuple[np.ndarray, np.ndarray]:
    """Positions (in the released vector) and area fractions of the cells the polygon overlaps."""
    grid = heatmap.grid
    minx, miny, maxx, maxy = polygon.bounds
    size, top = grid.cell_size, grid.bounds[3]
    c0, c1 = max(int((minx - grid.x0) // size), 0), min(int((maxx - grid.x0) // size), grid.nx - 1)
    r0, r1 = max(int((top - maxy) // size), 0), min(int((top - miny) // size), grid.ny - 1)
    if c0 > c1 or r0 > r1:
        return np.empty(0, dtype=np.int64), np.empty(0)
    x_edges = grid.x_edges[c0 : c1 + 2]
    y_edges = grid.y_edges[grid.ny - 1 - r1 : grid.ny - r0 + 1]
    if shapely.equals(polygon, shapely.box(minx, miny, maxx, maxy)):
        rows, cols, weight = _box_coverage((minx, miny, maxx, maxy), x_edges, y_edges)
    else:
        rows, cols, weight = cell_coverage(polygon, x_edges, y_edges)
    rows, cols = rows + r0, cols + c0
    released = grid.released[rows, cols]
    flat = rows[released] * grid.nx + cols[released]
    if grid.mask is not None:
        flat = np.cumsum(grid.mask.ravel())[flat] - 1
    return flat, weight[released]


def _tree_sum(
    heatmap: Heatmap, h: Hierarchy, positions: np.ndarray, weights: np.ndarray
) -> tuple[float, float]:
    """Estimate and exact noise variance from the least-squares counts of a released tree."""
    grid = heatmap.grid
    leaf = leaf_of_cell(h, grid.shape)[grid.released][positions]
    q = np.bincount(leaf, weights=weights / np.maximum(h.n_released[leaf], 1), minlength=h.size)
    return float(q @ least_squares(h)), query_variance(h, q)


def region_query(heatmap: Heatmap, polygon: Any, *, level: float = 0.95) -> RegionEstimate:
    """Estimate the number of sites inside ``polygon`` from the released counts.

    The estimate is ``Σ w_i c_i`` over released cells, ``c_i`` the raw noisy counts (unbiased
    for the noise) and ``w_i`` the fraction of cell ``i``'s area inside the polygon; for a
    multi-level release (``adaptive``, ``privtree``) ``c_i`` are the least-squares counts of
    the tree's leaves (which use every level) spread evenly over each leaf's released cells,
    and ``variance`` is exact for that linear estimate
    (:func:`~dpatlas.spatial.tree.hierarchy.query_variance`). The area weights assume sites spread
    evenly inside a cell or leaf, so the estimate can be off by more than its noise.

    The interval does not assume it. It rests on what the release measured (cells, or the
    tree's leaves; :mod:`~dpatlas.spatial.products.intervals`): the units wholly inside the
    polygon bound the count from below and, with those its edge cuts, from above, each bound
    from the raw measurements and the exact distribution of their summed noise, with the
    union bound over the two; so it covers the true count with probability >= ``level``
    whatever the sites' layout. A region of whole units gets the exact noise-only interval.
    Both ends are clipped at 0, then widened where needed to contain ``estimate`` when it is positive
    (a superset: coverage only grows). Cells outside the
    release count 0. A site exactly on a cell edge belongs to one cell, ``[x0, x1) × [y0, y1)``,
    so a region drawn along cell edges holds the sites on its west and south edges and not
    those on its east and north edges: the true number the interval covers is counted that way.

    ``polygon`` is a shapely (Multi)Polygon in the grid CRS or a GeoSeries (GeoDataFrame) of
    one region with a CRS; for several regions, query each (``[hm.query(regions.iloc[[i]])
    for i in range(len(regions))]``). A region that overlaps no released cell is refused (often a CRS or
    axis-order mistake); the share of a region outside the released cells is ``outside``.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> from shapely.geometry import box
    >>> g = sp.Grid.from_bounds((0, 0, 4, 4), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.full(50, 0.5), np.full(50, 0.5)), g, epsilon=1.0, crs="EPSG:3035",
    ...                 rng=0)
    >>> q = hm.query(box(0, 0, 2, 2))
    >>> q.n_cells, q.interval, q.covers, q.ci_low <= 50 <= q.ci_high
    (4, 'exact', 'noise', True)
    >>> hm.query(box(0, 0, 1.5, 1.5)).covers
    'noise and spread'
    """
    level = check_level(level)
    if isinstance(polygon, (gpd.GeoSeries, gpd.GeoDataFrame)) and len(polygon) > 1:
        raise ValueError(
            f"polygon holds {len(polygon)} geometries; query one region at a time "
            "([hm.query(regions.iloc[[i]]) for i in range(len(regions))]), or their union as "
            "one (regions.dissolve(): overlaps then count once)"
        )
    geometry = study_area_geometry(polygon, heatmap.grid.crs)
    positions, weights = _weights(heatmap, geometry)
    if positions.size == 0:
        raise ValueError(
            f"polygon overlaps none of the released cells (the grid spans {heatmap.grid.bounds} "
            f"in {heatmap.grid.crs.to_string()}); check the region's CRS and that x comes "
            "before y (longitude before latitude)"
        )
    cell_area = heatmap.grid.cell_size**2
    outside = max(0.0, 1.0 - float(weights.sum()) * cell_area / geometry.area)
    release = heatmap.release
    h = heatmap.hierarchy
    if h is not None:
        estimate, variance = _tree_sum(heatmap, h, positions, weights)
    else:
        raw = np.asarray(release.value, dtype=np.float64)[positions]
        estimate = float(weights @ raw)
        variance = float((weights**2).sum() * release.variance())
    m = heatmap.measured
    units = m.of_cell[positions]
    inside = np.bincount(units[weights == 1.0], minlength=m.size)
    touched = np.flatnonzero(np.bincount(units, minlength=m.size))
    whole = touched[inside[touched] == m.n_cells[touched]]
    cut = touched[inside[touched] < m.n_cells[touched]]
    interval = region_interval(m, whole, cut, level)
    low, high = containing(np.array(interval.low), np.array(interval.high), np.array(estimate))
    return RegionEstimate(
        estimate=estimate,
        ci_low=float(low),
        ci_high=float(high),
        level=level,
        variance=variance,
        n_cells=len(weights),
        interval=interval.method,
        epsilon=release.epsilon,
        covers=interval.covers,
        unit=m.unit,
        n_whole=len(whole),
        n_cut=len(cut),
        outside=outside if outside > 1e-9 else 0.0,
        kept=kept_sites(release),
    )
