"""Exact discrete Laplace: distributions on both sampling paths, the table, forced ties, the API."""

from __future__ import annotations

import math
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pytest
from tests.helpers.distributions import assert_scale_detected, dlap_pmf
from tests.helpers.sources import CountingSource, ScriptedSource

from dpatlas.core import Budget, discrete_laplace
from dpatlas.core.noise._sampling import dlap_table
from dpatlas.core.noise._sampling.dlap import _sample_cks, rational_scale, sample_discrete_laplace
from dpatlas.core.noise._sampling.dlap_table import dlap_inversion, sample_table
from dpatlas.core.rng import get_source
from dpatlas.errors import BudgetExceededError

N = 200_000


@pytest.mark.parametrize(
    ("scale", "seed"),
    [(0.5, 1), (1.0, 2), (1 / 0.3, 3), (37.5, 4), (512.0, 5), (700.0, 6), (1e5 / 3, 7)],
)
def test_distribution_fits_and_rejects_scale_off_by_30_percent(scale: float, seed: int) -> None:
    t, s = rational_scale(scale)
    draws = sample_discrete_laplace(get_source(seed), N, scale)
    assert_scale_detected(draws, dlap_pmf, t / s)


@pytest.mark.parametrize("scale", [(1, 1), (10, 3)])
def test_cks_path_for_small_batches_fits(scale: tuple[int, int]) -> None:
    draws = _sample_cks(get_source(8), N, *scale)
    assert_scale_detected(draws, dlap_pmf, scale[0] / scale[1])


def exact_floor(t: int, s: int, k: int) -> int:
    """floor(2**64 P(Z <= k)) at 80 digits, independently of the library's interval code."""
    with localcontext() as ctx:
        ctx.prec = 80
        p = (Decimal(-s) / Decimal(t)).exp()
        m = -k if k < 0 else k + 1
        q = (Decimal(-m * s) / Decimal(t)).exp() / (1 + p)
        c = q if k < 0 else 1 - q
        return int(c * (1 << 64))


@pytest.mark.parametrize("scale", [(1, 1), (10, 3), rational_scale(1 / 0.3), (1024, 3)])
def test_table_thresholds_are_exact_floors(scale: tuple[int, int]) -> None:
    inv, m = dlap_inversion(*scale)
    expected = [exact_floor(*scale, k) for k in range(-m - 1, m + 1)]
    assert inv.floors.tolist() == expected


def test_decimal_floors_are_right_even_at_low_precision(monkeypatch) -> None:
    # the bounds of P(Z <= k) for k >= 0, 1 - q, were rounded inwards (the lower one up, the
    # upper one down): at 45 digits an error of 1e-45 (no table of 337 scales moved), at 21
    # digits 6 wrong floors on this grid; outward rounding is right at any precision
    monkeypatch.setattr(dlap_table, "_DIGITS", 21)
    checked = 0
    for t in range(1, 40):
        for s in (1, 3, 7):
            m = dlap_table._tail_size(t, s)
            for j, floor in enumerate(dlap_table._floors(t, s, m)):
                if floor is not None:
                    assert floor == exact_floor(t, s, j - m - 1), (t, s, j)
                    checked += 1
    assert checked > 1000


def test_a_huge_epsilon_table_is_settled_in_decimal() -> None:
    # scale 2/10**6 (a ladder at ε = 10**6): p = e**-500000, so P(Z <= k) is 0 or 1 - p**m,
    # whose upper bound rounds to 1; every C_j < 1 settles those floors at 2**64 - 1 (they
    # went to 2**-721000-sized fractions instead: 17 s for the first release at that ε)
    assert dlap_table._floors(1, 500_000, 1) == [0, 0, (1 << 64) - 1, (1 << 64) - 1]
    assert dlap_inversion(1, 500_000)[0].floors.tolist() == [0, 0, (1 << 64) - 1, (1 << 64) - 1]


def test_tie_with_a_threshold_is_resolved_by_the_next_words() -> None:
    inv, m = dlap_inversion(1, 1)
    j = m + 1  # threshold of P(Z <= 0)
    w = int(inv.floors[j])
    with localcontext() as ctx:
        ctx.prec = 80
        frac = (1 - (Decimal(-1).exp() / (1 + Decimal(-1).exp()))) * (1 << 64) - w
    assert 0 < frac < 1
    v_small = int(frac * (1 << 64)) - 1  # v just below the fraction: u < C_j, so Z = 0
    v_large = int(frac * (1 << 64)) + 1  # v above it: u > C_j, so Z = 1
    for v, expected in [(v_small, 0), (v_large, 1), (0, 0), ((1 << 64) - 1, 1)]:
        src = ScriptedSource([w, v])
        assert sample_table(src, 1, 1, 1).tolist() == [expected]
        assert src.drawn == 2


