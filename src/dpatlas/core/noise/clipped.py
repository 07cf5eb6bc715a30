"""Sums and means of real values with public clipping bounds.

Neighbours add or remove one record (the default relation), unless a public record count
``n`` is given to :func:`clipped_mean`, which fixes the size and so means "replace one record".

Sum (proof). Each value is clipped to the public ``[lower, upper]``; adding or removing one
record moves the sum by at most ``M = max(|lower|, |upper|)``, so the float-safe Laplace
mechanism with sensitivity ``M`` is ε-DP. (Bounds taken from the data would leak; they must be
public, chosen before looking.)

Mean. Without ``n``: ``ε·split`` buys a noisy clipped sum (sensitivity ``M``) and the rest a
noisy count (discrete Laplace, sensitivity 1); sequential composition gives ε and the ratio,
clamped to ``[lower, upper]``, is post-processing. With a public ``n``: replacing one record
moves the clipped sum by at most ``upper − lower``, so the noisy sum at sensitivity
``upper − lower`` divided by ``n`` is ε-DP and its noise scale is public.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction
from typing import Any, cast

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.noise._sampling.grid import FLOAT_MAX
from dpatlas.core.noise.discrete_laplace import discrete_laplace, rational_scale
from dpatlas.core.noise.laplace import laplace, laplace_plan
from dpatlas.core.release import Release
from dpatlas.core.rng import RngLike, get_source
from dpatlas.core.validation import as_float_array, check_epsilon, check_positive_int

__all__ = ["clipped_mean", "clipped_sum"]


def _bound(name: str, v: Any) -> float:
    number = math.nan
    if isinstance(v, (int, float, np.number)) and not isinstance(v, bool):
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


def _clip(values: Any, lower: float, upper: float) -> np.ndarray:
    x = as_float_array(values).reshape(-1)
    return np.clip(x, lower, upper)


def _sum(x: np.ndarray) -> float:
    """The float sum of the clipped values, saturated at ``±1.797e308`` instead of overflowing.

    Not refused: whether the sum overflows depends on the number of records (private under
    add/remove-one) and their values. Saturating ``s ↦ clip(s, ±M)`` never moves two sums
    further apart, so the sensitivity of the clipped sum still holds for it.
    """
    with np.errstate(over="ignore"):
        total = float(x.sum())
    return float(np.clip(total, -FLOAT_MAX, FLOAT_MAX))


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
    """Private sum of values clipped to public bounds (add/remove one record).

    Examples
    --------
    >>> rel = clipped_sum([1.5, 2.0, 9.0], lower=0.0, upper=4.0, epsilon=1.0, rng=0)
    >>> rel.sensitivity, round(rel.scale, 3)
    (4.0, 4.0)
    >>> clipped_sum([1.0], lower=2.0, upper=1.0, epsilon=1.0)
    Traceback (most recent call last):
    ...
    ValueError: lower must be < upper, got lower=2.0, upper=1.0
    """
    lo, hi = _bounds(lower, upper)
    eps = check_epsilon(epsilon)
    total = _sum(_clip(values, lo, hi))
    rel = laplace(
        total,
        sensitivity=max(abs(lo), abs(hi)),
        epsilon=eps,
        rng=rng,
        budget=budget,
        mechanism=mechanism,
        note=note,
    )
    return dataclasses.replace(rel, metadata={**rel.metadata, "bounds": [lo, hi]})


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
    x = _clip(values, lo, hi)
    if n is not None:
        n = check_positive_int(n, "n")
        if n != x.size:
            raise ValueError(
                f"n must equal the number of values when given, got n={n}, {x.size} values"
            )
        if not math.isfinite(hi - lo):
            raise ValueError(
                f"upper - lower must be a finite float (the sensitivity with n), got "
                f"lower={lo!r}, upper={hi!r}; use narrower bounds"
            )
        rel = laplace(
            _sum(x),
            sensitivity=hi - lo,
            epsilon=eps,
            rng=rng,
            budget=budget,
            mechanism=mechanism,
            note=note,
        )
        meta = {**rel.metadata, "bounds": [lo, hi], "n": n, "neighbours": "replace one"}
        value = float(np.clip(rel.value / n, lo, hi))
        scale = cast(float, rel.scale) / n
        return dataclasses.replace(rel, value=value, scale=scale, metadata=meta)
    if not (isinstance(split, float) and 0.0 < split < 1.0):
        raise ValueError(f"split must be a float in (0, 1), got {split!r}")
    src = get_source(rng)
    eps_sum = eps * split
    eps_count = math.nextafter(eps - eps_sum, 0.0)  # so that eps_sum + eps_count <= eps exactly
    total_sum = _sum(x)
    laplace_plan(total_sum, max(abs(lo), abs(hi)), eps_sum)  # refusals before the spend
    rational_scale(Fraction(1) / Fraction(eps_count))
    if budget is not None:
        budget.spend(eps, 0.0, mechanism=mechanism, note=note)
    total = laplace(total_sum, sensitivity=max(abs(lo), abs(hi)), epsilon=eps_sum, rng=src)
    count = discrete_laplace(x.size, sensitivity=1, epsilon=eps_count, rng=src)
    value = float(np.clip(total.value / max(count.value, 1), lo, hi))
    return Release(
        value=value,
        epsilon=eps,
        delta=0.0,
        mechanism=mechanism,
        sensitivity=None,
        scale=None,
        noise=None,
        seeded=src.seeded,
        rho=eps**2 / 2,
        metadata={
            "bounds": [lo, hi],
            "split": split,
            "noisy_sum": total.value,
            "noisy_count": count.value,
            "sum_scale": total.scale,
            "count_scale": count.scale,
            "neighbours": "add/remove one",
        },
    )
