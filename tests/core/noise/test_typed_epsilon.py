"""The noise is calibrated to the ε a budget charges: the decimal typed, not the binary float.

A budget adds ``0.1`` as ``1/10`` (:func:`~dpatlas.core.accounting.cost.exact_epsilon`), while
``Fraction(0.1)`` is ``0.1000000000000000055...``: noise built from the binary float is that
ε, above the ε charged. Each test reads what the exact sampler is actually given.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np
import pytest

import dpatlas.core.noise.discrete_laplace as dl_module
import dpatlas.core.noise.exponential as em_module
import dpatlas.core.noise.randomized_response as rr_module
from dpatlas.core import Budget, discrete_laplace, exponential, randomized_response
from dpatlas.core.accounting import cost
from dpatlas.core.noise.local.ladder import step_scale
from dpatlas.core.noise.local.piecewise_ladder import piecewise_theta
from dpatlas.core.noise.local.smooth import smooth_scale

TYPED = ["0.1", "0.3", "0.7", "1e-05"]


@pytest.mark.parametrize("typed", TYPED)
def test_exact_epsilon_is_the_decimal_the_budget_charges(typed: str) -> None:
    eps = float(typed)
    budget = Budget(1.0)
    discrete_laplace(0, sensitivity=1, epsilon=eps, budget=budget, rng=0)
    assert cost.exact_epsilon(eps) == Fraction(typed) == Fraction(budget.history[0].epsilon)
    assert cost.exact_epsilon(eps) != Fraction(eps)  # the binary float is another number


@pytest.mark.parametrize("typed", TYPED)
@pytest.mark.parametrize("sensitivity", [1, 2, 7])
def test_discrete_laplace_draws_at_sensitivity_over_the_typed_epsilon(
    monkeypatch: pytest.MonkeyPatch, typed: str, sensitivity: int
) -> None:
    seen: list[tuple[int, int]] = []
    real = dl_module.sample_discrete_laplace

    def spy(src: Any, size: int, scale: tuple[int, int]) -> np.ndarray:
        seen.append(scale)
        return real(src, size, scale)

    monkeypatch.setattr(dl_module, "sample_discrete_laplace", spy)
    rel = discrete_laplace([3, 4], sensitivity=sensitivity, epsilon=float(typed), rng=1)
    [(t, s)] = seen
    assert Fraction(t, s) == sensitivity / Fraction(typed)
    assert rel.scale == float(sensitivity / Fraction(typed))


@pytest.mark.parametrize("typed", TYPED)
def test_randomized_response_bounds_exp_of_the_typed_epsilon(
    monkeypatch: pytest.MonkeyPatch, typed: str
) -> None:
    seen: list[Fraction] = []
    real = rr_module.exp_bounds

    def spy(x: Fraction, digits: int) -> tuple[Fraction, Fraction]:
        seen.append(x)
        return real(x, digits)

    monkeypatch.setattr(rr_module, "exp_bounds", spy)
    randomized_response([0, 1, 1, 0], epsilon=float(typed), rng=2)
    assert set(seen) == {Fraction(typed)}  # at least one call, every one at ε typed


@pytest.mark.parametrize("typed", TYPED)
@pytest.mark.parametrize("monotonic", [False, True])
def test_exponential_mechanism_weights_use_the_typed_epsilon(
    monkeypatch: pytest.MonkeyPatch, typed: str, monotonic: bool
) -> None:
    gammas: list[Fraction] = []
    real = em_module.bernoulli_exp_neg

    def spy(src: Any, est: np.ndarray, exact: Any) -> np.ndarray:
        gammas.extend(exact(i) for i in range(len(est)))
        return real(src, est, exact)

    monkeypatch.setattr(em_module, "bernoulli_exp_neg", spy)
    # scores 1 and 3, sensitivity 1: the loser's γ = c·ε·(3 - 1), c = 1/2 or 1 (monotonic)
    exponential(None, [1.0, 3.0], sensitivity=1.0, epsilon=float(typed), monotonic=monotonic, rng=3)
    expected = Fraction(typed) * 2 * (1 if monotonic else Fraction(1, 2))
    assert set(gammas) <= {Fraction(0), expected}
    assert expected in gammas


@pytest.mark.parametrize("typed", TYPED)
def test_ladder_smooth_and_piecewise_scales_use_the_typed_epsilon(typed: str) -> None:
    eps = float(typed)
    assert Fraction(*step_scale(eps)) == 2 / Fraction(typed)  # the ladder's rung weights
    assert Fraction(*smooth_scale(2.0, eps)) == 12 / Fraction(typed)  # 6 S / ε, Cauchy
    assert Fraction(*smooth_scale(2.0, eps, 1e-6)) == 4 / Fraction(typed)  # 2 S / ε, Laplace
    # the floor reaches GS: θ = ε, the noise is the discrete Laplace of scale GS/ε
    t, s = piecewise_theta(eps, 3, 3)
    assert Fraction(s, t) == Fraction(typed)


def test_exponential_float_estimate_is_within_its_bound_of_the_exact_gamma_at_a_subnormal_epsilon(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # a subnormal ε is 1% from its decimal (4.4e-323 is 9 * 2**-1074 = 4.4466e-323): an
    # estimate of γ from the binary ε broke the sampler's 2**-50 contract, and the coins
    # followed the binary ε, 1% above the ε charged
    pairs: list[tuple[float, Fraction]] = []
    real = em_module.bernoulli_exp_neg

    def spy(src: Any, est: np.ndarray, exact: Any) -> np.ndarray:
        pairs.extend((float(est[i]), exact(i)) for i in range(len(est)))
        return real(src, est, exact)

    monkeypatch.setattr(em_module, "bernoulli_exp_neg", spy)
    exponential(None, [1.0, 3.0], sensitivity=1e-200, epsilon=4.4e-323, rng=5)
    gamma = Fraction("4.4e-323") / Fraction(1e-200)  # c ε (3 - 1) / Δ with c = 1/2
    assert {g for _, g in pairs} <= {Fraction(0), gamma}
    assert all(abs(Fraction(e) - g) <= g * Fraction(1, 2**50) for e, g in pairs)