def test_tails_continue_geometrically() -> None:
    _inv, m = dlap_inversion(1, 1)
    low = sample_table(ScriptedSource([0]), 1, 1, 1)
    high = sample_table(ScriptedSource([(1 << 64) - 1]), 1, 1, 1)
    assert low[0] <= -m - 1
    assert high[0] >= m + 1


def test_tail_values_follow_the_distribution() -> None:
    draws = sample_discrete_laplace(get_source(9), 2_000_000, 1.0)
    _, m = dlap_inversion(1, 1)
    tail = np.abs(draws[np.abs(draws) > m]) - m - 1
    p = math.exp(-1.0)
    counts = np.bincount(tail, minlength=3)[:3]
    expected = tail.size * (1 - p) * p ** np.arange(3)
    assert tail.size == pytest.approx(2_000_000 * 2 * p ** (m + 1) / (1 + p), rel=0.1)
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected))


def test_release_fields_and_seeded_flag() -> None:
    rel = discrete_laplace(np.arange(6).reshape(2, 3), sensitivity=2, epsilon=0.5, rng=1)
    assert rel.value.shape == (2, 3)
    assert rel.value.dtype == np.int64
    assert (rel.scale, rel.epsilon, rel.delta, rel.rho) == (4.0, 0.5, 0.0, 0.125)
    assert rel.seeded is True
    assert discrete_laplace(3, sensitivity=1, epsilon=1.0).seeded is False
    assert isinstance(discrete_laplace(3, sensitivity=1, epsilon=1.0, rng=2).value, int)
    assert discrete_laplace([], sensitivity=1, epsilon=1.0, rng=3).value.shape == (0,)


def test_budget_is_debited_before_noise_and_refusal_draws_nothing() -> None:
    budget = Budget(1.0)
    src = CountingSource()
    discrete_laplace(np.zeros(100, dtype=int), sensitivity=1, epsilon=0.75, budget=budget, rng=src)
    assert src.drawn > 0
    assert budget.remaining.epsilon == 0.25
    src = CountingSource()
    with pytest.raises(BudgetExceededError, match=r"requested epsilon=0\.5"):
        discrete_laplace([1, 2], sensitivity=1, epsilon=0.5, budget=budget, rng=src)
    assert src.drawn == 0
    assert len(budget.history) == 1


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"epsilon": -1.0}, ValueError, r"epsilon must be a finite number > 0, got -1.0"),
        ({"epsilon": math.inf}, ValueError, r"epsilon must be a finite number > 0, got inf"),
        ({"sensitivity": 0}, ValueError, r"sensitivity must be a finite number > 0, got 0.0"),
        ({"values": [1.0, math.nan]}, ValueError, r"values must be finite, got nan"),
        ({"values": [0.5]}, ValueError, r"values must be integers, got 0.5"),
        ({"values": ["a"]}, TypeError, r"values must be numbers"),
    ],
)
def test_bad_input_is_refused(kwargs: dict, error: type, match: str) -> None:
    args = {"values": [1, 2], "sensitivity": 1, "epsilon": 1.0} | kwargs
    values = args.pop("values")
    with pytest.raises(error, match=match):
        discrete_laplace(values, **args)


def test_rational_scale_rounds_up() -> None:
    t, s = rational_scale(1 / 0.3)
    assert Fraction(t, s) >= Fraction(1) / Fraction(0.3)
    assert Fraction(t, s) - Fraction(1) / Fraction(0.3) < Fraction(t, s) * 2**-39


def test_an_int_sensitivity_above_2_53_sets_the_scale_exactly(monkeypatch) -> None:
    """``float(2**53 + 1)`` is ``2**53``: the scale ``sensitivity/ε`` was set from the float,
    below the sensitivity (k-star global sensitivities reach 2**61); found by a review."""
    import dpatlas.core.noise.discrete_laplace as module

    seen = []

    def spy(scale):
        seen.append(scale)
        return module.rational_scale.__wrapped__(scale)

    spy.__wrapped__ = module.rational_scale
    monkeypatch.setattr(module, "rational_scale", spy)
    module.discrete_laplace(0, sensitivity=2**53 + 1, epsilon=16.0, rng=0)  # scale ~2**49
    module.discrete_laplace(0, sensitivity=np.int64(2**60 + 1), epsilon=2048.0, rng=0)
    assert seen == [Fraction(2**53 + 1, 16), Fraction(2**60 + 1, 2048)]
