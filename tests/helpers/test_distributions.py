"""The distribution-test helpers accept true draws, reject wrong scales and repeated draws."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from tests.helpers.distributions import (
    assert_distribution,
    assert_rejected,
    assert_scale_detected,
    chisquare_discrete,
    dlap_pmf,
    ks_continuous,
)

N = 100_000


def numpy_dlap(seed: int, n: int, scale: float) -> np.ndarray:
    gen = np.random.default_rng(seed)
    q = -math.expm1(-1.0 / scale)
    return gen.geometric(q, n) - gen.geometric(q, n)


def laplace_cdf(scale: float):
    return lambda x: stats.laplace.cdf(x, scale=scale)


@pytest.mark.parametrize("scale", [0.5, 2.0, 37.5])
def test_chisquare_accepts_true_draws_and_rejects_scale_off_by_30_percent(scale: float) -> None:
    draws = numpy_dlap(1, N, scale)
    assert_scale_detected(draws, dlap_pmf, scale)


def test_ks_accepts_true_draws_and_rejects_scale_off_by_30_percent() -> None:
    draws = np.random.default_rng(2).laplace(0.0, 3.0, N)
    assert_scale_detected(draws, laplace_cdf, 3.0, kind="cdf")


def test_result_unpacks_and_reports() -> None:
    draws = numpy_dlap(3, N, 1.0)
    res = chisquare_discrete(draws, dlap_pmf(1.0))
    stat, pvalue, passed = res
    assert passed
    assert pvalue > 1e-6
    assert stat == res.statistic
    bad = chisquare_discrete(draws, dlap_pmf(1.3))
    assert not bad.passed
    assert bad.pvalue < 1e-6
    with pytest.raises(
        AssertionError, match=r"REJECTED .* chi-square statistic=.* worst bin \[0, 0\]"
    ):
        assert_distribution(draws, pmf=dlap_pmf(1.3))


def test_chisquare_statistic_matches_scipy_on_a_die() -> None:
    rolls = np.random.default_rng(4).integers(1, 7, 600)
    res = chisquare_discrete(rolls, lambda k: np.full(k.shape, 1 / 6), support=(1, 6))
    ref = stats.chisquare(np.bincount(rolls, minlength=7)[1:])
    assert res.statistic == pytest.approx(ref.statistic, rel=1e-12)
    assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-9)


def test_tails_are_pooled_to_the_minimum_expected_count() -> None:
    draws = numpy_dlap(5, 2_000, 1.0)
    res = chisquare_discrete(draws, dlap_pmf(1.0), min_expected=5, max_bins=10**6)
    # 2000 * P(k) = 924, 340, 125, 46, 16.9, 6.2 for k = 0..5 and 3.6 for |k| >= 6 together:
    # the tails pool into (-inf, -5] and [5, inf), leaving 9 single values between them
    assert res.passed
    assert res.detail.startswith("11 bins")


def test_same_draws_twice_are_rejected() -> None:
    half = numpy_dlap(6, 50_000, 2.0)
    assert_distribution(half, pmf=dlap_pmf(2.0))
    res = assert_rejected(np.concatenate([half, half]), pmf=dlap_pmf(2.0))
    assert "repeat at [50000:" in res.detail


def test_a_repeated_block_is_rejected() -> None:
    draws = numpy_dlap(7, N, 2.0)
    draws[70_000:71_000] = draws[10_000:11_000]
    assert_rejected(draws, pmf=dlap_pmf(2.0))
    cont = np.random.default_rng(8).laplace(0.0, 1.0, N)
    assert_distribution(cont, cdf=laplace_cdf(1.0))
    cont[50_000:50_100] = cont[:100]
    with pytest.raises(AssertionError, match=r"draws \[0:\d+\] repeat at \[50000:"):
        assert_distribution(cont, cdf=laplace_cdf(1.0))


def test_binary_draws_with_a_repeated_block_are_rejected() -> None:
    bits = (np.random.default_rng(9).random(N) < 0.75).astype(np.int64)
    pmf = lambda k: np.where(k == 1, 0.75, 0.25)  # noqa: E731
    assert_distribution(bits, pmf=pmf, support=(0, 1))
    bits[60_000:60_500] = bits[:500]
    assert_rejected(bits, pmf=pmf, support=(0, 1))


def test_impossible_values_fail() -> None:
    rolls = np.append(np.random.default_rng(10).integers(0, 6, 10_000), 6)
    res = chisquare_discrete(rolls, lambda k: np.full(k.shape, 1 / 6), support=(0, 5))
    assert not res.passed
    assert res.pvalue == 0.0
    assert "1 draws at values of probability 0" in res.detail


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match=r"pmf sums to .* not 1: normalise it"):
        chisquare_discrete(np.arange(10), lambda k: np.full(k.shape, 0.5))
    with pytest.raises(ValueError, match=r"draws span 100000000 integers \(> 2\*\*24\)"):
        chisquare_discrete(np.array([0, 10**8]), dlap_pmf(1.0))
    with pytest.raises(ValueError, match="samples must be a 1-d integer array"):
        chisquare_discrete(np.array([0.5, 1.5]), dlap_pmf(1.0))
    with pytest.raises(ValueError, match="samples must be a 1-d array of >= 2 finite draws"):
        ks_continuous(np.array([0.0, math.nan]), laplace_cdf(1.0))
    with pytest.raises(TypeError, match=r"exactly one of pmf= .* or cdf="):
        assert_distribution(np.arange(3))
    with pytest.raises(ValueError, match="kind must be 'pmf' or 'cdf', got 'pdf'"):
        assert_scale_detected(np.arange(3), dlap_pmf, 1.0, kind="pdf")
