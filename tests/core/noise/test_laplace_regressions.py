"""Bugs the fuzzers found in laplace, now fixed: a regression test each."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpatlas import laplace


def test_laplace_huge_value_is_released_not_refused():
    # was a ValueError naming values: a refusal that depended on the data (issue #17)
    assert laplace(1e308, sensitivity=1.0, epsilon=1.0, rng=0).value == 1e308


def test_laplace_scale_beyond_the_float_range_refused():
    with pytest.raises(ValueError, match=r"sensitivity / epsilon = 1e\+306"):
        laplace(0.0, sensitivity=1e300, epsilon=1e-6, rng=0)
    assert math.isfinite(laplace(1e307, sensitivity=1e300, epsilon=1.0, rng=0).value)


def test_laplace_scale_of_a_huge_sensitivity_is_finite():
    # slow-fuzz find: Release.scale was g * t / s, which overflowed to inf (g * t > 1.8e308)
    rel = laplace(0, sensitivity=6.8576518160073485e302, epsilon=1.0, rng=0)
    assert rel.scale == pytest.approx(6.8576518160073485e302, rel=1e-5)
    assert math.isfinite(rel.value)


def test_laplace_python_ints_beyond_int64_are_numbers():
    # was "values must be numbers (a scalar or an array), got dtype object"
    assert laplace(10**30, sensitivity=1.0, epsilon=1.0, rng=0).value == 1e30
    assert laplace([10**30, 1], sensitivity=1.0, epsilon=1.0, rng=0).value.shape == (2,)
    with pytest.raises(ValueError, match="values must be finite numbers, got an integer beyond"):
        laplace(10**400, sensitivity=1.0, epsilon=1.0, rng=0)


@pytest.mark.parametrize("sensitivity", [2**53 + 1, 2**60 + 3, np.int64(2**62 + 1)])
def test_an_integer_sensitivity_above_2_53_is_not_rounded_down(sensitivity) -> None:
    # float(2**53 + 1) is 2**53: the noise was calibrated to a smaller sensitivity (exactly,
    # since the grid made the scale an integer), so the release cost more than epsilon
    from fractions import Fraction

    from dpatlas.core.noise.laplace import laplace_grid

    g, units, c = laplace_grid(1, sensitivity, 1.0)
    assert units * Fraction(g) >= int(sensitivity) + c * Fraction(g)
    rel = laplace(0.0, sensitivity=sensitivity, epsilon=1.0, rng=0)
    assert rel.sensitivity >= int(sensitivity)
