"""Bugs the fuzzers found in the validation of the core's parameters, now fixed: a regression test each."""

from __future__ import annotations

import math

import pytest

from dpatlas import (
    Budget,
    clipped_sum,
    discrete_laplace,
    exponential,
    laplace,
    randomized_response,
    report_noisy_max,
)

HUGE_EPSILON = {
    "laplace": lambda b: laplace(0.0, sensitivity=1e300, epsilon=1e300, budget=b, rng=0),
    "discrete_laplace": lambda b: discrete_laplace(
        0, sensitivity=1e300, epsilon=1e300, budget=b, rng=0
    ),
    "report_noisy_max": lambda b: report_noisy_max(
        [1, 2], sensitivity=1e300, epsilon=1e300, budget=b, rng=0
    ),
    "exponential": lambda b: exponential(
        ["a", "b"], [1, 2], sensitivity=1e300, epsilon=1e300, budget=b, rng=0
    ),
    "randomized_response": lambda b: randomized_response(
        [0, 1], epsilon=1e300, categories=2, budget=b, rng=0
    ),
    "clipped_sum": lambda b: clipped_sum([0.5], lower=0, upper=1, epsilon=1e300, budget=b, rng=0),
}


@pytest.mark.parametrize("name", sorted(HUGE_EPSILON))
def test_huge_epsilon_refused_without_spend(name):
    budget = Budget(1e6)
    with pytest.raises(ValueError, match="epsilon"):
        HUGE_EPSILON[name](budget)
    assert budget.history == ()


HUGE_INT_PARAMETERS = {
    "epsilon": lambda: laplace(0.0, sensitivity=1, epsilon=10**400),
    "sensitivity": lambda: report_noisy_max([1, 2], sensitivity=10**400, epsilon=1.0),
    "delta": lambda: Budget(1.0, -(10**400)),
}


@pytest.mark.parametrize("name", sorted(HUGE_INT_PARAMETERS))
def test_core_parameters_beyond_the_float_range_are_value_errors(name):
    # was OverflowError: int too large to convert to float (core.validation._real)
    with pytest.raises(ValueError, match=rf"^{name} must be"):
        HUGE_INT_PARAMETERS[name]()


def test_interval_levels_accept_numpy_reals_and_refuse_the_rest() -> None:
    import networkx as nx
    import numpy as np
    import pytest

    from dpatlas.core import laplace
    from dpatlas.graph import triangle_count

    rel = laplace(1.0, sensitivity=1, epsilon=1.0, rng=0)
    assert rel.confidence_interval(np.float32(0.95)) == pytest.approx(rel.confidence_interval(0.95))
    constant = triangle_count(nx.empty_graph(2), epsilon=1.0)  # n < 3: an exact 0
    assert constant.confidence_interval(0.9) == (0, 0)
    for bad in (float("nan"), 0, 2, "x", True, np.bool_(True)):
        with pytest.raises(ValueError, match=r"level must be in \(0, 1\), got"):
            constant.confidence_interval(bad)
        with pytest.raises(ValueError, match=r"level must be in \(0, 1\), got"):
            rel.confidence_interval(bad)


def test_check_sensitivity_rounds_up_what_has_no_float() -> None:
    from fractions import Fraction

    import numpy as np

    from dpatlas.core.validation import check_sensitivity

    assert check_sensitivity(2**53 + 1) == 2**53 + 2
    assert check_sensitivity(np.int64(2**62 + 1)) == math.nextafter(2.0**62, math.inf)
    assert check_sensitivity(Fraction(1, 3)) > Fraction(1, 3)
    assert check_sensitivity(Fraction(1, 3)) == math.nextafter(1 / 3, math.inf)
    assert check_sensitivity(0.1) == 0.1
    assert check_sensitivity(3) == 3.0
