"""Discrete Laplace (two-sided geometric) mechanism for integer queries, sampled exactly.

Privacy: for an integer query ``f`` with L1 sensitivity ``Δ`` (``|f(D) - f(D')|_1 <= Δ`` for all
neighbours), releasing ``f(D) + Z`` with ``P(Z = k) ∝ exp(-|k| / b)`` and ``b >= Δ/ε`` is ε-DP:
the density ratio at any output is at most ``exp(|f(D) - f(D')|_1 / b) <= exp(ε)``
(Ghosh, Roughgarden, Sundararajan 2009; Canonne, Kamath, Steinke 2020, Sec. 2). It is also
``ε²/2``-zCDP (Bun & Steinke 2016, Prop. 1.4).

Sampling is exact on both paths, so the output distribution is the one analysed above to the
last bit (no floating-point ``exp``/``log`` on the sampling path, unlike the textbook
inverse-CDF sampler; see Mironov 2012 for why that matters):

* batches of 64 or more at scales up to 512 use inversion (:mod:`dpatlas.core.noise._sampling.dlap_table`):
  one 64-bit word per draw is compared with ``floor(2**64 P(Z <= k))``, computed once per scale
  with interval arithmetic; a word equal to a threshold is settled exactly with further words,
  and the two tails (probability about ``2**-8``) continue with exact geometric draws;
* other calls use Algorithms 1 and 2 of Canonne–Kamath–Steinke (2020), vectorised over
  batches, with only uniform integers and integer comparisons.

The scale ``Δ/ε``, with ε the decimal a budget charges
(:func:`~dpatlas.core.accounting.cost.exact_epsilon`: ``1/0.1`` is exactly 10), is represented
as a fraction ``t/s`` with ``t < 2**41``; when the exact fraction is larger it is rounded
*up*, which adds at most a relative ``2**-38`` of extra noise and can only lower the privacy
loss.
"""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import open_charge
from dpatlas.core.accounting.cost import Cost, exact_epsilon
from dpatlas.core.noise._sampling.dlap import rational_scale, sample_discrete_laplace
from dpatlas.core.release import Release, register_noise
from dpatlas.core.rng import RngLike, get_source
from dpatlas.core.validation import as_int_array, check_epsilon, check_sensitivity

__all__ = [
    "check_scales",
    "discrete_laplace",
    "discrete_laplace_cost",
    "rational_scale",
    "sample_discrete_laplace",
    "upper_tail_bound",
]

VALUE_LIMIT = 2**62 - 1
"""Values are clamped to ``±VALUE_LIMIT``: int64 noise is then ``>= 4096`` scales from
overflowing (scales are below ``2**50``; ``P ~ e^-4096``)."""


def check_scales(sensitivity: int, *epsilons: float) -> None:
    """Refuse, before anything is spent, a part of ε whose noise cannot be sampled exactly.

    Raises the :func:`rational_scale` error for the first ``sensitivity/ε`` that is too large.
    Callers run it on public values before ``budget.spend``, so a refusal never costs budget.

    Examples
    --------
    >>> check_scales(1, 0.5, 0.25)
    >>> check_scales(1, 1e-300)
    Traceback (most recent call last):
    ...
    ValueError: noise scale sensitivity/epsilon is about 2**996, too large (> 2**50) ...
    """
    for eps in epsilons:
        rational_scale(Fraction(sensitivity) / exact_epsilon(eps))


def _halfwidth(scale: float, level: float) -> float:
    p = math.exp(-1.0 / scale)
    if p == 0.0:  # scale below ~1/745: P(Z != 0) underflows, the noise is 0
        return 0.0
    h = max(math.ceil(math.log((1 - level) * (1 + p) / 2) / math.log(p) - 1), 0)
    while h > 0 and 2 * p**h / (1 + p) <= 1 - level:
        h -= 1
    return float(h)


def upper_tail_bound(scale: float, alpha: float) -> int:
    """Smallest ``h >= 0`` with ``P(Z > h) <= alpha`` for discrete Laplace ``Z`` of ``scale``.

    ``P(Z > h) = p**(h + 1) / (1 + p)`` with ``p = exp(-1/scale)``; used to turn a noisy
    released bound into a high-probability one (post-processing).

    Examples
    --------
    >>> upper_tail_bound(1.0, 0.05)
    2
    """
    p = math.exp(-1.0 / scale)
    if p == 0.0:  # scale below ~1/745: P(Z > 0) underflows to 0
        return 0
    h = max(0, math.ceil(math.log(alpha * (1 + p)) / math.log(p)) - 1)
    while h > 0 and p**h / (1 + p) <= alpha:
        h -= 1
    while p ** (h + 1) / (1 + p) > alpha:
        h += 1
    return h


