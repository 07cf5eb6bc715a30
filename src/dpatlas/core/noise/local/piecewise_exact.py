"""Exact distribution of the piecewise ladder (:mod:`~dpatlas.core.noise.local.piecewise_ladder`).

For tests and accuracy studies: the probability of every output and quantiles of the absolute
noise, computed in log space at the sampler's rational rate ``θ``. They read the ladder, which
is private: their results are diagnostics, not releases. The interval noise family (the worst
noise given an upper bound on the ladder's start) is
:class:`~dpatlas.core.noise.local.piecewise_steep.SteepPiecewise`.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpatlas.core.noise._sampling.piecewise import widths_at as _widths_at
from dpatlas.core.noise.local.ladder import _depths
from dpatlas.core.noise.local.piecewise_ladder import (
    check_unit_growth,
    floored_widths,
    piecewise_theta,
)
from dpatlas.core.validation import as_int_array, check_epsilon

__all__ = ["piecewise_pmf", "piecewise_quantile"]

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
    cum = _depths(widths, np.iinfo(np.int64).max)  # saturated, not wrapped, past 2**63
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

    ``ℓ = t + j/J_t`` (module docstring of :mod:`~dpatlas.core.noise.local.piecewise_ladder`);
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
