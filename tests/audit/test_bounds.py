"""Clopper–Pearson intervals against scipy, and the ε lower bound at its edge cases."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.stats import binomtest

from dpatlas.audit import clopper_pearson, epsilon_lower_bound


@pytest.mark.parametrize("n", [1, 7, 100, 100_000])
@pytest.mark.parametrize("confidence", [0.5, 0.95, 0.9975])
def test_clopper_pearson_matches_scipy_exact(n: int, confidence: float) -> None:
    ks = np.unique(np.array([0, 1, n // 3, n // 2, n - 1, n]).clip(0, n))
    low, high = clopper_pearson(ks, n, confidence)
    for k, lo, hi in zip(ks, low, high, strict=True):
        ref = binomtest(int(k), n).proportion_ci(confidence_level=confidence, method="exact")
        # scipy finds the ends by root-finding to an absolute tolerance of ~1e-12
        assert lo == pytest.approx(ref.low, rel=1e-9, abs=1e-11)
        assert hi == pytest.approx(ref.high, rel=1e-9, abs=1e-11)


def test_clopper_pearson_broadcasts_and_hits_the_ends() -> None:
    low, high = clopper_pearson(np.array([[0], [10]]), np.array([10, 20]), 0.9)
    assert low.shape == high.shape == (2, 2)
    assert low[0, 0] == 0.0
    assert high[1, 0] == 1.0
    # k = 0: high solves (1 - high)^n = alpha / 2
    assert high[0, 0] == pytest.approx(1 - 0.05 ** (1 / 10), rel=1e-12)


def test_clopper_pearson_low_end_for_one_success_matches_closed_form() -> None:
    # k = 1: P[X >= 1] = 1 - (1 - low)^n = alpha / 2, accurate even where scipy's root-finder
    # is not (low ~ 1e-7)
    n = 100_000
    low, _ = clopper_pearson(1, n, 0.95)
    assert low == pytest.approx(-math.expm1(math.log1p(-0.025) / n), rel=1e-10)


@pytest.mark.parametrize(
    ("k", "n", "confidence", "error", "match"),
    [
        (11, 10, 0.9, ValueError, r"need 0 <= k <= n and n >= 1, got k=11, n=10"),
        (0, 0, 0.9, ValueError, r"need 0 <= k <= n"),
        (1.5, 10, 0.9, TypeError, r"k and n must be integers"),
        (
            1,
            10,
            1.0,
            ValueError,
            r"confidence must be a number in \(0, 1\), e\.g\. 0\.99, got 1\.0",
        ),
        (1, 10, "high", TypeError, r"confidence must be a number in \(0, 1\), got 'high'"),
    ],
)
def test_clopper_pearson_rejects_bad_input(k, n, confidence, error, match) -> None:
    with pytest.raises(error, match=match):
        clopper_pearson(k, n, confidence)


def test_bound_is_the_log_ratio_of_interval_ends_in_the_better_direction() -> None:
    n, confidence = 10_000, 0.99
    level = 1 - (1 - confidence) / 2
    p_low, _ = clopper_pearson(5000, n, level)
    _, q_high = clopper_pearson(1000, n, level)
    bound, forward = epsilon_lower_bound(5000, 1000, n, confidence=confidence)
    assert bound == pytest.approx(math.log(p_low / q_high), rel=1e-12)
    assert forward
    swapped, forward_swapped = epsilon_lower_bound(1000, 5000, n, confidence=confidence)
    assert swapped == bound
    assert not forward_swapped


def test_bound_subtracts_delta_and_clips_at_zero() -> None:
    n, level = 10_000, 1 - 0.01 / 2
    p_low, _ = clopper_pearson(5000, n, level)
    _, q_high = clopper_pearson(1000, n, level)
    bound, _ = epsilon_lower_bound(5000, 1000, n, delta=0.2, confidence=0.99)
    assert bound == pytest.approx(math.log((p_low - 0.2) / q_high), rel=1e-12)
    assert epsilon_lower_bound(5000, 1000, n, delta=0.6)[0] == 0.0  # p_low - δ <= 0
    assert epsilon_lower_bound(5000, 5000, n)[0] == 0.0  # equal counts: nothing to see
    assert epsilon_lower_bound(0, 0, n)[0] == 0.0  # no mass at all


def test_bound_is_finite_even_for_disjoint_supports() -> None:
    bound, forward = epsilon_lower_bound(100_000, 0, 100_000, confidence=0.99)
    # p_low = (α/4)^(1/n), q_high = 1 - (α/4)^(1/n): the largest bound n runs can show
    edge = 0.0025 ** (1 / 100_000)
    assert bound == pytest.approx(math.log(edge / (1 - edge)), rel=1e-9)
    assert forward
    assert 9.5 < bound < 10.0


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"delta": -0.5}, ValueError, r"delta must be in \[0, 1\), got -0\.5; use a small value"),
        ({"delta": math.nan}, ValueError, r"delta must be in \[0, 1\), got nan"),
        ({"delta": "0"}, TypeError, r"delta must be a real number, got '0'"),
        ({"confidence": 2.0}, ValueError, r"confidence must be a number in \(0, 1\), e\.g\. 0\.99"),
    ],
)
def test_bound_rejects_bad_delta_and_confidence(kwargs: dict, error: type, match: str) -> None:
    # delta = -0.5 reported a bound of 0.65 for equal counts, NaN a NaN bound
    with pytest.raises(error, match=match):
        epsilon_lower_bound(5000, 5000, 10_000, **kwargs)
