"""Exact sums of clipped reals on a power-of-two grid (the defence against float-sum attacks).

Summing clipped floats in floating point does not have sensitivity ``M = max(|lower|,
|upper|)``: every addition rounds, and adding or removing one record changes how the other
additions round, so two neighbouring float sums can differ by more than ``M`` and the noise
no longer covers the difference (Casacuberta, Shoemate, Vadhan, Wagaman, "Widespread
underestimation of sensitivity in differentially private libraries and how to fix it",
CCS 2022). Here each clipped record is rounded to a public grid ``g = 2**k``
(:func:`record_grid`) and the integers ``u_i = round(clip(x_i)/g)`` are summed with no
rounding at all (:func:`exact_units`).

Sensitivity (proof). ``clip(x)/g`` is exact (``g`` is a power of two and the quotient has
magnitude below ``2**42``, far from overflow; a quotient that underflows is below ``1/2``
and rounds to 0 either way), and ``x ↦ round(x/g)`` is monotone, so every ``u_i`` lies in
``[a, b]`` with ``a = round(lower/g)`` and ``b = round(upper/g)``. The sum ``U = Σ u_i`` is an
exact integer, so adding or removing one record moves it by one ``u_i``: at most
``K = max(|a|, |b|)``; replacing one record (a public count) moves it by at most ``b − a``.
The mechanisms add exact discrete Laplace noise of scale ``K/ε`` (or ``(b − a)/ε``) to ``U``
and release ``fl(g·(U + Z))`` saturated at ``±1.797e308`` (:func:`scaled`): post-processing of
an ε-DP integer. Rounding the records costs accuracy, not privacy: at most ``g/2`` each.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

import numpy as np

from dpatlas.core.accounting.cost import exact_epsilon
from dpatlas.core.noise._sampling.dlap import rational_scale, sample_discrete_laplace
from dpatlas.core.noise._sampling.grid import FLOAT_MAX, check_float_range, grid_step
from dpatlas.core.rng import RandomSource
from dpatlas.core.validation import as_float_array, check_epsilon

__all__ = ["exact_units", "noisy_units", "record_grid", "scaled", "unit_scale"]

_BLOCK = 1 << 20
"""Records summed per int64 block: each ``|u_i| < 2**42``, so a block stays below ``2**62``."""


def record_grid(lower: float, upper: float, epsilon: float) -> tuple[float, int, int]:
    """The grid ``g`` records are rounded to, and the bounds in grid units ``(a, b)``.

    ``g`` is the largest power of two ``<= max(M·2**-40, (M/ε)·2**-45)``, ``M = max(|lower|,
    |upper|)``: fine next to the noise scale ``M/ε``, and coarse enough that every unit value
    is below ``2**41`` and the noise scale in units below ``2**46``. Public; a noise scale
    ``M/ε`` beyond the floats is refused here.

    Examples
    --------
    >>> g, a, b = record_grid(-2.0, 5.0, 0.5)
    >>> g == 2.0**-38, a == -2 * 2**38, b == 5 * 2**38
    (True, True, True)
    """
    m, eps = max(abs(lower), abs(upper)), check_epsilon(epsilon)
    nominal = float(min(Fraction(m) / exact_epsilon(eps), Fraction(FLOAT_MAX)))
    check_float_range(nominal, nominal)
    target = max(math.ldexp(m, -40), math.ldexp(nominal, -45), math.ldexp(1.0, -1074))
    g = grid_step(nominal, target, math.inf)
    return g, _units(lower, g), _units(upper, g)


def _units(value: float, g: float) -> int:
    return int(np.rint(np.float64(value) / g))


def exact_units(values: Any, lower: float, upper: float, g: float) -> tuple[int, int]:
    """``(Σ round(clip(x_i)/g), number of records)``, the sum exact (a Python int).

    Examples
    --------
    >>> exact_units([0.1] * 10, 0.0, 1.0, 2.0**-4)  # each 0.1 rounds to 2 sixteenths
    (20, 10)
    >>> exact_units([1e16, 1.0, -1e16], -1e16, 1e16, 1.0)  # the float sum gives 0.0
    (1, 3)
    """
    x = np.clip(as_float_array(values).reshape(-1), lower, upper)
    units = np.rint(x / g).astype(np.int64)
    total = sum(int(units[i : i + _BLOCK].sum()) for i in range(0, units.size, _BLOCK))
    return total, int(units.size)


def scaled(units: int, g: float) -> float:
    """``fl(units·g)`` saturated at ``±1.797e308`` (post-processing of the lattice value).

    Examples
    --------
    >>> scaled(3, 0.25), scaled(2**1100, 1.0)
    (0.75, 1.7976931348623157e+308)
    """
    try:
        return float(Fraction(units) * Fraction(g))
    except OverflowError:
        return FLOAT_MAX if units > 0 else -FLOAT_MAX


def unit_scale(width: int, epsilon: float, g: float) -> Fraction:
    """The noise scale ``width/ε`` in grid units (``width >= 1``); its float size checked."""
    scale = Fraction(max(width, 1)) / exact_epsilon(epsilon)
    size = float(min(Fraction(g) * scale, Fraction(FLOAT_MAX)))
    check_float_range(size, size)
    return scale


def noisy_units(units: int, scale: Fraction, source: RandomSource) -> tuple[int, float]:
    """``units + Z``, ``Z`` exact discrete Laplace of scale ``>= scale``; and that scale."""
    t, s = rational_scale(scale)
    return units + int(sample_discrete_laplace(source, 1, (t, s))[0]), t / s
