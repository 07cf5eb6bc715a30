"""Seeded synthetic graphs for tests and benchmarks (internal; not noise, not private)."""

from __future__ import annotations

import numpy as np


def chung_lu_edges(
    n: int, m: int, *, exponent: float = 2.5, offset: float = 100.0, seed: int = 0
) -> np.ndarray:
    """``m`` distinct edges of a Chung–Lu graph with power-law expected degrees, vectorised.

    Node ``i`` gets weight ``(i + offset) ** (-1 / (exponent - 1))`` (``offset`` caps the hubs);
    endpoints are drawn independently in proportion to the weights, self-loops and repeats are
    discarded, and rounds repeat until ``m`` distinct edges exist; a seeded random subset of
    exactly ``m`` is returned as an int64 array of shape (m, 2) with ``u < v``.

    Examples
    --------
    >>> e = chung_lu_edges(1000, 5000, seed=1)
    >>> e.shape, bool((e[:, 0] < e[:, 1]).all())
    ((5000, 2), True)
    """
    if m > n * (n - 1) // 4:
        raise ValueError(f"m={m} is too dense for n={n}; use m <= n(n-1)/4")
    gen = np.random.default_rng(seed)
    cdf = np.cumsum((np.arange(n) + offset) ** (-1.0 / (exponent - 1.0)))
    cdf /= cdf[-1]
    keys = np.zeros(0, dtype=np.int64)
    while keys.size < m:
        draw = int(1.1 * (m - keys.size)) + 16
        u = np.minimum(np.searchsorted(cdf, gen.random(draw)), n - 1)
        v = np.minimum(np.searchsorted(cdf, gen.random(draw)), n - 1)
        lo, hi = np.minimum(u, v), np.maximum(u, v)
        keys = np.union1d(keys, (lo * n + hi)[lo != hi])
    keys = keys[np.sort(gen.choice(keys.size, size=m, replace=False))]
    return np.column_stack([keys // n, keys % n])
