"""Gaussian mechanism for real values: discrete Gaussian noise on a power-of-two grid.

Calibration of the standard deviation σ for an L2 sensitivity Δ:

``method="analytic"`` (default)
    The smallest σ with ``Φ(Δ/2σ − εσ/Δ) − e^ε Φ(−Δ/2σ − εσ/Δ) <= δ`` (Balle & Wang 2018,
    Thm. 8 / Alg. 1: the exact privacy profile of the Gaussian mechanism). The profile is
    evaluated without cancellation (:mod:`dpatlas.core.noise._sampling.gauss_profile`: relative error below
    ~3e-11 for every ε <= 1e6 and δ >= 1e-300, where the formula as written loses all digits
    once ε and δ are small), solved for ``Δ/σ`` and then nudged until the computed profile is
    below ``δ (1 − 1e-9)``, so the true δ(σ) never exceeds δ. ``δ < 1e-300`` is refused.
    The profile is solved at the binary ε, while a budget charges its decimal
    (:func:`~dpatlas.core.accounting.cost.exact_epsilon`), relatively at most ``2**-53``
    away. ``∂δ/∂ε = −e^ε Φ(−Δ/2σ − εσ/Δ)``, and its elasticity ``ε |∂δ/∂ε| / δ`` at the
    calibrated σ is at most about ``2.7e4`` over ``ε <= 1e6``, ``δ >= 1e-300`` (largest at
    ``ε = 1e6``; measured at 60 digits): the gap moves δ by a relative ``< 6e-12``, inside
    the margin. (A subnormal ε is off by at most ``2**-1075``, and ``|∂δ/∂ε| <= 1``.)
``method="classic"``
    ``σ = Δ sqrt(2 ln(1.25/δ)) / ε`` (Dwork & Roth 2014, Thm. A.1), valid only for ``ε < 1``.

Float safety. Like :func:`~dpatlas.core.noise.laplace.laplace`, values are rounded to a grid
``g = 2**k`` (largest power of two <= ``σ0 · 2**-20 / sqrt(c)``, never finer than ``σ0 · 2**-26``,
or a user ``resolution`` <= ``σ0 · 2**-16``; ``σ0`` calibrated for Δ, ``c`` the coordinates one
neighbour may change, default all), which moves a neighbour's vector by at most ``sqrt(c)·g``
in L2: the noise is calibrated for ``Δ' = Δ + sqrt(c)·g``. Noise is ``g`` times an exact
discrete Gaussian (:mod:`dpatlas.core.noise._sampling.dgauss`) with integer parameter
``σ_g² >= (s/g)² + t²``, ``s`` the σ calibrated for Δ' and ``t = 4``. The float released is
that lattice value rounded and saturated at ``±1.797e308``
(:func:`~dpatlas.core.noise._sampling.grid.from_grid`): no value is refused for its
magnitude, since a refusal would depend on the data.

Privacy (proof sketch). zCDP: an integer query with L2 sensitivity ``Δ'/g`` plus independent
discrete Gaussians of parameter ``σ_g²`` is ``ρ = (Δ'/g)² / (2σ_g²)``-zCDP (CKS 2020, Thm. 4
per coordinate, Rényi divergences add over independent coordinates); ``ρ`` is recorded.
(ε, δ): let ``X ~ N(0, s²/g²)`` (continuous) and, given ``X``, ``Y`` a discrete Gaussian on the
integers centred at ``X`` with parameter ``t²``. Then ``n + Y`` is post-processing of the
continuous Gaussian mechanism ``n + X`` (integer ``n`` shifts the lattice onto itself), hence
(ε, δ0)-DP with δ0 the calibration target. By Poisson summation the normaliser of a discrete
Gaussian of parameter ``t²`` centred anywhere is ``t sqrt(2π)(1 ± η)``,
``η = 2 Σ_{m>=1} exp(−2π² t² m²) < 1e-136``, so each coordinate of ``Y`` is within total
variation ``η/(1−η)`` of the discrete Gaussian with parameter ``s²/g² + t²``. The released
noise is therefore (ε, δ0 + (1 + e^ε) d η/(1−η))-DP over ``d`` coordinates; δ0 is chosen so
the total is at most δ. (The smoothing argument is that of Micciancio & Regev 2004, Lemma 4.4,
and Peikert 2010, Thm. 3.1.)
"""

