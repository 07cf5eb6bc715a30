"""Fast exact discrete Laplace for moderate scales: inversion on a table plus an exact tail.

For ``Z`` with ``P(Z = k) = (1 - p) / (1 + p) * p**|k|`` and ``p = exp(-s/t)``, the cumulative
distribution is ``P(Z <= k) = p**(-k) / (1 + p)`` for ``k < 0`` and ``1 - p**(k + 1) / (1 + p)``
for ``k >= 0``. The table holds these thresholds for ``k = -M-1, ..., M`` (``M`` about
``8 ln 2 * t/s``, so the two tails together have probability about ``2**-8``) and
:mod:`dpatlas.core.noise._sampling.inversion` samples the index exactly. Index ``0`` means ``Z <= -M-1`` and
index ``2M+2`` means ``Z >= M+1``; by memorylessness ``Z`` is then ``∓(M + 1 + G)`` with ``G``
geometric, ``P(G = g) = (1 - p) p**g``, which is exactly a fresh ``Z'`` conditioned on
``Z' >= 0`` (``P(Z' >= 0) = 1 / (1 + p)``). The thresholds are computed with decimal interval
arithmetic (directed rounding), so every ``floor(2**64 C)`` in the table is certain.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_FLOOR, Context, Decimal
from fractions import Fraction
from functools import lru_cache

import numpy as np

from dpatlas.core.noise._sampling.inversion import (
    Inversion,
    build_inversion,
    context,
    exp_bounds,
    exp_decimals,
    sample_index,
)
from dpatlas.core.rng import RandomSource

__all__ = ["MAX_TABLE_SCALE", "dlap_inversion", "geometric", "sample_table"]

MAX_TABLE_SCALE = 512
_TAIL = 8 * math.log(2)
_DIGITS = 45


def _tail_size(t: int, s: int) -> int:
    return max(1, math.ceil(_TAIL * t / s))


def _bounds(t: int, s: int, m_tail: int):
    x = Fraction(s, t)

    def bounds(j: int, bits: int) -> tuple[Fraction, Fraction]:
        k = j - (m_tail + 1)
        m = -k if k < 0 else k + 1
        digits = math.ceil(bits * math.log10(2)) + 6
        e_lo, e_hi = exp_bounds(-m * x, digits)
        p_lo, p_hi = exp_bounds(-x, digits)
        q_lo, q_hi = e_lo / (1 + p_hi), e_hi / (1 + p_lo)
        return (q_lo, q_hi) if k < 0 else (1 - q_hi, 1 - q_lo)

    return bounds


def _floors(t: int, s: int, m_tail: int) -> list[int | None]:
    """``floor(2**64 C_j)`` from directed-rounding decimal products (None if undecided).

    ``p = exp(-s/t)`` is bounded as :func:`~.inversion.exp_bounds` bounds it, but kept in
    decimal: its bounds as fractions have ``s/t · log2(10)``-bit denominators at large
    ``s/t`` (the ``(1 - p^m)``-side thresholds of ε = 10**6 took seconds of big-integer
    arithmetic). Every ``C_j < 1`` (``p > 0``), so ``floor(2**64 C_j) <= 2**64 - 1``
    whatever the upper bound's rounding says.
    """
    down, up = context(_DIGITS, ROUND_FLOOR), context(_DIGITS, ROUND_CEILING)
    p_lo, p_hi = _exp_neg_bounds(Fraction(s, t), _DIGITS + 5, down, up)
    one_lo, one_hi = down.add(1, p_lo), up.add(1, p_hi)
    two64 = Decimal(1 << 64)
    pm_lo, pm_hi = Decimal(1), Decimal(1)
    q: list[tuple[Decimal, Decimal]] = []
    for _ in range(m_tail + 1):
        pm_lo, pm_hi = down.multiply(pm_lo, p_lo), up.multiply(pm_hi, p_hi)
        q.append((down.divide(pm_lo, one_hi), up.divide(pm_hi, one_lo)))
    cdf = [q[m - 1] for m in range(m_tail + 1, 0, -1)]
    cdf += [(down.subtract(1, hi), up.subtract(1, lo)) for lo, hi in q]
    out: list[int | None] = []
    for lo, hi in cdf:
        a = int(down.multiply(lo, two64))
        b = min(int(down.multiply(hi, two64)), (1 << 64) - 1)
        out.append(a if a == b else None)
    return out


def _exp_neg_bounds(
    x: Fraction, digits: int, down: Context, up: Context
) -> tuple[Decimal, Decimal]:
    """``exp(-x)`` bounded as :func:`~.inversion.exp_bounds` does at ``digits``, then rounded
    outwards by ``down`` / ``up`` (decimal throughout: no big fractions)."""
    e_lo, e_hi = exp_decimals(-x, digits)
    nines = Decimal((0, (9,) * (digits - 2), -(digits - 2)))  # 1 - 10**(2 - digits), exactly
    ones = Decimal((0, (1,) + (0,) * (digits - 3) + (1,), -(digits - 2)))  # 1 + 10**(2 - digits)
    return down.multiply(e_lo, nines), up.multiply(e_hi, ones)


@lru_cache(maxsize=32)
def dlap_inversion(t: int, s: int) -> tuple[Inversion, int]:
    """The inversion sampler for scale ``t/s`` and its tail cut ``M`` (cached per scale)."""
    m_tail = _tail_size(t, s)
    inv = build_inversion(
        _bounds(t, s, m_tail),
        2 * m_tail + 2,
        floors=_floors(t, s, m_tail),
        flag_low=True,
        flag_high=True,
    )
    return inv, m_tail


def geometric(src: RandomSource, t: int, s: int, n: int) -> np.ndarray:
    """``n`` exact draws with ``P(G = g) = (1 - p) p**g``, ``p = exp(-s/t)`` (``t/s <= 512``)."""
    out = np.empty(n, dtype=np.int64)
    filled = 0
    while filled < n:
        z = sample_table(src, t, s, 2 * (n - filled) + 8)
        z = z[z >= 0][: n - filled]
        out[filled : filled + z.size] = z
        filled += z.size
    return out


def sample_table(src: RandomSource, t: int, s: int, size: int) -> np.ndarray:
    """``size`` exact discrete Laplace draws of scale ``t/s`` (``t/s <= MAX_TABLE_SCALE``)."""
    inv, m_tail = dlap_inversion(t, s)
    z, flagged = sample_index(src, inv, size)
    z -= m_tail + 1
    if flagged.size:
        tail = flagged[np.abs(z[flagged]) == m_tail + 1]
        if tail.size:
            z[tail] += np.sign(z[tail]) * geometric(src, t, s, tail.size)
    return z
