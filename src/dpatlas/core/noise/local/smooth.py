"""Smooth-sensitivity noise (Nissim, Raskhodnikova, Smith, STOC 2007) on the integers, exact.

Setting. ``f`` is an integer query and ``S(G)`` a β-smooth upper bound on its local
sensitivity: for all neighbours ``G ~ G'``, (S1) ``|f(G) - f(G')| <= S(G)`` and
(S2) ``S(G) <= e^β S(G')``. Any ladder (:mod:`dpatlas.core.noise.local.ladder`, (L1)–(L2)) gives one,
:func:`smooth_bound` ``S = max_t e^{-βt} I_t`` (over every ``t >= 0``, the ``GS`` tail after
the array included): ``S >= I_0`` and
``S(G) <= max_t e^{-βt} I_{t+1}(G') = e^β max_t e^{-β(t+1)} I_{t+1}(G') <= e^β S(G')``.
The release is ``T + K`` with integer noise ``K`` of scale ``b``:

* pure ε (``delta = 0``): ``β = ε/6``, ``b = max(6S/ε, 1/2)``, discrete Cauchy
  ``P(K = k) = 1 / (Z_b (1 + (k/b)²))``, ``Z_b = π b coth(π b)``;
* (ε, δ): ``β = ln(1 + ε/(2L)) - 2**-37`` with ``L = max(1, ln(2/δ))`` (a hair below NRS's
  ``ε / (2 ln(2/δ))``; a smaller β only enlarges ``S``), ``b = max(2S/ε, 1/2)``, discrete
  Laplace.

These are the constants NRS (Sec. 2, admissible noise: the Cauchy-type density ``∝ 1/(1+z²)``
and the Laplace density) give for continuous noise; we sample on the integer lattice (the
answer is an integer, and no floating-point output can leak low bits: Mironov 2012), so here
are proofs for the lattice. Write ``b, b'`` for the scales at ``G, G'``; ``b >= c·|T - T'|/ε``
by (S1) at ``G'`` (``c`` = 6 or 2), and ``b/b' <= e^{β*}`` with ``β* = β + 2**-38 + 2**-40``
by (S2) plus rounding (``b`` is floored at 1/2 and rounded *up* to a fraction, relative
``<= 2**-38``; ``S`` is a float within ``e^{±2**-41}`` of its exact value, see "Floats"
below, with ``S >= I_0`` exactly). Then
``P_G(y)/P_G'(y) = [P_b(k)/P_b'(k)] · [P_b'(k)/P_b'(k')]`` with ``k = y - T``, ``k' = y - T'``.

Cauchy. Sliding: ``(1 + (k'/b')²)/(1 + (k/b')²) <= exp(2 asinh(v/2)) <= e^v`` for
``v = |T - T'|/b' <= ε/6`` (the maximum over ``k`` of that ratio is ``((v + sqrt(v²+4))/2)²``).
Dilation: ``φ(x) = x coth(πx)`` increases, so if ``b >= b'`` the ratio is
``<= (b/b')² φ(b')/φ(b) <= e^{2β*}``, else ``<= φ(b')/φ(b) <= b'/b <= e^{β*}``. Total
``<= e^{ε/6 + ε/3 + 2**-37 + 2**-39}`` (``β = ε/6`` and ``v`` up to a relative ``2**-52``
more), ``<= e^ε`` since ε below ``2**-35`` is refused: pure ε-DP. Here ε is the decimal a
budget charges (:func:`~dpatlas.core.accounting.cost.exact_epsilon`): ``b`` is built from
it exactly, and ``β`` from the binary ε is above ``ε/6`` by at most a relative ``2**-52``,
an absolute ``2**-54 ε``, far inside the slack ``ε/2 - 2**-37 - 2**-39 >= 3ε/16``.

Laplace. Sliding gives ``e^{|T-T'|/b'} <= e^{ε/2}``. Dilation, pointwise ratio
``tanh(1/2b)/tanh(1/2b') · exp(-|k|(1/b - 1/b'))``: if ``b <= b'`` it is ``<= b'/b <= 1 + ε/(2L)
<= e^{ε/2}``; if ``b > b'`` it exceeds ``e^{ε/2}`` only for ``|k| > x = (ε/2)/(1/b' - 1/b)``,
a set of mass ``<= 2 e^{-x/b} <= 2 exp(-(ε/2)/(e^{β*} - 1)) <= 2 e^{-L} <= δ`` under ``b``
(``β* <= ln(1 + ε/2L) - 2**-37 + 2**-38 + 2**-40``, below ``ln(1 + ε/2L)`` by more than the
float error of ``log1p`` and of ``L``, and than the ``<= 2**-53`` that ``ln(1 + ε/2L)`` moves
by between the binary ε and the decimal charged, whose relative gap is ``<= 2**-53``).
So ``P_G(A) <= e^ε P_G'(A) + δ`` for every set ``A``.

Floats. ``S`` is the term of the largest score ``ln I_t - βt`` (:func:`smooth_peak`),
computed as ``I_t · e^{-βt}`` only while the factor ``e^{-βt}`` is a normal float, and as
``exp`` of the score past that: for ``βt`` past about 708 the factor is subnormal, with few
significant bits, and a large ``I_t`` times it lands in the normal range off by up to a
factor 2 (the ladder ``[0]*99 + [2**61]`` at ``β = 745/99``: ``S`` 75% too large, and at
``β = 750/99`` 49% too small, so ``S(G)/S(G')`` broke ``e^β`` by far). Only a score above
``ln(SMALLEST) - 1`` (about ``-709``) is not floored, and there ``βt <= 44 + 709``
(``I_t < 2**62``), so the roundings (``βt``, ``ln I_t``, the int-to-float conversion, the
product) and ``exp``'s own are below ``810·2**-53 < 2**-43`` in the exponent either way: each
computed ``S`` is within ``e^{±2**-41}`` of exact, and the computed bounds satisfy (S2) with
``β + 2**-40``, the term in ``β*`` above.

``S = 0`` means ``f`` is constant on every graph reachable by flips, so ``T`` is released as is.
A positive ``S`` is never rounded to 0: ``e^{-βt} I_t`` underflows for ``βt`` above about 745
(two disjoint edges at ε = 4500: ``S = e^{-750}``), and an exact release beside a noised
neighbour is an infinite privacy loss. :func:`smooth_bound` returns ``max(S, SMALLEST)``
when ``GS > 0``; a maximum with a public constant keeps (S1) and (S2)
(``max(S(G), c) <= max(e^β S(G'), c) <= e^β max(S(G'), c)``).
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction
from typing import Any

import numpy as np

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import open_charge
from dpatlas.core.accounting.cost import Cost, exact_epsilon
from dpatlas.core.noise.discrete_cauchy import sample_discrete_cauchy
from dpatlas.core.noise.discrete_laplace import rational_scale, sample_discrete_laplace
from dpatlas.core.noise.local.ladder import check_ladder, check_value, noisy_release
from dpatlas.core.release import Release
from dpatlas.core.rng import RandomSource, RngLike, get_source
from dpatlas.core.validation import (
    MAX_EPSILON,
    check_delta,
    check_epsilon,
    check_positive_int,
    least_accepted,
)

__all__ = [
    "SMALLEST",
    "SMALLEST_SCALE",
    "smooth_beta",
    "smooth_bound",
    "smooth_cost",
    "smooth_halfwidth",
    "smooth_mechanism",
    "smooth_peak",
    "smooth_scale",
]


SMALLEST = sys.float_info.min
"""The least positive smooth bound (the smallest normal float): a positive ``S`` below it is
raised to it rather than underflowing to 0 (module docstring)."""

SMALLEST_SCALE = 0.5
"""The least noise scale of a release with ``S > 0``: ``c S/ε`` below it is raised to it
(:func:`smooth_scale`), so that its rounding stays within the proof's ``2**-38``."""


