"""Smooth-sensitivity noise: exact discrete Cauchy sampler on all its paths, the mechanisms'
scales, exact neighbour ratios at the proof's extremes, intervals, the release contract."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from tests.helpers.distributions import (
    assert_distribution,
    assert_rejected,
    assert_scale_detected,
    dlap_pmf,
)
from tests.helpers.sources import CountingSource

from dpatlas.core import Budget
from dpatlas.core.noise import discrete_cauchy
from dpatlas.core.noise.discrete_cauchy import discrete_cauchy_pmf, sample_discrete_cauchy
from dpatlas.core.noise.local.smooth import (
    SMALLEST,
    smooth_beta,
    smooth_bound,
    smooth_halfwidth,
    smooth_mechanism,
    smooth_scale,
)
from dpatlas.core.rng import get_source
from dpatlas.errors import BudgetExceededError

N = 200_000


def cauchy_family(limit: int):
    """pmf of clip(K, -limit, limit) for the discrete Cauchy of scale b (tails lumped)."""

    def family(b: float):
        inner = discrete_cauchy_pmf(np.arange(-limit + 1, limit), (b, 1))
        tail = (1.0 - inner.sum()) / 2
        full = np.concatenate([[tail], inner, [tail]])
        return lambda k: np.where(np.abs(k) <= limit, full[np.clip(k + limit, 0, 2 * limit)], 0.0)

    return family


@pytest.mark.parametrize(
    ("scale", "seed"), [((1, 3), 1), ((3, 1), 2), ((25, 2), 3), ((1000, 1), 4)]
)
def test_discrete_cauchy_fits_and_rejects_scale_off_by_30_percent(scale, seed) -> None:
    b = scale[0] / scale[1]
    limit = max(40, math.ceil(30 * b))
    z = sample_discrete_cauchy(get_source(seed), N, scale)
    draws = np.clip(z, -limit, limit)
    assert_scale_detected(draws, cauchy_family(limit), b, support=(-limit, limit))


def test_exact_acceptance_path_fits(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(
        discrete_cauchy, "_TOL", 1.0
    )  # every acceptance decided in exact arithmetic
    z = np.clip(sample_discrete_cauchy(get_source(5), 50_000, (7, 2)), -200, 200)
    assert_distribution(z, pmf=cauchy_family(200)(3.5), support=(-200, 200))


@pytest.mark.parametrize("scale", [(2**45, 3), (2**58, 1)])
def test_huge_scales_use_python_integers_and_fit(scale) -> None:
    """Blocks beyond 2**62 take the exact Python-int path; |K| >= 2**62 is capped there."""
    b = scale[0] / scale[1]
    edges = np.array([0, 0.25, 0.5, 1, 2, 4, 16, np.inf])

    def binned(factor: float):
        cdf = (2 / np.pi) * np.arctan(edges / (b * factor) * b)
        probs = np.diff(cdf)
        return lambda k: np.where((k >= 0) & (k < probs.size), probs[np.clip(k, 0, 6)], 0.0)

    z = sample_discrete_cauchy(get_source(6), 100_000, scale)
    assert np.abs(z).max() <= 2**62
    bins = np.searchsorted(edges, np.abs(z.astype(np.float64)) / b, side="right") - 1
    assert_distribution(bins, pmf=binned(1.0), support=(0, 6))
    for factor in (0.7, 1.3):
        assert_rejected(bins, pmf=binned(factor), support=(0, 6))


@pytest.mark.parametrize(("delta", "family"), [(0.0, "cauchy"), (1e-6, "laplace")])
def test_mechanism_noise_has_the_documented_scale(delta: float, family: str) -> None:
    bound, eps = 2.5, 0.5
    rel = smooth_mechanism(1000, bound, epsilon=eps, delta=delta, rng=7, size=N)
    noise = rel.value - 1000
    t, s = smooth_scale(bound, eps, delta)
    b = (6 if delta == 0 else 2) * bound / eps
    assert t / s == pytest.approx(b, rel=1e-12)
    if family == "laplace":
        assert_scale_detected(noise, dlap_pmf, t / s)
    else:
        limit = math.ceil(30 * b)
        noise = np.clip(noise, -limit, limit)
        assert_scale_detected(noise, cauchy_family(limit), t / s, support=(-limit, limit))


def test_beta_and_bound() -> None:
    assert smooth_beta(0.6) == pytest.approx(0.1)
    eps, delta = 1.0, 1e-6
    nrs = eps / (2 * math.log(2 / delta))
    assert nrs * 0.98 < smooth_beta(eps, delta) < nrs
    assert smooth_bound([0, 0, 1, 2, 2], 0.1) == pytest.approx(2 * math.exp(-0.3))
    assert smooth_bound([0], 1.0) == 0.0
    lad = np.minimum(61 + np.arange(400), 300)
    brute = max(math.exp(-0.01 * t) * v for t, v in enumerate(lad.tolist()))
    assert smooth_bound(lad, 0.01) == pytest.approx(brute, rel=1e-12)
    with pytest.raises(ValueError, match="epsilon=1e-12 is too small"):
        smooth_beta(1e-12, 1e-6)
    with pytest.raises(
        ValueError, match=r"epsilon=1e-12 is too small .* delta=0 .* use epsilon >= 2\.91"
    ):
        smooth_beta(1e-12)  # the Cauchy proof's rounding margins would not fit in ε/2
    assert smooth_beta(2.0**-35) == 2.0**-35 / 6
    with pytest.raises(ValueError, match="too small"):
        smooth_beta(math.nextafter(2.0**-35, 0.0))


@pytest.mark.parametrize(
    ("beta", "top"), [(745 / 99, 2**61), (750 / 99, 2**61), (740 / 99, 2**61), (725 / 99, 10**9)]
)
def test_a_bound_past_the_subnormal_floats_keeps_its_precision(beta: float, top: int) -> None:
    """``I_t · e^{-βt}`` with ``βt`` past ~708 multiplied a subnormal float (a few significant
    bits) by a large rung: ``[0]*99 + [2**61]`` at β = 745/99 gave S 75% too large, at 750/99
    49% too small (floored at the smallest normal float while the exact S is twice it), so the
    computed S broke (S2) by far. The proofs allow ``e^{±2**-41}`` per bound."""
    lad = [0] * 99 + [top]
    exact = max(mpmath.mpf(top) * mpmath.exp(-mpmath.mpf(beta) * 99), SMALLEST)
    got = smooth_bound(lad, beta)
    assert abs(float(mpmath.mpf(got) / exact) - 1) < 2.0**-41
    # (S2) between this ladder and its one-rung-nearer neighbour, as computed
    near = smooth_bound([0] * 98 + [top], beta)
    assert near <= math.exp(beta + 2.0**-40) * got


def test_the_first_rung_is_a_lower_bound_even_above_2_53() -> None:
    """``S >= I_0`` exactly: ``float(2**53 + 1)`` is ``2**53``, below the rung."""
    rung = 2**53 + 1
    assert smooth_bound([rung], 0.1) >= rung
    assert int(smooth_bound([rung, rung], 50.0)) >= rung


def test_a_positive_bound_does_not_underflow_to_zero() -> None:
    """``S = max_t e^{-βt} I_t`` is positive as soon as an ``I_t`` or ``GS`` is: at β = 1000 the
    product underflowed to 0.0, which the mechanism releases without noise. ``max(S, c)``
    with a public ``c > 0`` is still β-smooth, so S is kept >= the smallest normal float."""
    tiny = np.finfo(np.float64).smallest_normal
    assert smooth_bound([0, 1, 2], 1000.0) >= tiny
    assert smooth_bound([0], 1000.0, global_sensitivity=3) >= tiny
    assert smooth_bound([0, 0, 0], 1000.0) == 0.0  # GS = 0: the count is constant
    assert smooth_bound([0, 2], 0.5) == pytest.approx(2 * math.exp(-0.5))  # unchanged above


def test_the_mechanism_refuses_an_epsilon_outside_the_proofs_before_the_budget() -> None:
    budget = Budget(epsilon=1.0)
    with pytest.raises(ValueError, match=r"epsilon=1e-12 is too small .* delta=0"):
        smooth_mechanism(3, 1.0, epsilon=1e-12, budget=budget, rng=0)
    assert budget.history == ()


def worst_pairs(eps: float, delta: float):
    """(T, S), (T', S') at the extremes the proofs allow: |T - T'| = S' and S/S' = e^{±β}."""
    beta = smooth_beta(eps, delta)
    for s_small in (1.0, 7.0, 40.0):
        for up in (True, False):
            s_g = s_small * math.exp(beta) if up else s_small
            s_h = s_small if up else s_small * math.exp(beta)
            gap = int(min(s_g, s_h))
            yield (0, s_g), (gap, s_h)


