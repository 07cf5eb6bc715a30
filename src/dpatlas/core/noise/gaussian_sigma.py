"""Calibration of the Gaussian mechanism's σ (see :mod:`dpatlas.core.noise.gaussian`).

``analytic_gaussian_sigma`` solves the exact privacy profile (Balle & Wang 2018, Thm. 8);
``classic_gaussian_sigma`` is ``Δ sqrt(2 ln(1.25/δ)) / ε`` (Dwork & Roth 2014, Thm. A.1);
``gaussian_delta`` is the profile itself.
"""

from __future__ import annotations

import math
import numbers
import sys

from dpatlas.core.noise._sampling.gauss_profile import log_profile, solve_ratio
from dpatlas.core.validation import check_delta, check_epsilon, check_sensitivity

__all__ = ["analytic_gaussian_sigma", "classic_gaussian_sigma", "gaussian_delta"]


def gaussian_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    """Privacy profile: the exact δ(ε) of Gaussian noise σ on L2 sensitivity Δ (Balle & Wang 2018).

    Accurate to a relative ~3e-11 for ``0 <= ε <= 1e6`` wherever δ >= 1e-300 (smaller values are
    still returned, with a relative accuracy that degrades once ``Δ/σ`` leaves the normal floats;
    a ratio below 2**-1022 is evaluated at 2**-1022, which overstates δ).

    Examples
    --------
    >>> round(gaussian_delta(3.730631634944469, 1.0, 1.0), 12)
    1e-05
    >>> f"{gaussian_delta(0.5 / 2.5e-96, 0.5, 7.04e-97):.9g}"  # Φ(a) − e^ε Φ(b) gives noise here
    '6.84640876e-97'
    """
    s, d = check_epsilon(sigma, "sigma", maximum=math.inf), check_sensitivity(sensitivity)
    return math.exp(log_profile(max(d / s, sys.float_info.min), _profile_epsilon(epsilon)))


def _profile_epsilon(epsilon: float) -> float:
    zero = isinstance(epsilon, numbers.Real) and not isinstance(epsilon, bool) and epsilon == 0
    return 0.0 if zero else check_epsilon(epsilon)


def classic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """σ = Δ sqrt(2 ln(1.25/δ)) / ε (Dwork & Roth 2014, Thm. A.1; needs ε < 1, δ > 0).

    Examples
    --------
    >>> round(classic_gaussian_sigma(1.0, 0.5, 1e-5), 4)
    9.6896
    >>> classic_gaussian_sigma(1.0, 2.0, 1e-5)
    Traceback (most recent call last):
    ...
    ValueError: method='classic' needs epsilon < 1 (Dwork & Roth 2014, Thm. A.1), got 2.0; use method='analytic'
    """
    eps, d = check_epsilon(epsilon), _positive_delta(delta)
    if eps >= 1:
        raise ValueError(
            f"method='classic' needs epsilon < 1 (Dwork & Roth 2014, Thm. A.1), got {eps!r}; "
            "use method='analytic'"
        )
    # 2**-40 covers the float roundings and the <= 2**-53 relative gap between the binary ε
    # and the decimal a budget charges (exact_epsilon)
    return check_sensitivity(sensitivity) * math.sqrt(2 * math.log(1.25 / d)) / eps * (1 + 2**-40)


def analytic_gaussian_sigma(sensitivity: float, epsilon: float, delta: float) -> float:
    """The smallest σ whose exact privacy profile gives (ε, δ) (Balle & Wang 2018, Alg. 1).

    The computed profile at the returned σ is at most ``δ (1 − 1e-9)``; its relative error is
    below ~3e-11 (:mod:`dpatlas.core.noise._sampling.gauss_profile`), so the true δ(σ) is at most δ, and σ is
    within ~1e-9 of the optimum in δ. Refused: ``δ < 1e-300``, and a σ outside the normal floats.

    Examples
    --------
    >>> round(analytic_gaussian_sigma(1.0, 1.0, 1e-5), 6)
    3.730632
    >>> f"{analytic_gaussian_sigma(0.5, 7.04e-97, 7.04e-97):.6g}"  # a slow-fuzz find
    '1.96044e+95'
    >>> analytic_gaussian_sigma(1e10, 1e-300, 1e-300)
    Traceback (most recent call last):
    ...
    ValueError: sensitivity=10000000000.0 with epsilon=1e-300 and delta=1e-300 needs sigma = inf, ...
    """
    d, eps, dlt = check_sensitivity(sensitivity), check_epsilon(epsilon), _positive_delta(delta)
    if dlt < 1e-300:
        raise ValueError(
            f"delta={dlt!r} is below 1e-300, beyond what the analytic calibration resolves in "
            f"double precision (epsilon={eps!r}); use delta >= 1e-300"
        )
    log_target = math.log(dlt) + math.log1p(-1e-9)
    sigma, step = d / solve_ratio(eps, log_target), 2.0**-50
    while True:
        if not sys.float_info.min <= sigma < math.inf:
            raise ValueError(
                f"sensitivity={d!r} with epsilon={eps!r} and delta={dlt!r} needs sigma = "
                f"{sigma:.6g}, beyond the floating-point range; rescale the values so that the "
                "sensitivity is near 1, or use a larger epsilon or delta"
            )
        if log_profile(d / sigma, eps) <= log_target:
            return sigma
        sigma, step = max(sigma * (1 + step), math.nextafter(sigma, math.inf)), 2 * step


def _positive_delta(delta: float) -> float:
    d = check_delta(delta)
    if d == 0:
        raise ValueError(
            "delta must be > 0 for the Gaussian mechanism, got 0.0; use laplace() for pure DP"
        )
    return d