def smooth_beta(epsilon: float, delta: float = 0.0) -> float:
    """The smoothness β of the noise: ``ε/6`` (Cauchy, δ = 0) or ``ln(1 + ε/2L) - 2**-37``.

    An ε too small for the proofs' margin is refused: below ``2**-35`` with ``delta = 0``, and
    where ``ln(1 + ε/2L) <= 2**-37`` with ``delta > 0``.

    Examples
    --------
    >>> smooth_beta(1.0), round(smooth_beta(1.0, 1e-6), 5)
    (0.16666666666666666, 0.03388)
    """
    eps, d = check_epsilon(epsilon), check_delta(delta)
    if d == 0:
        if eps < 2.0**-35:  # the proof's total ε/2 + 2**-37 + 2**-39 (rounding) must be <= ε
            raise ValueError(
                f"epsilon={eps!r} is too small for smooth sensitivity with delta=0 (the proof's "
                f"margin for rounding, 2**-37 + 2**-39, must fit in ε/2); use epsilon >= "
                f"{2.0**-35!r}"
            )
        return eps / 6
    beta = _laplace_beta(eps, d)
    if beta <= 0:
        raise ValueError(
            f"epsilon={eps!r} is too small for smooth sensitivity with delta={d!r} (the "
            f"smoothness ln(1 + ε/2L) - 2**-37 must be > 0); use epsilon >= "
            f"{_smallest_epsilon(d)!r}"
        )
    return beta


