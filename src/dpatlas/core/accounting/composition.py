"""Privacy maps for composing and converting guarantees.

All functions take non-negative finite privacy parameters (0 is allowed: a release that
reveals nothing) and refuse negative, infinite and NaN ones. For running totals use
:class:`~dpatlas.core.accounting.budget.Budget`; these functions answer "what does this add up to?".

Every ε and δ returned is rounded *up*: products and sums of the inputs are exact rationals
of the decimals typed (as budgets read them and as the noise is calibrated) rounded up to a
float (:func:`_above`); a value that goes through ``log``, ``sqrt`` or ``exp``
is raised past the bound on its floating-point error (:func:`_ulps_up`), so no total is below
the true one.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections.abc import Callable
from fractions import Fraction
from typing import Any

from dpatlas.core.accounting.cost import Cost, _up, exact_epsilon
from dpatlas.core.validation import check_positive_int

__all__ = ["advanced_composition", "group_privacy", "pure_to_zcdp", "zcdp_to_approx_dp"]


def _nonneg(x: Any, name: str) -> float:
    if isinstance(x, bool) or not isinstance(x, numbers.Real):
        raise TypeError(f"{name} must be a real number, got {x!r} of type {type(x).__name__}")
    v = float(x)
    if not (math.isfinite(v) and v >= 0):
        raise ValueError(f"{name} must be a finite number >= 0, got {v!r}")
    return v


def _finite(compute: Callable[[], float], name: str) -> float:
    """``compute()``, or an OverflowError naming ``name`` when it is beyond the float range."""
    try:
        value = compute()
    except OverflowError:
        value = math.inf
    if not math.isfinite(value):
        raise OverflowError(
            f"{name} is above the largest float ({sys.float_info.max:.3g}): it protects "
            "nothing and cannot be accounted; use a smaller epsilon or a smaller k"
        )
    return value


def _ulps_up(x: float, ulps: int) -> float:
    """``x`` raised by ``ulps`` units in the last place (0 stays 0): past a computed error bound."""
    for _ in range(ulps if x > 0 else 0):
        x = math.nextafter(x, math.inf)
    return x


def _unit(x: Any, name: str) -> float:
    v = _nonneg(x, name)
    if not 0 < v < 1:
        raise ValueError(f"{name} must be in (0, 1), got {v!r}")
    return v


def advanced_composition(
    epsilon: float, delta: float, k: int, *, delta_slack: float
) -> tuple[float, float]:
    """Total (ε, δ) of ``k`` adaptive (ε, δ)-DP releases (Dwork, Rothblum & Vadhan 2010).

    ``ε' = sqrt(2k ln(1/δ')) ε + k ε (e^ε − 1)`` with ``δ' = delta_slack`` gives
    ``(ε', kδ + δ')``; when basic composition ``(kε, kδ)`` has the smaller ε it is returned.

    Examples
    --------
    >>> eps, delta = advanced_composition(0.01, 0.0, 1000, delta_slack=1e-6)
    >>> round(eps, 4), delta  # basic composition would give 10.0
    (1.7628, 1e-06)
    >>> advanced_composition(1.0, 0.0, 1, delta_slack=1e-6)  # k = 1: basic is better
    (1.0, 0.0)
    """
    eps, d = _nonneg(epsilon, "epsilon"), _nonneg(delta, "delta")
    n = check_positive_int(k, "k")
    slack = _unit(delta_slack, "delta_slack")
    if d >= 1:
        raise ValueError(f"delta must be < 1, got {d!r}")
    basic = (
        _finite(lambda: _up(n * exact_epsilon(eps), "k * epsilon"), "k * epsilon"),
        _up(min(n * exact_epsilon(d), Fraction(1)), "k * delta"),
    )
    # log, sqrt, expm1 and five roundings: within 6 ulps, raised by 8 (the typed ε is within
    # half an ulp of the binary one: one ulp more of the total at most)
    try:
        advanced = _ulps_up(
            math.sqrt(2 * n * -math.log(slack)) * eps + n * eps * math.expm1(eps), 8
        )
    except OverflowError:  # e^ε beyond the floats: the advanced bound is the worse one
        advanced = math.inf
    if basic[0] <= advanced:
        return basic
    return advanced, _up(min(n * exact_epsilon(d) + exact_epsilon(slack), Fraction(1)), "delta")


def zcdp_to_approx_dp(rho: float, delta: float) -> float:
    """ε such that ρ-zCDP implies (ε, δ)-DP: ``ρ + 2 sqrt(ρ ln(1/δ))`` (Bun & Steinke 2016, Prop. 1.3).

    Examples
    --------
    >>> round(zcdp_to_approx_dp(0.5, 1e-6), 4)
    5.7565
    >>> zcdp_to_approx_dp(0.0, 1e-6)
    0.0
    """
    r, d = _nonneg(rho, "rho"), _unit(delta, "delta")
    # the larger ρ and the smaller δ of the two readings of each float (typed, binary)
    if exact_epsilon(r) > Fraction(r):
        r = math.nextafter(r, math.inf)
    if exact_epsilon(d) < Fraction(d):
        d = math.nextafter(d, 0.0)
    # log, product, sqrt, sum: within 3 ulps, raised by 4
    return _finite(
        lambda: _ulps_up(r + 2 * math.sqrt(r * -math.log(d)), 4), "the epsilon of this rho"
    )


def pure_to_zcdp(epsilon: float) -> float:
    """ρ = ε²/2: an ε-DP release is ρ-zCDP (Bun & Steinke 2016, Prop. 1.4).

    The conversion of :class:`~dpatlas.core.accounting.cost.Cost` (rounded up).

    Examples
    --------
    >>> pure_to_zcdp(1.0)
    0.5
    """
    return Cost(_nonneg(epsilon, "epsilon")).rho or 0.0  # a pure cost always has its ρ


def group_privacy(epsilon: float, delta: float, k: int) -> tuple[float, float]:
    """(ε, δ)-DP for one individual gives ``(kε, k e^((k−1)ε) δ)`` for groups of ``k``.

    δ is capped at 1 (Dwork & Roth 2014, Thm. 2.2 for δ = 0; the δ term by induction on k).

    Examples
    --------
    >>> eps, delta = group_privacy(0.5, 1e-6, 3)
    >>> eps, round(delta, 12)  # 3 e^1 1e-6
    (1.5, 8.154845e-06)
    >>> group_privacy(1.0, 0.0, 1)
    (1.0, 0.0)
    """
    eps, d = _nonneg(epsilon, "epsilon"), _nonneg(delta, "delta")
    n = check_positive_int(k, "k")
    if d >= 1:
        raise ValueError(f"delta must be < 1, got {d!r}")
    total = _finite(lambda: _up(n * exact_epsilon(eps), "k * epsilon"), "k * epsilon")
    if d == 0 or n == 1:
        return total, d
    log_delta = math.log(n) + total - eps + math.log(d)
    # each term and sum of log_delta is off by <= 1 ulp of the largest magnitude: add that
    log_delta += (math.log(n) + total + eps - math.log(d) + 8) * 2.0**-52
    return total, 1.0 if log_delta >= 0 else _ulps_up(math.exp(log_delta), 1)
