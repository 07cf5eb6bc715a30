"""Exact distribution of the piecewise ladder (:mod:`~dpatlas.core.noise.piecewise_ladder`).

For tests, accuracy studies and intervals: the probability of every output and quantiles of the
absolute noise, computed in log space at the sampler's rational rate ``θ``, and the interval
noise family :class:`SteepPiecewise` (the worst noise given an upper bound on the ladder's
start). The first read the ladder, which is private: their results are diagnostics, not
releases. :class:`SteepPiecewise` reads public values only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np
from scipy.signal import lfilter

from dpatlas.core.noise.ladder_exact import _steep_depth, _steep_rung
from dpatlas.core.noise.piecewise_ladder import (
    _widths_at,
    check_unit_growth,
    floored_widths,
    piecewise_theta,
)
from dpatlas.core.validation import as_int_array, check_epsilon

__all__ = [
    "SteepPiecewise",
    "piecewise_pmf",
    "piecewise_quantile",
]

_LOG2 = math.log(2.0)


def _setup(
    ladder: Any, epsilon: float, floor: int | None, gs: Any
) -> tuple[np.ndarray, int, float]:
    """``(widths J, GS, θ)`` exactly as the sampler uses them."""
    lad, g = check_unit_growth(ladder, gs)
    eps = check_epsilon(epsilon)
    widths, k = floored_widths(lad, g, floor, eps)
    if g == 0:
        return widths, g, math.inf
    t, s = piecewise_theta(eps, k, g)
    return widths, g, s / t


def _log_g(width: np.ndarray, theta: float) -> np.ndarray:
    """``ln g(w)``, ``g(w) = Σ_{j=1}^{w} q^{j/w} = (1 - q)/(e^{θ/w} - 1)`` (``-inf`` at 0)."""
    w = np.asarray(width, dtype=np.float64)
    safe = np.maximum(w, 1.0)
    with np.errstate(over="ignore"):  # e^{θ/w} = inf: g(w) underflows to 0
        out = math.log(-math.expm1(-theta)) - np.log(np.expm1(theta / safe))
    return np.where(w > 0, out, -np.inf)


def _log_masses(widths: np.ndarray, gs: int, theta: float, rungs: np.ndarray) -> np.ndarray:
    """``ln(2 q^t g(J_t))``: the mass of rung ``t`` (both signs), unnormalised."""
    return _LOG2 - theta * rungs + _log_g(_widths_at(widths, gs, rungs), theta)


def _log_tail(gs: int, theta: float, start: int) -> float:
    """``ln Σ_{t >= start} 2 q^t g(GS)`` (rungs past ``start`` all have width ``GS``)."""
    return float(
        _LOG2 - theta * start + _log_g(np.array(gs), theta) - math.log(-math.expm1(-theta))
    )


def _tail_rungs(gs: int, theta: float, gamma: float) -> int:
    """Rungs of width ``GS`` after which the rest holds less than ``γ`` of the mass (``Z >= 1``)."""
    log_rest = float(_log_g(np.array(gs), theta)) + _LOG2 - math.log(-math.expm1(-theta))
    return max(0, math.ceil((log_rest - math.log(gamma)) / theta)) + 2


def _log_norm(widths: np.ndarray, gs: int, theta: float) -> float:
    """``ln Z``: the output ``T`` (weight 1), the array's rungs and the geometric tail."""
    head = _log_masses(widths, gs, theta, np.arange(widths.size))
    return float(
        np.logaddexp.reduce(np.concatenate([[0.0], head, [_log_tail(gs, theta, widths.size)]]))
    )


