"""The prior of :mod:`~dpatlas.spatial.products.denoise`: a nonparametric maximum-likelihood
mixture of counts under discrete Laplace noise (EM accelerated by SQUAREM, in the log domain),
and the posterior median of every released value under it.

Privacy: post-processing. It reads a histogram of released values and the public noise scale.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MAX_ROUNDS", "TOLERANCE", "exp_conv", "median_table", "prior"]

MAX_ROUNDS = 50
"""Most SQUAREM rounds (each about three EM steps) of the prior's fit."""
TOLERANCE = 1e-7
"""The fit stops when a round raises the log-likelihood by less than this per cell."""


def exp_conv(x: np.ndarray, log_p: float) -> np.ndarray:
    """``Σ_j x_j p^|i - j|`` for every ``i`` (``x >= 0``), by two log-domain running sums."""
    ramp = np.arange(x.size) * log_p
    with np.errstate(divide="ignore"):
        logs = np.log(x)
    below = np.logaddexp.accumulate(logs - ramp) + ramp
    above = np.logaddexp.accumulate((logs + ramp)[::-1])[::-1] - ramp
    return np.exp(below) + np.exp(above) - x


def _loglik(hist: np.ndarray, weights: np.ndarray, log_p: float) -> float:
    return float(hist @ np.log(np.maximum(exp_conv(weights, log_p), 1e-300)))


def _em_step(hist: np.ndarray, weights: np.ndarray, log_p: float) -> np.ndarray:
    density = np.maximum(exp_conv(weights, log_p), 1e-300)
    new = weights * exp_conv(hist / density, log_p)
    return new / new.sum()


def prior(hist: np.ndarray, log_p: float) -> np.ndarray:
    """NPMLE of the prior on the lattice points of the counts (point 0 is the count 0).

    ``hist[j]`` is the number of cells whose released value is lattice point ``j``; the noise
    between points ``i`` and ``j`` has likelihood ``∝ exp(log_p·|i - j|)``. EM (each
    round raises the likelihood) is accelerated by SQUAREM (Varadhan and Roland 2008: an
    extrapolation along two EM rounds, kept only when it raises the likelihood further); it
    starts from the histogram blurred by the noise kernel and stops when a round gains less
    than ``TOLERANCE`` in log-likelihood per cell (at most ``MAX_ROUNDS`` rounds).
    """
    total = float(hist.sum())
    weights = exp_conv(hist, log_p) + 1e-3 * total / hist.size
    weights /= weights.sum()
    loglik = _loglik(hist, weights, log_p)
    for _ in range(MAX_ROUNDS):
        once = _em_step(hist, weights, log_p)
        twice = _em_step(hist, once, log_p)
        step, bend = once - weights, twice - 2 * once + weights
        size = float(np.sqrt(bend @ bend))
        best, best_loglik = twice, _loglik(hist, twice, log_p)
        if size > 0:
            alpha = min(-float(np.sqrt(step @ step)) / size, -1.0)
            jump = np.maximum(weights - 2 * alpha * step + alpha * alpha * bend, 0.0)
            if jump.sum() > 0:
                jump = _em_step(hist, jump / jump.sum(), log_p)
                jump_loglik = _loglik(hist, jump, log_p)
                if jump_loglik > best_loglik:
                    best, best_loglik = jump, jump_loglik
        gain = (best_loglik - loglik) / total
        weights, loglik = best, best_loglik
        if gain <= TOLERANCE:
            break
    return weights


def median_table(weights: np.ndarray, log_p: float) -> np.ndarray:
    """Lattice point of the posterior median for a released value at every lattice point.

    With ``p = exp(log_p)``, for a value at point ``t`` the posterior is ``∝ w_u p^|t - u|``; its mass at ``u <= m`` is
    ``p^t · Σ_{u<=m} w_u p^-u`` for ``m <= t`` and its mass at ``u >= m`` is
    ``p^-t · Σ_{u>=m} w_u p^u`` for ``m > t``: two monotone running sums (log domain) and a
    binary search per value.
    """
    t = np.arange(weights.size)
    ramp = t * log_p
    with np.errstate(divide="ignore"):
        logs = np.log(weights)
    up_to = np.logaddexp.accumulate(logs - ramp)  # log Σ_{u<=m} w_u p^-u, non-decreasing
    from_ = np.logaddexp.accumulate((logs + ramp)[::-1])[::-1]  # log Σ_{u>=m} w_u p^u
    lower = up_to + ramp  # log posterior mass (unnormalised) at u <= t
    upper = np.r_[from_[1:], -np.inf] - ramp  # ... at u > t
    half = np.logaddexp(lower, upper) + np.log(0.5)
    first = np.searchsorted(up_to, half - ramp, side="left")  # smallest m with mass <= m >= ½
    last = np.searchsorted(-from_, -(half + ramp), side="right") - 1  # largest m, mass >= m >= ½
    median = np.where(lower >= half, first, last)
    return np.clip(median, 0, weights.size - 1)