@pytest.mark.parametrize("eps", [0.1, 1.0, 3.0])
def test_cauchy_neighbours_within_e_epsilon_exactly(eps: float) -> None:
    ys = np.arange(-200_000, 200_001)
    for (t_g, s_g), (t_h, s_h) in worst_pairs(eps, 0.0):
        pg = discrete_cauchy_pmf(ys - t_g, smooth_scale(s_g, eps))
        ph = discrete_cauchy_pmf(ys - t_h, smooth_scale(s_h, eps))
        ratio = np.maximum(pg / ph, ph / pg).max()
        assert ratio <= math.exp(eps / 2) * (1 + 1e-9)  # the proof's bound, inside e^ε


@pytest.mark.parametrize(("eps", "delta"), [(0.5, 1e-6), (1.0, 1e-3), (2.0, 1e-9)])
def test_laplace_neighbours_within_e_epsilon_plus_delta_exactly(eps: float, delta: float) -> None:
    ys = np.arange(-100_000, 100_001)
    for (t_g, s_g), (t_h, s_h) in worst_pairs(eps, delta):
        bg, bh = (a / b for a, b in (smooth_scale(s_g, eps, delta), smooth_scale(s_h, eps, delta)))
        pg, ph = dlap_pmf(bg)(ys - t_g), dlap_pmf(bh)(ys - t_h)
        for p, q in ((pg, ph), (ph, pg)):
            assert np.maximum(p - math.exp(eps) * q, 0).sum() <= delta


