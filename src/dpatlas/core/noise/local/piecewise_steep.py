"""The interval noise family of the piecewise ladder: :class:`SteepPiecewise`.

The worst piecewise-ladder noise given a public upper bound on the ladder's start (the steep
ladder raised to the release's floor; the lemma and its proof are in the class docstring). It
reads public values only, so an interval built from it and a bought bound is post-processing.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
from scipy.signal import lfilter

from dpatlas.core.noise.local.ladder_exact import _steep_depth, _steep_rung
from dpatlas.core.noise.local.piecewise_exact import _log_g
from dpatlas.core.noise.local.piecewise_ladder import piecewise_theta
from dpatlas.core.validation import check_epsilon

__all__ = ["SteepPiecewise"]

_TABLE_LIMIT = 1 << 22  # F(A) is tabulated up to here (32 MiB); beyond, summed per value


def _rate(epsilon: float, floor: int, gs: int) -> float:
    t, s = piecewise_theta(check_epsilon(epsilon), floor, gs)
    return s / t


def _g(width: np.ndarray, theta: float) -> np.ndarray:
    """``g(w)`` in floats (0 at ``w = 0``)."""
    return np.exp(_log_g(width, theta))


@lru_cache(maxsize=4)
def _steep_table(gs: int, theta: float, floor: int) -> np.ndarray:
    """``F(A)`` for ``A = 0 .. min(GS, 2**22)`` by ``F(A) = g(max(A, K)) + q F(A + 1)``."""
    last = min(gs, _TABLE_LIMIT)
    start = _steep_sums(np.array([last]), gs, theta, floor)[0]
    a = np.arange(last, dtype=np.float64)
    # backward recursion y[i] = x[i] + q y[i + 1] (stable: q < 1), run forward on reversed arrays
    x = _g(np.maximum(a, floor), theta)[::-1]
    y = lfilter([1.0], [1.0, -math.exp(-theta)], x, zi=[math.exp(-theta) * start])[0]
    return np.append(y[::-1], start)


def _steep_sums(start: np.ndarray, gs: int, theta: float, floor: int) -> np.ndarray:
    """``F(A) = Σ_t q^t g(max(min(GS, A + t), K))`` summed directly (the rest below e^-60)."""
    q_tail = -math.expm1(-theta)
    span = math.ceil(60 / theta) + 1
    out = np.empty(start.size)
    step = max(1, (1 << 22) // span)
    t = np.arange(span, dtype=np.float64)
    for i in range(0, start.size, step):
        a = start[i : i + step, None].astype(np.float64)
        width = np.maximum(np.minimum(gs, a + t), floor)
        head = np.sum(np.exp(-theta * t) * _g(width, theta), axis=1)
        # rungs after the span have widths <= GS: at most g(GS) q^span / (1 - q) more
        out[i : i + step] = head + math.exp(-theta * span) * _g(np.array(gs), theta) / q_tail
    return out


@dataclass(frozen=True)
class SteepPiecewise:
    """Piecewise releases dominated by the steep ladder, as an interval noise family.

    For a bound ``A`` on the ladder's start, ``S(A)_t = max(min(GS, A + t), K)`` (``K`` the
    release's public floor, capped at ``GS``). *Lemma.* Every ladder ``I`` with ``I_0 <= A``,
    steps in ``{0, 1}`` and ``I <= GS`` has, raised to the floor (``J = max(I, K)``),
    ``|noise|_J <=_st |noise|_S(A)``. Proof. The length of magnitude ``k`` is
    ``ℓ(k) = Σ_{i<=k} 1/w(i)``, ``w(i)`` the width of the rung holding ``i`` (within a rung each
    step adds ``1/J_t``, and the last position of rung ``t`` has length ``t + 1`` exactly). At
    every ``k``, ``w_J(k) <= w_S(k)``. Suppose not: ``k`` lies in rung ``r'`` of ``J`` with
    width ``v`` and in rung ``r`` of ``S`` with ``S_r < v``. As ``J_t <= S_t`` for every ``t``
    (``I_t <= min(GS, I_0 + t)``) and both are non-decreasing, ``r' > r``. ``J`` climbs by at
    most 1 per rung and is at least ``K``, so ``J_{r'-1-i} >= max(v - 1 - i, K)`` for
    ``i = 0 .. r``; and ``S_{r-i} <= max(S_r - i, K)`` (``S`` is ``K`` up to where it climbs by
    exactly 1). So ``u_{r'}(J) >= J_{r'-1} + ... + J_{r'-1-r} >= S_r + ... + S_0 = u_{r+1}(S)
    >= k``, contradicting ``k > u_{r'}(J)``. Hence
    ``ln P_S(k) - ln P_J(k) = θ Σ_{i<=k} (1/w_J(i) - 1/w_S(i)) + const`` is non-decreasing in
    ``k`` (a monotone likelihood ratio, the factor 2 of ``k >= 1`` cancels), which gives the
    stochastic order. ``S(A)`` itself is such a ladder for the bound ``A + 1``, so ``cdf`` falls
    and ``quantile`` grows with ``A``: (F1)-(F2) of :mod:`dpatlas.core.interval`.

    ``cdf(A, h)`` is exact (to float rounding) from ``F(A) = Σ_t q^t g(S(A)_t)``, tabulated by
    ``F(A) = g(S(A)_0) + q F(A + 1)``: rungs below ``R`` weigh ``F(A) - q^R F(A + R)``.

    Examples
    --------
    >>> fam = SteepPiecewise(100, 1.0, 4)
    >>> fam.top, fam.quantile(np.array([5]), 0.95).tolist()
    (100, [29])
    """

    global_sensitivity: int
    epsilon: float
    floor: int

    @property
    def top(self) -> int:
        """Largest value of the statistic the bound is on (``I_0 <= GS``)."""
        return int(self.global_sensitivity)

    def _parts(self) -> tuple[int, int, float]:
        gs = int(self.global_sensitivity)
        k = min(int(self.floor), gs)
        return gs, k, _rate(self.epsilon, k, gs) if gs > 0 else math.inf

    def _f(self, bound: np.ndarray) -> np.ndarray:
        """``F(A)`` for integer ``A`` in ``[0, GS]`` (float arrays)."""
        gs, k, theta = self._parts()
        table = _steep_table(gs, theta, k)
        a = np.asarray(bound, dtype=np.float64)
        inside = a < table.size
        out = np.empty(a.shape)
        out[inside] = table[a[inside].astype(np.int64)]
        if not inside.all():
            far, back = np.unique(a[~inside], return_inverse=True)
            out[~inside] = _steep_sums(far, gs, theta, k)[back]
        return out

    def _depth(self, a: np.ndarray, rungs: np.ndarray) -> np.ndarray:
        """``u_R(A)``: widths ``K`` for ``p = max(K - A, 0)`` rungs, then ``K, K + 1, ...``."""
        gs, k, _ = self._parts()
        p = np.maximum(k - a, 0.0)
        steep = _steep_depth(np.maximum(a, k), gs, np.maximum(rungs - p, 0.0))
        return np.minimum(rungs, p) * k + steep

    def _rung(self, a: np.ndarray, h: np.ndarray) -> np.ndarray:
        """The smallest ``R`` with ``u_R(A) >= h`` (``h >= 1``)."""
        gs, k, _ = self._parts()
        p = np.maximum(k - a, 0.0)
        plateau = p * k
        first = np.ceil(h / max(k, 1))
        later = p + _steep_rung(np.maximum(a, k), gs, np.maximum(h - plateau, 1.0))
        return np.where(h <= plateau, first, later)

    def cdf(self, bound: np.ndarray, h: np.ndarray) -> np.ndarray:
        """``P(|noise| <= h)`` under ``S(bound)`` (a lower bound for every ladder it dominates)."""
        gs, _, theta = self._parts()
        a = np.floor(np.clip(np.asarray(bound, dtype=np.float64), 0, gs))
        mag = np.floor(np.asarray(h, dtype=np.float64))
        a, mag = np.broadcast_arrays(a, mag)
        if gs == 0:
            return np.where(mag >= 0, 1.0, 0.0)
        total = 1 + 2 * self._f(a)
        r = self._rung(a, np.maximum(mag, 1.0))  # the rung holding mag is r - 1 (0-based)
        before = self._f(a) - np.exp(-theta * (r - 1)) * self._f(np.minimum(a + r - 1, gs))
        width = self._width(a, r - 1)
        j = mag - self._depth(a, r - 1)
        partial = np.exp(-theta / width) * -np.expm1(-theta * j / width) / -np.expm1(-theta / width)
        out = (1 + 2 * (before + np.exp(-theta * (r - 1)) * partial)) / total
        out = np.where(mag >= 1, np.minimum(out, 1.0), 1 / total)
        return np.where(mag < 0, 0.0, out)

    def _width(self, a: np.ndarray, t: np.ndarray) -> np.ndarray:
        """``S(A)_t = max(min(GS, A + t), K)``."""
        gs, k, _ = self._parts()
        return np.maximum(np.minimum(gs, a + t), k)

    def quantile(self, bound: np.ndarray, level: float) -> np.ndarray:
        """Smallest integer ``h >= 0`` with ``cdf(bound, h) >= level``."""
        gs, _, theta = self._parts()
        a = np.floor(np.clip(np.asarray(bound, dtype=np.float64), 0, gs))
        if gs == 0:
            return np.zeros(a.shape, dtype=np.int64)
        need = (float(level) * (1 + 2 * self._f(a)) - 1) / 2  # mass beyond 0, one sign

        def mass(rungs: np.ndarray) -> np.ndarray:
            return self._f(a) - np.exp(-theta * rungs) * self._f(np.minimum(a + rungs, gs))

        low, high = np.zeros_like(a), np.ones_like(a)
        while (short := mass(high) < need).any():
            low, high = np.where(short, high, low), np.where(short, 2 * high, high)
        while (high - low > 1).any():
            mid = np.floor((low + high) / 2)
            ok = mass(mid) >= need
            low, high = np.where(ok, low, mid), np.where(ok, mid, high)
        width = np.maximum(self._width(a, high - 1), 1.0)  # 0 only where need <= 0 (unused)
        # at a huge ε the exponentials under- and overflow: the steps are then so steep that
        # the first one holds the mass (j = 1), and the settling below checks against the cdf
        with np.errstate(divide="ignore", over="ignore", invalid="ignore"):
            rest = (need - mass(high - 1)) * np.exp(theta * (high - 1))  # inside rung high - 1
            ratio = np.exp(-theta / width)
            inner = np.clip(1 - rest * -np.expm1(-theta / width) / ratio, 1e-300, 1.0)
            j = np.maximum(np.ceil(np.log(inner) / (-theta / width)), 1.0)
        j = np.where(ratio > 0, j, 1.0)
        h = np.where(need <= 0, 0.0, self._depth(a, high - 1) + j)
        for _ in range(3):  # settle float rounding against the cdf itself
            h = np.where(self.cdf(a, h) < level, h + 1, h)
            lower = np.maximum(h - 1, 0)
            h = np.where((h > 0) & (self.cdf(a, lower) >= level), lower, h)
        return h.astype(np.int64)
