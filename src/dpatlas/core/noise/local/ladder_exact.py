"""Exact distribution of the ladder mechanism (:mod:`dpatlas.core.noise.local.ladder`), in log space.

For tests, accuracy studies and intervals: the probability of every rung and every output, and
the steep family of intervals. These functions read the ladder,
which is private; their results are diagnostics unless the ladders passed in are themselves
public (as the dominating ladders of :mod:`dpatlas.core.interval` are: built from public values
and bounds). They use the sampler's ``ε' = 2s/t`` (:func:`~dpatlas.core.noise.local.ladder.step_scale`),
equal to ε for ε = 1, 0.5, 2.

Steep dominance (:mod:`dpatlas.core.noise.local.ladder_dominance`, (b) there): with
``J(A)_t = min(GS, A + t)``, every ladder ``I <= GS`` with ``I_0 <= A`` and steps
``I_{t+1} - I_t`` in ``{0, 1}`` has ``|noise|`` stochastically below ``J(A)``'s, and
``J(A) <=_st J(A + 1)``. The triangle ladders ``LS(t)`` and ``U(t)`` start at ``a_max`` with
steps in ``{0, 1}`` and the 2-star ladder is ``J(c_max)``: :class:`SteepLadder` gives the exact
tail of the worst release given an upper bound on ``I_0`` (:func:`steep_cdf`, closed form, and
:func:`steep_quantile`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpatlas.core.noise.local.ladder import _depths, check_ladder, rung_sizes, step_scale
from dpatlas.core.validation import as_int_array, check_positive_int

__all__ = [
    "SteepLadder",
    "ladder_pmf",
    "ladder_probabilities",
    "steep_cdf",
    "steep_quantile",
]


def _log_weights(lad: np.ndarray, gs: int, log_q: float, r: np.ndarray) -> np.ndarray:
    """``log(N_r q^r)`` (``-inf`` for empty rungs)."""
    count = np.where(r == 0, 1.0, 2.0 * rung_sizes(lad, gs, r))
    with np.errstate(divide="ignore"):
        return np.log(count) + r * log_q


def _log_norm(lad: np.ndarray, gs: int, log_q: float) -> float:
    """``log Z``: rungs ``0 .. L`` summed, plus the geometric tail ``2 GS q^(L+1) / (1 - q)``."""
    head = _log_weights(lad, gs, log_q, np.arange(lad.size + 1))
    top = float(head.max())
    total = top + math.log(float(np.exp(head - top).sum()))
    if gs == 0:
        return total
    tail = math.log(2 * gs) + (lad.size + 1) * log_q - math.log(-math.expm1(log_q))
    return float(np.logaddexp(total, tail))


def ladder_probabilities(
    ladder: Any, epsilon: float, max_rung: int, *, global_sensitivity: int | None = None
) -> np.ndarray:
    """Exact probabilities of rungs ``0 .. max_rung`` under the ladder mechanism (in log space).

    ``ladder[t]`` is ``I_t``; entries after the array are ``global_sensitivity`` (default: the
    last entry). The probabilities are those of the sampler, i.e. at ``ε' = 2/b`` with ``b`` the
    core's rational scale ``>= 2/ε`` (``ε' = ε`` for ε = 1, 0.5, 2, ...).

    Examples
    --------
    >>> ladder_probabilities([1, 2, 2], 2.0, 3).round(4).tolist()  # GS = 2 after the array
    [0.3858, 0.2838, 0.2088, 0.0768]
    """
    lad, gs = check_ladder(ladder, global_sensitivity)
    t, s = step_scale(epsilon)
    log_q = -s / t
    r = np.arange(check_positive_int(max_rung, "max_rung", minimum=0) + 1)
    return np.exp(_log_weights(lad, gs, log_q, r) - _log_norm(lad, gs, log_q))


def ladder_pmf(
    k: Any, ladder: Any, epsilon: float, *, global_sensitivity: int | None = None
) -> np.ndarray:
    """Exact ``P(noise = k)`` of the ladder mechanism (every output of rung ``r`` has ``q^r / Z``).

    Examples
    --------
    >>> ladder_pmf([0, 1, -1, 2], [1, 2, 2], 2.0).round(4).tolist()
    [0.3858, 0.1419, 0.1419, 0.0522]
    """
    d = np.abs(as_int_array(k, "k"))
    lad, gs = check_ladder(ladder, global_sensitivity)
    t, s = step_scale(epsilon)
    log_q = -s / t
    cum = _depths(lad, np.iinfo(np.int64).max)  # saturated, not wrapped, past 2**63
    rung = np.searchsorted(cum, d, side="left").astype(np.int64)
    far = d > cum[-1]
    if gs == 0:
        return np.where(d == 0, 1.0, 0.0)
    rung[far] = lad.size + -((cum[-1] - d[far]) // gs)
    return np.exp(rung * log_q - _log_norm(lad, gs, log_q))


def _steps(excess: np.ndarray, weight: np.ndarray, *, ceil: bool = True) -> np.ndarray:
    """``⌈excess / weight⌉`` (or the plain ratio) where ``weight > 0``, else 0.

    At a huge ε the weights ``q^r`` of far rungs (and the GS tail) underflow to 0. Such a rung
    adds nothing to the cumulative weight, so it is never the first to reach ``need > 0``, and
    the tail is not needed when it is 0 (``need < W_T + tail``): the entries set to 0 here are
    those the quantiles (:func:`steep_quantile`, ``LadderTable.quantile``) discard, where the
    plain division warned (0/0, x/0) and a RuntimeWarning reached the user.
    """
    ratio = np.divide(excess, weight, out=np.zeros(np.shape(excess)), where=weight > 0)
    return np.ceil(ratio) if ceil else ratio


def _log_q(epsilon: float) -> float:
    t, s = step_scale(epsilon)
    return -s / t


def _steep_head(start: np.ndarray, rungs: np.ndarray, log_q: float) -> np.ndarray:
    """``Σ_{r=1}^{R} (A + r - 1) q^r`` in closed form (``R >= 0``; float arrays)."""
    q = math.exp(log_q)
    one_minus_q = -math.expm1(log_q)
    q_r = np.exp(rungs * log_q)
    geometric = q * -np.expm1(rungs * log_q) / one_minus_q  # Σ_{r=1}^{R} q^r
    # Σ_{i=0}^{R-1} i q^i = [q (1 - q^{R-1}) - (R - 1) q^R (1 - q)] / (1 - q)^2; R = 0 gives 0
    # below, and q^{-1} would overflow at a huge ε: the exponent is kept >= 0
    linear = q * (q * -np.expm1(np.maximum(rungs - 1, 0) * log_q) - (rungs - 1) * q_r * one_minus_q)
    linear = np.where(rungs >= 1, linear / one_minus_q**2, 0.0)
    return start * geometric + linear


def _steep_mass(start: np.ndarray, gs: int, rungs: np.ndarray, log_q: float) -> np.ndarray:
    """``Σ_{r=1}^{R} s_r q^r`` with ``s_r = min(GS, A + r - 1)`` (weight of rungs ``1..R``)."""
    ramp = gs - start  # rungs 1 .. GS - A have sizes A .. GS - 1
    head = _steep_head(start, np.minimum(rungs, ramp), log_q)
    flat = np.maximum(rungs - ramp, 0.0)
    tail = gs * np.exp((ramp + 1) * log_q) * -np.expm1(flat * log_q) / -math.expm1(log_q)
    return head + tail


def _steep_depth(start: np.ndarray, gs: int, rungs: np.ndarray) -> np.ndarray:
    """``u_R = s_1 + ... + s_R``: the largest magnitude in rung ``R``."""
    ramp = np.minimum(rungs, gs - start)
    return ramp * start + ramp * (ramp - 1) / 2 + np.maximum(rungs - (gs - start), 0.0) * gs


def _steep_total(start: np.ndarray, gs: int, log_q: float) -> np.ndarray:
    """``Z`` of the steep ladder: ``1 + 2 Σ_r s_r q^r``."""
    ramp = gs - start
    tail = gs * np.exp((ramp + 1) * log_q) / -math.expm1(log_q)
    return 1 + 2 * (_steep_head(start, ramp, log_q) + tail)


def _steep_rung(start: np.ndarray, gs: int, h: np.ndarray) -> np.ndarray:
    """The rung holding magnitude ``h >= 1``: the smallest ``R`` with ``u_R >= h``."""
    b = 2 * start - 1
    ramp_depth = _steep_depth(start, gs, gs - start)
    guess = np.ceil((-b + np.sqrt(b * b + 8 * h)) / 2)  # u_R = (R^2 + (2A - 1) R) / 2 on the ramp
    flat = gs - start + np.ceil((h - ramp_depth) / max(gs, 1))
    r = np.maximum(np.where(h <= ramp_depth, guess, flat), 1.0)
    r = np.where(_steep_depth(start, gs, r - 1) >= h, r - 1, r)  # float rounding of the root
    return np.where(_steep_depth(start, gs, r) < h, r + 1, r)


def _as_starts(bound: Any, gs: int) -> np.ndarray:
    return np.clip(np.asarray(bound, dtype=np.float64), 0, gs)


def steep_cdf(bound: Any, h: Any, epsilon: float, *, global_sensitivity: int) -> np.ndarray:
    """Exact ``P(|noise| <= h)`` of the ladder mechanism on ``J(A)_t = min(GS, A + t)``.

    ``bound`` (``A``, clipped to ``[0, GS]``) and ``h`` broadcast. By the corollary in the module
    docstring this is a lower bound on ``P(|noise| <= h)`` for every ladder starting at most at
    ``A`` with steps in ``{0, 1}``. Closed form: ``Σ_{r<=R} (A + r - 1) q^r`` is a sum of a
    geometric and an arithmetic-geometric series, so the cost does not grow with ``A`` or ``h``.

    Examples
    --------
    >>> steep_cdf([0, 5, 50], 20, 1.0, global_sensitivity=100).round(4).tolist()
    [0.8513, 0.7155, 0.158]
    >>> float(ladder_pmf(np.arange(-20, 21), [5 + t for t in range(96)], 1.0,
    ...                  global_sensitivity=100).sum().round(4))
    0.7155
    """
    gs = int(global_sensitivity)
    start = _as_starts(bound, gs)
    mag = np.floor(np.asarray(h, dtype=np.float64))
    if gs == 0:
        return np.broadcast_to(
            np.where(mag >= 0, 1.0, 0.0), np.broadcast_shapes(start.shape, mag.shape)
        ).copy()
    log_q = _log_q(epsilon)
    total = _steep_total(start, gs, log_q)  # per bound, broadcast below
    r = _steep_rung(start, gs, np.maximum(mag, 1.0))
    inside = (mag - _steep_depth(start, gs, r - 1)) * np.exp(r * log_q)
    out = (1 + 2 * (_steep_mass(start, gs, r - 1, log_q) + inside)) / total
    out = np.where(mag >= 1, np.minimum(out, 1.0), 1 / total)
    return np.where(mag < 0, 0.0, out)


def steep_quantile(
    bound: Any, level: float, epsilon: float, *, global_sensitivity: int
) -> np.ndarray:
    """Smallest integer ``h >= 0`` with ``steep_cdf(bound, h) >= level`` (vectorised over ``bound``).

    Examples
    --------
    >>> steep_quantile([0, 5, 50], 0.95, 1.0, global_sensitivity=100).tolist()
    [42, 62, 329]
    """
    gs = int(global_sensitivity)
    start = _as_starts(bound, gs)
    if gs == 0:
        return np.zeros(start.shape, dtype=np.int64)
    log_q = _log_q(epsilon)
    need = (float(level) * _steep_total(start, gs, log_q) - 1) / 2  # weight beyond 0, one sign
    low, high = np.zeros_like(start), np.ones_like(start)
    while (short := _steep_mass(start, gs, high, log_q) < need).any():
        low, high = np.where(short, high, low), np.where(short, 2 * high, high)
    while (high - low > 1).any():
        mid = np.floor((low + high) / 2)
        ok = _steep_mass(start, gs, mid, log_q) >= need
        low, high = np.where(ok, low, mid), np.where(ok, mid, high)
    before = _steep_mass(start, gs, high - 1, log_q)
    k = np.maximum(_steps(need - before, np.exp(high * log_q)), 1.0)
    h = np.where(need <= 0, 0.0, _steep_depth(start, gs, high - 1) + k)
    for _ in range(3):  # settle float rounding against the cdf itself
        h = np.where(steep_cdf(start, h, epsilon, global_sensitivity=gs) < level, h + 1, h)
        lower = np.maximum(h - 1, 0)
        h = np.where(
            (h > 0) & (steep_cdf(start, lower, epsilon, global_sensitivity=gs) >= level), lower, h
        )
    return h.astype(np.int64)


@dataclass(frozen=True)
class SteepLadder:
    """The ladder releases dominated by ``J(A)_t = min(GS, A + t)``, as an interval noise family.

    ``cdf(A, h)`` and ``quantile(A, level)`` are :func:`steep_cdf` and :func:`steep_quantile`;
    ``top = GS`` is the largest value of the bounded statistic (``I_0``). Used with a private
    upper bound on ``I_0`` by :mod:`dpatlas.core.interval`.

    Examples
    --------
    >>> fam = SteepLadder(100, 1.0)
    >>> fam.top, fam.quantile(np.array([5]), 0.95).tolist()
    (100, [62])
    """

    global_sensitivity: int
    epsilon: float

    @property
    def top(self) -> int:
        """Largest value of the statistic the bound is on (``I_0 <= GS``)."""
        return int(self.global_sensitivity)

    def cdf(self, bound: np.ndarray, h: np.ndarray) -> np.ndarray:
        """``P(|noise| <= h)`` under ``J(bound)``."""
        return steep_cdf(bound, h, self.epsilon, global_sensitivity=self.global_sensitivity)

    def quantile(self, bound: np.ndarray, level: float) -> np.ndarray:
        """Smallest ``h`` with ``cdf(bound, h) >= level``."""
        return steep_quantile(
            bound, level, self.epsilon, global_sensitivity=self.global_sensitivity
        )
