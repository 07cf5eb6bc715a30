"""Exact building blocks: Bernoulli(exp(-γ)) from float estimates, and inversion on thresholds."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from tests.helpers.sources import CountingSource, ScriptedSource

from dpatlas.core.noise._sampling.bernoulli import _in_pieces, bernoulli_exp_neg, bernoulli_fraction
from dpatlas.core.noise._sampling.dlap import _below_is_zero
from dpatlas.core.noise._sampling.inversion import (
    build_inversion,
    exp_bounds,
    floor_scaled,
    sample_index,
)
from dpatlas.core.rng import get_source

N = 400_000
Z = 5.3  # two-sided normal quantile for alpha = 1e-7


@pytest.mark.parametrize("gamma", [0.0, 0.25, 1.0, 1.5, 2.0, 3.7, 9.0])
def test_bernoulli_exp_neg_matches_exp_minus_gamma(gamma: float) -> None:
    hits = bernoulli_exp_neg(get_source(1), np.full(N, gamma), lambda i: Fraction(gamma))
    p = math.exp(-gamma)
    assert abs(hits.mean() - p) <= Z * math.sqrt(p * (1 - p) / N)
    # and it is not the neighbouring exponent: a 30% change of gamma is far outside
    for wrong in (0.7 * gamma, 1.3 * gamma):
        if gamma >= 0.25:
            q = math.exp(-wrong)
            assert abs(hits.mean() - q) > Z * math.sqrt(q * (1 - q) / N)


def test_bernoulli_exp_neg_extremes() -> None:
    est = np.array([1e300, math.inf, 0.0])
    out = bernoulli_exp_neg(get_source(2), est, lambda i: [Fraction(1e300), None, Fraction(0)][i])
    assert out.tolist() == [False, False, True]


def test_one_piece_each_draws_what_the_pieces_path_draws() -> None:
    # γ < 1 everywhere: bernoulli_exp_neg skips the rows of pieces; same coins, same words
    est = np.random.default_rng(4).random(20_000)
    est[::5] = 0.0
    err = est * 2.0**-49 + est * 2.0**-52

    def exact(i: int) -> Fraction:
        return Fraction(float(est[i]))

    for seed in range(5):
        fast, slow = get_source(seed), get_source(seed)
        got = bernoulli_exp_neg(fast, est, exact)
        assert got.tolist() == _in_pieces(slow, est, err, exact, np.ones(est.size, int)).tolist()
        assert fast.words(1).tolist() == slow.words(1).tolist()


BOUNDS = [*range(2, 40), 2**20, 3 * 2**20, 2**40 - 1, 2**62, 2**63 + 1, 2**64 - 1]


@pytest.mark.parametrize("k", BOUNDS)
def test_below_is_zero_is_below_equal_zero_from_the_same_words(k: int) -> None:
    # the exp(-1) coins test k | w by multiplying with an inverse, not below(k) == 0
    fast, slow = CountingSource(k), CountingSource(k)
    assert _below_is_zero(fast, k, 5000).tolist() == (slow.below(k, size=5000) == 0).tolist()
    assert fast.drawn == slow.drawn
    limit = ((1 << 64) - 1) // k * k
    words = [0, 1, k - 1, k % (1 << 64), 2 * k % (1 << 64), limit - k, limit - 1, (1 << 63) + 1]
    words = [w for w in words if w < limit]
    assert _below_is_zero(ScriptedSource(words), k, len(words)).tolist() == [
        w % k == 0 for w in words
    ]
    # a word at or above the limit is drawn again, as below() does
    for after, expected in [(0, True), (1, False)]:
        src = ScriptedSource([(1 << 64) - 1, after])
        assert _below_is_zero(src, k, 1).tolist() == [expected]
        assert src.drawn == 2


def test_bernoulli_fraction_tie_is_settled_by_further_words() -> None:
    third = np.array([1 / 3])
    w = (1 << 64) // 3  # floor(2**64 / 3); u < 1/3  <=>  next word < 2**64 / 3
    cases = [([0], True), ([w - 1], True), ([w + 1], False), ([(1 << 64) - 1], False)]
    # 1/3 = 0.0101...: a second word equal to w is again a tie, settled by a third word
    cases += [([w, 0], True), ([w, (1 << 64) - 1], False)]
    for more, expected in cases:
        src = ScriptedSource([w, *more])
        got = bernoulli_fraction(src, third, third * 2.0**-50, lambda i: Fraction(1, 3))
        assert got.tolist() == [expected]
        assert src.drawn == 1 + len(more)


def test_bernoulli_fraction_decides_clear_words_from_one_word() -> None:
    src = ScriptedSource([0, (1 << 64) - 1])
    got = bernoulli_fraction(src, np.array([0.5, 0.5]), np.zeros(2), lambda i: Fraction(1, 2))
    assert got.tolist() == [True, False]
    assert src.drawn == 2


def test_inversion_with_an_exact_dyadic_threshold() -> None:
    inv = build_inversion(lambda j, bits: (Fraction(1, 2), Fraction(1, 2)), 1)
    assert inv.floors.tolist() == [1 << 63]
    words = [(1 << 63) - 1, 1 << 63, 5, (1 << 63) + 1]
    idx, _ = sample_index(ScriptedSource([*words, 0]), inv, 4)
    assert idx.tolist() == [0, 1, 0, 1]


def test_inversion_tie_with_an_irrational_threshold() -> None:
    def bounds(j: int, bits: int) -> tuple[Fraction, Fraction]:
        return exp_bounds(Fraction(-1), math.ceil(bits * 0.302) + 8)

    inv = build_inversion(bounds, 1)
    t = int(inv.floors[0])
    assert t == floor_scaled(*bounds(0, 400))
    frac = bounds(0, 400)[0] * (1 << 64) - t  # where u = exp(-1) falls inside word t
    v = math.floor(frac * (1 << 64))
    assert sample_index(ScriptedSource([t, v - 1]), inv, 1)[0].tolist() == [0]
    assert sample_index(ScriptedSource([t, v + 1]), inv, 1)[0].tolist() == [1]


def test_inversion_frequencies() -> None:
    third = (Fraction(1, 3), Fraction(1, 3))
    inv = build_inversion(lambda j, bits: [third, (Fraction(1, 2),) * 2][j], 2)
    idx, _ = sample_index(get_source(3), inv, N)
    counts = np.bincount(idx, minlength=3) / N
    expected = np.array([1 / 3, 1 / 6, 1 / 2])
    assert np.all(np.abs(counts - expected) <= Z * np.sqrt(expected * (1 - expected) / N))


def test_thresholds_must_increase() -> None:
    with pytest.raises(ValueError, match="thresholds must be non-decreasing"):
        build_inversion(lambda j, bits: [(Fraction(1, 2),) * 2, (Fraction(1, 3),) * 2][j], 2)
