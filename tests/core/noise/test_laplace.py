"""Float-safe Laplace: grid outputs, distribution, sensitivity inflation, intervals, errors."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from tests.helpers.distributions import assert_scale_detected

from dpatlas.core import laplace
from dpatlas.core.noise.laplace import laplace_epsilon

N = 200_000


@pytest.mark.parametrize(("epsilon", "x", "seed"), [(1.0, 0.3, 1), (0.3, -12.7, 2), (4.0, 1e6, 3)])
def test_noise_is_laplace_on_the_grid(epsilon: float, x: float, seed: int) -> None:
    rel = laplace(np.full(N, x), sensitivity=1.0, epsilon=epsilon, rng=seed)
    g = rel.metadata["grid"]
    # 2**-20 * scale / N is finer than the floor 2**-32 * scale: the grid is 2**-32 * scale
    assert g == 2.0 ** math.floor(math.log2(1 / epsilon * 2.0**-32))
    assert np.array_equal(rel.value / g, np.round(rel.value / g))
    noise = rel.value - round(x / g) * g
    assert_scale_detected(noise, lambda s: stats.laplace(0, s).cdf, 1 / epsilon, kind="cdf")


def test_scale_is_inflated_by_the_grid_only() -> None:
    rel = laplace(2.0, sensitivity=3.0, epsilon=0.5, rng=4)
    g = rel.metadata["grid"]
    assert g == 2.0**-18  # largest power of two <= 6 * 2**-20
    assert rel.scale >= (3.0 + g) / 0.5
    assert rel.scale == pytest.approx((3.0 + g) / 0.5, rel=2**-39)
    assert rel.sensitivity == 3.0
    assert rel.rho == 0.125


def test_low_bits_do_not_depend_on_the_input() -> None:
    # Mironov's attack reads the exact input from the float pattern of x + noise; here every
    # output is an integer multiple of the same power of two, whatever x is
    a = laplace(np.full(1000, 0.1), sensitivity=1.0, epsilon=1.0, max_changed=1, rng=5)
    b = laplace(np.full(1000, 0.1 + 2e-16), sensitivity=1.0, epsilon=1.0, max_changed=1, rng=5)
    g = a.metadata["grid"]
    assert np.array_equal(a.value, b.value)
    assert np.all(np.mod(a.value, g) == 0)


def test_resolution_and_max_changed() -> None:
    rel = laplace([1.0, 2.0], sensitivity=1.0, epsilon=1.0, resolution=0.0009, rng=6)
    assert rel.metadata["grid"] == 2.0**-11
    assert (
        laplace(np.zeros(8), sensitivity=1.0, epsilon=1.0, max_changed=2).metadata["grid"]
        == 2.0**-21
    )
    with pytest.raises(ValueError, match=r"resolution must be <= 0.000976562 .* got 0.01"):
        laplace(1.0, sensitivity=1.0, epsilon=1.0, resolution=0.01)
    with pytest.raises(ValueError, match=r"max_changed must be an integer >= 1, got 0"):
        laplace(1.0, sensitivity=1.0, epsilon=1.0, max_changed=0)
    # beyond 2**60 grid steps: released exactly on the lattice, then rounded to a float (issue
    # #17: it was refused, a refusal that depended on the data)
    assert laplace(1e20, sensitivity=1.0, epsilon=1.0, rng=0).value == 1e20


def test_interval_covers_at_the_stated_level() -> None:
    rel = laplace(np.zeros(N), sensitivity=1.0, epsilon=0.7, rng=7)
    low, high = rel.confidence_interval(0.9)
    miss = np.mean((low > 0) | (high < 0))
    assert miss <= 0.1 + 5 * math.sqrt(0.09 / N)
    assert miss >= 0.1 - 5 * math.sqrt(0.09 / N)
    assert rel.variance() == pytest.approx(2 * rel.scale**2, rel=1e-12)
    # all N coordinates may change: the rounding adds N * grid to the sensitivity
    assert rel.scale == pytest.approx((1 + N * rel.metadata["grid"]) / 0.7, rel=2**-37)
    assert rel.scale < 1.0001 / 0.7


def test_privacy_map() -> None:
    assert laplace_epsilon(2.0, 4.0) == 0.5
    with pytest.raises(ValueError, match="scale must be a finite number > 0, got inf"):
        laplace_epsilon(1.0, math.inf)
    with pytest.raises(ValueError, match=r"sensitivity must be a finite number > 0, got -1\.0"):
        laplace_epsilon(-1.0, 1.0)


def test_scalar_in_scalar_out() -> None:
    rel = laplace(5, sensitivity=1.0, epsilon=1.0, rng=8)
    assert isinstance(rel.value, float)
