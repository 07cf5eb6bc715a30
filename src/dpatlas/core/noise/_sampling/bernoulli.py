"""Exact Bernoulli(exp(-γ)) for real γ >= 0 known as a float estimate plus an exact rational.

Callers pass ``est`` (float64) with ``|est - γ| <= 2**-50 γ`` (true of a few IEEE operations
on exact inputs: each of ``+ - * /`` is correctly rounded, so each adds at most ``2**-53``) and
``exact(i)``, the exact rational ``γ_i`` (a :class:`~fractions.Fraction`), used only in rare
ambiguous cases.

Algorithm (Canonne–Kamath–Steinke 2020, Algorithm 1 and its extension to γ > 1):
``exp(-γ) = exp(-1)**k · exp(-(γ - k))`` for an integer ``0 <= k <= γ``. The first factor is
the event ``V >= k`` for ``V`` with ``P(V >= v) = exp(-v)`` (a count of Bernoulli(exp(-1))
successes, sampled exactly; it stops at the first failure, so large γ cost nothing). The rest
``r = γ - k`` is split into ``p`` equal pieces ``r/p <= 1`` and each piece runs Algorithm 1:
``K = 1; while Bernoulli(r/(pK)): K += 1``; the piece succeeds iff ``K`` is odd.

Every Bernoulli(q) compares a uniform real ``v`` with ``q``: one 64-bit word ``w`` settles it when
``w`` lies below ``floor(2**64 (est - err))`` or at/above ``ceil(2**64 (est + err))``; otherwise
(probability about ``2**-47``) the exact rational is compared with ``w`` and further words.
Below ``2**-64`` only the absolute error matters (no True is decided from the estimate
and False only for ``w >= 1``), so underflowing intermediates are harmless. So the output is
exactly Bernoulli(exp(-γ)). Only ``est = inf`` (γ > 1.7e308) is decided
without drawing: it returns False, whose true probability is below ``exp(-10**308)``.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import numpy as np

from dpatlas.core.noise._sampling.dlap import _geometric_exp_neg_one
from dpatlas.core.rng import RandomSource

__all__ = ["bernoulli_exp_neg", "bernoulli_fraction"]

Exact = Callable[[int], Fraction]
_TWO64 = 2.0**64
_TOP = np.nextafter(_TWO64, 0.0)


def _exact_below(src: RandomSource, w: int, q: Fraction) -> bool:
    """Is ``v < q`` for ``v = (w + further words) / 2**64``? Draws words until decided."""
    v, bits = w, 64
    while True:
        if Fraction(v + 1, 1 << bits) <= q:
            return True
        if Fraction(v, 1 << bits) >= q:
            return False
        v, bits = (v << 64) | int(src.words(1)[0]), bits + 64


def bernoulli_fraction(
    src: RandomSource, est: np.ndarray, err: np.ndarray, exact: Exact
) -> np.ndarray:
    """Exact Bernoulli(q_i) for ``q_i = exact(i)`` in [0, 1] with ``|est_i - q_i| <= err_i``."""
    slack = np.abs(est)
    slack *= 2.0**-51
    slack += err
    w = src.words(est.size)
    low = est - slack  # in place from here: the same values as the plain expressions
    low *= _TWO64
    np.clip(low, 0.0, _TOP, out=low)
    high = est + slack
    high *= _TWO64
    np.ceil(high, out=high)
    np.maximum(high, 1.0, out=high)
    out = w < low.astype(np.uint64)
    decided = high < _TWO64
    np.minimum(high, _TOP, out=high)
    decided &= w >= high.astype(np.uint64)
    decided |= out
    for i in np.flatnonzero(~decided):
        out[i] = _exact_below(src, int(w[i]), exact(int(i)))
    return out


def _pieces_succeed(
    src: RandomSource, est: np.ndarray, err: np.ndarray, exact: Exact
) -> np.ndarray:
    """Algorithm 1 for ``γ_i = exact(i)`` in [0, 1]: True with probability ``exp(-γ_i)``."""
    odd = np.ones(est.size, dtype=bool)  # the piece's final K is odd
    live = np.flatnonzero(bernoulli_fraction(src, est, err, exact))  # K = 1: γ / 1
    k = 2  # every piece still running is at the same K
    while live.size:

        def step(i: int, sub: np.ndarray = live, k: int = k) -> Fraction:
            return exact(int(sub[i])) / k

        hit = bernoulli_fraction(src, est[live] / k, err[live] / k, step)
        if not k & 1:  # a piece stopping at an even K fails (the others are still True)
            odd[live] = hit
        live = np.compress(hit, live)
        k += 1
    return odd


def bernoulli_exp_neg(src: RandomSource, est: np.ndarray, exact: Exact) -> np.ndarray:
    """Exact Bernoulli(exp(-γ_i)) for ``γ_i = exact(i) >= 0``; ``est`` within ``2**-50`` relative.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from dpatlas.core.rng import get_source
    >>> g = np.full(100_000, 0.5)
    >>> hits = bernoulli_exp_neg(get_source(0), g, lambda i: Fraction(1, 2))
    >>> abs(float(hits.mean()) - 0.6065) < 0.01  # exp(-0.5) = 0.6065
    True
    """
    est = np.asarray(est, dtype=np.float64)
    out = np.isfinite(est)
    finite = bool(out.all())
    k = np.floor((est if finite else np.where(out, est, 0.0)) * (1 - 2.0**-49))
    first = np.flatnonzero(k >= 1 if finite else out & (k >= 1))
    if first.size:
        out[first] = _geometric_exp_neg_one(src, first.size) >= k[first]
    rest = np.flatnonzero(out)
    if rest.size:
        every = rest.size == est.size  # then est[rest] is est: skip the copies
        r_gamma = est if every else est[rest]
        r_est = r_gamma - (k if every else k[rest])
        r_err = r_gamma * 2.0**-49 + r_est * 2.0**-52
        total = r_est + r_err

        def remainder(j: int) -> Fraction:
            return exact(int(rest[j])) - int(k[rest[j]])

        if total.max() <= 1.0:  # the usual case: one piece each, nothing to repeat or join
            out[rest] = _pieces_succeed(src, r_est, r_err, remainder)
        else:
            parts = np.maximum(np.ceil(total), 1.0).astype(np.int64)
            out[rest] = _in_pieces(src, r_est, r_err, remainder, parts)
    return out


def _in_pieces(
    src: RandomSource, est: np.ndarray, err: np.ndarray, exact: Exact, parts: np.ndarray
) -> np.ndarray:
    """Bernoulli(exp(-γ_i)) for ``γ_i = exact(i)`` as ``parts_i`` pieces ``γ_i / parts_i <= 1``.

    With every ``parts_i = 1`` it draws what :func:`_pieces_succeed` draws on ``est`` itself.
    """
    row = np.repeat(np.arange(est.size), parts)
    each = np.repeat(parts, parts).astype(np.float64)

    def piece(i: int) -> Fraction:
        j = int(row[i])
        return exact(j) / int(parts[j])

    ok = _pieces_succeed(src, est[row] / each, err[row] / each, piece)
    return np.logical_and.reduceat(ok, np.cumsum(parts) - parts)