def _laplace_beta(eps: float, delta: float) -> float:
    return math.log1p(eps / (2 * max(1.0, math.log(2 / delta)))) - 2.0**-37


def _smallest_epsilon(delta: float) -> float:
    """The smallest float ε that :func:`smooth_beta` accepts with ``delta > 0``.

    About ``2 ln(2/δ) (e^{2**-37} - 1)``; found exactly by bisection over the floats (the
    smoothness grows with ε): one float below is refused.
    """
    return least_accepted(lambda eps: _laplace_beta(eps, delta) > 0, 2.0**-1074, MAX_EPSILON)


def smooth_bound(ladder: Any, beta: float, *, global_sensitivity: int | None = None) -> float:
    """``S = max_{t >= 0} exp(-β t) I_t`` over a whole ladder, tail included: β-smooth.

    A ladder array ``I_0 .. I_{L-1}`` stands for the infinite ladder that continues with
    ``I_t = GS`` for every ``t >= L`` (:mod:`dpatlas.core.noise.local.ladder`). Over the tail,
    ``e^{-βt} GS`` is largest at its first rung ``t = L``, so
    ``S = max(max_{t < L} e^{-βt} I_t, GS·e^{-βL})`` is the maximum over the infinite ladder,
    and only then does the smoothness proof of the module docstring hold (it compares
    ``I_t(G)`` with ``I_{t+1}(G')``, and ``I_L(G')`` is the tail's ``GS``). Leaving the tail
    out is not private: for the valid ladder ``[LS(G)]`` of two disjoint edges on 12 nodes
    (``LS = 0``, then ``GS = 10``) the array alone gives ``S = 0``, an exact release, while
    the neighbouring path gets noise. Ladders that stop before ``GS`` are therefore accepted
    (the array is a prefix); their tail costs accuracy, not privacy. When
    ``global_sensitivity`` is omitted, ``GS`` is the last entry and the tail adds nothing.
    When ``GS > 0`` the result is at least :data:`SMALLEST`, so it never underflows to 0.

    Examples
    --------
    >>> round(smooth_bound([1, 2, 3, 3, 4], 0.5), 4)
    1.2131
    >>> round(smooth_bound([0], 1 / 6, global_sensitivity=10), 4)  # the tail: 10·e^(-1/6)
    8.4648
    """
    lad, gs = check_ladder(ladder, global_sensitivity)
    beta = check_epsilon(beta, "beta")
    tail = math.exp(math.log(gs) - beta * lad.size) if gs > 0 else 0.0  # rungs t >= L: all GS
    bound = max(smooth_peak(lad, beta), tail, _float_up(int(lad[0])))  # S >= I_0 exactly
    return max(bound, SMALLEST) if gs > 0 else bound


