"""Laplace mechanism for real values, safe against the floating-point attack (Mironov 2012).

Textbook ``x + numpy.random.laplace(scale)`` leaks ``x`` through the low-order bits of the
float output (Mironov 2012). Like OpenDP, we add *discrete* Laplace noise on a power-of-two
grid instead (:mod:`dpatlas.core.noise._sampling.grid`):

1. ``g = 2**k`` is the largest power of two <= ``scale * 2**-20 / c`` (``scale = Δ/ε``, ``c``
   the number of coordinates one neighbour may change, by default all of them; never finer
   than ``scale * 2**-32``, so values up to about ``2**28 * scale`` fit the grid), or <= a user
   ``resolution`` (at most ``scale * 2**-10``);
2. ``n = round(x / g)`` (an integer vector);
3. release ``g * (n + Z)`` with ``Z`` exact discrete Laplace of scale ``(Δ + c·g) / (ε·g)``
   (:func:`~dpatlas.core.noise.discrete_laplace.sample_discrete_laplace`, rounded up to a rational),
   rounded to a float and saturated at ``±1.797e308``
   (:func:`~dpatlas.core.noise._sampling.grid.from_grid`: post-processing of the integer
   ``n + Z``, exact for every magnitude of ``x``, so no value is refused for its size: a
   refusal would depend on the data).

Privacy (proof). Rounding moves each coordinate by at most ``g/2`` and a coordinate that does
not change rounds the same way, so for neighbours ``D, D'`` we get
``|n(D) - n(D')|_1 <= (|x(D) - x(D')|_1 + c·g) / g <= (Δ + c·g) / g``. The integer query ``n``
plus discrete Laplace noise of scale ``(Δ + c·g)/(ε·g)`` is ε-DP (GRS 2009; CKS 2020), and
multiplying by ``g`` is post-processing. The noise is inflated by a relative ``c·g/Δ``: at
most ``2**-20 / ε`` by default, or ``c·2**-32 / ε`` when ``c > 2**12``. It is also
``ε²/2``-zCDP (Bun & Steinke 2016, Prop. 1.4).

Intervals: with ``b = scale/g >= 2**10`` grid units,
``P(|noise| > h) <= exp(-h/scale)·2/(1 + e^(-1/b))``, so
``h = scale · (ln(1/(1 - level)) + 2**-10)`` covers with probability >= ``level``. The
variance is reported as ``2·scale²``, which exceeds the exact grid variance by ``g²/6``.
"""

from __future__ import annotations

import math
from fractions import Fraction
from typing import Any

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import open_charge
from dpatlas.core.accounting.cost import Cost, exact_epsilon
from dpatlas.core.noise._sampling.grid import (
    changed_count,
    check_float_range,
    from_grid,
    grid_step,
    to_grid,
)
from dpatlas.core.noise.discrete_laplace import rational_scale, sample_discrete_laplace
from dpatlas.core.release import Release, register_noise
from dpatlas.core.rng import RngLike, get_source
from dpatlas.core.validation import as_float_array, check_epsilon, check_sensitivity, value_count

__all__ = ["laplace", "laplace_epsilon", "laplace_grid"]


def laplace_epsilon(sensitivity: float, scale: float) -> float:
    """Privacy map: Laplace noise of ``scale`` on a query of L1 ``sensitivity`` is ``Δ/scale``-DP.

    Examples
    --------
    >>> laplace_epsilon(1.0, 2.0)
    0.5
    >>> laplace_epsilon(1.0, 0.0)
    Traceback (most recent call last):
    ...
    ValueError: scale must be a finite number > 0, got 0.0
    """
    return check_sensitivity(sensitivity) / check_epsilon(scale, "scale", maximum=math.inf)


register_noise(
    "laplace",
    halfwidth=lambda scale, level: scale * (math.log(1.0 / (1.0 - level)) + 2.0**-10),
    variance=lambda scale: 2.0 * scale * scale,
)


