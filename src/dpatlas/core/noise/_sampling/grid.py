"""Power-of-two grids for real-valued releases (the defence against Mironov's 2012 attack).

A real answer ``x`` is rounded to the nearest multiple of ``g = 2**k`` and integer noise is added
in units of ``g``, so every output is ``g`` times an integer: exactly representable, with no
low-order bits that depend on ``x``. Rounding moves each coordinate by at most ``g/2``, so two
neighbouring answers that differ in at most ``c`` coordinates are, after rounding, at L1
distance at most ``Δ1 + c·g`` and L2 distance at most ``Δ2 + sqrt(c)·g``: the mechanisms
calibrate their noise to these inflated sensitivities.

No magnitude is refused (a refusal would depend on the private answer, one bit for free).
The lattice value ``n + Z`` (``n = round(x/g)``, ``Z`` the integer noise) is private; the
float returned is ``fl(g·(n + Z))``, that exact value rounded to the nearest float and
saturated at ``±1.797e308``: a deterministic function of the private lattice value, hence
post-processing, whatever the magnitude. :func:`to_grid` keeps ``n`` in int64 for
``|x| < 2**60·g``; beyond, ``x`` is itself a multiple of ``g`` (a float of magnitude
``>= 2**53·g`` has an ulp ``>= g``), so ``n·g = x`` and :func:`from_grid` forms
``fl(x + Z·g)`` with IEEE arithmetic, which rounds the exact sum correctly when ``Z·g`` is
exact, or with exact rationals otherwise.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpatlas.core.validation import check_positive_int, check_sensitivity

__all__ = [
    "FLOAT_MAX",
    "changed_count",
    "check_float_range",
    "from_grid",
    "grid_step",
    "to_grid",
]

FLOAT_MAX = float(np.finfo(np.float64).max)
_FAR = 2.0**60  # grid units held in int64


def changed_count(max_changed: Any, size: int) -> int:
    """Coordinates one neighbour may change: ``max_changed`` if given, else all ``size``."""
    if max_changed is None:
        return max(size, 1)
    return check_positive_int(max_changed, "max_changed")


def check_float_range(scale: float, nominal: float) -> None:
    """Refuse, before any spend, a noise scale within 4096 scales of the largest float.

    Reads public values only (the scale ``sensitivity / epsilon`` and the grid); values near
    the largest float are not refused (that would depend on the data): their release
    saturates at ``±1.797e308`` (post-processing).
    """
    if 4096 * scale > FLOAT_MAX:
        raise ValueError(
            f"noise of scale sensitivity / epsilon = {nominal:.3g} could exceed the largest "
            f"float {FLOAT_MAX:.3g}; rescale the values (e.g. to other units) or use a larger "
            "epsilon"
        )


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


def to_grid(x: np.ndarray, g: float) -> np.ndarray:
    """``round(x / g)`` as int64 (ties to even); 0 where ``|x| >= 2**60·g`` (see from_grid).

    Examples
    --------
    >>> to_grid(np.array([1.3, -2.5, 1e300]), 0.5).tolist()
    [3, -5, 0]
    """
    far = np.abs(x) >= _FAR * g
    with np.errstate(over="ignore"):
        units = np.rint(np.where(far, 0.0, x) / g)
    return units.astype(np.int64)


def from_grid(x: np.ndarray, units: np.ndarray, noise: np.ndarray, g: float) -> np.ndarray:
    """``fl(g·(round(x/g) + noise))``, saturated at ``±FLOAT_MAX`` (module docstring).

    ``units`` is :func:`to_grid` of ``x``; ``noise`` int64 of the same shape.

    Examples
    --------
    >>> x = np.array([1.25, 1e300])
    >>> from_grid(x, to_grid(x, 0.25), np.array([2, 3]), 0.25).tolist()
    [1.75, 1e+300]
    """
    flat_x, flat_z = np.ravel(x), np.ravel(noise)
    with np.errstate(over="ignore"):  # int64 sum (|units| < 2**60), one rounding, exact ·g
        out = (np.ravel(units) + flat_z).astype(np.float64) * g
    far = np.flatnonzero(np.abs(flat_x) >= _FAR * g)
    if far.size:
        z = flat_z[far]
        with np.errstate(over="ignore", invalid="ignore"):
            sums = flat_x[far] + z.astype(np.float64) * g  # exact Z·g when |Z| <= 2**53
        for i in np.flatnonzero((np.abs(z) > 2**53) | ~np.isfinite(sums)):
            sums[i] = _exact(Fraction(float(flat_x[far[i]])) + int(z[i]) * Fraction(g))
        out[far] = sums
    return np.clip(out, -FLOAT_MAX, FLOAT_MAX).reshape(np.shape(x))


def _exact(value: Fraction) -> float:
    """The float nearest ``value``, saturated at ``±FLOAT_MAX`` instead of overflowing."""
    try:
        return float(value)
    except OverflowError:
        return math.copysign(FLOAT_MAX, value)
