"""The prior fit behind the per-cell posterior medians: exact arithmetic of the NPMLE and its medians."""

from __future__ import annotations

import numpy as np
import pytest

import dpatlas.spatial.products._npmle as npmle


def _dlap(gen: np.random.Generator, scale: float, size: int) -> np.ndarray:
    q = 1 - np.exp(-1 / scale)
    return gen.geometric(q, size) - gen.geometric(q, size)


def test_exponential_convolution_matches_the_direct_sum():
    gen = np.random.default_rng(0)
    x = gen.random(40)
    x[5:30] = 0.0  # a long empty stretch
    for log_p in (-0.05, -1.0, -40.0):
        direct = np.exp(log_p * np.abs(np.subtract.outer(np.arange(40), np.arange(40)))) @ x
        np.testing.assert_allclose(npmle.exp_conv(x, log_p), direct, rtol=1e-12, atol=1e-300)


@pytest.mark.parametrize("seed", range(4))
def test_median_table_is_the_posterior_median_of_every_value(seed):
    gen = np.random.default_rng(seed)
    weights = gen.random(30) * (gen.random(30) < 0.4)
    weights[5] += 0.1
    weights /= weights.sum()
    log_p = -gen.uniform(0.05, 2.0)
    table = npmle.median_table(weights, log_p)
    points = np.arange(30)
    for t in points:
        post = weights * np.exp(log_p * np.abs(t - points))
        cdf = np.cumsum(post) / post.sum()
        assert table[t] == np.flatnonzero(cdf >= 0.5 - 1e-12)[0], t


def test_prior_fit_is_the_maximum_likelihood_mixture():
    """At the NPMLE, no single point u can raise the likelihood: mean_i K(y_i - u)/f(y_i) <= 1."""
    gen = np.random.default_rng(1)
    counts = np.r_[np.zeros(600, dtype=np.int64), gen.poisson(12, 400)]
    values = counts + _dlap(gen, 2.0, counts.size)
    hist = np.bincount(np.maximum(values, 0)).astype(np.float64)  # y <= 0 reads as 0
    log_p = -0.5
    weights = npmle.prior(hist, log_p)
    assert weights.sum() == pytest.approx(1.0)
    density = npmle.exp_conv(weights, log_p)
    gradient = npmle.exp_conv(hist / density, log_p) / hist.sum()
    assert gradient.max() <= 1.01  # Lindsay's condition, to the fit's tolerance
    assert gradient[weights > 1e-3].min() >= 0.99
