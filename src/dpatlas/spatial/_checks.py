"""Validation of a grid's public parameters: CRS in metres, cell size, bounds, size limit."""

from __future__ import annotations

import math
from decimal import Decimal
from typing import Any

import numpy as np
from pyproj import CRS
from pyproj.exceptions import CRSError

__all__ = [
    "DEFAULT_MAX_CELLS",
    "cells_along",
    "check_bounds",
    "check_cell_limit",
    "check_cell_size",
    "check_max_cells",
    "check_projected_crs",
    "crs_kind",
    "format_count",
]

DEFAULT_MAX_CELLS = 10**8
"""Largest grid accepted unless ``max_cells=`` says otherwise (one int64 array is 800 MB)."""

MAX_CELL_SIZE = 1e9
"""Largest cell side in metres (the Earth is 4·10⁷ m around); beyond it units are wrong."""

_CRS_FIX = (
    "pick an equal-area projected CRS such as EPSG:3035 (Europe), EPSG:5070 (CONUS) or "
    "EPSG:6933 (global) and re-project the study area and the sites with `to_crs()`"
)


def crs_kind(crs: CRS) -> str:
    """What a CRS is, in words, for a refusal of a grid CRS that is not projected in metres.

    Examples
    --------
    >>> crs_kind(CRS("EPSG:4326")), crs_kind(CRS("EPSG:4978"))
    ('geographic (degrees)', 'geocentric (Earth-centred x, y, z: not a map projection)')
    >>> crs_kind(CRS("EPSG:4807"))  # Paris meridian, in grads
    'geographic (grads)'
    >>> crs_kind(CRS("EPSG:5703")), crs_kind(CRS("EPSG:2263"))
    ('unprojected (Vertical CRS)', 'projected in US survey foot')
    """
    if crs.is_geographic:
        units = sorted({a.unit_name for a in crs.axis_info if a.unit_name != "metre"})
        return f"geographic ({', '.join(u if u.endswith('s') else u + 's' for u in units)})"
    if crs.is_geocentric:
        return "geocentric (Earth-centred x, y, z: not a map projection)"
    if not crs.is_projected:
        return f"unprojected ({crs.type_name})"
    return f"projected in {', '.join(sorted({axis.unit_name for axis in crs.axis_info}))}"


def check_projected_crs(crs: Any, name: str = "crs") -> CRS:
    """Parse ``crs`` and refuse anything whose axes are not in metres (e.g. longitude/latitude).

    Examples
    --------
    >>> check_projected_crs("EPSG:3035").name
    'ETRS89-extended / LAEA Europe'
    >>> check_projected_crs("EPSG:4326")
    Traceback (most recent call last):
    ...
    ValueError: crs must be a projected CRS so that cells have a size in metres, got EPSG:4326 ...
    """
    if crs is None:
        raise TypeError(f"{name} is required (a projected CRS in metres), got None; {_CRS_FIX}")
    try:
        parsed = CRS.from_user_input(crs)
    except CRSError as exc:
        raise ValueError(f"{name} could not be parsed, got {crs!r}: {exc}; {_CRS_FIX}") from None
    if parsed.is_geographic or not parsed.is_projected:
        raise ValueError(
            f"{name} must be a projected CRS so that cells have a size in metres, got "
            f"{parsed.to_string()} ({parsed.name}), which is {crs_kind(parsed)}; {_CRS_FIX}"
        )
    units = {axis.unit_name for axis in parsed.axis_info}
    if not units <= {"metre", "meter"}:
        raise ValueError(
            f"{name} must have axes in metres (cell_size is in metres), got units {sorted(units)} "
            f"for {parsed.to_string()}; {_CRS_FIX}"
        )
    return parsed


def check_cell_size(cell_size: Any) -> float:
    if isinstance(cell_size, bool) or not isinstance(cell_size, (int, float, np.number)):
        raise TypeError(f"cell_size must be a number of metres > 0, got {cell_size!r}")
    try:
        value = float(cell_size)
    except OverflowError:  # an int beyond the float range, refused by sign below
        value = 2 * MAX_CELL_SIZE if cell_size > 0 else -1.0
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"cell_size must be a finite number of metres > 0, got {cell_size!r}")
    if value > MAX_CELL_SIZE:
        raise ValueError(
            f"cell_size must be at most {MAX_CELL_SIZE:g} m (larger than any projected CRS's "
            f"extent), got {cell_size!r}; check the units"
        )
    return value


def check_bounds(bounds: Any) -> tuple[float, float, float, float]:
    try:
        values = tuple(float(b) for b in bounds)
    except OverflowError:  # an int beyond the float range
        values = (math.inf,)
    except (TypeError, ValueError):
        raise TypeError(
            f"bounds must be (minx, miny, maxx, maxy) numbers, got {bounds!r}"
        ) from None
    if len(values) != 4 or not all(math.isfinite(v) for v in values):
        raise ValueError(
            f"bounds must be 4 finite numbers (minx, miny, maxx, maxy), got {bounds!r}"
        )
    minx, miny, maxx, maxy = values
    if not (minx < maxx and miny < maxy):
        raise ValueError(f"bounds must satisfy minx < maxx and miny < maxy, got {bounds!r}")
    return minx, miny, maxx, maxy


def cells_along(length: float, cell_size: float) -> int:
    """Number of cells covering ``length``; a float ratio within 1e-9 of an integer is exact."""
    ratio = length / cell_size
    if not math.isfinite(ratio):
        raise ValueError(
            f"the extent ({length:g} m across) holds too many cells of cell_size={cell_size!r} "
            "to count; use a larger cell_size or a smaller study area"
        )
    return max(1, math.ceil(ratio * (1 - 1e-12) - 1e-9))


def check_cell_limit(max_cells: Any) -> int:
    if isinstance(max_cells, bool) or not isinstance(max_cells, (int, np.integer)):
        raise TypeError(f"max_cells must be an int >= 1, got {max_cells!r}")
    if max_cells < 1:
        raise ValueError(f"max_cells must be an int >= 1, got {max_cells!r}")
    return int(max_cells)


def format_count(n: int | Decimal, decimals: int = 0) -> str:
    """``n`` with thousands separators, or as ``1.23e+45`` beyond 10**15 (never via a float)."""
    return f"{n:,.{decimals}f}" if n < 10**15 else f"{Decimal(n):.2e}"


def check_max_cells(nx: int, ny: int, max_cells: int, cell_size: float) -> None:
    """Refuse more than ``max_cells`` cells, with a message that never overflows a float.

    Examples
    --------
    >>> check_max_cells(10**303, 10**303, 100, cell_size=1e-300)
    Traceback (most recent call last):
    ...
    ValueError: the grid would have 1.00e+303 x 1.00e+303 = 1.00e+606 cells at cell_size=1e-300, ...
    """
    limit = check_cell_limit(max_cells)
    if nx * ny > limit:
        gigabytes = Decimal(nx * ny * 8) / 10**9
        shape = f"{format_count(nx)} x {format_count(ny)} = {format_count(nx * ny)}"
        raise ValueError(
            f"the grid would have {shape} cells at cell_size={cell_size!r}, more than "
            f"max_cells={format_count(limit)} (one int64 array of it takes "
            f"{format_count(gigabytes, 1)} GB); use a larger cell_size, a smaller study area, or "
            "raise max_cells"
        )
