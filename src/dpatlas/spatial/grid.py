"""A public grid of square cells over a public study area, in a projected CRS.

Everything about a grid (extent, cell size, CRS, which cells are released) is a public parameter
chosen by the user; nothing here ever looks at the sites.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
from affine import Affine
from pyproj import CRS

from dpatlas.spatial._checks import (
    DEFAULT_MAX_CELLS,
    cells_along,
    check_bounds,
    check_cell_size,
    check_max_cells,
    check_projected_crs,
)
from dpatlas.spatial._mask import polygon_mask, study_area_geometry

__all__ = ["DEFAULT_MAX_CELLS", "Grid", "check_projected_crs"]


@dataclass(frozen=True, eq=False)
class Grid:
    """A public grid of ``nx`` by ``ny`` square cells of ``cell_size`` metres.

    Cell ``(row, col)`` is the half-open square ``[x0 + col·s, x0 + (col+1)·s) ×
    [y1 - (row+1)·s, y1 - row·s)`` with ``s = cell_size`` and ``y1 = y0 + ny·s``: row 0 is the
    northern row, as in raster files. Half-open cells put every point of the extent in exactly
    one cell; a point on the outer maximum edge (``x == x0 + nx·s`` or ``y == y1``) is outside.
    ``mask`` (``ny × nx`` booleans, or None for all cells) says which cells are released.

    Build grids with :meth:`from_bounds` or :meth:`from_polygon`.
    """

    x0: float
    y0: float
    cell_size: float
    nx: int
    ny: int
    crs: CRS
    mask: np.ndarray | None = field(default=None, repr=False)
    study_area: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "crs", check_projected_crs(self.crs))
        object.__setattr__(self, "cell_size", check_cell_size(self.cell_size))
        for name in ("x0", "y0"):
            value = getattr(self, name)
            real = isinstance(value, (int, float, np.integer, np.floating))
            if isinstance(value, bool) or not real or not np.isfinite(value):
                raise ValueError(f"{name} must be a finite number, got {value!r}")
            object.__setattr__(self, name, float(value))
        for name in ("nx", "ny"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")
            object.__setattr__(self, name, int(value))
        if self.mask is not None:
            mask = np.array(self.mask, dtype=bool)
            if mask.shape != self.shape:
                raise ValueError(f"mask must have shape {self.shape}, got {mask.shape}")
            mask.flags.writeable = False
            object.__setattr__(self, "mask", mask)

    def __repr__(self) -> str:
        """One line, the CRS by its name (pyproj's own repr runs to some 30 lines).

        Examples
        --------
        >>> Grid.from_bounds((0, 0, 3_000, 2_000), cell_size=1_000, crs="EPSG:3035")
        Grid(x0=0.0, y0=0.0, cell_size=1000.0, nx=3, ny=2, crs='EPSG:3035')
        """
        released = "" if self.mask is None else f", released={self.n_released}"
        return (
            f"Grid(x0={self.x0!r}, y0={self.y0!r}, cell_size={self.cell_size!r}, nx={self.nx}, "
            f"ny={self.ny}, crs={self.crs.to_string()!r}{released})"
        )

    @classmethod
    def from_bounds(
        cls,
        bounds: tuple[float, float, float, float],
        *,
        cell_size: float,
        crs: Any,
        max_cells: int = DEFAULT_MAX_CELLS,
    ) -> Grid:
        """Grid covering public ``bounds = (minx, miny, maxx, maxy)`` given in ``crs``.

        The grid starts at ``(minx, miny)`` and has ``ceil(width / cell_size)`` columns (rows
        likewise), so its maximum edges may lie beyond ``maxx`` / ``maxy`` by less than a cell.
        A grid of more than ``max_cells`` cells is refused before anything is allocated.
        The bounds must be public (a study area, a map sheet): never the sites' own extent,
        which is not differentially private, and whose maximum edge, when the width is a
        whole number of cells, lies outside the half-open cells, so those sites are dropped.

        Examples
        --------
        >>> g = Grid.from_bounds((0, 0, 10_000, 5_000), cell_size=1_000, crs="EPSG:3035")
        >>> g.shape, g.bounds
        ((5, 10), (0.0, 0.0, 10000.0, 5000.0))
        """
        parsed = check_projected_crs(crs)
        size = check_cell_size(cell_size)
        minx, miny, maxx, maxy = check_bounds(bounds)
        nx, ny = cells_along(maxx - minx, size), cells_along(maxy - miny, size)
        check_max_cells(nx, ny, max_cells, size)
        return cls(minx, miny, size, nx, ny, parsed)

    @classmethod
    def from_polygon(
        cls, polygon: Any, *, cell_size: float, crs: Any, max_cells: int = DEFAULT_MAX_CELLS
    ) -> Grid:
        """Grid over the bounding box of a public study-area polygon; only its cells are released.

        ``polygon`` is a shapely (Multi)Polygon in ``crs``, or a GeoSeries / GeoDataFrame with a
        CRS (re-projected to ``crs``, parts merged). Rule: a cell is released when it overlaps
        the study area with positive area (their interiors meet); a cell that only touches the
        boundary along an edge or at a corner is not released.

        Examples
        --------
        >>> from shapely.geometry import Polygon
        >>> triangle = Polygon([(0, 0), (3_000, 0), (0, 3_000)])
        >>> g = Grid.from_polygon(triangle, cell_size=1_000, crs="EPSG:3035")
        >>> g.released.astype(int)
        array([[1, 0, 0],
               [1, 1, 0],
               [1, 1, 1]])
        """
        parsed = check_projected_crs(crs)
        size = check_cell_size(cell_size)
        geometry = study_area_geometry(polygon, parsed)
        minx, miny, maxx, maxy = geometry.bounds
        nx, ny = cells_along(maxx - minx, size), cells_along(maxy - miny, size)
        check_max_cells(nx, ny, max_cells, size)
        grid = cls(minx, miny, size, nx, ny, parsed, study_area=geometry)
        mask = polygon_mask(geometry, grid.x_edges, grid.y_edges)
        return cls(minx, miny, size, nx, ny, parsed, mask=mask, study_area=geometry)

    @property
    def shape(self) -> tuple[int, int]:
        """``(ny, nx)``: rows by columns."""
        return (self.ny, self.nx)

    @property
    def n_cells(self) -> int:
        """Number of cells of the full rectangle."""
        return self.nx * self.ny

    @property
    def released(self) -> np.ndarray:
        """``ny × nx`` booleans, True for the cells that a heatmap releases."""
        return np.ones(self.shape, dtype=bool) if self.mask is None else self.mask

    @property
    def n_released(self) -> int:
        """Number of released cells (public: it depends on the grid only)."""
        return self.n_cells if self.mask is None else int(self.mask.sum())

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        """``(x0, y0, x1, y1)`` of the whole grid; the maximum edges are outside."""
        return (self.x0, self.y0, float(self.x_edges[-1]), float(self.y_edges[-1]))

    @property
    def x_edges(self) -> np.ndarray:
        """The ``nx + 1`` column edges from west to east."""
        return self.x0 + self.cell_size * np.arange(self.nx + 1, dtype=np.float64)

    @property
    def y_edges(self) -> np.ndarray:
        """The ``ny + 1`` row edges from south to north."""
        return self.y0 + self.cell_size * np.arange(self.ny + 1, dtype=np.float64)

    @property
    def transform(self) -> Affine:
        """Affine transform from (col, row) to coordinates, north up, as in GeoTIFF files."""
        return Affine(self.cell_size, 0.0, self.x0, 0.0, -self.cell_size, float(self.y_edges[-1]))

    @property
    def cell_area(self) -> float:
        """Area of one cell in square metres."""
        return self.cell_size**2

    def cell_boxes(self) -> tuple[np.ndarray, ...]:
        """``(minx, miny, maxx, maxy)`` arrays of the released cells, in row-major order."""
        rows, cols = np.nonzero(self.released)
        xe, ye = self.x_edges, self.y_edges
        return xe[cols], ye[self.ny - 1 - rows], xe[cols + 1], ye[self.ny - rows]
