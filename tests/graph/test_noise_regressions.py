"""Bugs the fuzzers found in the graph releases' noise scales, now fixed: a regression test each."""

from __future__ import annotations

import numpy as np
import pytest

from dpatlas import Budget
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.graph import clustering_coefficient, kstar_count, triangle_count

# triangle_count(..., epsilon=1e-300, method="ladder", interval_epsilon=1.0) debited the budget
# and then failed in the ladder's sampler (scale 2/ε beyond 2**50). Every count release now
# checks its noise scales on public values first (dpatlas.graph._noise). The tests use
# ε = 1e-150 (1e-300 is refused the same way, below).
PATH = np.array([[0, 1], [0, 2]])
TRIANGLE = np.array([[0, 1], [1, 2], [2, 0]])
TOO_SMALL = "too large \\(> 2\\*\\*50\\) to sample exactly"


@pytest.mark.parametrize(
    ("method", "interval_epsilon"),
    [("ladder", None), ("ladder", 1.0), ("smooth", None), ("smooth", 1.0), ("global", None)],
)
def test_triangle_count_refuses_an_unsampleable_scale_before_spending(method, interval_epsilon):
    budget = Budget(1e6, 0.9)
    delta = 1e-6 if method == "smooth" else 0.0
    # smooth (ε, δ) refuses such an ε earlier, for its smoothness β (with the least ε it takes)
    reason = "too small for smooth sensitivity" if method == "smooth" else TOO_SMALL
    with pytest.raises(ValueError, match=reason):
        triangle_count(
            PATH, n=3, epsilon=1e-150, delta=delta, method=method, budget=budget, rng=0,
            interval_epsilon=interval_epsilon,
        )  # fmt: skip
    assert budget.history == ()


def test_an_unsampleable_interval_epsilon_is_refused_before_spending():
    budget = Budget(1e6, 0.9)
    with pytest.raises(ValueError, match=TOO_SMALL):
        triangle_count(TRIANGLE, n=3, epsilon=1.0, budget=budget, rng=0, interval_epsilon=1e-150)
    with pytest.raises(ValueError, match=TOO_SMALL):
        kstar_count(TRIANGLE, 2, n=3, epsilon=1.0, budget=budget, rng=0, interval_epsilon=1e-150)
    assert budget.history == ()


@pytest.mark.parametrize("method", ["ladder", "global"])
def test_kstar_and_clustering_refuse_before_spending(method):
    budget = Budget(1e6, 0.9)
    with pytest.raises(ValueError, match=TOO_SMALL):
        kstar_count(PATH, 2, n=3, epsilon=1e-150, method=method, budget=budget, rng=0)
    with pytest.raises(ValueError, match=TOO_SMALL):
        clustering_coefficient(TRIANGLE, n=3, epsilon=1e-150, method=method, budget=budget, rng=0)
    assert budget.history == ()


def test_ladder_mechanism_refuses_before_spending():
    budget = Budget(1.0)
    with pytest.raises(ValueError, match=TOO_SMALL):
        ladder_mechanism(5, [1, 2], epsilon=1e-150, budget=budget, rng=0)
    assert budget.history == ()


def test_usable_epsilons_still_release():
    budget = Budget(10.0, 0.9)
    rel = triangle_count(TRIANGLE, n=3, epsilon=1.0, budget=budget, rng=0, interval_epsilon=0.5)
    assert rel.epsilon == 1.5
    assert len(budget.history) == 1


def test_a_tiny_epsilon_costs_a_positive_rho_and_is_refused_for_its_scale():
    # ρ = ε²/2 underflowed to 0 at ε = 1e-300 (refused for that); the Cost rounds it up to the
    # smallest float, so the refusal left is the scale 2/ε, before anything is spent
    budget = Budget(1.0)
    with pytest.raises(ValueError, match=TOO_SMALL):
        triangle_count(PATH, n=3, epsilon=1e-300, budget=budget, rng=0)
    assert budget.history == ()
