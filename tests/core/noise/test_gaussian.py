"""Gaussian mechanism: calibration against references and brute force, exact sampler, zCDP."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import integrate, stats
from tests.helpers.distributions import assert_scale_detected

from dpatlas.core import Budget, gaussian
from dpatlas.core.noise._sampling.dgauss import sample_discrete_gaussian
from dpatlas.core.noise.gaussian import (
    analytic_gaussian_sigma,
    classic_gaussian_sigma,
    gaussian_delta,
)
from dpatlas.core.rng import get_source
from dpatlas.errors import BudgetExceededError

# sigma for sensitivity 1 from the authors' reference implementation of Balle & Wang 2018
# (github.com/BorjaBalle/analytic-gaussian-mechanism, agm-example.py, tol=1e-12)
REFERENCE = [
    (1.0, 1e-5, 3.730631634944469),
    (0.1, 1e-6, 36.304691899114694),
    (0.5, 1e-5, 7.031826674729583),
    (2.0, 1e-6, 2.230476232151469),
    (0.01, 1e-3, 93.90741985443688),
]


@pytest.mark.parametrize(("eps", "delta", "sigma"), REFERENCE)
def test_analytic_sigma_matches_the_reference_implementation(
    eps: float, delta: float, sigma: float
) -> None:
    assert analytic_gaussian_sigma(1.0, eps, delta) == pytest.approx(sigma, rel=1e-6)
    assert analytic_gaussian_sigma(3.0, eps, delta) == pytest.approx(3 * sigma, rel=1e-6)


def brute_force_delta(sigma: float, sens: float, eps: float) -> float:
    """δ(ε) = ∫ max(0, p(x) − e^ε q(x)) dx for p = N(0, σ²), q = N(Δ, σ²), by quadrature."""
    cut = sens / 2 - eps * sigma**2 / sens  # p > e^eps q exactly left of this point

    def gap(x: float) -> float:
        return stats.norm.pdf(x, 0, sigma) - math.exp(eps) * stats.norm.pdf(x, sens, sigma)

    value, err = integrate.quad(gap, -np.inf, cut, epsabs=0, epsrel=1e-12, limit=200)
    assert err < 1e-10 * value
    return value


@pytest.mark.parametrize(("eps", "delta"), [(1.0, 1e-5), (0.1, 1e-6), (4.0, 1e-9), (0.5, 0.01)])
def test_analytic_sigma_is_tight_by_brute_force_profile(eps: float, delta: float) -> None:
    sigma = analytic_gaussian_sigma(2.0, eps, delta)
    exact = brute_force_delta(sigma, 2.0, eps)
    assert exact <= delta
    assert exact >= delta * (1 - 1e-6)
    assert brute_force_delta(sigma * 0.999, 2.0, eps) > delta  # any smaller sigma fails


def test_classic_sigma_formula_and_domain() -> None:
    assert classic_gaussian_sigma(1.0, 0.5, 1e-5) == pytest.approx(
        math.sqrt(2 * math.log(1.25e5)) / 0.5, rel=1e-12
    )
    assert analytic_gaussian_sigma(1.0, 0.5, 1e-5) < classic_gaussian_sigma(1.0, 0.5, 1e-5)
    with pytest.raises(ValueError, match=r"method='classic' needs epsilon < 1 .* got 1.0"):
        classic_gaussian_sigma(1.0, 1.0, 1e-5)
    with pytest.raises(ValueError, match=r"delta must be > 0 for the Gaussian mechanism"):
        classic_gaussian_sigma(1.0, 0.5, 0.0)


def test_privacy_profile_edge_cases() -> None:
    # eps = 0: delta is the total variation 2 Phi(Δ/2σ) − 1
    assert gaussian_delta(1.0, 1.0, 0.0) == pytest.approx(2 * stats.norm.cdf(0.5) - 1, rel=1e-12)
    assert gaussian_delta(1e6, 1.0, 1.0) == 0.0
    assert gaussian_delta(1e-3, 1.0, 1.0) == pytest.approx(1.0, abs=1e-12)
    with pytest.raises(ValueError, match=r"sigma must be a finite number > 0, got 0\.0"):
        gaussian_delta(0.0, 1.0, 1.0)
    with pytest.raises(ValueError, match="sigma must be a finite number > 0, got inf"):
        gaussian_delta(math.inf, 1.0, 1.0)


def dgauss_pmf(sigma: float):
    support = np.arange(-int(40 * sigma) - 5, int(40 * sigma) + 6)
    norm = np.exp(-(support**2) / (2 * sigma**2)).sum()
    return lambda k: np.exp(-(k.astype(float) ** 2) / (2 * sigma**2)) / norm


@pytest.mark.parametrize(("sigma2", "seed"), [(1, 1), (9, 2), (100, 3), (2000, 4)])
def test_discrete_gaussian_sampler_is_exact(sigma2: int, seed: int) -> None:
    draws = sample_discrete_gaussian(get_source(seed), 150_000, sigma2)
    assert_scale_detected(draws, dgauss_pmf, math.sqrt(sigma2))


def test_gaussian_release_distribution_and_grid() -> None:
    rel = gaussian(np.full(100_000, 0.25), sensitivity=1.0, epsilon=1.0, delta=1e-5, rng=5)
    g = rel.metadata["grid"]
    units = rel.value / g
    assert np.array_equal(units, np.round(units))
    noise = rel.value - round(0.25 / g) * g
    assert_scale_detected(noise, lambda s: stats.norm(0, s).cdf, rel.scale, kind="cdf")
    assert rel.scale == pytest.approx(3.730631634944469, rel=1e-4)
    assert rel.rho == pytest.approx(1 / (2 * rel.scale**2), rel=1e-4)
    assert rel.rho >= 1 / (2 * rel.scale**2)


def test_interval_coverage() -> None:
    rel = gaussian(np.zeros(100_000), sensitivity=1.0, epsilon=1.0, delta=1e-6, rng=6)
    low, high = rel.confidence_interval(0.9)
    miss = np.mean((low > 0) | (high < 0))
    assert abs(miss - 0.1) < 5 * math.sqrt(0.09 / 100_000)
    assert rel.variance() == pytest.approx(rel.scale**2)


def releases_until_refused(budget: Budget) -> int:
    for n in range(1000):
        try:
            gaussian(1.0, sensitivity=1.0, epsilon=0.1, delta=1e-8, budget=budget, rng=n)
        except BudgetExceededError:
            return n
    raise AssertionError("the budget never refused")


def test_zcdp_budget_composes_many_more_releases_than_basic() -> None:
    # each release: (eps, delta) = (0.1, 1e-8): analytic sigma = 45.94, rho = 1/(2 sigma^2)
    # = 2.369e-4. zCDP total: rho* = (sqrt(ln 1e6 + 1) - sqrt(ln 1e6))^2 = 0.017469, so 73
    # releases fit; basic composition of (0.1, 1e-8) within (1, 1e-6) allows only 10.
    zcdp, basic = Budget(1.0, 1e-6, accounting="zcdp"), Budget(1.0, 1e-6)
    counts = [releases_until_refused(zcdp), releases_until_refused(basic)]
    rel = gaussian(1.0, sensitivity=1.0, epsilon=0.1, delta=1e-8, rng=0)
    rho_star = (math.sqrt(math.log(1e6) + 1) - math.sqrt(math.log(1e6))) ** 2
    assert rel.scale == pytest.approx(45.94, abs=0.005)
    assert rel.rho == pytest.approx(2.369e-4, rel=1e-3)
    assert counts == [math.floor(rho_star / rel.rho), 10]
    assert counts[0] == 73


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError, match=r"delta must be > 0 for the Gaussian mechanism"):
        gaussian(1.0, sensitivity=1.0, epsilon=1.0, delta=0.0)
    with pytest.raises(ValueError, match=r"method must be 'analytic' or 'classic', got 'exact'"):
        gaussian(1.0, sensitivity=1.0, epsilon=1.0, delta=1e-6, method="exact")
    with pytest.raises(ValueError, match=r"method='classic' needs epsilon < 1"):
        gaussian(1.0, sensitivity=1.0, epsilon=2.0, delta=1e-6, method="classic")
    with pytest.raises(ValueError, match=r"resolution must be <= .* got 1.0"):
        gaussian(1.0, sensitivity=1.0, epsilon=1.0, delta=1e-6, resolution=1.0)
    with pytest.raises(ValueError, match=r"delta=1e-300 is too small"):
        gaussian(1.0, sensitivity=1.0, epsilon=1.0, delta=1e-300)
    # a huge value is released (issue #17: a refusal would depend on the data), not refused
    assert gaussian(1e300, sensitivity=1.0, epsilon=1.0, delta=1e-6, rng=0).value == 1e300


def test_noise_beyond_the_exact_sampler_refused_before_spending() -> None:
    # fuzz finds: the classic sigma at epsilon=5e-274 squared to inf and math.ceil raised an
    # OverflowError; before that, a too-large scale was refused only after the budget was debited.
    # (The analytic calibration is finite there: at delta=0.5 even epsilon -> 0 needs sigma 0.74.)
    budget = Budget(1.0, 0.9)
    with pytest.raises(
        ValueError, match=r"beyond the exact sampler's 2\*\*28; use a larger epsilon"
    ):
        gaussian(
            0.0, sensitivity=1.0, epsilon=4.98e-274, delta=0.5, method="classic", budget=budget
        )
    assert budget.spent == (0.0, 0.0)
    assert budget.history == ()


def test_slack_refusal_gives_a_possible_fix() -> None:
    # fuzz note: at epsilon=1e3 the advice was "use delta >= 1.4e+173", impossible for a delta < 1
    with pytest.raises(ValueError, match=r"no delta < 1 can; use epsilon <= 287\.5$"):
        gaussian(0.0, sensitivity=1e-30, epsilon=1e3, delta=1e-6)
    assert gaussian(0.0, sensitivity=1.0, epsilon=287.0, delta=1e-6, rng=0).epsilon == 287.0
    with pytest.raises(ValueError, match=r"epsilon=1\.0\); use delta >= 5\.12e-131$"):
        gaussian(0.0, sensitivity=1.0, epsilon=1.0, delta=1e-300)
