"""Bugs the fuzzers found in randomized_response, now fixed: a regression test each."""

from __future__ import annotations

import pytest

from dpatlas import Budget, randomized_response
from dpatlas.core import estimate_frequencies


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


def test_randomized_response_labels_that_are_one_key_are_named_before_spending():
    # was "categories must hold at least 2 distinct labels" for [1, True, 0]
    budget = Budget(1.0)
    with pytest.raises(ValueError, match=r"got 1 and True, which are one key in Python"):
        randomized_response([1, 0], epsilon=1.0, categories=[1, True, 0], budget=budget, rng=0)
    assert budget.history == ()


def test_randomized_response_tuple_labels_stay_whole():
    # was "value 1 is not one of the categories": the tuples were split into an array's columns
    labels = [(1, 2), (3, 4), (5, 6)]
    rel = randomized_response([(1, 2), (3, 4)] * 50, epsilon=30.0, categories=labels, rng=0)
    assert rel.value.shape == (100,)
    assert list(rel.value[:2]) == [(1, 2), (3, 4)]
    freq = estimate_frequencies(rel)
    assert freq.n == 100
    assert freq.estimate == pytest.approx([0.5, 0.5, 0.0])