def _locate(widths: np.ndarray, gs: int, d: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rung ``t`` and offset ``j`` (``1 <= j <= J_t``) of distances ``d >= 1``."""
    cum = np.concatenate([[0], np.cumsum(widths)])
    rung = np.searchsorted(cum, d, side="left").astype(np.int64) - 1
    far = d > cum[-1]
    rung[far] = widths.size + (d[far] - cum[-1] - 1) // gs
    start = np.where(far, cum[-1] + (rung - widths.size) * gs, cum[np.minimum(rung, widths.size)])
    return rung, d - start


def piecewise_pmf(
    k: Any,
    ladder: Any,
    epsilon: float,
    *,
    floor: int | None = None,
    global_sensitivity: int | None = None,
    log: bool = False,
) -> np.ndarray:
    """Exact ``P(noise = k)`` of the piecewise ladder, or its logarithm ``-θ ℓ(k) - ln Z``.

    ``ℓ = t + j/J_t`` (module docstring of :mod:`~dpatlas.core.noise.piecewise_ladder`);
    ``log=True`` returns ``ln P`` (exact where ``P`` underflows).

    Examples
    --------
    >>> piecewise_pmf([0, 1, -1, 3], [3, 4, 5, 5], 1.0, floor=1).round(4).tolist()
    [0.0814, 0.0661, 0.0661, 0.0436]
    >>> piecewise_pmf([0, 3, 4], [3, 4, 5, 5], 1.0, floor=1, log=True).round(4).tolist()
    [-2.509, -3.1325, -3.2884]
    """
    d = np.abs(as_int_array(k, "k")).astype(np.int64)
    widths, gs, theta = _setup(ladder, epsilon, floor, global_sensitivity)
    if gs == 0:
        out = np.where(d == 0, 0.0, -np.inf)
    else:
        out = np.zeros(d.shape, dtype=np.float64)
        pos = d > 0
        rung, j = _locate(widths, gs, d[pos])
        out[pos] = -theta * (rung + j / _widths_at(widths, gs, rung))
        out -= _log_norm(widths, gs, theta)
    return out if log else np.exp(out)


def piecewise_quantile(
    level: float,
    ladder: Any,
    epsilon: float,
    *,
    floor: int | None = None,
    global_sensitivity: int | None = None,
) -> int:
    """Smallest ``h >= 0`` with ``P(|noise| <= h) >= level`` (``level = 0.5``: the median).

    Examples
    --------
    >>> piecewise_quantile(0.5, [3, 4, 5, 5], 1.0, floor=1)
    5
    """
    if not 0.0 < float(level) < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    widths, gs, theta = _setup(ladder, epsilon, floor, global_sensitivity)
    if gs == 0:
        return 0
    log_z = _log_norm(widths, gs, theta)
    r = np.arange(widths.size + _tail_rungs(gs, theta, 1.0 - float(level)))
    cum = math.exp(-log_z) + np.concatenate(
        [[0.0], np.cumsum(np.exp(_log_masses(widths, gs, theta, r) - log_z))]
    )
    if cum[0] >= level:
        return 0
    rung = int(np.searchsorted(cum[1:], level, side="left"))
    before, start = float(cum[rung]), int(np.sum(_widths_at(widths, gs, r[:rung])))
    width = int(_widths_at(widths, gs, np.array(rung)))
    j = np.arange(1, width + 1)
    inside = np.cumsum(np.exp(_LOG2 - theta * (rung + j / width) - log_z))
    return start + min(int(np.searchsorted(before + inside, level, side="left")) + 1, width)


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
        rest = (need - mass(high - 1)) * np.exp(theta * (high - 1))  # inside rung high - 1
        ratio = np.exp(-theta / width)
        inner = np.clip(1 - rest * -np.expm1(-theta / width) / ratio, 1e-300, 1.0)
        j = np.maximum(np.ceil(np.log(inner) / (-theta / width)), 1.0)
        h = np.where(need <= 0, 0.0, self._depth(a, high - 1) + j)
        for _ in range(3):  # settle float rounding against the cdf itself
            h = np.where(self.cdf(a, h) < level, h + 1, h)
            lower = np.maximum(h - 1, 0)
            h = np.where((h > 0) & (self.cdf(a, lower) >= level), lower, h)
        return h.astype(np.int64)
