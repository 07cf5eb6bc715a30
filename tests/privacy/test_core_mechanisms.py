"""Passing audits of the core mechanisms: the bound must stay at or below the claimed ε.

Each audit is seeded (deterministic); a valid auditor fails a correct mechanism with
probability at most 1% per audit. Each test also asks for a bound near the claim, so that an
auditor that has lost its power (or a mechanism that adds far too much noise) is noticed.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpatlas.audit import audit
from dpatlas.core import discrete_laplace

SAMPLES = 200_000


def test_discrete_laplace_counting_query() -> None:
    def count(c: int, *, size: int, rng: np.random.Generator) -> np.ndarray:
        return discrete_laplace(np.full(size, c), sensitivity=1, epsilon=1.0, rng=rng).value

    result = audit(count, 3, 4, epsilon=1.0, samples=SAMPLES, rng=21)
    assert result.passed
    assert result.epsilon_lb > 0.9


def test_discrete_laplace_small_epsilon_and_sensitivity_two() -> None:
    def count(c: int, *, size: int, rng: np.random.Generator) -> np.ndarray:
        return discrete_laplace(np.full(size, c), sensitivity=2, epsilon=0.3, rng=rng).value

    result = audit(count, 10, 12, epsilon=0.3, samples=SAMPLES, rng=22)
    assert result.passed
    assert result.epsilon_lb > 0.25


@pytest.mark.parametrize(
    ("d_prime", "projections", "at_least"),
    [
        # one cell up, one down: each coordinate alone shows ε/2, the sum nothing
        ([5, 6, 0], (0, 1), 0.4),
        # both up: the sum shifts by 2 and shows more than either coordinate
        ([5, 8, 0], (None,), 0.55),
    ],
)
def test_discrete_laplace_vector_whose_neighbour_moves_two_cells(
    d_prime: list[int], projections: tuple[int | None, ...], at_least: float
) -> None:
    # one change moves two cells by 1 each: L1 sensitivity 2. The auditor looks at one
    # coordinate or the sum at a time, so it cannot see the full ε here (a joint event could)
    def cells(counts: list[int], *, size: int, rng: np.random.Generator) -> np.ndarray:
        values = np.tile(counts, (size, 1))
        return discrete_laplace(values, sensitivity=2, epsilon=1.0, rng=rng).value

    result = audit(cells, [4, 7, 0], d_prime, epsilon=1.0, samples=SAMPLES, rng=23)
    assert result.passed
    assert result.event.projection in projections
    assert result.epsilon_lb > at_least
