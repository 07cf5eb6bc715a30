"""Heavier audits (``-m slow``): more runs for tighter bounds, more audits for error rates."""

from __future__ import annotations

import numpy as np
import pytest

from dpatlas.audit import audit
from dpatlas.core import discrete_laplace

pytestmark = pytest.mark.slow


def laplace_count(count: float, *, size: int, rng: np.random.Generator) -> np.ndarray:
    return count + rng.laplace(scale=1.0, size=size)


def test_two_million_runs_pin_a_correct_laplace_to_its_epsilon() -> None:
    result = audit(laplace_count, 0, 1, epsilon=1.0, samples=2_000_000, rng=31)
    assert result.passed
    assert result.epsilon_lb > 0.985


def test_two_million_runs_pin_a_third_of_the_scale_to_three_times_the_claim() -> None:
    def broken(c: int, *, size: int, rng: np.random.Generator) -> np.ndarray:
        return c + rng.laplace(scale=1 / 1.5, size=size)

    result = audit(broken, 0, 1, epsilon=0.5, samples=2_000_000, rng=32)
    assert 1.47 < result.epsilon_lb <= 1.5


def test_false_positive_rate_of_audits_of_the_core_discrete_laplace() -> None:
    # 400 audits at confidence 0.9 of a correct mechanism: a valid auditor fails at most 10%
    # in expectation; this one fails ~1%. Failing more than 5% (20) means a broken auditor.
    def count(c: int, *, size: int, rng: np.random.Generator) -> np.ndarray:
        return discrete_laplace(np.full(size, c), sensitivity=1, epsilon=0.5, rng=rng).value

    fails = sum(
        not audit(count, 0, 1, epsilon=0.5, samples=10_000, confidence=0.9, rng=s).passed
        for s in range(400)
    )
    assert fails <= 20