def smooth_peak(rungs: Any, beta: float) -> float:
    """``max_t e^{-βt} I_t`` over the rungs ``I_0, I_1, ...`` (integers ``>= 0``), as the ``exp``
    of the largest score ``ln I_t - βt``; 0.0 when every rung is 0.

    Computed so to stay within ``e^{±2**-41}`` of the exact value wherever it is at least
    :data:`SMALLEST` ("Floats" in the module docstring): the product ``I_t · e^{-βt}`` while
    the factor ``e^{-βt}`` is a normal float (the same bits as before the subnormal case was
    found), ``exp`` of the score once it is subnormal, where the product loses its precision.
    The callers take a maximum with ``I_0`` rounded up.

    Examples
    --------
    >>> round(smooth_peak([1, 2, 3, 3, 4], 0.5), 4)
    1.2131
    >>> exact = 6.507897701407879e-306  # 2**61 e^{-745}, to 16 digits (mpmath)
    >>> round(smooth_peak([0] * 99 + [2**61], 745 / 99) / exact, 9)
    1.0
    """
    values = np.asarray(rungs)
    positive = np.flatnonzero(values > 0)
    if positive.size == 0:
        return 0.0
    score = np.log(values[positive].astype(np.float64)) - beta * positive
    best = int(np.argmax(score))
    factor = math.exp(-beta * int(positive[best]))
    if factor >= SMALLEST:  # a normal factor: the product, as exact as exp of the score
        return float(values[positive[best]]) * factor
    return math.exp(float(score[best]))


def _float_up(value: int) -> float:
    """The least float ``>= value``: an int above ``2**53`` may round down to a float."""
    f = float(value)
    return math.nextafter(f, math.inf) if int(f) < value else f


def _bound(bound: Any) -> float:
    """The bound as a float; not a finite number >= 0 is no smooth bound (a domain check)."""
    s = float(bound)
    if not (math.isfinite(s) and s >= 0):
        raise ValueError(f"bound must be a finite smooth sensitivity >= 0, got {bound!r}")
    return s


def smooth_scale(bound: float, epsilon: float, delta: float = 0.0) -> tuple[int, int] | None:
    """The noise scale ``t/s >= max(c S/ε, 1/2)`` (c = 6 Cauchy, 2 Laplace) as integers; None
    if S = 0.

    The floor of 1/2 keeps the rounding of ``b`` within the proof's ``2**-38`` (relative):
    :func:`~dpatlas.core.noise.discrete_laplace.rational_scale` keeps 40 bits of a scale's
    fraction, so a scale far below 1/2 would be rounded up by far more, and a large rounding
    at ``G`` with none at ``G'`` breaks ``b/b' <= e^{β*}`` (for the Laplace noise, a δ larger
    than stated). A maximum with a public constant keeps the proof: ``b >= c|T - T'|/ε`` still
    holds, and ``max(b, 1/2)/max(b', 1/2) <= max(b/b', 1)``.

    Examples
    --------
    >>> smooth_scale(3.0, 1.0), smooth_scale(3.0, 1.0, 1e-6), smooth_scale(0.0, 1.0)
    ((18, 1), (6, 1), None)
    >>> smooth_scale(1e-9, 1.0, 1e-6)  # 2e-9 raised to the floor
    (1, 2)
    """
    s = _bound(bound)
    if s == 0:
        return None
    factor = 6 if check_delta(delta) == 0 else 2
    scale = factor * Fraction(s) / exact_epsilon(check_epsilon(epsilon))
    return rational_scale(max(scale, Fraction(SMALLEST_SCALE)))


def _noise(src: RandomSource, size: int, scale: tuple[int, int] | None, delta: float) -> np.ndarray:
    if scale is None:
        return np.zeros(size, dtype=np.int64)
    if delta == 0:
        return sample_discrete_cauchy(src, size, scale)
    return sample_discrete_laplace(src, size, scale)


