"""The release contract, for every core mechanism: validate, debit before noise, flag seeds.

Each mechanism is called as ``call(values, epsilon=..., rng=..., budget=...)``; the table gives
sample values and the delta it spends.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest
from tests.helpers.sources import CountingSource

from dpatlas.core import (
    Budget,
    clipped_mean,
    clipped_sum,
    discrete_laplace,
    exponential,
    gaussian,
    laplace,
    randomized_response,
    report_noisy_max,
)
from dpatlas.errors import BudgetExceededError

CASES: dict[str, tuple[Callable, list, float]] = {
    "discrete_laplace": (lambda v, **k: discrete_laplace(v, sensitivity=1, **k), [1, 2, 3], 0.0),
    "laplace": (lambda v, **k: laplace(v, sensitivity=1.0, **k), [1.5, -2.0], 0.0),
    "gaussian": (lambda v, **k: gaussian(v, sensitivity=1.0, delta=1e-6, **k), [1.5], 1e-6),
    "exponential": (lambda v, **k: exponential(None, v, sensitivity=1.0, **k), [1.0, 3.0], 0.0),
    "report_noisy_max": (
        lambda v, **k: report_noisy_max(v, sensitivity=1.0, noise="exponential", **k),
        [1.0, 3.0],
        0.0,
    ),
    "randomized_response": (lambda v, **k: randomized_response(v, **k), [0, 1, 1], 0.0),
    "clipped_sum": (lambda v, **k: clipped_sum(v, lower=0.0, upper=2.0, **k), [0.5, 9.0], 0.0),
    "clipped_mean": (lambda v, **k: clipped_mean(v, lower=0.0, upper=2.0, **k), [0.5, 9.0], 0.0),
}
NAMES = sorted(CASES)


class BudgetWatchingSource(CountingSource):
    """Records how many spends the budget held when the first random word was drawn."""

    def __init__(self, budget: Budget) -> None:
        super().__init__(seed=1)
        self.budget, self.spends_at_first_draw = budget, None

    def _raw(self, n: int) -> np.ndarray:
        if self.spends_at_first_draw is None:
            self.spends_at_first_draw = len(self.budget.history)
        return super()._raw(n)


@pytest.mark.parametrize("name", NAMES)
def test_budget_is_debited_before_any_noise(name: str) -> None:
    call, values, delta = CASES[name]
    budget = Budget(1.0, 1e-5)
    src = BudgetWatchingSource(budget)
    rel = call(values, epsilon=0.5, rng=src, budget=budget)
    assert src.spends_at_first_draw == 1
    [spend] = budget.history
    assert (float(spend.epsilon), float(spend.delta)) == (0.5, delta)
    assert (rel.epsilon, rel.delta) == (0.5, delta)
    assert spend.mechanism == rel.mechanism == name


@pytest.mark.parametrize("name", NAMES)
def test_refused_release_spends_nothing_and_draws_nothing(name: str) -> None:
    call, values, _ = CASES[name]
    budget = Budget(0.25, 1e-5)
    src = CountingSource()
    with pytest.raises(BudgetExceededError, match=r"requested epsilon=0\.5"):
        call(values, epsilon=0.5, rng=src, budget=budget)
    assert src.drawn == 0
    assert budget.history == ()


@pytest.mark.parametrize("name", NAMES)
def test_seeded_runs_are_flagged_and_reproducible(name: str) -> None:
    call, values, _ = CASES[name]
    assert call(values, epsilon=1.0, rng=3).seeded is True
    assert call(values, epsilon=1.0, rng=np.random.default_rng(3)).seeded is True
    assert call(values, epsilon=1.0).seeded is False
    first, again = call(values, epsilon=1.0, rng=3), call(values, epsilon=1.0, rng=3)
    assert np.array_equal(np.asarray(first.value), np.asarray(again.value))


@pytest.mark.parametrize("name", NAMES)
def test_empty_input(name: str) -> None:
    call, _, _ = CASES[name]
    if name in ("exponential", "report_noisy_max"):  # no candidate to select: refused
        with pytest.raises(ValueError, match="at least one candidate"):
            call([], epsilon=1.0, rng=4)
        return
    rel = call([], epsilon=1.0, rng=4)
    if name.startswith("clipped"):
        assert isinstance(rel.value, float)  # the sum / mean of no records, with noise
    else:
        assert np.asarray(rel.value).size == 0


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize(
    ("epsilon", "error", "match"),
    [
        (-1.0, ValueError, r"epsilon must be a finite number > 0, got -1.0"),
        (0.0, ValueError, r"epsilon must be a finite number > 0, got 0.0"),
        (math.inf, ValueError, r"epsilon must be a finite number > 0, got inf"),
        (math.nan, ValueError, r"epsilon must be a finite number > 0, got nan"),
        ("1", TypeError, r"epsilon must be a real number, got '1' of type str"),
    ],
)
def test_bad_epsilon_is_refused(name: str, epsilon: object, error: type, match: str) -> None:
    call, values, _ = CASES[name]
    with pytest.raises(error, match=match):
        call(values, epsilon=epsilon)


@pytest.mark.parametrize("name", NAMES)
def test_nan_data_is_refused(name: str) -> None:
    call, values, _ = CASES[name]
    with pytest.raises(ValueError, match=r"must be finite, got nan"):
        call([*values[:-1], math.nan], epsilon=1.0)
