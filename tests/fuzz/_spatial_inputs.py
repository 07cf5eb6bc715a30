"""Inputs the spatial fuzzers share: the grid CRS, a small grid, the names an error may cite."""

from __future__ import annotations

from dpatlas.spatial import Grid

CRS = "EPSG:3035"
SPATIAL_NAMES = (
    "sites",
    "grid",
    "epsilon",
    "method",
    "crs",
    "CRS",
    "site",
    "coordinates",
    "max_sites_per_individual",
    "individual_column",
    "geometr",
    "cell_size",
    "bounds",
    "polygon",
    "max_cells",
    "extent",
    "threshold",
    "level",
    "n_sites",
    "c",
)

HUGE_INTS = [10**400, -(10**400)]  # beyond the float range: float() overflows
GRID = Grid.from_bounds((0, 0, 1_000, 1_000), cell_size=100, crs=CRS)