def smooth_halfwidth(bound: float, epsilon: float, delta: float, level: float) -> int:
    """``h`` with ``P(|K| > h) <= 1 - level`` for the noise of *every* ``S <= bound``.

    Both tails grow with the scale (the discrete Cauchy family has a monotone likelihood ratio
    in ``|k|``), so a private upper bound on ``S`` gives a valid interval. Cauchy:
    ``P(|K| > h) <= 2 b (π/2 - atan(h/b)) / Z_b <= (2/π) atan(b/h)``, so ``h = b cot(πγ/2)``;
    Laplace: ``P(|K| > h) = 2 p^(h+1) / (1 + p)``, ``p = e^(-1/b)``; ``γ = 1 - level``.

    Examples
    --------
    >>> smooth_halfwidth(1.0, 1.0, 0.0, 0.9), smooth_halfwidth(1.0, 1.0, 1e-6, 0.9)
    (38, 5)
    """
    gamma = 1.0 - float(level)
    if not 0.0 < gamma < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    scale = smooth_scale(bound, epsilon, delta)
    if scale is None:
        return 0
    b = scale[0] / scale[1] * (1 + 2.0**-30)  # covers the rounding of the release's own b
    if check_delta(delta) == 0:
        return math.ceil(b / math.tan(math.pi * gamma / 2) * (1 + 1e-12))
    p = math.exp(-1.0 / b)
    if p == 0.0:  # b below ~1/745: P(|Z| > 0) underflows to 0
        return 0
    h = max(0, math.ceil(math.log(gamma * (1 + p) / 2) / math.log(p)) - 1)
    while 2 * p ** (h + 1) / (1 + p) > gamma * (1 - 1e-12):
        h += 1
    return h


def smooth_cost(epsilon: float, delta: float = 0.0, size: int = 1) -> Cost:
    """Privacy map: ``size`` independent smooth-sensitivity releases cost ``size·(ε, δ)``.

    Each draw is ε-DP (Cauchy, ``δ = 0``) or (ε, δ)-DP (Laplace) by the module docstring;
    pure draws also have zCDP cost ``ε²/2`` each, (ε, δ) draws none.

    Examples
    --------
    >>> smooth_cost(1.0, 1e-6, 2)
    Cost(epsilon=2.0, delta=2e-06, rho=None)
    """
    return Cost.approx(epsilon, delta) * check_positive_int(size, "size")


def smooth_mechanism(
    value: int,
    bound: float,
    *,
    epsilon: float,
    delta: float = 0.0,
    global_sensitivity: int | None = None,
    rng: RngLike = None,
    budget: Budget | None = None,
    size: int | None = None,
    mechanism: str = "smooth",
    note: str = "",
    metadata: dict[str, Any] | None = None,
) -> Release:
    """Release the integer ``value`` with noise scaled to a smooth sensitivity ``bound``.

    ``bound`` must be a :func:`smooth_beta`-smooth upper bound (S1)–(S2) of the module
    docstring, computed with ``β = smooth_beta(epsilon, delta)``; it is private. ``delta = 0``
    gives pure ε-DP (discrete Cauchy), ``delta > 0`` (ε, δ)-DP (discrete Laplace). The budget
    is debited once before any noise; ``size`` draws independent releases that cost
    ``size * epsilon`` (and ``size * delta``) together. ``rng``: ``None`` for secure noise; a
    seed is for tests and teaching only (recorded as ``seeded=True``). The release has
    ``scale=None``: its noise scale is private.

    ``global_sensitivity`` (public, ``>= bound``): the noise scale ``c·GS/ε`` is checked
    before the budget, so every ``bound <= GS`` can be sampled and no refusal depends on the
    private bound. Without it the scale ``c·bound/ε`` is checked after the debit (a refusal
    there, for a scale beyond ``2**50``, has been paid for and tells nothing for free).

    Examples
    --------
    >>> rel = smooth_mechanism(100, 2.0, epsilon=1.0, delta=1e-6, rng=5)
    >>> rel.mechanism, rel.delta, rel.noise, rel.scale
    ('smooth', 1e-06, 'discrete_laplace', None)
    """
    eps, d = check_epsilon(epsilon), check_delta(delta)
    smooth_beta(eps, d)  # an ε outside the proofs (too small) is refused before the budget
    count = 1 if size is None else check_positive_int(size, "size")
    public = []
    if global_sensitivity is not None and int(global_sensitivity) > 0:
        public = [(6 if d == 0 else 2) * Fraction(int(global_sensitivity)) / exact_epsilon(eps)]
    charge = open_charge(
        smooth_cost(eps, d, count), budget, mechanism=mechanism, note=note, scales=public
    )
    x, s = check_value(value), _bound(bound)
    src = get_source(rng)
    charge.debit()
    scale = smooth_scale(s, eps, d)
    noise = _noise(src, count, scale, d)
    name = "discrete_cauchy" if d == 0 else "discrete_laplace"
    return noisy_release(charge, x, noise, size, src.seeded, name, metadata)
