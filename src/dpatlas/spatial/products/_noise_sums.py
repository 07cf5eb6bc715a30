"""Upper quantiles of a sum of independent, symmetric noises: exact, or a proven bound.

:class:`NoiseSum` answers ``upper(prob)``: a ``q`` with ``P(Z_1 + ... + Z_n <= q) >= prob`` for
independent ``Z_i`` of one registered, symmetric noise law with public scales ``b_i``. Its
``method`` says how ``q`` is found:

* ``"exact"`` — discrete Laplace: the smallest such integer, from the exact distribution of the
  sum (the inverse Fourier transform of ``Π φ_b(t)``, ``φ_b(t) = (1-p)² / (1 - 2p·cos t + p²)``,
  ``p = exp(-1/b)``) on a lattice so wide that the folded tail mass is negligible; a computed
  probability must reach ``prob + 1e-10``, so floating-point error can only widen ``q``; a
  tail too small for that margin falls back to the Chernoff bound. A single term uses the
  core's closed form.
* ``"chernoff"`` — discrete Laplace sums too large for the lattice: the smallest integer ``q``
  with ``exp(-λ(q+1))·E exp(λS) <= 1 - prob``, ``λ`` the minimiser (Chernoff: ``P(S >= t) <=
  e^{-λt} E e^{λS}`` for every ``λ > 0``, so an imprecise minimiser only widens ``q``).
* ``"union bound"`` — any other law: ``q = Σ q_i`` with ``q_i`` the one-sided ``1 - (1-prob)/n``
  quantile of ``Z_i``, since ``S > Σ q_i`` needs some ``Z_i > q_i`` (Bonferroni).

For ``prob <= 1/2`` the answer is 0, valid since a symmetric sum has ``P(S <= 0) >= 1/2``.
Everything reads public scales only.
"""

from __future__ import annotations

import math
from functools import cached_property

import numpy as np

from dpatlas.core.release import noise_model

__all__ = ["MAX_LATTICE", "NoiseSum", "one_sided"]

MAX_LATTICE = 1 << 22
"""Largest lattice (points) of the exact computation; larger sums use the Chernoff bound."""

_TOLERANCE = 1e-10


def one_sided(noise: str, scale: float, prob: float) -> float:
    """Smallest ``q`` with ``P(Z <= q) >= prob``, one noise of a symmetric law (0 if prob <= 1/2).

    By symmetry ``P(Z <= q) = (1 + P(|Z| <= q)) / 2``, so ``q`` is the law's two-sided
    half-width at level ``2·prob - 1`` (for discrete Laplace the core's exact one).

    Examples
    --------
    >>> one_sided("discrete_laplace", 2.0, 0.975), one_sided("discrete_laplace", 2.0, 0.95)
    (6.0, 5.0)
    """
    if prob <= 0.5:
        return 0.0
    return float(noise_model(noise).halfwidth(float(scale), 2 * prob - 1))


class NoiseSum:
    """The sum of independent noises of law ``noise`` with public ``scales`` (one per term).

    Examples
    --------
    >>> s = NoiseSum("discrete_laplace", np.full(4, 2.0))
    >>> s.upper(0.975), s.upper(0.95), s.method
    (11.0, 9.0, 'exact')
    >>> big = NoiseSum("discrete_laplace", np.full(4, 2.0), max_lattice=64)
    >>> big.method, big.upper(0.975)
    ('chernoff', 18.0)
    """

    def __init__(self, noise: str, scales: np.ndarray, *, max_lattice: int = MAX_LATTICE) -> None:
        self.noise = noise
        self.scales = np.asarray(scales, dtype=np.float64).ravel()
        if self.scales.size and self.scales.min() == self.scales.max():  # one scale: no sort
            self._values, self._counts = self.scales[:1], np.array([self.scales.size])
        else:
            self._values, self._counts = np.unique(self.scales, return_counts=True)
        p = np.exp(-1.0 / self._values)
        self._p = p
        self.method = "exact"
        self._central: np.ndarray | None = None
        if noise != "discrete_laplace":
            self.method = "union bound" if self.scales.size > 1 else "exact"
        elif self.scales.size > 1:
            sd = math.sqrt(float((self._counts * 2 * p / (1 - p) ** 2).sum()))
            self._reach = math.ceil(20 * sd + 40 * float(self._values.max())) + 1
            self._size = 1 << math.ceil(math.log2(2 * self._reach + 2))
            if self._size > max_lattice:
                self.method = "chernoff"

    @cached_property
    def _central_probabilities(self) -> np.ndarray:
        """``P(|S| <= h)`` for ``h = 0, 1, ...`` on the exact lattice."""
        t = 2 * np.pi * np.arange(self._size // 2 + 1) / self._size
        log_phi = np.zeros(t.size)
        for pb, nb in zip(self._p, self._counts, strict=True):
            log_phi += nb * (2 * math.log1p(-pb) - np.log1p(pb * pb - 2 * pb * np.cos(t)))
        pmf = np.fft.irfft(np.exp(log_phi), n=self._size)
        return np.r_[pmf[0], pmf[0] + 2 * np.cumsum(pmf[1 : self._reach + 1])]

    def upper(self, prob: float) -> float:
        """A ``q`` with ``P(S <= q) >= prob`` (the smallest integer one when ``method`` is exact)."""
        n = self.scales.size
        if n == 0 or prob <= 0.5:
            return 0.0
        if not prob < 1.0:
            raise ValueError(f"prob must be < 1, got {prob!r}: no finite quantile has it")
        if n == 1:
            return one_sided(self.noise, float(self.scales[0]), prob)
        if self.method == "union bound":
            alpha = (1 - prob) / n
            if not 1 - alpha < 1.0:
                raise ValueError(
                    f"the tail {1 - prob:.3g} shared by {n} noises is below the float "
                    "resolution; use a lower level or fewer cells"
                )
            return float(sum(one_sided(self.noise, b, 1 - alpha) for b in self.scales))
        if self.method == "chernoff":
            return self._chernoff(prob)
        hit = self._central_probabilities >= 2 * prob - 1 + 2 * _TOLERANCE
        if not hit.any():  # a tail below the lattice's resolution: the bound holds at any tail
            return self._chernoff(prob)
        return float(np.argmax(hit))

    def _log_tail(self, t: float) -> float:
        """``min_λ -λt + log E e^{λS}``: the log of Chernoff's bound on ``P(S >= t)``, ``t > 0``."""
        p, n, rate = self._p, self._counts, 1.0 / self._values

        def slope(lam: float) -> float:  # derivative of log E e^{λS}, increasing in λ
            # p e^{±λ} as exp(±λ − 1/b): e^λ alone overflows for scales below ~1/700
            up, down = np.exp(lam - rate), np.exp(-lam - rate)
            return float((n * (up / (1 - up) - down / (1 - down))).sum())

        lo, hi = 0.0, float((1.0 / self._values).min())
        for _ in range(100):  # bisection for slope(λ) = t
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if slope(mid) < t else (lo, mid)
        lam = lo
        terms = 2 * np.log1p(-p) - np.log1p(-np.exp(lam - rate)) - np.log1p(-np.exp(-lam - rate))
        return -lam * t + float((n * terms).sum())

    def _chernoff(self, prob: float) -> float:
        target = math.log1p(-prob)
        hi = 1
        while self._log_tail(hi) > target:
            hi *= 2
        lo = 0
        while hi - lo > 1:  # the bound decreases in t; find the smallest t = q + 1 within it
            mid = (lo + hi) // 2
            lo, hi = (lo, mid) if self._log_tail(mid) <= target else (mid, hi)
        return float(hi - 1)