from __future__ import annotations

import math
from typing import Any, NamedTuple

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import open_charge
from dpatlas.core.accounting.cost import Cost
from dpatlas.core.noise._sampling.dgauss import sample_discrete_gaussian
from dpatlas.core.noise._sampling.grid import changed_count, from_grid, grid_step, to_grid
from dpatlas.core.noise.gaussian_sigma import (
    _positive_delta,
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    gaussian_delta,
)
from dpatlas.core.release import Release, register_noise
from dpatlas.core.rng import RngLike, get_source
from dpatlas.core.validation import (
    as_float_array,
    check_delta,
    check_epsilon,
    check_sensitivity,
    value_count,
)

__all__ = [
    "GaussianPlan",
    "analytic_gaussian_sigma",
    "classic_gaussian_sigma",
    "gaussian",
    "gaussian_delta",
    "gaussian_plan",
]

_T2 = 16
_ETA = 2 * math.exp(-2 * math.pi**2 * _T2) / (1 - math.exp(-2 * math.pi**2 * _T2))


def _halfwidth(scale: float, level: float) -> float:
    from scipy import special  # imported on use: scipy is slow to import

    return scale * (float(special.ndtri((1 + level) / 2)) + 2.0**-10)


register_noise("gaussian", halfwidth=_halfwidth, variance=lambda scale: scale * scale)


def gaussian(
    values: Any,
    *,
    sensitivity: float,
    epsilon: float,
    delta: float,
    method: str = "analytic",
    rng: RngLike = None,
    budget: Budget | None = None,
    resolution: float | None = None,
    max_changed: int | None = None,
    mechanism: str = "gaussian",
    note: str = "",
) -> Release:
    """Release real values with Gaussian noise calibrated to (ε, δ) for an L2 ``sensitivity``.

    Parameters
    ----------
    values : float or array_like of float
        The exact answers; NaN and infinities are refused.
    sensitivity : float
        L2 sensitivity of the whole vector over all neighbouring datasets.
    epsilon, delta : float
        The privacy cost; ``delta`` must be in (0, 1).
    method : {"analytic", "classic"}
        How σ is calibrated (see the module docstring); "classic" needs ``epsilon < 1``.
    rng : None, int or numpy.random.Generator
        ``None`` (default) for secure noise; a seed makes the noise reproducible, which is for
        tests and teaching only and is recorded as ``seeded=True``.
    budget : Budget, optional
        Debited by the cost of :func:`gaussian_plan` (ε, δ and ``rho``) before any noise is
        drawn; an overspend raises :class:`~dpatlas.errors.BudgetExceededError`.
    resolution : float, optional
        Output grid step (rounded down to a power of two, at most ``σ · 2**-16``).
    max_changed : int, optional
        How many coordinates one neighbour can change (default: all).
    mechanism, note : str
        Labels recorded in the release and the budget history.

    Returns
    -------
    Release
        ``scale`` is the noise standard deviation σ; ``rho`` the zCDP cost.
    Examples
    --------
    >>> rel = gaussian([1.0, 2.0], sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=0)
    >>> round(rel.scale, 3), rel.noise, rel.delta
    (3.731, 'gaussian', 1e-05)
    >>> round(rel.rho, 4)  # 1 / (2 σ²)
    0.0359
    """
    plan = gaussian_plan(
        value_count(values), sensitivity, epsilon, delta, method, resolution, max_changed
    )
    charge = open_charge(plan.cost, budget, mechanism=mechanism, note=note)
    x = as_float_array(values)
    units = to_grid(x, plan.grid)
    src = get_source(rng)
    charge.debit()
    noise = sample_discrete_gaussian(src, x.size, plan.sigma2).reshape(x.shape)
    noisy = from_grid(x, units, noise, plan.grid)
    return charge.release(
        Release,
        value=float(noisy) if noisy.ndim == 0 else noisy,
        sensitivity=check_sensitivity(sensitivity),
        scale=math.sqrt(plan.sigma2) * plan.grid,
        noise="gaussian",
        seeded=src.seeded,
        metadata={"grid": plan.grid, "method": method, "max_changed": plan.changed},
    )


