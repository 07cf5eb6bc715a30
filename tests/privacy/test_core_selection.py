"""Passing audits of ``exponential``, ``report_noisy_max`` and ``randomized_response``.

Selection takes one release per call (~0.2 ms), so those audits use 3,000 runs (report-noisy-max
with Gumbel noise samples exactly like ``exponential``: it is audited under ``slow``). The score
vectors ``[1, 0, 0, 0, 0]`` and ``[0, 1, 1, 1, 1]`` differ by 1 in every score (Δ = 1) and
move the normaliser too: the exponential mechanism's loss on index 0 is
``ln(e^{ε/2} (1 + 4e^{ε/2}) / (e^{ε/2} + 4)) = 0.80`` at ε = 1.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from dpatlas.audit import audit
from dpatlas.core.noise.exponential import exponential, report_noisy_max
from dpatlas.core.noise.randomized_response import randomized_response

SCORES = [1.0, 0.0, 0.0, 0.0, 0.0]
SCORES_PRIME = [0.0, 1.0, 1.0, 1.0, 1.0]


def select(scores: list[float], *, rng: np.random.Generator) -> int:
    return exponential(None, scores, sensitivity=1.0, epsilon=1.0, rng=rng).value


def test_exponential_mechanism() -> None:
    result = audit(select, SCORES, SCORES_PRIME, epsilon=1.0, samples=3_000, rng=71)
    assert result.passed
    assert result.epsilon_lb > 0.3
    assert result.event.contains(np.array([[0.0], [1.0]])).tolist() == [True, False]


def noisy_max(noise: str) -> Callable[..., int]:
    def vote(scores: list[float], *, rng: np.random.Generator) -> int:
        return report_noisy_max(scores, sensitivity=1.0, epsilon=1.0, noise=noise, rng=rng).value

    return vote


def test_report_noisy_max_with_exponential_noise() -> None:
    result = audit(
        noisy_max("exponential"), SCORES, SCORES_PRIME, epsilon=1.0, samples=3_000, rng=72
    )
    assert result.passed
    assert result.epsilon_lb > 0.3


@pytest.mark.slow
@pytest.mark.parametrize("mechanism", [select, noisy_max("gumbel"), noisy_max("exponential")])
def test_selection_with_more_runs(mechanism: Callable[..., int]) -> None:
    result = audit(mechanism, SCORES, SCORES_PRIME, epsilon=1.0, samples=30_000, rng=74)
    assert result.passed
    assert result.epsilon_lb > 0.65


@pytest.mark.parametrize("categories", [None, 4])
def test_randomized_response(categories: int | None) -> None:
    # the loss on {o = true value} is exactly ε (both for bits and for k-ary answers)
    def answer(value: int, *, size: int, rng: np.random.Generator) -> np.ndarray:
        values = np.full(size, value)
        return randomized_response(values, epsilon=1.0, categories=categories, rng=rng).value

    result = audit(answer, 0, 1, epsilon=1.0, samples=200_000, rng=73)
    assert result.passed
    assert result.epsilon_lb > 0.95