@pytest.mark.parametrize("delta", [0.0, 1e-6])
def test_halfwidth_covers_every_smaller_bound(delta: float) -> None:
    eps, level, ks = 1.0, 0.9, np.arange(-400_000, 400_001)
    h = smooth_halfwidth(3.0, eps, delta, level)
    for bound in (3.0, 2.0, 0.5):
        t, s = smooth_scale(bound, eps, delta)
        pmf = discrete_cauchy_pmf(ks, (t, s)) if delta == 0 else dlap_pmf(t / s)(ks)
        tail = 1.0 - pmf[np.abs(ks) <= h].sum()
        assert tail <= 1 - level
        if bound == 3.0:
            assert tail > (1 - level) / 2  # tight, not merely valid
    assert smooth_halfwidth(0.0, eps, delta, level) == 0


def test_release_contract_budget_before_noise() -> None:
    budget = Budget(1.0, 1e-5)
    src = CountingSource(1)
    rel = smooth_mechanism(10, 2.0, epsilon=0.5, delta=1e-6, rng=src, budget=budget)
    assert (rel.epsilon, rel.delta, rel.scale, rel.sensitivity, rel.rho) == (
        0.5,
        1e-6,
        None,
        None,
        None,
    )
    assert budget.spent == (0.5, 1e-6)
    assert rel.seeded
    with pytest.raises(ValueError, match="depends on the data and is private"):
        rel.confidence_interval()
    drawn = src.drawn
    with pytest.raises(BudgetExceededError, match=r"requested epsilon=0\.75"):
        smooth_mechanism(10, 2.0, epsilon=0.75, rng=src, budget=budget)
    assert src.drawn == drawn
    assert len(budget.history) == 1
    pure = smooth_mechanism(10, 2.0, epsilon=0.5, size=3, rng=2)
    assert pure.epsilon == 1.5
    assert pure.noise == "discrete_cauchy"
    assert pure.rho == pytest.approx(3 * 0.5**2 / 2)  # zCDP of 3 draws composes
    assert smooth_mechanism(10, 0.0, epsilon=1.0).value == 10
    assert smooth_mechanism(10, 1.0, epsilon=1.0).seeded is False


@pytest.mark.parametrize(
    ("call", "exc", "match"),
    [
        (
            lambda: smooth_mechanism(1, -1.0, epsilon=1.0),
            ValueError,
            "bound must be a finite smooth sensitivity >= 0, got -1.0",
        ),
        (lambda: smooth_mechanism(1, float("nan"), epsilon=1.0), ValueError, "got nan"),
        (lambda: smooth_mechanism(1, 1.0, epsilon=1.0, delta=1.0), ValueError, "delta must be in"),
        (
            lambda: smooth_mechanism(1.5, 1.0, epsilon=1.0),
            ValueError,
            "value must be integers, got 1.5",
        ),
        (lambda: smooth_halfwidth(1.0, 1.0, 0.0, 1.0), ValueError, r"level must be in \(0, 1\)"),
        (lambda: smooth_bound([2, 1], 0.1), ValueError, "non-decreasing"),
        (lambda: smooth_bound([1, 2], -0.1), ValueError, "beta must be a finite number > 0"),
    ],
)
def test_errors_name_the_parameter(call, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        call()


def test_scale_is_rounded_up_by_at_most_2_to_the_minus_40() -> None:
    t, s = smooth_scale(1 / 3, 0.1)
    exact = 6 * Fraction(1 / 3) / Fraction(0.1)
    assert exact <= Fraction(t, s) <= exact * (1 + Fraction(1, 2**40))


@pytest.mark.parametrize("delta", [0.0, 1e-6])
@pytest.mark.parametrize("bound", [1e-300, 1e-12, 1e-6, 0.01, 0.08, 0.3, 1 / 3, 7.0, 1e9])
def test_scale_is_floored_at_one_half_and_rounded_up_within_the_proofs_2_to_the_minus_38(
    bound: float, delta: float
) -> None:
    """The proofs take ``b`` rounded up by at most 2**-38 (relative). Scales far below 1/2 kept
    only 40 bits of their fraction (1e-6 went up by about 9e-7), which breaks ``b/b' <= e^β*``
    for the Laplace noise; such scales are now raised to 1/2, a public floor."""
    exact = max((6 if delta == 0 else 2) * Fraction(bound) / Fraction(0.1), Fraction(1, 2))
    t, s = smooth_scale(bound, 0.1, delta)
    assert exact <= Fraction(t, s) <= exact * (1 + Fraction(1, 2**38))


def test_geometric_block_index_is_exact() -> None:
    j = discrete_cauchy._trailing_zeros(get_source(9), N)
    assert_distribution(j, pmf=lambda k: np.where(k >= 0, 0.5 ** (k + 1.0), 0.0))
