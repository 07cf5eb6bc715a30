"""Bugs the fuzzers found in discrete_laplace and its scales, now fixed: a regression test each."""

from __future__ import annotations

import math

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
def test_discrete_laplace_int64_extremes_are_clamped_not_wrapped(value):
    # was a silent int64 wrap-around: 2**63 - 1 plus positive noise came out negative; then a
    # refusal, which depended on the data (issue #17); now clamped to ±(2**62 - 1) first
    budget = Budget(1.0)
    rel = discrete_laplace(np.array([value]), sensitivity=1, epsilon=1.0, rng=0, budget=budget)
    assert abs(int(rel.value[0]) - math.copysign(2**62 - 1, value)) < 50
    assert len(budget.history) == 1
