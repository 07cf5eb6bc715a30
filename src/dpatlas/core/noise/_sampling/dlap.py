"""Exact discrete Laplace sampling: the scale as a fraction, CKS 2020 Algorithms 1 and 2, inversion.

The sampler of :mod:`dpatlas.core.noise.discrete_laplace` (whose docstring states what is exact
and why), also the proposal of the discrete Gaussian (:mod:`.dgauss`) and the ``exp(-1)``
geometric of the exact Bernoulli (:mod:`.bernoulli`).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dpatlas.core.noise._sampling.dlap_table import MAX_TABLE_SCALE, sample_table
from dpatlas.core.rng import RandomSource

__all__ = ["rational_scale", "sample_discrete_laplace"]

_BITS = 40
_TABLE_MIN_SIZE = 64


def rational_scale(scale: float | Fraction) -> tuple[int, int]:
    """Return integers ``(t, s)`` with ``t/s >= scale``, ``t < 2**41``, ``s <= 2**40``.

    Exact when ``scale`` is such a fraction already (e.g. ``1/0.5 = 2/1``).

    Examples
    --------
    >>> rational_scale(Fraction(2, 1))
    (2, 1)
    >>> t, s = rational_scale(1 / 0.1)
    >>> t / s >= 10.0, t < 2**41
    (True, True)
    """
    exact = Fraction(scale)
    if exact <= 0:
        raise ValueError(f"scale must be > 0, got {scale!r}")
    if exact.numerator < 2**_BITS and exact.denominator <= 2**_BITS:
        return exact.numerator, exact.denominator
    if exact >= 2 ** (_BITS + 10):
        raise ValueError(
            f"noise scale sensitivity/epsilon is about 2**{_log2(exact)}, too large (> 2**50) to "
            "sample exactly; use a larger epsilon or bound the sensitivity"
        )
    k = min(max(_BITS - _log2(exact) - 1, 0), _BITS)
    s = 2**k
    t = math.ceil(exact * s)
    g = math.gcd(t, s)
    return t // g, s // g


def _log2(x: Fraction) -> int:
    """An integer within one of log2(x), without converting x to a float (no overflow)."""
    return x.numerator.bit_length() - x.denominator.bit_length()


def _bernoulli_exp_neg(src: RandomSource, num: np.ndarray, den: int) -> np.ndarray:
    """Exact Bernoulli(exp(-num/den)) for ``0 <= num <= den`` (CKS 2020, Algorithm 1).

    Every coin still running is at the same step ``K``, so each round draws ``below(den * K)``
    for all of them at once (the words a per-coin bound array would draw, in the same order).
    """
    odd = np.ones(num.size, dtype=bool)  # the coin's final K is odd
    live = np.arange(num.size)
    k = 1
    if den == 1:  # gamma is 0 or 1: the first Bernoulli(gamma / 1) needs no randomness
        live = np.flatnonzero(num == 1)
        k = 2
    while live.size:
        hit = src.below(den * k, size=live.size) < num[live]
        if not k & 1:  # a coin stopping at an even K fails (the others are still True)
            odd[live] = hit
        live = np.compress(hit, live)  # (x[mask] is several times slower on random masks)
        k += 1
    return odd


def _geometric_exp_neg_one(src: RandomSource, size: int) -> np.ndarray:
    """Exact V with P(V >= v) = exp(-v): count Bernoulli(exp(-1)) successes before a failure.

    Each Bernoulli(exp(-1)) is Algorithm 1 of CKS 2020 at ``γ = 1``: ``K`` runs from 2 and
    grows while ``below(K) == 0``; the coin succeeds iff the final ``K`` is odd. The rounds
    draw exactly the words :func:`_bernoulli_exp_neg` draws for ``num = 1, den = 1``.
    """
    v = np.zeros(size, dtype=np.uint64)
    live = np.arange(size)
    while live.size:
        ok = np.zeros(live.size, dtype=bool)
        hit = _below_is_zero(src, 2, live.size)
        going = np.flatnonzero(hit)  # K = 2 stops (fails) where there is no hit
        k = 3
        while going.size:
            hit = _below_is_zero(src, k, going.size)
            if k & 1:  # a coin stopping at an odd K succeeds (the others are still False)
                ok[going] = ~hit
            going = np.compress(hit, going)
            k += 1
        live = np.compress(ok, live)
        v[live] += np.uint64(1)
    return v


def _below_is_zero(src: RandomSource, k: int, size: int) -> np.ndarray:
    """``src.below(k, size=size) == 0``, from the same words, without a division.

    The words are drawn and rejected as :meth:`~dpatlas.core.rng.RandomSource.below` does
    (``w >= floor((2**64 - 1) / k) * k`` is drawn again); an accepted ``w`` is ``0`` modulo
    ``k = 2**a m`` (``m`` odd) iff its low ``a`` bits are 0 and ``m`` divides ``x = w >> a``,
    i.e. ``x · m^-1 mod 2**64 <= floor((2**64 - 1) / m)`` (multiplying by the inverse maps the
    multiples ``j m`` of ``m`` below ``2**64`` onto ``j``, and is one-to-one).
    """
    limit = np.uint64((((1 << 64) - 1) // k) * k)
    w = src.words(size)
    bad = np.flatnonzero(w >= limit)
    while bad.size:
        redo = src.words(bad.size)
        ok = redo < limit
        w[bad[ok]] = redo[ok]
        bad = bad[~ok]
    a = (k & -k).bit_length() - 1
    m = k >> a
    hit = (w & np.uint64((1 << a) - 1)) == 0
    if m > 1:
        inverse, top = np.uint64(pow(m, -1, 1 << 64)), np.uint64(((1 << 64) - 1) // m)
        hit &= ((w >> np.uint64(a)) * inverse) <= top
    return hit


def sample_discrete_laplace(
    source: RandomSource, size: int, scale: float | Fraction | tuple[int, int]
) -> np.ndarray:
    """Draw ``size`` exact samples with ``P(k) ∝ exp(-|k| / scale)`` (CKS 2020, Algorithm 2).

    ``scale`` is a number (rounded up to a fraction by :func:`rational_scale`) or a pair
    ``(t, s)`` meaning ``t/s`` exactly.

    Examples
    --------
    >>> from dpatlas.core.rng import get_source
    >>> z = sample_discrete_laplace(get_source(1), 100_000, 2.0)
    >>> z.dtype, abs(float(z.mean())) < 0.05
    (dtype('int64'), True)
    """
    t, s = scale if isinstance(scale, tuple) else rational_scale(scale)
    if size >= _TABLE_MIN_SIZE and t <= MAX_TABLE_SCALE * s:
        return sample_table(source, t, s, size)
    return _sample_cks(source, size, t, s)


def _sample_cks(source: RandomSource, size: int, t: int, s: int) -> np.ndarray:
    """CKS 2020 Algorithm 2, vectorised over batches (any scale; used for large scales)."""
    out = np.empty(size, dtype=np.int64)
    filled = 0
    p_keep = (1 - math.exp(-1)) / (t * -math.expm1(-1 / t)) * (1 + math.exp(-s / t)) / 2
    while filled < size:
        m = int((size - filled) / p_keep * 1.02) + 64
        u = source.below(t, size=m)
        u = u[_bernoulli_exp_neg(source, u, t)]
        y = ((u + np.uint64(t) * _geometric_exp_neg_one(source, u.size)) // np.uint64(s)).astype(
            np.int64
        )
        neg = source.bits(y.size)
        z = np.where(neg, -y, y)[~(neg & (y == 0))]
        take = min(z.size, size - filled)
        out[filled : filled + take] = z[:take]
        filled += take
    return out
