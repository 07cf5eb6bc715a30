"""Bugs the fuzzers found in the core and graph modules, now fixed: a regression test each.

A finding in a module the fuzz suite does not own is pinned first as a strict xfail in
``tests/fuzz/test_known_bugs.py`` (none is open now: create it for the next one); when the fix
lands, the XPASS fails the suite and the test moves here (or to ``test_regressions_spatial.py``).
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpatlas import (
    Budget,
    clipped_mean,
    clipped_sum,
    discrete_laplace,
    exponential,
    laplace,
    randomized_response,
    report_noisy_max,
)
from dpatlas.core.noise.ladder import ladder_mechanism
from dpatlas.graph import (
    as_edge_graph,
    clustering_coefficient,
    kstar_count,
    read_edgelist,
    triangle_count,
)

TINY = 1.1275418570687996e-307


def test_clipped_mean_tiny_epsilon_refused_without_spend():
    budget = Budget(1.0)
    with pytest.raises(ValueError, match="epsilon"):
        clipped_mean([0.0], lower=-21.0, upper=1.0, epsilon=TINY, budget=budget, rng=0)
    assert budget.history == ()


def test_clipped_sum_tiny_epsilon_is_a_value_error():
    with pytest.raises(ValueError, match="epsilon"):
        clipped_sum([0.0], lower=-21.0, upper=1.0, epsilon=TINY, rng=0)


def test_laplace_huge_value_is_a_value_error():
    with pytest.raises(ValueError, match="values"):
        laplace(1e308, sensitivity=1.0, epsilon=1.0, rng=0)


def test_scale_too_large_message_names_the_parameters():
    with pytest.raises(ValueError, match="sensitivity"):
        discrete_laplace(0, sensitivity=2.0**51, epsilon=1.0, rng=0)


def test_ragged_values_message_names_values():
    with pytest.raises(ValueError, match="values"):
        discrete_laplace([[1, 2], [3]], sensitivity=1, epsilon=1.0, rng=0)


def test_randomized_response_bool_categories_message():
    with pytest.raises(TypeError, match="categories"):
        randomized_response(0, epsilon=1.0, categories=True, rng=0)


def test_as_edge_graph_huge_n_is_a_value_error():
    with pytest.raises(ValueError, match="n"):
        as_edge_graph(np.zeros((0, 2), dtype=np.int64), n=2**40)


def test_read_edgelist_huge_n_is_a_value_error(tmp_path):
    path = tmp_path / "e.txt"
    path.write_text("0 1\n")
    with pytest.raises(ValueError, match="n"):
        read_edgelist(path, n=2**40)


def test_tiny_scale_message_names_the_parameters():
    with pytest.raises(ValueError, match=r"sensitivity|epsilon"):
        discrete_laplace(0, sensitivity=3.4904007735453084e-81, epsilon=1.4129299630223009e243)


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


@pytest.mark.parametrize("values", [{}, [{}], [[0], {}]])
def test_randomized_response_unhashable_value_is_a_type_error(values):
    # was TypeError: unhashable type: 'dict' (naming no parameter), found by the slow fuzzer
    with pytest.raises(TypeError, match=r"values must be labels from categories"):
        randomized_response(values, epsilon=1.0, categories=[0, 1], rng=0)


def test_randomized_response_unhashable_categories_is_a_type_error():
    with pytest.raises(
        TypeError, match=r"categories must be hashable labels, got \[\[1\], \[2\]\]"
    ):
        randomized_response([0], epsilon=1.0, categories=[[1], [2]], rng=0)


def test_clipped_sum_near_the_largest_float_refused_before_spending():
    # slow-fuzz find: spent, then 'overflow encountered in multiply' (an infinite release)
    values = np.array([[6.78804145e16, 1.79769313e308], [4.91365814e16, 0.0]])
    budget = Budget(1e6)
    for seed in range(20):  # the overflow depended on the noise draw: every draw is refused
        with pytest.raises(ValueError, match=r"values reach 1\.79e\+308: .* largest float"):
            clipped_sum(
                values, lower=1e-6, upper=1.79e308, epsilon=183908.3, rng=seed, budget=budget
            )
    assert budget.history == ()


def test_laplace_scale_beyond_the_float_range_refused():
    with pytest.raises(ValueError, match=r"sensitivity / epsilon = 1e\+306"):
        laplace(0.0, sensitivity=1e300, epsilon=1e-6, rng=0)
    assert math.isfinite(laplace(1e307, sensitivity=1e300, epsilon=1.0, rng=0).value)


@pytest.mark.parametrize("value", [2**63 - 1, -(2**63), 2**62, -(2**62)])
def test_discrete_laplace_int64_extremes_refused_before_spending(value):
    # was a silent int64 wrap-around: 2**63 - 1 plus positive noise came out negative
    budget = Budget(1.0)
    with pytest.raises(ValueError, match=r"values must be below 2\*\*62 in magnitude"):
        discrete_laplace(np.array([value]), sensitivity=1, epsilon=1.0, rng=0, budget=budget)
    assert budget.history == ()
    assert discrete_laplace(np.array([2**62 - 1]), sensitivity=1, epsilon=1.0, rng=0).value[0] > 0


def test_clipped_mean_tiny_bound_and_split_refused_before_spending():
    # slow-fuzz find: the pre-check missed laplace's grid inflation (scale ~2**116): spent, then
    # refused
    budget = Budget(1e6)
    with pytest.raises(ValueError, match=r"noise scale sensitivity/epsilon is about 2\*\*116"):
        clipped_mean(
            0, lower=-8.835e-207, upper=0.0, epsilon=1.0, split=2.3e-35, budget=budget, rng=0
        )
    assert budget.history == ()


@pytest.mark.parametrize("n", [None, 2])
@pytest.mark.parametrize("mechanism", [clipped_sum, clipped_mean])
def test_clipped_sum_overflowing_a_float_is_refused(mechanism, n):
    # was RuntimeWarning: overflow encountered in reduce (clipped_sum), a misleading message
    # about "values" (clipped_mean)
    kwargs = {} if mechanism is clipped_sum or n is None else {"n": n}
    budget = Budget(10.0)
    with pytest.raises(ValueError, match=r"the sum of the 2 clipped values overflows a float"):
        mechanism([1e308, 1e308], lower=0, upper=1.7e308, epsilon=1.0, budget=budget, **kwargs)
    assert budget.history == ()


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


def test_randomized_response_categories_beyond_int64_refused_before_spending():
    # was OverflowError (numpy int64) after the spend was recorded
    budget = Budget(10.0)
    with pytest.raises(
        ValueError, match=r"categories must be at most 2\*\*62, got 9223372036854775808"
    ):
        randomized_response([0], epsilon=1.0, categories=2**63, budget=budget, rng=0)
    assert budget.history == ()
    assert randomized_response([0], epsilon=1.0, categories=2**62, rng=0).value.shape == (1,)


def test_laplace_scale_of_a_huge_sensitivity_is_finite():
    # slow-fuzz find: Release.scale was g * t / s, which overflowed to inf (g * t > 1.8e308)
    rel = laplace(0, sensitivity=6.8576518160073485e302, epsilon=1.0, rng=0)
    assert rel.scale == pytest.approx(6.8576518160073485e302, rel=1e-5)
    assert math.isfinite(rel.value)


# triangle_count(..., epsilon=1e-300, method="ladder", interval_epsilon=1.0) debited the budget
# and then failed in the ladder's sampler (scale 2/ε beyond 2**50). Every count release now
# checks its noise scales on public values first (dpatlas.graph._noise). The tests use
# ε = 1e-150: at 1e-300 without an interval, ρ = ε²/2 underflows (its own refusal, below).
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
    with pytest.raises(ValueError, match=TOO_SMALL):
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


def test_an_epsilon_whose_zcdp_cost_underflows_is_refused_with_a_clear_message():
    budget = Budget(1.0)
    with pytest.raises(ValueError, match=r"zCDP cost of epsilon=1e-300 underflows to 0"):
        triangle_count(PATH, n=3, epsilon=1e-300, budget=budget, rng=0)
    assert budget.history == ()
