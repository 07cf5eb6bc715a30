"""Exact distribution of the ladder mechanism (:mod:`dpatlas.core.noise.ladder`), in log space.

For tests, accuracy studies and intervals: the probability of every rung and every output, and
a tail bound that holds for every ladder between two bounds. These functions read the ladder,
which is private; their results are diagnostics unless the ladders passed in are themselves
public or private releases (as in :func:`ladder_halfwidth` used on noisy bounds). They use the
sampler's ``ε' = 2s/t`` (:func:`~dpatlas.core.noise.ladder.step_scale`), equal to ε for ε = 1, 0.5, 2.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpatlas.core.noise.ladder import check_ladder, rung_sizes, step_scale
from dpatlas.core.validation import as_int_array, check_positive_int

__all__ = ["ladder_halfwidth", "ladder_pmf", "ladder_probabilities"]


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
    cum = np.concatenate([[0], np.cumsum(lad)])
    rung = np.searchsorted(cum, d, side="left").astype(np.int64)
    far = d > cum[-1]
    if gs == 0:
        return np.where(d == 0, 1.0, 0.0)
    rung[far] = lad.size + -((cum[-1] - d[far]) // gs)
    return np.exp(rung * log_q - _log_norm(lad, gs, log_q))


def ladder_halfwidth(
    upper: Any, lower: Any, epsilon: float, level: float, *, global_sensitivity: int
) -> int:
    """Half-width ``h`` with ``P(|noise| > h) <= 1 - level`` for *every* ladder between bounds.

    For ladders ``lower <= I <= upper`` (pointwise, both extended by ``GS``) and any ``t``:
    ``P(R > t) = A / (A + B)`` with ``A = Σ_{r>t} N_r q^r`` and ``B = Σ_{r<=t} N_r q^r``;
    ``x / (x + y)`` grows with ``x`` and falls with ``y``, so ``P(R > t) <= Ã / (Ã + B_lower)``
    (``Ã`` from ``upper``). On ``R <= t``, ``|noise| <= u_t(I) <= u_t(upper)``. The smallest
    ``t`` whose bound is ``<= 1 - level`` gives ``h = u_t(upper)``. Computed from public or
    already private inputs only (e.g. ladders built on a noisy upper bound of a statistic).

    Examples
    --------
    >>> ladder_halfwidth([3, 4, 5], [3, 3, 4, 4, 5], 1.0, 0.9, global_sensitivity=5)
    27
    """
    up, gs = check_ladder(upper, global_sensitivity)
    low, _ = check_ladder(lower, global_sensitivity)
    gamma = 1.0 - float(level)
    if not 0.0 < gamma < 1.0:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    t, s = step_scale(epsilon)
    log_q = -s / t
    extra = (math.log(2 * gs + 2) - math.log(gamma) - math.log(-math.expm1(log_q)) + 1) / -log_q
    r = np.arange(max(up.size, low.size) + 2 + math.ceil(extra))
    if (rung_sizes(low, gs, r) > rung_sizes(up, gs, r)).any():
        raise ValueError("lower must not exceed upper at any rung")
    wu, wl = _log_weights(up, gs, log_q, r), _log_weights(low, gs, log_q, r)
    tail = math.log(2 * gs) + r.size * log_q - math.log(-math.expm1(log_q)) if gs else -np.inf
    above = np.logaddexp.accumulate(np.append(wu, tail)[::-1])[::-1][1:]
    below = np.logaddexp.accumulate(wl)
    bound = np.exp(above - np.logaddexp(above, below))
    rung = int(np.argmax(bound <= gamma * (1 - 1e-9)))
    return int(np.sum(rung_sizes(up, gs, np.arange(1, rung + 1))))