class GaussianPlan(NamedTuple):
    """The public side of a Gaussian release: its cost, grid step, lattice variance and ``c``."""

    cost: Cost
    grid: float
    sigma2: int
    changed: int


def gaussian_plan(
    size: int,
    sensitivity: float,
    epsilon: float,
    delta: float,
    method: str = "analytic",
    resolution: float | None = None,
    max_changed: int | None = None,
) -> GaussianPlan:
    """Privacy map and noise of a release of ``size`` values (module docstring), from public values.

    Every refusal of :func:`gaussian` that concerns the noise is raised here, before the
    budget is checked and before the values are read. The cost is (ε, δ) with the zCDP cost
    ``ρ = (Δ'/g)² / (2σ_g²)`` of the lattice noise actually drawn.

    Examples
    --------
    >>> plan = gaussian_plan(1, 1.0, 1.0, 1e-5)
    >>> plan.cost.epsilon, plan.cost.delta, round(plan.cost.rho, 4)
    (1.0, 1e-05, 0.0359)
    """
    delta_f, eps, dlt = check_sensitivity(sensitivity), check_epsilon(epsilon), check_delta(delta)
    if method not in ("analytic", "classic"):
        raise ValueError(f"method must be 'analytic' or 'classic', got {method!r}")
    calibrate = analytic_gaussian_sigma if method == "analytic" else classic_gaussian_sigma
    _positive_delta(dlt)
    slack = (1 + math.exp(min(eps, 700.0))) * max(size, 1) * _ETA / (1 - _ETA)
    if slack >= dlt * 1e-6:
        per_value = max(size, 1) * _ETA / (1 - _ETA)
        fix = (
            f"use delta >= {slack * 1e6:.3g}"
            if slack * 1e6 < 1
            else "use a larger delta or fewer values"
        )
        if slack * 1e6 >= 1 and dlt * 1e-6 > 2 * per_value:
            fix = f"no delta < 1 can; use epsilon <= {math.log(dlt * 1e-6 / per_value - 1):.4g}"
        raise ValueError(
            f"delta={dlt!r} is too small to absorb the discrete-noise slack {slack:.3g} "
            f"(it grows like e^epsilon, epsilon={eps!r}); {fix}"
        )
    c = changed_count(max_changed, size)
    sigma0 = calibrate(delta_f, eps, dlt - slack)
    finest = max(sigma0 * 2.0**-20 / math.sqrt(c), sigma0 * 2.0**-26)
    g = grid_step(sigma0, finest, sigma0 * 2.0**-16, resolution)
    delta_grid = (delta_f + math.sqrt(c) * g) * (1 + 2**-50)
    s_units = calibrate(delta_grid, eps, dlt - slack) / g
    units2 = s_units * s_units * (1 + 2**-50)
    if not units2 <= 2**56 - _T2:  # also catches inf (a tiny epsilon) before math.ceil overflows
        raise ValueError(
            f"epsilon={eps!r} with delta={dlt!r} needs a noise scale of {s_units:.3g} grid steps, "
            "beyond the exact sampler's 2**28; use a larger epsilon or delta, or a coarser resolution="
        )
    sigma2 = math.ceil(units2) + _T2
    rho = (delta_grid / g) ** 2 / (2 * sigma2)
    return GaussianPlan(Cost.zcdp(eps, dlt, rho), g, sigma2, c)
