"""The coverage check passes honest intervals and fails ones that cover less than promised."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from tests.helpers.coverage import Measurement, assert_coverage, coverage_floor


def test_floor_is_the_binomial_quantile_and_rarely_fails_honest_intervals():
    assert coverage_floor(1_000, 0.9) == int(stats.binom.ppf(1e-6, 1_000, 0.9))
    assert stats.binom.cdf(coverage_floor(1_000, 0.9) - 1, 1_000, 0.9) <= 1e-6
    gen = np.random.default_rng(0)
    for _ in range(200):  # exactly nominal: the floor is ~4.9 sd below the mean
        assert_coverage(int(gen.binomial(1_000, 0.9)), 1_000, 0.9, "honest")


@pytest.mark.parametrize(("n", "true"), [(10_000, 0.88), (1_000, 0.84), (200, 0.72)])
def test_a_shortfall_beyond_the_sampling_error_fails(n, true):
    hits = int(np.random.default_rng(1).binomial(n, true))
    with pytest.raises(AssertionError, match=r"below the 0.9 nominal by more than chance"):
        assert_coverage(hits, n, 0.9, "short")


def test_one_per_group_keeps_one_interval_of_each_group():
    m = Measurement()
    m.add(
        low=[0, 0, 0, 5],
        high=[1, 1, 1, 6],
        truth=[0, 2, 0, 5],
        estimate=[0, 0, 0, 0],
        raw=[0, 0, 0, 0],
        group=[7, 7, 8, 9],
        old_low=[0, 0, 0, 0],
        old_high=[0, 0, 0, 0],
    )
    assert m.n == 4
    assert m.coverage() == 0.75
    picks = [m.one_per_group(np.random.default_rng(s)) for s in range(20)]
    assert {p.size for p in picks} == {3}
    assert {int(p.sum()) for p in picks} == {2, 3}  # group 7 holds one hit and one miss
    assert m.covered(old=True).tolist() == [True, False, True, False]
