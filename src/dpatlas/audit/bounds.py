"""Exact binomial confidence intervals and the privacy-loss lower bound built from them."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import betaincinv, ndtri

from dpatlas.core.validation import check_delta

__all__ = ["clopper_pearson", "epsilon_lower_bound"]


def _check_confidence(confidence: float) -> float:
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float, np.floating)):
        raise TypeError(f"confidence must be a number in (0, 1), got {confidence!r}")
    value = float(confidence)
    if not 0.0 < value < 1.0:
        raise ValueError(f"confidence must be a number in (0, 1), e.g. 0.99, got {confidence!r}")
    return value


def clopper_pearson(
    k: ArrayLike, n: ArrayLike, confidence: float = 0.95
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Exact (Clopper–Pearson) two-sided confidence interval for a binomial proportion.

    Parameters
    ----------
    k : int or array of int
        Number of successes, ``0 <= k <= n``.
    n : int or array of int
        Number of trials, ``n >= 1``.
    confidence : float, default 0.95
        Coverage of the interval; each side fails with probability ``(1 - confidence) / 2``.

    Returns
    -------
    low, high : ndarray of float
        Bounds with ``P[low <= p <= high] >= confidence`` for every true proportion ``p``
        (``low = 0`` when ``k = 0``, ``high = 1`` when ``k = n``). Arrays broadcast ``k, n``.

    Notes
    -----
    ``low`` is the ``(1 - confidence)/2`` quantile of Beta(k, n − k + 1) and ``high`` the
    ``(1 + confidence)/2`` quantile of Beta(k + 1, n − k) (Clopper and Pearson, 1934); this is
    the interval that ``scipy.stats.binomtest(k, n).proportion_ci(method="exact")`` returns.

    Examples
    --------
    >>> low, high = clopper_pearson(0, 100, confidence=0.95)
    >>> float(low), round(float(high), 4)
    (0.0, 0.0362)
    """
    alpha = 1.0 - _check_confidence(confidence)
    k_arr = np.asarray(k)
    n_arr = np.asarray(n)
    if not (np.issubdtype(k_arr.dtype, np.integer) and np.issubdtype(n_arr.dtype, np.integer)):
        raise TypeError(f"k and n must be integers, got dtypes {k_arr.dtype} and {n_arr.dtype}")
    if np.any(n_arr < 1) or np.any(k_arr < 0) or np.any(k_arr > n_arr):
        raise ValueError(f"need 0 <= k <= n and n >= 1, got k={k!r}, n={n!r}")
    k_f, n_f = np.broadcast_arrays(k_arr.astype(np.float64), n_arr.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        low = np.where(k_f > 0, betaincinv(np.maximum(k_f, 1.0), n_f - k_f + 1.0, alpha / 2), 0.0)
        high = np.where(
            k_f < n_f, betaincinv(k_f + 1.0, np.maximum(n_f - k_f, 1.0), 1.0 - alpha / 2), 1.0
        )
    return np.asarray(low, dtype=np.float64), np.asarray(high, dtype=np.float64)


def epsilon_lower_bound(
    k_d: ArrayLike, k_d_prime: ArrayLike, n: int, *, delta: float = 0.0, confidence: float = 0.99
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Lower bound on ε from event counts on two neighbouring inputs, both directions.

    Parameters
    ----------
    k_d, k_d_prime : int or array of int
        How many of ``n`` runs on ``d`` (resp. ``d′``) fell in the event.
    n : int
        Runs per input.
    delta : float, default 0.0
        The δ of the (ε, δ) claim under test, in [0, 1).
    confidence : float, default 0.99
        Joint confidence of the bound (split by Bonferroni over the four interval ends), in
        (0, 1).

    Returns
    -------
    bound : ndarray of float
        ``max(0, ln((p_low − δ) / q_high), ln((q_low − δ) / p_high))`` where ``[p_low, p_high]``
        and ``[q_low, q_high]`` are Clopper–Pearson intervals at confidence
        ``1 − (1 − confidence)/2`` for ``p = P[M(d) ∈ E]`` and ``q = P[M(d′) ∈ E]``.
    forward : ndarray of bool
        True where the bound comes from ``p`` over ``q`` (``M(d)`` more likely in ``E``).

    Notes
    -----
    If ``M`` is (ε, δ)-DP then ``p <= e^ε q + δ`` and ``q <= e^ε p + δ``. Each of the four
    one-sided ends ``p_low <= p``, ``p_high >= p``, ``q_low <= q``, ``q_high >= q`` fails with
    probability at most ``(1 − confidence)/4``; on the complement (probability
    ``>= confidence``) ``(p_low − δ)/q_high <= (p − δ)/q <= e^ε`` and likewise reversed, so the
    bound is at most ε. The event must not depend on the counts (see :func:`dpatlas.audit.audit`).

    Examples
    --------
    >>> bound, forward = epsilon_lower_bound(5000, 1000, 10_000, confidence=0.99)
    >>> round(float(bound), 2), bool(forward)
    (1.5, True)
    """
    delta = check_delta(delta)
    level = 1.0 - (1.0 - _check_confidence(confidence)) / 2
    p_low, p_high = clopper_pearson(k_d, n, level)
    q_low, q_high = clopper_pearson(k_d_prime, n, level)
    bound, forward = _ratio_bound(p_low, p_high, q_low, q_high, delta)
    return np.maximum(bound, 0.0), forward


def _ratio_bound(
    p_low: NDArray[np.float64],
    p_high: NDArray[np.float64],
    q_low: NDArray[np.float64],
    q_high: NDArray[np.float64],
    delta: float,
) -> tuple[NDArray[np.float64], NDArray[np.bool_]]:
    """Unclipped ``max(ln((p_low − δ)/q_high), ln((q_low − δ)/p_high))`` and its direction."""
    with np.errstate(divide="ignore"):
        fwd = np.log(np.maximum(p_low - delta, 0.0) / q_high)
        rev = np.log(np.maximum(q_low - delta, 0.0) / p_high)
    return np.maximum(fwd, rev), np.asarray(fwd >= rev)


def _wilson(
    k: NDArray[np.integer], n: int, z: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Wilson score interval with normal quantile ``z`` (closed form, for fast scoring)."""
    k_f = np.asarray(k, dtype=np.float64)
    centre = (k_f + z * z / 2) / (n + z * z)
    half = z / (n + z * z) * np.sqrt(k_f * (n - k_f) / n + z * z / 4)
    return np.clip(centre - half, 0.0, 1.0), np.clip(centre + half, 0.0, 1.0)


def selection_score(
    k_d: NDArray[np.integer], k_dp: NDArray[np.integer], n: int, delta: float, alpha: float
) -> NDArray[np.float64]:
    """Approximate unclipped bound of many events at error level ``alpha`` (for selection only).

    Like :func:`epsilon_lower_bound` with Wilson intervals instead of Clopper–Pearson, so that
    millions of events are scored in closed form; ``-inf`` where no direction has mass. The
    event chosen is tested with exact intervals on other runs, so an approximate score costs
    power at most, never validity.
    """
    z = float(ndtri(1.0 - alpha / 4))
    p_low, p_high = _wilson(k_d, n, z)
    q_low, q_high = _wilson(k_dp, n, z)
    return _ratio_bound(p_low, p_high, q_low, q_high, delta)[0]
