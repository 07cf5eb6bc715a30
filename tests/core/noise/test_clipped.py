"""Clipped sum and mean: public bounds, sensitivities per neighbour relation, one budget spend."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpatlas.core import Budget, clipped_mean, clipped_sum


def test_sum_clips_and_uses_the_add_remove_sensitivity() -> None:
    rel = clipped_sum([1.0, 2.0, 1e9, -50.0], lower=-2.0, upper=5.0, epsilon=0.5, rng=1)
    assert rel.sensitivity == 5.0  # adding one record moves the sum by <= max(|lower|, |upper|)
    assert rel.scale == pytest.approx((5.0 + rel.metadata["grid"]) / 0.5, rel=1e-12)
    assert rel.metadata["bounds"] == [-2.0, 5.0]
    assert abs(rel.value - 6.0) < 30 * rel.scale  # clipped sum is 1 + 2 + 5 - 2 = 6


def test_mean_with_public_n_is_replace_one() -> None:
    data = np.linspace(0.0, 10.0, 1001)
    rel = clipped_mean(data, lower=0.0, upper=10.0, epsilon=0.5, n=1001, rng=2)
    assert rel.metadata["neighbours"] == "replace one"
    assert rel.scale == pytest.approx((10.0 + rel.metadata["grid"]) / 0.5 / 1001, rel=1e-12)
    low, high = rel.confidence_interval(0.95)
    assert low < high
    with pytest.raises(ValueError, match="n must equal the number of values when given, got n=5"):
        clipped_mean(data, lower=0.0, upper=10.0, epsilon=0.5, n=5)


def test_mean_without_n_spends_once_and_splits() -> None:
    budget = Budget(1.0)
    data = np.full(4000, 3.0)
    rel = clipped_mean(data, lower=0.0, upper=4.0, epsilon=0.8, budget=budget, split=0.75, rng=3)
    assert [float(s.epsilon) for s in budget.history] == [0.8]
    assert rel.scale is None
    assert rel.metadata["sum_scale"] == pytest.approx(4.0 / 0.6, rel=1e-6)
    assert rel.metadata["count_scale"] == pytest.approx(1 / 0.2, rel=1e-6)
    assert 0.0 <= rel.value <= 4.0
    assert abs(rel.value - 3.0) < 0.05
    with pytest.raises(ValueError, match="'clipped_mean' has no public noise scale"):
        rel.confidence_interval()


def test_mean_is_clamped_to_the_bounds() -> None:
    rel = clipped_mean([], lower=1.0, upper=2.0, epsilon=1.0, rng=4)
    assert 1.0 <= rel.value <= 2.0


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"lower": math.nan}, r"lower must be a finite number \(a public bound\), got nan"),
        ({"upper": math.inf}, r"upper must be a finite number \(a public bound\), got inf"),
        ({"lower": 3.0}, r"lower must be < upper, got lower=3.0, upper=1.0"),
        ({"lower": "0"}, r"lower must be a finite number \(a public bound\), got '0'"),
        ({"values": [1.0, math.nan]}, r"values must be finite, got nan at index \(1,\)"),
    ],
)
def test_bad_bounds_and_data_are_refused(kwargs: dict, match: str) -> None:
    args = {"values": [0.5], "lower": 0.0, "upper": 1.0, "epsilon": 1.0} | kwargs
    values = args.pop("values")
    for fn in (clipped_sum, clipped_mean):
        with pytest.raises(ValueError, match=match):
            fn(values, **args)


def test_split_is_validated() -> None:
    with pytest.raises(ValueError, match=r"split must be a float in \(0, 1\), got 1.0"):
        clipped_mean([1.0], lower=0.0, upper=1.0, epsilon=1.0, split=1.0)
