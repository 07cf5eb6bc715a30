"""Bugs the fuzzers found in discrete_laplace and its scales, now fixed: a regression test each."""

from __future__ import annotations

import numpy as np
import pytest

from dpatlas import Budget, discrete_laplace


def test_scale_too_large_message_names_the_parameters():
    with pytest.raises(ValueError, match="sensitivity"):
        discrete_laplace(0, sensitivity=2.0**51, epsilon=1.0, rng=0)


def test_ragged_values_message_names_values():
    with pytest.raises(ValueError, match="values"):
        discrete_laplace([[1, 2], [3]], sensitivity=1, epsilon=1.0, rng=0)


def test_tiny_scale_message_names_the_parameters():
    with pytest.raises(ValueError, match=r"sensitivity|epsilon"):
        discrete_laplace(0, sensitivity=3.4904007735453084e-81, epsilon=1.4129299630223009e243)


@pytest.mark.parametrize("value", [2**63 - 1, -(2**63), 2**62, -(2**62)])
def test_discrete_laplace_int64_extremes_refused_before_spending(value):
    # was a silent int64 wrap-around: 2**63 - 1 plus positive noise came out negative
    budget = Budget(1.0)
    with pytest.raises(ValueError, match=r"values must be below 2\*\*62 in magnitude"):
        discrete_laplace(np.array([value]), sensitivity=1, epsilon=1.0, rng=0, budget=budget)
    assert budget.history == ()
    assert discrete_laplace(np.array([2**62 - 1]), sensitivity=1, epsilon=1.0, rng=0).value[0] > 0
