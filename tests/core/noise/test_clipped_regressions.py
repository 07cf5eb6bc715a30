"""Bugs the fuzzers found in clipped_sum and clipped_mean, now fixed: a regression test each."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpatlas import Budget, clipped_mean, clipped_sum

TINY = 1.1275418570687996e-307


def test_clipped_mean_tiny_epsilon_refused_without_spend():
    budget = Budget(1.0)
    with pytest.raises(ValueError, match="epsilon"):
        clipped_mean([0.0], lower=-21.0, upper=1.0, epsilon=TINY, budget=budget, rng=0)
    assert budget.history == ()


def test_clipped_sum_tiny_epsilon_is_a_value_error():
    with pytest.raises(ValueError, match="epsilon"):
        clipped_sum([0.0], lower=-21.0, upper=1.0, epsilon=TINY, rng=0)


def test_clipped_sum_near_the_largest_float_saturates():
    # slow-fuzz find: spent, then 'overflow encountered in multiply' (an infinite release);
    # then refused for the values' size, which depended on the data (issue #17). Now the
    # release saturates at the largest float, post-processing of the exact lattice value.
    values = np.array([[6.78804145e16, 1.79769313e308], [4.91365814e16, 0.0]])
    budget = Budget(1e6)
    for seed in range(20):
        rel = clipped_sum(values, lower=1e-6, upper=1.79e308, epsilon=183908.3, rng=seed)
        assert 1.7e308 < rel.value <= 1.7976931348623157e308
    clipped_sum(values, lower=1e-6, upper=1.79e308, epsilon=183908.3, rng=0, budget=budget)
    assert len(budget.history) == 1


def test_clipped_mean_tiny_bound_and_split_refused_before_spending():
    # slow-fuzz find: the pre-check missed laplace's grid inflation (scale ~2**115): spent, then
    # refused
    budget = Budget(1e6)
    with pytest.raises(ValueError, match=r"noise scale sensitivity/epsilon is about 2\*\*115"):
        clipped_mean(
            0, lower=-8.835e-207, upper=0.0, epsilon=1.0, split=2.3e-35, budget=budget, rng=0
        )
    assert budget.history == ()


@pytest.mark.parametrize("n", [None, 2])
@pytest.mark.parametrize("mechanism", [clipped_sum, clipped_mean])
def test_clipped_sum_overflowing_a_float_saturates(mechanism, n):
    # was RuntimeWarning: overflow encountered in reduce (clipped_sum), a misleading message
    # about "values" (clipped_mean); then a refusal that depended on the number of records and
    # their values (issue #17). Now the sum saturates at the largest float.
    kwargs = {} if mechanism is clipped_sum or n is None else {"n": n}
    budget = Budget(10.0)
    values = [1e308, 1e308]  # a public scale (epsilon large enough), a sum beyond the floats
    rel = mechanism(values, lower=0, upper=1.7e308, epsilon=1e5, budget=Budget(1e6), **kwargs)
    assert math.isfinite(rel.value)
    assert rel.value > (1e308 if mechanism is clipped_sum else 1e307)
    with pytest.raises(ValueError, match=r"could exceed the largest float|too large"):
        mechanism(values, lower=0, upper=1.7e308, epsilon=1.0, budget=budget, **kwargs)
    assert budget.history == ()  # that refusal reads only public values: bounds and epsilon


def test_clipped_mean_with_n_and_bounds_too_far_apart():
    # was 'sensitivity must be a finite number > 0, got inf', naming no parameter of clipped_mean
    with pytest.raises(ValueError, match=r"upper - lower must be a finite float"):
        clipped_mean([0.0], lower=-1.7e308, upper=1.7e308, epsilon=1.0, n=1)


@pytest.mark.parametrize(
    ("lower", "upper", "name"), [(-(10**400), 1, "lower"), (0, 10**400, "upper")]
)
def test_clipped_bounds_beyond_the_float_range(lower, upper, name):
    # was OverflowError: int too large to convert to float
    with pytest.raises(ValueError, match=rf"{name} must be a finite number \(a public bound\)"):
        clipped_mean([0.0], lower=lower, upper=upper, epsilon=1.0)


def test_clipped_bounds_may_be_fractions():
    # was "lower must be a finite number (a public bound), got Fraction(0, 1)"
    from fractions import Fraction

    rel = clipped_sum([1.0, 2.0, 3.0], lower=Fraction(0), upper=Fraction(1, 3), epsilon=1.0, rng=0)
    assert rel.sensitivity == pytest.approx(1 / 3)
