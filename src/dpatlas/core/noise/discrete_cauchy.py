"""Discrete Cauchy distribution ``P(K = k) ∝ 1 / (1 + (k/b)²)`` on the integers, sampled exactly.

The noise of the pure-ε smooth-sensitivity mechanism (:mod:`dpatlas.core.noise.local.smooth`, which proves
its privacy). The normaliser is ``Σ_k 1/(1 + (k/b)²) = π b coth(π b)``. Heavy tails need exact
arithmetic far out: proposals and acceptance tests are integers (uniform words, exact rational
comparisons), floats only decide acceptances that are more than ``2**-40`` away from the
threshold, and proposals too large for 64 bits take a Python-integer path.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpatlas.core.noise.local.ladder import CLIP
from dpatlas.core.rng import RandomSource

__all__ = ["discrete_cauchy_pmf", "sample_discrete_cauchy"]

_TOL = 2.0**-40
"""Float decisions of the acceptance test within this margin go to exact arithmetic."""


def discrete_cauchy_pmf(k: Any, scale: tuple[int, int]) -> np.ndarray:
    """``P(K = k) = 1 / (π b coth(π b) (1 + (k/b)²))`` for ``b = t/s`` (exact normaliser).

    Examples
    --------
    >>> float(discrete_cauchy_pmf(np.arange(-10**6, 10**6 + 1), (3, 1)).sum()) > 0.9999
    True
    """
    b = scale[0] / scale[1]
    z = np.asarray(k, dtype=np.float64) / b
    return 1.0 / ((1.0 + z * z) * math.pi * b / math.tanh(math.pi * b))


def _trailing_zeros(src: RandomSource, size: int) -> np.ndarray:
    """``j`` with ``P(j) = 2^-(j+1)``: the trailing zero bits of uniform words."""
    j = np.zeros(size, dtype=np.int64)
    live = np.arange(size)
    while live.size:
        w = src.words(live.size)
        low, zero = w & (np.uint64(0) - w), w == 0
        j[live[~zero]] += np.frexp(low[~zero].astype(np.float64))[1] - 1
        j[live[zero]] += 64
        live = live[zero]
    return j


def _below_int(src: RandomSource, n: int) -> int:
    """Exact uniform integer in ``[0, n)`` for a Python int ``n`` of any size."""
    bits = (n - 1).bit_length()
    words = max(1, (bits + 63) // 64)
    while True:
        v = int.from_bytes(src.words(words).tobytes(), "little") >> (64 * words - bits)
        if v < n:
            return v


def _accept(src: RandomSource, u: int, j: int, x: int, ts: tuple[int, int]) -> bool:
    """Exactly: is ``U < 2^{2j-1} / (1 + (x s/t)²)`` for ``U`` uniform on [0, 1) whose first 64
    bits are ``u``? With ``num/den`` that ratio, ``U < num/den`` iff ``V den < r`` for the
    remaining bits ``V`` and ``r = num 2^64 - u den``; refine ``r`` 64 bits at a time."""
    t, s = ts
    num, den = t * t << 2 * j, 2 * (t * t + s * s * x * x)
    r = num * 2**64 - u * den
    while 0 < r < den:
        r = r * 2**64 - int(src.words(1)[0]) * den
    return r >= den


def sample_discrete_cauchy(source: RandomSource, size: int, scale: tuple[int, int]) -> np.ndarray:
    """Draw ``size`` exact samples with ``P(k) ∝ 1/(1 + (k/b)²)``, ``b = t/s``; int64.

    Rejection: ``|k|`` is proposed from block ``j`` (``P(j) = 2^-(j+1)``) of width ``W 2^j``
    starting at ``W (2^j - 1)``, ``W = ceil(b)``, and accepted with probability
    ``2^{2j-1} / (1 + (x/b)²) <= 1`` (integers; floats decide only outside a ``2**-40``
    margin, exact rationals inside). Then a fair sign, redrawn for ``-0``. Magnitudes are
    capped at ``2**62`` (see :func:`~dpatlas.core.noise.local.ladder.clamp_release`).

    Examples
    --------
    >>> from dpatlas.core.rng import get_source
    >>> z = sample_discrete_cauchy(get_source(0), 100_000, (10, 1))
    >>> round(float(np.median(np.abs(z))) / 10, 1)
    1.0
    """
    t, s = scale
    w = -(-t // s)
    out, filled = np.empty(size, dtype=np.int64), 0
    while filled < size:
        j = _trailing_zeros(source, int((size - filled) * 2.7) + 16)
        fast = j + 1 + w.bit_length() <= 62
        jf = j[fast]
        x = w * ((1 << jf) - 1) + source.below((w << jf).astype(np.uint64)).astype(np.int64)
        accept = np.zeros(jf.size, dtype=bool)
        u = source.words(jf.size)
        a = np.ldexp(1.0, 2 * jf - 1) / (1.0 + (x * (s / t)) ** 2)
        uf = u.astype(np.float64) * 2.0**-64
        accept[uf < a - _TOL] = True
        for i in np.flatnonzero(np.abs(uf - a) <= _TOL).tolist():
            accept[i] = _accept(source, int(u[i]), int(jf[i]), int(x[i]), scale)
        mag = np.full(j.size, -1, dtype=np.int64)
        mag[np.flatnonzero(fast)[accept]] = x[accept]
        for i in np.flatnonzero(~fast).tolist():
            ji = int(j[i])
            xi = w * ((1 << ji) - 1) + _below_int(source, w << ji)
            if _accept(source, int(source.words(1)[0]), ji, xi, scale):
                mag[i] = min(xi, CLIP)
        mag = mag[mag >= 0]  # proposal order kept: truncating below is then unbiased
        neg = source.bits(mag.size)
        z = np.where(neg, -mag, mag)[~(neg & (mag == 0))][: size - filled]
        out[filled : filled + z.size] = z
        filled += z.size
    return out
