"""Randomized response: exact laws (binary, k-ary, the coin game), estimator, errors."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from tests.helpers.distributions import assert_distribution, assert_scale_detected
from tests.helpers.sources import ScriptedSource

from dpatlas.core import estimate_frequencies, randomized_response
from dpatlas.core.accounting.cost import exact_epsilon
from dpatlas.core.noise._sampling.inversion import build_inversion, exp_bounds
from dpatlas.core.noise.randomized_response import randomized_response_epsilon

N = 200_000


def binary_pmf(epsilon: float):
    p = math.exp(epsilon) / (1 + math.exp(epsilon))
    return lambda k: np.where(k == 1, p, 1 - p)


def test_binary_law_at_ln3_is_the_coin_game() -> None:
    rel = randomized_response(np.ones(N, dtype=int), epsilon=math.log(3), rng=1)
    assert_scale_detected(rel.value, binary_pmf, math.log(3), support=(0, 1))
    # coin game: heads (1/2) -> truth; tails -> a second fair coin: P(report 1 | 1) = 3/4
    assert_distribution(rel.value, pmf=lambda k: np.where(k == 1, 0.75, 0.25), support=(0, 1))
    assert randomized_response_epsilon(0.75) == pytest.approx(math.log(3), rel=1e-15)


def kary_pmf(epsilon: float, k: int = 4, truth: int = 2):
    p = math.exp(epsilon) / (math.exp(epsilon) + k - 1)
    return lambda j: np.where(j == truth, p, (1 - p) / (k - 1))


def test_kary_law_and_labels() -> None:
    rel = randomized_response(np.full(N, 2), epsilon=1.2, categories=4, rng=2)
    assert_scale_detected(rel.value, kary_pmf, 1.2, support=(0, 3))
    assert rel.metadata["p_truth"] == pytest.approx(math.exp(1.2) / (math.exp(1.2) + 3))
    labelled = randomized_response(["x", "z", "y"], epsilon=1.0, categories=["x", "y", "z"], rng=3)
    assert set(labelled.value.tolist()) <= {"x", "y", "z"}


def test_tie_on_the_threshold_is_exact() -> None:
    eps = math.log(3)  # P(lie) = 1 / (1 + e^eps) ≈ 1/4, eps read as its decimal (charged)

    def lie(_: int, bits: int) -> tuple[Fraction, Fraction]:
        lo, hi = exp_bounds(exact_epsilon(eps), math.ceil(bits * 0.302) + 8)
        return 1 / (hi + 1), 1 / (lo + 1)

    t = int(build_inversion(lie, 1).floors[0])
    frac = lie(0, 400)[0] * (1 << 64) - t
    v = math.floor(frac * (1 << 64))
    lied = randomized_response([1], epsilon=eps, rng=ScriptedSource([t, v - 1])).value
    kept = randomized_response([1], epsilon=eps, rng=ScriptedSource([t, v + 1])).value
    assert (lied.tolist(), kept.tolist()) == ([0], [1])


def test_estimator_is_unbiased_with_the_stated_variance() -> None:
    truth = np.r_[np.ones(300), np.zeros(700)].astype(int)
    estimates, variances = [], []
    for seed in range(1000):
        est = estimate_frequencies(randomized_response(truth, epsilon=1.0, rng=seed))
        estimates.append(est.estimate[1])
        variances.append(est.variance[1])
    p = math.exp(1) / (1 + math.exp(1))
    exact_var = p * (1 - p) / (1000 * (2 * p - 1) ** 2)
    assert np.allclose(variances, exact_var, rtol=1e-12)
    assert abs(np.mean(estimates) - 0.3) < 5 * math.sqrt(exact_var / 1000)
    assert np.var(estimates, ddof=1) == pytest.approx(exact_var, rel=0.2)


def test_kary_estimator() -> None:
    values = np.repeat([0, 1, 2], [5000, 3000, 2000])
    est = estimate_frequencies(randomized_response(values, epsilon=2.0, categories=3, rng=4))
    assert np.all(np.abs(est.estimate - [0.5, 0.3, 0.2]) < 5 * np.sqrt(est.variance))
    assert est.estimate.sum() == pytest.approx(1.0)


def test_errors() -> None:
    with pytest.raises(ValueError, match=r"values must be bits \(0 or 1\), got 2 at index \(1,\)"):
        randomized_response([0, 2], epsilon=1.0)
    with pytest.raises(ValueError, match=r"values must be in 0..2 for categories=3"):
        randomized_response([3], epsilon=1.0, categories=3)
    with pytest.raises(ValueError, match="value 'w' is not one of the categories"):
        randomized_response(["w"], epsilon=1.0, categories=["x", "y"])
    with pytest.raises(ValueError, match="categories must be an integer >= 2, got 1"):
        randomized_response([0], epsilon=1.0, categories=1)
    with pytest.raises(ValueError, match=r"p_truth must be in \(1/categories, 1\)"):
        randomized_response_epsilon(1.0)
    with pytest.raises(ValueError, match="the release holds no responses"):
        estimate_frequencies(randomized_response([], epsilon=1.0))


def test_estimates_are_refused_where_they_cannot_be_inverted() -> None:
    # at epsilon <= 1e-17, p == q in floating point: the estimate was NaN or +-inf
    from dpatlas.core import laplace

    for eps in (1e-17, 1e-300):
        rel = randomized_response(np.array([0, 1, 1]), epsilon=eps, rng=3)
        with pytest.raises(ValueError, match=rf"epsilon={eps:g} is too small to invert"):
            estimate_frequencies(rel)
    with pytest.raises(ValueError, match=r"'laplace' is not a randomized_response release"):
        estimate_frequencies(laplace(1.0, sensitivity=1, epsilon=1.0, rng=0))
