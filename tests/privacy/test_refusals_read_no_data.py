"""Issue #17, problem 4: no release is refused for a property of the private data.

Each pair below is two neighbouring inputs, one on each side of a threshold that used to raise
before the spend (so the refusal told the caller which side the data was on, for free). Now
both release: the value is clamped to a public range (integers), or rounded to a float and
saturated (reals), which keeps the sensitivity, or, for the Dask work guard, the budget is
debited before the check (tests/dask/test_hooks.py). Every test here failed on the old code:
one side of each pair raised ValueError. Refusals that remain read public values only
(sensitivity, ε, bounds, ``n``, ``k``) or the type of the input (NaN, self-loops, ids outside
the public node set: inputs outside the domain, which no neighbour of a valid input reaches).
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from dpatlas.core import Budget, clipped_sum, discrete_laplace, gaussian, laplace
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.core.noise.local.piecewise_ladder import piecewise_ladder_mechanism
from dpatlas.core.noise.local.smooth import smooth_mechanism
from dpatlas.graph import kstar_count

FLOAT_MAX = float(np.finfo(np.float64).max)


def both_release(call: Callable[..., object], d: object, d_prime: object) -> list[object]:
    """Release on both neighbours with one budget; each debits once, neither is refused."""
    budget = Budget(1e6, 0.5)
    out = [call(x, budget) for x in (d, d_prime)]
    assert len(budget.history) == 2
    return out


def test_laplace_on_both_sides_of_the_grid_range() -> None:
    # sensitivity 1, ε = 1: grid 2**-20, int64 units held up to 2**60 steps = 2**40; the value
    # 2**40 + 0.5 was refused ("too large for the grid step"), its neighbour 2**40 - 0.5 not
    def call(x: float, budget: Budget) -> object:
        return laplace(x, sensitivity=1.0, epsilon=1.0, rng=1, budget=budget).value

    low, high = both_release(call, 2.0**40 - 0.5, 2.0**40 + 0.5)
    assert abs(low - (2.0**40 - 0.5)) < 100
    assert abs(high - (2.0**40 + 0.5)) < 100


def test_laplace_near_the_largest_float_saturates() -> None:
    # public scale 1: the value 1.797e308 was refused ("the release could exceed the largest
    # float"), 1.79e308 not; now the release saturates (post-processing of the lattice value)
    def call(x: float, budget: Budget) -> object:
        return laplace(x, sensitivity=1.0, epsilon=1.0, rng=2, budget=budget).value

    values = both_release(call, 1.79e308, FLOAT_MAX)
    assert values == [1.79e308, FLOAT_MAX]


def test_gaussian_far_beyond_the_grid_range() -> None:
    def call(x: float, budget: Budget) -> object:
        return gaussian(x, sensitivity=1.0, epsilon=1.0, delta=1e-6, rng=3, budget=budget).value

    assert both_release(call, 1e300 - 1e284, 1e300) == [1e300 - 1e284, 1e300]


@pytest.mark.parametrize("mechanism", ["discrete_laplace", "ladder", "piecewise", "smooth"])
def test_integer_answers_beyond_the_int64_range_are_clamped(mechanism: str) -> None:
    # the limits were 2**62 (discrete Laplace) and 2**61 (ladders, smooth): refused at the limit,
    # released one below; now clamped to limit - 1, which moves no two answers further apart
    limit = 2**62 if mechanism == "discrete_laplace" else 2**61

    def call(x: int, budget: Budget) -> int:
        if mechanism == "discrete_laplace":
            return int(discrete_laplace(x, sensitivity=1, epsilon=1.0, rng=4, budget=budget).value)
        if mechanism in ("ladder", "piecewise"):
            mech = ladder_mechanism if mechanism == "ladder" else piecewise_ladder_mechanism
            rel = mech(x, [1], epsilon=1.0, global_sensitivity=1, rng=4, budget=budget)
        else:
            rel = smooth_mechanism(x, 1.0, epsilon=1.0, delta=1e-6, rng=4, budget=budget)
        return int(rel.value)

    values = both_release(call, limit - 1, limit)
    assert all(abs(v - (limit - 1)) < 100 for v in values)
    assert values[0] == values[1]  # the same noise on the same clamped answer


def test_clipped_sum_whose_float_sum_overflows_saturates() -> None:
    # add one record: the sum of two 1e308 overflows a float and was refused, of one it did not
    def call(values: list[float], budget: Budget) -> float:
        rel = clipped_sum(values, lower=0.0, upper=1.7e308, epsilon=1e5, rng=5, budget=budget)
        return float(rel.value)

    one, two = both_release(call, [1e308], [1e308, 1e308])
    assert math.isfinite(one)
    assert 1.7e308 < two <= FLOAT_MAX


def star(leaves: int) -> np.ndarray:
    return np.array([(0, leaf) for leaf in range(1, leaves + 1)])


@pytest.mark.parametrize("method", ["ladder", "smooth", "global"])
def test_kstar_count_on_both_sides_of_the_overflow_check(method: str) -> None:
    # n = 317, k = 10: the star with 316 leaves has C(316, 10) = 1.03·2**61 10-stars and was
    # refused ("the 10-star count exceeds 2**61"); its neighbour without one leaf edge has
    # C(315, 10) = 0.995·2**61 and was released. The global sensitivity 2 C(315, 9) < 2**61 is
    # public, so neither side is refused for it (ε = 1000 keeps the global and smooth noise
    # scales sampleable; the ladder's rung scale 2/ε is sampleable at any ε).
    assert math.comb(316, 10) >= 2**61 > math.comb(315, 10)
    kw = {"delta": 1e-6} if method == "smooth" else {}
    eps = 1.0 if method == "ladder" else 1e3

    def call(edges: np.ndarray, budget: Budget) -> int:
        rel = kstar_count(edges, 10, epsilon=eps, method=method, n=317, rng=6, budget=budget, **kw)
        return int(rel.value)

    values = both_release(call, star(315), star(316))
    assert all(abs(v) <= 2**61 for v in values)