def laplace_grid(
    size: int,
    sensitivity: float,
    epsilon: float,
    resolution: float | None = None,
    max_changed: int | None = None,
) -> tuple[float, Fraction, int]:
    """Grid step ``g``, exact noise scale in grid units and ``c`` of a release of ``size`` values.

    Every refusal of :func:`laplace` that concerns the noise is raised here, from public values
    only (the number of values, the sensitivity, ε, ``resolution``, ``max_changed``), so it
    comes before the budget is checked and before the values are read.

    Examples
    --------
    >>> g, units, c = laplace_grid(1, 1.0, 0.5)
    >>> g, c, float(units) > 2**20
    (1.9073486328125e-06, 1, True)
    """
    delta_f = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    c = changed_count(max_changed, size)
    scale = delta_f / eps
    finest = max(scale * 2.0**-20 / c, scale * 2.0**-32)
    g = grid_step(scale, finest, scale * 2.0**-10, resolution)
    units = (Fraction(delta_f) + c * Fraction(g)) / (exact_epsilon(eps) * Fraction(g))
    t, s = rational_scale(units)
    check_float_range(g * (t / s), scale)
    return g, units, c


def laplace(
    values: Any,
    *,
    sensitivity: float,
    epsilon: float,
    rng: RngLike = None,
    budget: Budget | None = None,
    resolution: float | None = None,
    max_changed: int | None = None,
    mechanism: str = "laplace",
    note: str = "",
) -> Release:
    """Release real values with Laplace noise of scale ``sensitivity / epsilon``, float-safe.

    Parameters
    ----------
    values : float or array_like of float
        The exact answers. NaN and infinities are refused.
    sensitivity : float
        L1 sensitivity of the whole vector over all neighbouring datasets.
    epsilon : float
        Privacy cost, > 0.
    rng : None, int or numpy.random.Generator
        ``None`` (default) for secure noise; a seed makes the noise reproducible, which is for
        tests and teaching only and is recorded as ``seeded=True``.
    budget : Budget, optional
        Debited by ``epsilon`` before any noise is drawn; an overspend raises
        :class:`~dpatlas.errors.BudgetExceededError` and spends nothing.
    resolution : float, optional
        Output grid step (rounded down to a power of two, at most ``scale * 2**-10``).
    max_changed : int, optional
        How many coordinates one neighbour can change (default: all); it sets the
        sensitivity added by rounding to the grid (``max_changed * grid``).
    mechanism, note : str
        Labels recorded in the release and the budget history.

    Returns
    -------
    Release
        ``value`` (float or array) is a multiple of ``metadata["grid"]``; ``scale`` is the noise
        scale actually used (slightly above ``sensitivity / epsilon``).

    Examples
    --------
    >>> rel = laplace(3.25, sensitivity=1.0, epsilon=0.5, rng=1, resolution=2**-10)
    >>> rel.metadata["grid"], float(rel.value / rel.metadata["grid"]).is_integer()
    (0.0009765625, True)
    >>> round(rel.scale, 4), rel.noise
    (2.001, 'laplace')
    >>> laplace([1.0, float("nan")], sensitivity=1.0, epsilon=1.0)
    Traceback (most recent call last):
    ...
    ValueError: values must be finite, got nan at index (1,); drop or impute it first
    """
    delta_f, eps = check_sensitivity(sensitivity), check_epsilon(epsilon)
    g, units, c = laplace_grid(value_count(values), delta_f, eps, resolution, max_changed)
    charge = open_charge(Cost.pure(eps), budget, mechanism=mechanism, note=note, scales=[units])
    x = as_float_array(values)
    grid = to_grid(x, g)
    t, s = rational_scale(units)
    src = get_source(rng)
    charge.debit()
    noise = sample_discrete_laplace(src, grid.size, (t, s)).reshape(grid.shape)
    noisy = from_grid(x, grid, noise, g)
    return charge.release(
        Release,
        value=float(noisy) if noisy.ndim == 0 else noisy,
        sensitivity=delta_f,
        scale=g * (t / s),  # g * t alone may overflow
        noise="laplace",
        seeded=src.seeded,
        metadata={"grid": g, "max_changed": c},
    )
