"""Target degrees by deconvolution of the noisy degrees (graph/synthesis/_deconvolve.py)."""

from __future__ import annotations

import time

import numpy as np
from scipy import stats

from dpatlas.graph.synthesis._deconvolve import deconvolved_degrees


def test_deconvolution_keeps_the_distribution_and_range() -> None:
    gen = np.random.default_rng(0)
    d = np.r_[np.ones(3000, dtype=np.int64), np.full(1000, 40)]
    x = d + np.rint(gen.laplace(0, 5.0, d.size)).astype(np.int64)
    t = deconvolved_degrees(x, 5.0, 5000, gen)
    assert t.min() >= 0
    assert t.max() <= 4999
    assert abs(t.mean() - d.mean()) < 1.0
    assert (t[:3000] < 10).mean() > 0.8
    assert (np.abs(t[3000:] - 40) < 10).mean() > 0.8
    assert np.count_nonzero(np.clip(x, 0, None) == 0) > np.count_nonzero(t == 0)


def _exact_mixture(x: np.ndarray, scale: float, top: int, steps: int) -> np.ndarray:
    """Σ_u P(d | x_u) after ``steps`` EM steps from the uniform prior on 0 .. top, with the
    whole kernel (no cut, no clipping): the reference for the clipped computation."""
    d = np.arange(top + 1)
    lik = np.exp(-np.abs(x[:, None] - d[None, :]) / scale)  # P(x_u | d) up to a constant
    prior = np.full(top + 1, 1.0 / (top + 1))
    for _ in range(steps):
        post = prior * lik
        prior = (post / post.sum(axis=1, keepdims=True)).mean(axis=0)
    post = prior * lik
    return (post / post.sum(axis=1, keepdims=True)).sum(axis=0)


def test_clipped_deconvolution_matches_the_whole_kernel_and_rejects_a_wrong_scale() -> None:
    # n = 30 and scale 4: the kernel's cut (12 * 4) reaches past the support 0 .. 29, so the
    # noisy values are clipped to it (module docstring); the draws must follow the exact law
    gen = np.random.default_rng(5)
    d = gen.integers(0, 20, 100_000)
    x = d + np.rint(gen.laplace(0, 4.0, d.size)).astype(np.int64)
    t = deconvolved_degrees(x, 4.0, 30, gen)
    seen = np.bincount(t, minlength=30)
    for scale, fits in ((4.0, True), (5.2, False), (2.8, False)):
        expected = _exact_mixture(x, scale, 29, 10)
        keep = expected > 5
        chi2 = float((((seen - expected) ** 2)[keep] / expected[keep]).sum())
        p = stats.chi2.sf(chi2, int(keep.sum()) - 1)
        assert bool(p > 1e-6) == fits, (scale, chi2, p)


def test_tiny_epsilon_costs_the_support_not_the_noise() -> None:
    # scale 2 / 1e-6 on 34 nodes: the uncut kernel would have 2.4e7 entries per side
    gen = np.random.default_rng(0)
    x = gen.integers(-(10**8), 10**8, 34)
    start = time.perf_counter()
    t = deconvolved_degrees(x, 2e6, 34, gen)
    assert time.perf_counter() - start < 1.0
    assert t.min() >= 0
    assert t.max() <= 33
