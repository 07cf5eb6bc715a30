"""Power-of-two grids for real-valued releases (the defence against Mironov's 2012 attack).

A real answer ``x`` is rounded to the nearest multiple of ``g = 2**k`` and integer noise is added
in units of ``g``, so every output is ``g`` times an integer: exactly representable, with no
low-order bits that depend on ``x``. Rounding moves each coordinate by at most ``g/2``, so two
neighbouring answers that differ in at most ``c`` coordinates are, after rounding, at L1
distance at most ``Δ1 + c·g`` and L2 distance at most ``Δ2 + sqrt(c)·g``: the mechanisms
calibrate their noise to these inflated sensitivities.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpatlas.core.validation import check_positive_int, check_sensitivity

__all__ = ["changed_count", "grid_step", "to_grid"]


def changed_count(max_changed: Any, size: int) -> int:
    """Coordinates one neighbour may change: ``max_changed`` if given, else all ``size``."""
    if max_changed is None:
        return max(size, 1)
    return check_positive_int(max_changed, "max_changed")


def grid_step(scale: float, finest: float, coarsest: float, resolution: Any = None) -> float:
    """The grid ``g = 2**k``: the largest power of two <= ``resolution``, else <= ``finest``.

    ``finest`` and ``coarsest`` are multiples of the noise scale set by the mechanism; a user
    ``resolution`` coarser than ``coarsest`` is refused (it would distort the noise).
    """
    if resolution is None:
        target = finest
    else:
        target = check_sensitivity(resolution, "resolution")
        if target > coarsest:
            raise ValueError(
                f"resolution must be <= {coarsest:.6g} (a small fraction of the noise scale "
                f"{scale:.6g}), got {target!r}; use a finer resolution or none for the default"
            )
    return math.ldexp(1.0, math.frexp(target)[1] - 1)


def to_grid(x: np.ndarray, g: float, name: str = "values") -> np.ndarray:
    """``round(x / g)`` as int64 (ties to even), refusing magnitudes the grid cannot hold."""
    with np.errstate(over="ignore"):  # an overflow to inf is caught by the check below
        units = np.rint(x / g)
    if units.size and np.abs(units).max() >= 2.0**60:
        raise ValueError(
            f"{name} reach {np.abs(x).max():.6g}, too large for the grid step {g:.3g} "
            "(|value| / step must stay below 2**60); pass a coarser resolution="
        )
    return units.astype(np.int64)
