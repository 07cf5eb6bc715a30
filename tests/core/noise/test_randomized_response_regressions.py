"""Bugs the fuzzers found in randomized_response, now fixed: a regression test each."""

from __future__ import annotations

import pytest

from dpatlas import Budget, randomized_response


def test_randomized_response_bool_categories_message():
    with pytest.raises(TypeError, match="categories"):
        randomized_response(0, epsilon=1.0, categories=True, rng=0)


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


def test_randomized_response_categories_beyond_int64_refused_before_spending():
    # was OverflowError (numpy int64) after the spend was recorded
    budget = Budget(10.0)
    with pytest.raises(
        ValueError, match=r"categories must be at most 2\*\*62, got 9223372036854775808"
    ):
        randomized_response([0], epsilon=1.0, categories=2**63, budget=budget, rng=0)
    assert budget.history == ()
    assert randomized_response([0], epsilon=1.0, categories=2**62, rng=0).value.shape == (1,)
