"""Exact sampling by inversion: 64-bit words against fixed-point CDF bounds.

A distribution on ``{0, ..., K}`` is given by its cumulative thresholds
``C_0 <= C_1 <= ... <= C_{K-1}`` (``C_j = P(X <= j)``, real numbers in ``[0, 1]``). Inversion
draws a uniform real ``u`` in ``[0, 1)`` and returns ``X = #{j : C_j <= u}``, which has exactly
that distribution. We never hold ``u`` or ``C_j`` in full: ``u = (w + v) / 2**64`` where ``w`` is
one uniform 64-bit word and ``v`` in ``[0, 1)`` is made of further words drawn only if needed,
and ``T_j = floor(2**64 C_j)`` is computed once with rigorous interval arithmetic. Then

* ``w < T_j`` implies ``u < (w + 1) / 2**64 <= C_j``;
* ``w > T_j`` implies ``u >= w / 2**64 >= (T_j + 1) / 2**64 > C_j``;
* ``w == T_j`` (probability ``2**-64`` per threshold) is decided exactly by comparing ``v`` with
  ``2**64 C_j - T_j``, drawing words of ``v`` and refining ``C_j`` until they separate, which
  happens with probability 1 (it never needs more than a few words in practice).

So every comparison is the exact comparison ``u < C_j`` and the output distribution is exact.
A guide table on the top bits of ``w`` answers most draws with one lookup: a bucket of words
that contains no ``T_j`` has a single answer; draws in the few buckets that contain a threshold
(and in buckets the caller marks, such as tails) are "flagged" and finished with a binary search
and, when ``w`` equals a threshold, the exact comparison above.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from decimal import ROUND_CEILING, ROUND_FLOOR, ROUND_HALF_EVEN, Context, Decimal
from fractions import Fraction

import numpy as np

from dpatlas.core.rng import RandomSource

__all__ = ["Inversion", "build_inversion", "exp_bounds", "floor_scaled", "sample_index"]

Bounds = Callable[[int, int], tuple[Fraction, Fraction]]
_FLAG = np.int64(1 << 62)
_TWO64 = 1 << 64


def context(digits: int, rounding: str = ROUND_HALF_EVEN) -> Context:
    """A decimal context with ``digits`` significant digits and an unbounded exponent range."""
    return Context(prec=digits, rounding=rounding, Emin=-(10**15), Emax=10**15)


def exp_bounds(x: Fraction, digits: int) -> tuple[Fraction, Fraction]:
    """Rationals ``lo <= exp(x) <= hi`` with relative gap about ``10**(2 - digits)``.

    ``Decimal.exp`` is correctly rounded, so its result is within one unit in the last place;
    the argument is rounded down (up) first, and exp is increasing.
    """
    e_lo, e_hi = exp_decimals(x, digits)
    margin = Fraction(1, 10 ** (digits - 2))
    return Fraction(e_lo) * (1 - margin), Fraction(e_hi) * (1 + margin)


def exp_decimals(x: Fraction, digits: int) -> tuple[Decimal, Decimal]:
    """``exp`` of ``x`` rounded down and up at ``digits``: each within one unit in the last
    place of the exact value at its end, so the margin ``10**(2 - digits)`` of
    :func:`exp_bounds` makes them bounds."""
    num, den = Decimal(x.numerator), Decimal(x.denominator)
    ctx = context(digits)
    return (
        ctx.exp(context(digits, ROUND_FLOOR).divide(num, den)),
        ctx.exp(context(digits, ROUND_CEILING).divide(num, den)),
    )


def floor_scaled(lo: Fraction | Decimal, hi: Fraction | Decimal) -> int | None:
    """``floor(2**64 c)`` for every ``c`` in ``[lo, hi]``, or None when that is not one integer."""
    a = math.floor(Fraction(lo) * _TWO64)
    b = math.floor(Fraction(hi) * _TWO64)
    return min(max(a, 0), _TWO64 - 1) if a == b else None


@dataclass(frozen=True)
class Inversion:
    """Precomputed thresholds ``T_j = floor(2**64 C_j)``, their exact bounds and a guide table."""

    floors: np.ndarray
    bounds: Bounds
    guide: np.ndarray
    shift: np.uint64


def build_inversion(
    bounds: Bounds,
    count: int,
    *,
    floors: Sequence[int | None] | None = None,
    flag_low: bool = False,
    flag_high: bool = False,
    guide_bits: int | None = None,
) -> Inversion:
    """Build the sampler for ``count`` thresholds; ``bounds(j, bits)`` bounds ``C_j`` to ``2**-bits``.

    ``floors`` may carry precomputed ``T_j`` (``None`` where unknown). ``flag_low`` /
    ``flag_high`` flag the outcomes ``0`` / ``count`` (e.g. tails the caller completes).
    """
    known = list(floors) if floors is not None else [None] * count
    table = []
    for j, t in enumerate(known):
        bits = 128
        while t is None:
            t = floor_scaled(*bounds(j, bits))
            bits *= 2
            if bits > 1 << 16:
                raise ArithmeticError(f"threshold {j} could not be resolved to 64 bits")
        table.append(t)
    arr = np.asarray(table, dtype=np.uint64)
    if arr.size and np.any(arr[1:] < arr[:-1]):
        raise ValueError("thresholds must be non-decreasing")
    b = guide_bits or int(np.clip(math.ceil(math.log2(count + 1)) + 6, 12, 16))
    shift = np.uint64(64 - b)
    starts = np.arange(1 << b, dtype=np.uint64) << shift
    ends = starts | np.uint64((1 << (64 - b)) - 1)
    first = np.searchsorted(arr, starts, side="right").astype(np.int64)
    mixed = np.searchsorted(arr, starts, side="left") != np.searchsorted(arr, ends, side="right")
    if flag_low:
        mixed |= first == 0
    if flag_high:
        mixed |= first == count
    return Inversion(arr, bounds, first + np.where(mixed, _FLAG, 0), shift)


def _v_below(state: list[int], f_lo: Fraction, f_hi: Fraction) -> bool | None:
    """Is ``v < f`` for ``f`` in ``[f_lo, f_hi]``? ``state = [V, r]``: v in [V/2^r, (V+1)/2^r)."""
    v, r = state
    if Fraction(v + 1, 1 << r) <= f_lo:
        return True
    if Fraction(v, 1 << r) >= f_hi:
        return False
    return None


def _resolve(src: RandomSource, inv: Inversion, w: int) -> int:
    """Exact ``#{j : C_j <= u}`` for ``u = (w + v) / 2**64`` when ``w`` equals a threshold."""
    j = int(np.searchsorted(inv.floors, np.uint64(w), side="left"))
    state = [0, 0]
    while j < inv.floors.size and int(inv.floors[j]) == w:
        bits = 128
        while True:
            lo, hi = inv.bounds(j, bits)
            below = _v_below(state, lo * _TWO64 - w, hi * _TWO64 - w)
            if below is not None:
                break
            if (hi - lo) * _TWO64 > Fraction(1, 1 << (state[1] + 2)):
                bits *= 2
            else:
                state[0] = (state[0] << 64) | int(src.words(1)[0])
                state[1] += 64
        if below:
            return j
        j += 1
    return j


def sample_index(src: RandomSource, inv: Inversion, size: int) -> tuple[np.ndarray, np.ndarray]:
    """Draw ``size`` exact outcomes in ``{0..K}``; also return the flagged positions.

    The flagged positions include every outcome the caller asked to flag (``flag_low``,
    ``flag_high``); their values are final like all others.
    """
    w = src.words(size)
    out = inv.guide[(w >> inv.shift).view(np.intp)]
    flagged = np.flatnonzero(out >= _FLAG)
    if flagged.size:
        ww = w[flagged]
        j = np.searchsorted(inv.floors, ww, side="right")
        tie = np.flatnonzero((j > 0) & (inv.floors[np.maximum(j - 1, 0)] == ww))
        for i in tie:
            j[i] = _resolve(src, inv, int(ww[i]))
        out[flagged] = j
    return out, flagged
