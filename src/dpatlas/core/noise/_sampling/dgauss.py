"""Exact discrete Gaussian sampler (Canonne–Kamath–Steinke 2020, Algorithm 3), vectorised.

``P(Y = y) ∝ exp(-y² / (2σ²))`` on the integers, for an integer ``σ² >= 1``. With
``t = floor(σ) + 1``, propose ``Y`` from the discrete Laplace of scale ``t`` and accept it with
probability ``exp(-(|Y| - σ²/t)² / (2σ²)) = exp(-(|Y|·t - σ²)² / (2σ²t²))``; the accepted values
have exactly the discrete Gaussian law (CKS 2020, Thm. 18 / Algorithm 3). Both steps are exact:
the proposal by :func:`~dpatlas.core.noise.discrete_laplace.sample_discrete_laplace` and the
acceptance by :func:`~dpatlas.core.noise._sampling.bernoulli.bernoulli_exp_neg` with the exact rational
exponent (its float estimate is one squaring and one division of exact integers, so it is
within ``2**-50`` relative as required).
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from dpatlas.core.noise._sampling.bernoulli import bernoulli_exp_neg
from dpatlas.core.noise._sampling.dlap import sample_discrete_laplace
from dpatlas.core.rng import RandomSource

__all__ = ["sample_discrete_gaussian"]


def sample_discrete_gaussian(src: RandomSource, size: int, sigma2: int) -> np.ndarray:
    """Draw ``size`` exact samples of the discrete Gaussian with integer variance parameter ``sigma2``.

    Examples
    --------
    >>> from dpatlas.core.rng import get_source
    >>> y = sample_discrete_gaussian(get_source(0), 100_000, 9)
    >>> y.dtype, abs(float(y.var()) - 9.0) < 0.2
    (dtype('int64'), True)
    """
    if not (isinstance(sigma2, int) and 1 <= sigma2 <= 2**56):
        raise ValueError(f"sigma2 must be an integer in [1, 2**56], got {sigma2!r}")
    t = math.isqrt(sigma2) + 1
    denom = 2 * sigma2 * t * t
    limit = (2**62) // t
    out = np.empty(size, dtype=np.int64)
    filled = 0
    while filled < size:
        m = int((size - filled) * 1.5) + 16
        y = sample_discrete_laplace(src, m, (t, 1))
        a = np.abs(y)
        small = a < limit
        num = np.where(small, a, 0) * t - sigma2
        exact = [int(v) * t - sigma2 for v in a] if not small.all() else None
        est = num.astype(np.float64) ** 2 / float(denom)
        if exact is not None:
            est = np.asarray([float(v) ** 2 / float(denom) for v in exact])

        def gamma(i: int, num: np.ndarray = num, exact: list[int] | None = exact) -> Fraction:
            n = exact[i] if exact is not None else int(num[i])
            return Fraction(n * n, denom)

        keep = y[bernoulli_exp_neg(src, est, gamma)]
        take = min(keep.size, size - filled)
        out[filled : filled + take] = keep[:take]
        filled += take
    return out
