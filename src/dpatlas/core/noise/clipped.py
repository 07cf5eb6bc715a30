"""Sums and means of real values with public clipping bounds, summed exactly.

Neighbours add or remove one record (the default relation), unless a public record count
``n`` is given to :func:`clipped_mean`, which fixes the size and so means "replace one record".

Exact sums. Summing clipped floats in floating point does not have sensitivity
``max(|lower|, |upper|)`` (every addition rounds, and one record more changes how the others
round: Casacuberta et al., CCS 2022). The records are rounded to a public power-of-two grid
``g`` and summed as integers, exactly (:mod:`dpatlas.core.noise._sampling.exact_sum`, which
holds the proof): the sum ``U`` in grid units is an integer function of the records.

Sum (proof). ``lower`` and ``upper`` round to ``a = round(lower/g)`` and ``b = round(upper/g)``
and rounding is monotone, so every ``u_i`` lies in ``[a, b]``; adding or removing one record
moves ``U`` by one ``u_i``, at most ``K = max(|a|, |b|)`` in absolute value. ``U + Z`` with
``Z`` exact discrete Laplace of scale ``K/ε`` (rounded up to a fraction) is ε-DP (GRS 2009;
CKS 2020); the float released, ``fl(g·(U + Z))`` saturated at ``±1.797e308``, is
post-processing. Rounding the records costs accuracy, not privacy: at most ``g/2`` per record
(``n·M·2**-41`` in all). (Bounds taken from the data would leak; they must be public, chosen
before looking.)

Mean. Without ``n``: ``ε·split`` buys the noisy exact sum above and the rest a noisy count
(discrete Laplace, sensitivity 1); sequential composition gives ε (the two parts come from
:func:`~dpatlas.core.accounting.cost.split`, so their exact sum is at most ε) and the ratio,
clamped to ``[lower, upper]``, is post-processing. With a public ``n``: replacing one record
moves ``U`` by at most ``b - a`` units, so ``U`` plus discrete Laplace noise of scale
``(b - a)/ε`` is ε-DP, and ``g·(U + Z)/n`` has a public noise scale.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import open_charge
from dpatlas.core.accounting.cost import Cost, exact_epsilon
from dpatlas.core.accounting.cost import split as split_parts
from dpatlas.core.noise._sampling.exact_sum import (
    exact_units,
    noisy_units,
    record_grid,
    scaled,
    unit_scale,
)
from dpatlas.core.noise.discrete_laplace import discrete_laplace
from dpatlas.core.release import Release
from dpatlas.core.rng import RngLike, get_source
from dpatlas.core.validation import check_epsilon, check_positive_int

__all__ = ["clipped_mean", "clipped_sum"]


def _bound(name: str, v: Any) -> float:
    number = math.nan
    if isinstance(v, numbers.Real) and not isinstance(v, (bool, np.bool_)):
        try:
            number = float(v)
        except OverflowError:  # an int beyond the float range
            number = math.inf
    if not math.isfinite(number):
        raise ValueError(f"{name} must be a finite number (a public bound), got {v!r}")
    return number


def _bounds(lower: Any, upper: Any) -> tuple[float, float]:
    lo, hi = _bound("lower", lower), _bound("upper", upper)
    if not lo < hi:
        raise ValueError(f"lower must be < upper, got lower={lo!r}, upper={hi!r}")
    return lo, hi


def clipped_sum(
    values: Any,
    *,
    lower: float,
    upper: float,
    epsilon: float,
    rng: RngLike = None,
    budget: Budget | None = None,
    mechanism: str = "clipped_sum",
    note: str = "",
) -> Release:
    """Private sum of values clipped to public bounds (add/remove one record), summed exactly.

    Examples
    --------
    >>> rel = clipped_sum([1.5, 2.0, 9.0], lower=0.0, upper=4.0, epsilon=1.0, rng=0)
    >>> rel.sensitivity, round(rel.scale, 3), rel.noise
    (4.0, 4.0, 'laplace')
    >>> clipped_sum([1.0], lower=2.0, upper=1.0, epsilon=1.0)
    Traceback (most recent call last):
    ...
    ValueError: lower must be < upper, got lower=2.0, upper=1.0
    """
    lo, hi = _bounds(lower, upper)
    eps = check_epsilon(epsilon)
    g, a, b = record_grid(lo, hi, eps)
    scale = unit_scale(max(abs(a), abs(b)), eps, g)
    charge = open_charge(Cost.pure(eps), budget, mechanism=mechanism, note=note, scales=[scale])
    total, _ = exact_units(values, lo, hi, g)
    src = get_source(rng)
    charge.debit()
    noisy, units_scale = noisy_units(total, scale, src)
    return charge.release(
        Release,
        value=scaled(noisy, g),
        sensitivity=max(abs(lo), abs(hi)),
        scale=g * units_scale,
        noise="laplace",
        seeded=src.seeded,
        metadata={"grid": g, "bounds": [lo, hi]},
    )


def clipped_mean(
    values: Any,
    *,
    lower: float,
    upper: float,
    epsilon: float,
    n: int | None = None,
    split: float = 0.5,
    rng: RngLike = None,
    budget: Budget | None = None,
    mechanism: str = "clipped_mean",
    note: str = "",
) -> Release:
    """Private mean of values clipped to public bounds.

    Parameters
    ----------
    values : array_like of float
        The records' values; NaN and infinities are refused.
    lower, upper : float
        Public clipping bounds, finite, ``lower < upper``.
    epsilon : float
        Total privacy cost, > 0 (debited once, before any noise).
    n : int, optional
        A public record count (replace-one neighbours); it must equal ``len(values)``.
    split : float
        Without ``n``: the share of ε spent on the sum (the rest goes to the count).
    rng, budget, mechanism, note
        As for :func:`~dpatlas.core.noise.laplace.laplace`.

    Returns
    -------
    Release
        The mean estimate, clamped to the bounds. With ``n`` the noise scale is public
        (``scale``); without, it depends on the count, so ``scale`` is None and
        ``metadata`` carries the noisy sum and count.

    Examples
    --------
    >>> data = np.linspace(0, 10, 1001)
    >>> rel = clipped_mean(data, lower=0.0, upper=10.0, epsilon=1.0, n=1001, rng=0)
    >>> round(rel.scale, 4), abs(rel.value - 5.0) < 0.2
    (0.01, True)
    >>> rel = clipped_mean(data, lower=0.0, upper=10.0, epsilon=1.0, rng=0)
    >>> rel.scale is None, rel.metadata["split"]
    (True, 0.5)
    """
    lo, hi = _bounds(lower, upper)
    eps = check_epsilon(epsilon)
    if n is not None:
        n = check_positive_int(n, "n")
        if not math.isfinite(hi - lo):
            raise ValueError(
                f"upper - lower must be a finite float (the sensitivity with n), got "
                f"lower={lo!r}, upper={hi!r}; use narrower bounds"
            )
        g, a, b = record_grid(lo, hi, eps)
        scale = unit_scale(b - a, eps, g)
        charge = open_charge(Cost.pure(eps), budget, mechanism=mechanism, note=note, scales=[scale])
        total, size = exact_units(values, lo, hi, g)
        if n != size:
            raise ValueError(
                f"n must equal the number of values when given, got n={n}, {size} values"
            )
        src = get_source(rng)
        charge.debit()
        noisy, units_scale = noisy_units(total, scale, src)
        return charge.release(
            Release,
            value=float(np.clip(scaled(noisy, g) / n, lo, hi)),
            sensitivity=hi - lo,
            scale=g * units_scale / n,
            noise="laplace",
            seeded=src.seeded,
            metadata={"grid": g, "bounds": [lo, hi], "n": n, "neighbours": "replace one"},
        )
    if not (isinstance(split, float) and 0.0 < split < 1.0):
        raise ValueError(f"split must be a float in (0, 1), got {split!r}")
    eps_sum, eps_count = split_parts(eps, [split, 1.0 - split])
    g, a, b = record_grid(lo, hi, eps_sum)
    sum_scale = unit_scale(max(abs(a), abs(b)), eps_sum, g)
    count_scale = 1 / exact_epsilon(eps_count)
    cost = Cost.pure(eps_sum) + Cost.pure(eps_count)
    charge = open_charge(
        cost, budget, mechanism=mechanism, note=note, scales=[sum_scale, count_scale]
    )
    total, size = exact_units(values, lo, hi, g)
    src = get_source(rng)
    charge.debit()
    noisy, units_scale = noisy_units(total, sum_scale, src)
    count = discrete_laplace(size, sensitivity=1, epsilon=eps_count, rng=src)
    noisy_sum = scaled(noisy, g)
    return charge.release(
        Release,
        value=float(np.clip(noisy_sum / max(count.value, 1), lo, hi)),
        sensitivity=None,
        scale=None,
        noise=None,
        seeded=src.seeded,
        metadata={
            "bounds": [lo, hi],
            "split": split,
            "noisy_sum": noisy_sum,
            "noisy_count": count.value,
            "sum_scale": g * units_scale,
            "count_scale": count.scale,
            "neighbours": "add/remove one",
        },
    )
