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
    slack = err + np.abs(est) * 2.0**-51
    w = src.words(est.size)
    lo = np.clip((est - slack) * _TWO64, 0.0, _TOP).astype(np.uint64)
    hi_f = np.maximum(np.ceil((est + slack) * _TWO64), 1.0)
    out = w < lo
    decided = out | ((hi_f < _TWO64) & (w >= np.minimum(hi_f, _TOP).astype(np.uint64)))
    for i in np.flatnonzero(~decided):
        out[i] = _exact_below(src, int(w[i]), exact(int(i)))
    return out


def _pieces_succeed(
    src: RandomSource, est: np.ndarray, err: np.ndarray, exact: Exact
) -> np.ndarray:
    """Algorithm 1 for ``γ_i = exact(i)`` in [0, 1]: True with probability ``exp(-γ_i)``."""
    k = np.ones(est.size, dtype=np.int64)
    live = np.arange(est.size)
    while live.size:
        kk = k[live].astype(np.float64)

        def step(i: int, sub: np.ndarray = live) -> Fraction:
            return exact(int(sub[i])) / int(k[sub[i]])

        hit = bernoulli_fraction(src, est[live] / kk, err[live] / kk, step)
        live = live[hit]
        k[live] += 1
    return (k & 1).astype(bool)


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
    k = np.floor(np.where(out, est, 0.0) * (1 - 2.0**-49))
    first = np.flatnonzero(out & (k >= 1))
    if first.size:
        out[first] = _geometric_exp_neg_one(src, first.size) >= k[first]
    rest = np.flatnonzero(out)
    if rest.size:
        r_est = est[rest] - k[rest]
        r_err = est[rest] * 2.0**-49 + r_est * 2.0**-52
        parts = np.maximum(np.ceil(r_est + r_err), 1.0).astype(np.int64)
        row = np.repeat(np.arange(rest.size), parts)
        each = np.repeat(parts, parts).astype(np.float64)

        def piece(i: int) -> Fraction:
            j = int(row[i])
            return (exact(int(rest[j])) - int(k[rest[j]])) / int(parts[j])

        ok = _pieces_succeed(src, r_est[row] / each, r_err[row] / each, piece)
        out[rest] = np.logical_and.reduceat(ok, np.cumsum(parts) - parts)
    return out
