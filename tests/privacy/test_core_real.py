"""Passing audits of the core's real-valued mechanisms: ``laplace`` and ``gaussian`` (with δ).

Batched as ``size`` independent one-coordinate releases (``max_changed=1``: one neighbour
changes one coordinate of this vector, which is what the audit's two inputs differ by).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from dpatlas.audit import audit
from dpatlas.core.noise.gaussian import gaussian
from dpatlas.core.noise.laplace import laplace

SAMPLES = 200_000


@pytest.mark.parametrize(
    ("sensitivity", "epsilon", "d", "d_prime", "at_least"),
    [
        (1.0, 1.0, 0.0, 1.0, 0.93),  # a counting query
        (2.0, 0.2, 10.25, 12.25, 0.17),  # a real sum, small ε
    ],
)
def test_laplace(
    sensitivity: float, epsilon: float, d: float, d_prime: float, at_least: float
) -> None:
    def release(x: float, *, size: int, rng: np.random.Generator) -> np.ndarray:
        values = np.full(size, x)
        return laplace(
            values, sensitivity=sensitivity, epsilon=epsilon, rng=rng, max_changed=1
        ).value

    result = audit(release, d, d_prime, epsilon=epsilon, samples=SAMPLES, rng=51)
    assert result.passed
    assert result.epsilon_lb > at_least


def gaussian_mean(epsilon: float, delta: float) -> Callable[..., np.ndarray]:
    def mean(c: float, *, size: int, rng: np.random.Generator) -> np.ndarray:
        values = np.full(size, c)
        return gaussian(
            values, sensitivity=1.0, epsilon=epsilon, delta=delta, rng=rng, max_changed=1
        ).value

    return mean


@pytest.mark.parametrize(("epsilon", "delta", "at_least"), [(0.5, 0.05, 0.4), (1.0, 1e-3, 0.7)])
def test_gaussian_passes_with_its_delta(epsilon: float, delta: float, at_least: float) -> None:
    mean = gaussian_mean(epsilon, delta)
    result = audit(mean, 0.0, 1.0, epsilon=epsilon, delta=delta, samples=SAMPLES, rng=53)
    assert result.passed
    assert result.epsilon_lb > at_least


def test_gaussian_fails_when_its_delta_is_ignored() -> None:
    # (0.5, 0.05)-DP Gaussian audited as if it were pure 0.5-DP: its tails betray it
    result = audit(gaussian_mean(0.5, 0.05), 0.0, 1.0, epsilon=0.5, samples=SAMPLES, rng=53)
    assert not result.passed
    assert result.epsilon_lb > 1.0
