"""Interval noise families of smooth-sensitivity releases (:mod:`dpatlas.core.noise.local.smooth`).

The worst noise of a smooth release given an upper bound ``A`` on the statistic its ladder starts
from: the noise scale ``c S(A)/ε`` grows with the smooth bound ``S(A)``, and both noises (Cauchy,
Laplace) grow stochastically with their scale, so a family needs only ``S``. Public values only:
used with a private (bought) bound by :mod:`dpatlas.core.interval`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpatlas.core.noise.local.smooth import SMALLEST, SMALLEST_SCALE, smooth_beta
from dpatlas.core.validation import check_epsilon

__all__ = ["SmoothFamily", "SmoothSteep", "steep_smooth_bound"]


def steep_smooth_bound(bound: Any, beta: float, *, global_sensitivity: int) -> np.ndarray:
    """``S(A) = max_t e^{-βt} min(GS, A + t)``: :func:`smooth_bound` of the steep ladder, vectorised.

    On ``t <= GS - A`` the function ``e^{-βt}(A + t)`` peaks at ``t = 1/β - A``, so the integer
    maximum is at its floor or ceiling (clipped to ``[0, GS - A]``); beyond, ``e^{-βt} GS``
    only falls. ``S`` grows with ``A``; every ladder ``I <= J(A)`` pointwise has a smaller
    :func:`smooth_bound` (both are at least ``SMALLEST`` when ``GS > 0``).

    Examples
    --------
    >>> from dpatlas.core.noise.local.smooth import smooth_bound
    >>> steep_smooth_bound([0, 3, 10], 0.5, global_sensitivity=100).round(4).tolist()
    [0.7358, 3.0, 10.0]
    >>> round(smooth_bound([3 + t for t in range(98)], 0.5, global_sensitivity=100), 4)
    3.0
    """
    gs = int(global_sensitivity)
    start = np.clip(np.asarray(bound, dtype=np.float64), 0, gs)
    room = gs - start
    peak = 1 / check_epsilon(beta, "beta") - start
    best = np.zeros_like(start)
    for t in (np.floor(peak), np.ceil(peak)):
        t = np.clip(t, 0, room)
        factor = np.exp(-beta * t)
        with np.errstate(divide="ignore"):  # a subnormal factor: exp of the score (smooth_peak)
            term = np.where(
                factor >= SMALLEST, factor * (start + t), np.exp(np.log(start + t) - beta * t)
            )
        best = np.maximum(best, term)
    # a release's bound is at least SMALLEST when GS > 0 (smooth_bound): so is this one
    return np.maximum(np.maximum(best, start), SMALLEST if gs > 0 else 0.0)


class SmoothFamily:
    """Smooth-sensitivity releases whose smooth bound is at most ``S(A)``: an interval noise family.

    Subclasses give :meth:`smooth` (``S(A)``, non-decreasing in the bound ``A``) and ``top``.
    The noise scale ``b(A) = c S(A) / ε`` (``c`` = 6 Cauchy, 2 Laplace; times ``1 + 2**-30``
    to cover the release's rounding up, see :func:`~dpatlas.core.noise.local.smooth.smooth_halfwidth`)
    grows with ``A``, and both noises grow stochastically with the scale. ``cdf`` is a lower
    bound on ``P(|K| <= h)``: Cauchy ``1 - (2/π) atan(b/h)`` (the integral bound of
    ``smooth_halfwidth``), Laplace exact ``1 - 2 p^(h+1) / (1 + p)``, ``p = e^(-1/b)``.
    """

    epsilon: float
    delta: float

    @property
    def top(self) -> int:
        """Largest value of the statistic the bound is on."""
        raise NotImplementedError

    def smooth(self, bound: np.ndarray) -> np.ndarray:
        """``S(A)``: at least the smooth bound of every release whose statistic is ``<= A``."""
        raise NotImplementedError

    @property
    def kind(self) -> str:
        """The continuous law whose tails bound the noise's: ``"cauchy"`` or ``"laplace"``."""
        return "cauchy" if self.delta == 0 else "laplace"

    def scale(self, bound: np.ndarray) -> np.ndarray:
        """``b(A)``: the largest noise scale of a release whose statistic is at most ``A``
        (``max(c S(A)/ε, SMALLEST_SCALE)`` where ``S(A) > 0``, as the release floors it)."""
        factor = 6 if self.delta == 0 else 2
        s = self.smooth(bound)
        b = np.where(s > 0, np.maximum(factor * s / self.epsilon, SMALLEST_SCALE), 0.0)
        return b * (1 + 2.0**-30)

    def _tail(self, scale: np.ndarray, h: np.ndarray) -> np.ndarray:
        if self.delta == 0:
            with np.errstate(divide="ignore"):
                return np.where(h >= 1, np.arctan(scale / np.maximum(h, 1)) * (2 / math.pi), 1.0)
        with np.errstate(divide="ignore"):
            p = np.exp(-1 / scale)
        return np.where(h >= 0, 2 * p ** (h + 1) / (1 + p), 1.0)

    def cdf(self, bound: np.ndarray, h: np.ndarray) -> np.ndarray:
        """A lower bound on ``P(|K| <= h)`` for every release whose statistic is ``<= bound``."""
        scale, mag = np.broadcast_arrays(self.scale(bound), np.floor(np.asarray(h, dtype=float)))
        return np.where(scale > 0, 1.0 - self._tail(scale, mag), np.where(mag >= 0, 1.0, 0.0))

    def quantile(self, bound: np.ndarray, level: float) -> np.ndarray:
        """Smallest integer ``h`` with ``cdf(bound, h) >= level``."""
        scale = self.scale(np.asarray(bound, dtype=np.float64))
        gamma = 1.0 - float(level)
        with np.errstate(divide="ignore"):
            if self.delta == 0:
                h = np.ceil(scale / math.tan(math.pi * gamma / 2))
            else:
                p = np.exp(-1 / scale)
                h = np.maximum(np.ceil(np.log(gamma * (1 + p) / 2) / np.log(p)) - 1, 0)
        h = np.where(scale > 0, h, 0.0)
        for _ in range(3):  # settle float rounding against the cdf itself
            h = np.where(self.cdf(bound, h) < level, h + 1, h)
            lower = np.maximum(h - 1, 0)
            h = np.where((h > 0) & (self.cdf(bound, lower) >= level), lower, h)
        return h.astype(np.int64)


@dataclass(frozen=True)
class SmoothSteep(SmoothFamily):
    """Smooth releases whose ladder is at most ``J(A) = min(GS, A + t)``: ``S(A)`` is
    :func:`steep_smooth_bound` (a :class:`SmoothFamily`).

    Examples
    --------
    >>> fam = SmoothSteep(100, 1.0, 0.0)
    >>> fam.top, fam.quantile(np.array([3.0]), 0.9).tolist()
    (100, [138])
    """

    global_sensitivity: int
    epsilon: float
    delta: float

    @property
    def top(self) -> int:
        """Largest value of the statistic the bound is on (``I_0 <= GS``)."""
        return int(self.global_sensitivity)

    def smooth(self, bound: np.ndarray) -> np.ndarray:
        """The steep ladder's smooth bound at ``bound``."""
        beta = smooth_beta(self.epsilon, self.delta)
        return steep_smooth_bound(bound, beta, global_sensitivity=self.global_sensitivity)