def _variance(scale: float) -> float:
    p = math.exp(-1.0 / scale)
    return 2 * p / (1 - p) ** 2


register_noise("discrete_laplace", halfwidth=_halfwidth, variance=_variance)


def discrete_laplace_cost(sensitivity: float, epsilon: float) -> Cost:
    """Privacy map: discrete Laplace noise of scale ``>= sensitivity/ε`` is pure ε-DP.

    The noise scale is ``sensitivity/ε`` rounded *up* to a fraction (:func:`rational_scale`),
    which can only lower the loss, so the release costs ``Cost.pure(ε)`` (module docstring).

    Examples
    --------
    >>> discrete_laplace_cost(1, 0.5)
    Cost(epsilon=0.5, delta=0.0, rho=0.125)
    """
    check_sensitivity(sensitivity)
    return Cost.pure(epsilon)


def discrete_laplace(
    values: Any,
    *,
    sensitivity: float,
    epsilon: float,
    rng: RngLike = None,
    budget: Budget | None = None,
    mechanism: str = "discrete_laplace",
    note: str = "",
) -> Release:
    """Release integer values with discrete Laplace noise of scale ``sensitivity / epsilon``.

    Parameters
    ----------
    values : int or array_like of int
        The exact answers (counts). NaN, infinities and non-integral numbers are refused.
        Magnitudes beyond ``2**62 - 1`` are clamped to it before the noise, not refused: a
        refusal would tell whether the answer is that large, while clamping moves no two
        answers further apart, so ``sensitivity`` still bounds the clamped vector.
    sensitivity : float
        L1 sensitivity of the whole vector over all neighbouring datasets (not of this data).
    epsilon : float
        Privacy cost, > 0.
    rng : None, int or numpy.random.Generator
        ``None`` (default) for secure noise; a seed makes the noise reproducible, which is for
        tests and teaching only and is recorded as ``seeded=True``.
    budget : Budget, optional
        Debited by ``epsilon`` before any noise is drawn; an overspend raises
        :class:`~dpatlas.errors.BudgetExceededError` and spends nothing.
    mechanism, note : str
        Labels recorded in the release and the budget history.

    Returns
    -------
    Release
        ``value`` has the shape of ``values`` (an ``int`` for a scalar); ``scale`` is the noise
        scale actually used (``>= sensitivity / epsilon``).

    Examples
    --------
    >>> rel = discrete_laplace([10, 20, 30], sensitivity=1, epsilon=0.5, rng=3)
    >>> rel.value.shape, rel.scale, rel.epsilon
    ((3,), 2.0, 0.5)
    >>> from dpatlas.core.accounting.budget import Budget
    >>> b = Budget(1.0)
    >>> _ = discrete_laplace(5, sensitivity=1, epsilon=0.75, budget=b, rng=0)
    >>> discrete_laplace(5, sensitivity=1, epsilon=0.5, budget=b)
    Traceback (most recent call last):
    ...
    dpatlas.errors.BudgetExceededError: privacy budget exceeded: requested epsilon=0.5, ...
    """
    delta_f = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    # an int or fraction sensitivity is taken exactly: its float may be rounded *down*
    if isinstance(sensitivity, numbers.Integral):
        exact = Fraction(int(sensitivity))
    elif isinstance(sensitivity, Fraction):
        exact = sensitivity
    else:
        exact = Fraction(delta_f)
    scale = exact / exact_epsilon(eps)
    charge = open_charge(
        discrete_laplace_cost(delta_f, eps), budget, mechanism=mechanism, note=note, scales=[scale]
    )
    x = as_int_array(values, saturate=VALUE_LIMIT)
    src = get_source(rng)
    t, s = rational_scale(scale)
    charge.debit()
    noisy = x + sample_discrete_laplace(src, x.size, (t, s)).reshape(x.shape)
    return charge.release(
        Release,
        value=int(noisy) if noisy.ndim == 0 else noisy,
        sensitivity=delta_f,
        scale=t / s,
        noise="discrete_laplace",
        seeded=src.seeded,
    )
