"""Exponential mechanism and report-noisy-max: exact laws, monotonic case, errors."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from tests.helpers.distributions import assert_scale_detected

from dpatlas.core import Budget, exponential, report_noisy_max
from dpatlas.core.noise.exponential import _gammas, _sample_em, _sample_pf
from dpatlas.core.rng import get_source

SCORES = np.array([0.0, 1.0, 2.5, 3.0, 4.2, 4.2])
N = 100_000


def em_pmf(scale: float):
    w = np.exp((SCORES - SCORES.max()) / scale)
    return lambda k: (w / w.sum())[k]


def pf_pmf(scale: float):
    """Permute-and-flip: P(i) = p_i E[1 / (1 + #other successes)], by enumeration."""
    p = np.exp((SCORES - SCORES.max()) / scale)
    n = p.size
    out = np.zeros(n)
    for i in range(n):
        others = [j for j in range(n) if j != i]
        for coins in itertools.product([0, 1], repeat=n - 1):
            prob = np.prod([p[j] if c else 1 - p[j] for j, c in zip(others, coins, strict=True)])
            out[i] += p[i] * prob / (1 + sum(coins))
    return lambda k: out[k]


@pytest.mark.parametrize(("epsilon", "monotonic"), [(1.0, False), (0.3, False), (1.0, True)])
def test_exponential_mechanism_law(epsilon: float, monotonic: bool) -> None:
    est, exact = _gammas(SCORES, epsilon, 1.0, monotonic)
    draws = _sample_em(get_source(1), est, exact, N)
    scale = (1.0 if monotonic else 2.0) / epsilon  # P(i) ∝ exp(u_i / scale)
    assert_scale_detected(draws, em_pmf, scale, support=(0, SCORES.size - 1))


def test_permute_and_flip_law() -> None:
    est, exact = _gammas(SCORES, 1.0, 1.0, False)
    draws = _sample_pf(get_source(2), est, exact, N)
    assert_scale_detected(draws, pf_pmf, 2.0, support=(0, SCORES.size - 1))


def test_permute_and_flip_is_not_the_exponential_mechanism() -> None:
    pf, em = pf_pmf(2.0)(np.arange(6)), em_pmf(2.0)(np.arange(6))
    assert pf[4] > em[4]  # P&F favours the best candidates more
    assert np.abs(pf - em).max() > 0.02


def test_release_returns_candidate_and_index() -> None:
    rel = exponential(list("abcdef"), SCORES, sensitivity=1.0, epsilon=1.0, rng=3)
    assert rel.value == "abcdef"[rel.metadata["index"]]
    assert (rel.epsilon, rel.delta, rel.rho, rel.scale) == (1.0, 0.0, 0.5, None)
    assert exponential(None, SCORES, sensitivity=1.0, epsilon=1.0, rng=3).value in range(6)
    big_gap = report_noisy_max([0, 0, 1000], sensitivity=1.0, epsilon=1.0, rng=4)
    assert big_gap.value == 2


def test_empty_candidate_set_is_refused_before_spending() -> None:
    # it used to debit the budget and release None
    budget = Budget(1.0)
    match = "scores must hold at least one candidate's score, got none"
    with pytest.raises(ValueError, match=match):
        exponential(None, [], sensitivity=1.0, epsilon=0.5, budget=budget)
    with pytest.raises(ValueError, match=match):
        report_noisy_max([], sensitivity=1.0, epsilon=0.5, budget=budget)
    assert budget.history == ()


def test_huge_score_gaps_are_exact_zeros() -> None:
    scores = np.array([-1e300, 1e300, 0.0])
    assert exponential(None, scores, sensitivity=1e-10, epsilon=1.0, rng=5).value == 1


def test_errors() -> None:
    with pytest.raises(
        ValueError, match="candidates and scores must have the same length, got 2 and 3"
    ):
        exponential(["a", "b"], [1.0, 2.0, 3.0], sensitivity=1.0, epsilon=1.0)
    with pytest.raises(ValueError, match=r"scores must be one-dimensional, got shape \(1, 2\)"):
        exponential(None, [[1.0, 2.0]], sensitivity=1.0, epsilon=1.0)
    with pytest.raises(ValueError, match="scores must be finite, got nan at index"):
        exponential(None, [1.0, math.nan], sensitivity=1.0, epsilon=1.0)
    with pytest.raises(ValueError, match="noise must be 'gumbel' or 'exponential', got 'laplace'"):
        report_noisy_max([1.0], sensitivity=1.0, epsilon=1.0, noise="laplace")
    with pytest.raises(ValueError, match="monotonic=True is only supported with noise='gumbel'"):
        report_noisy_max([1.0], sensitivity=1.0, epsilon=1.0, noise="exponential", monotonic=True)
    with pytest.raises(ValueError, match=r"epsilon / sensitivity must be within \[2\*\*-500"):
        exponential(None, [1.0], sensitivity=1e-200, epsilon=1e5)


def test_candidates_that_are_no_sequence_are_refused_before_spending() -> None:
    # a set or a dict passed the length check and failed at the pick, after the debit
    budget = Budget(10.0)
    for bad in ({"a", "b"}, {"a": 1, "b": 2}, "ab"):
        with pytest.raises(TypeError, match=r"candidates must be a sequence .* got"):
            exponential(bad, [1.0, 2.0], sensitivity=1, epsilon=1.0, budget=budget)
    assert budget.history == ()
    import pandas as pd

    series = pd.Series(["a", "b"], index=[10, 20])  # read in order, not by its labels
    picked = exponential(series, [0.0, 1e6], sensitivity=1, epsilon=1.0, budget=budget, rng=0)
    assert picked.value == "b"


@pytest.mark.parametrize("flag", ["False", 1, None])
def test_monotonic_must_be_a_bool(flag: object) -> None:
    # any truthy value switched to the monotonic law: the string "False" meant True
    with pytest.raises(TypeError, match=r"monotonic must be True or False, got"):
        exponential(None, [1.0, 2.0], sensitivity=1, epsilon=1.0, monotonic=flag)
    with pytest.raises(TypeError, match=r"monotonic must be True or False, got"):
        report_noisy_max([1.0, 2.0], sensitivity=1, epsilon=1.0, monotonic=flag)


@pytest.mark.parametrize("kind", ["int64", "python", "fraction", "mixed", "at-2**53"])
def test_integer_scores_beyond_2_53_are_taken_exactly(kind: str) -> None:
    """``2**60`` and ``2**60 + 1`` are one float: the mechanism picked each half the time,
    where the law (ε/2Δ = 1) says 0.27 / 0.73, and rounded neighbours can move by an ulp (256)
    more than Δ; found by a review of the float inputs."""
    from fractions import Fraction

    from scipy.stats import binomtest

    big = [2**60, 2**60 + 1]
    scores = {
        "int64": np.array(big, dtype=np.int64),
        "python": [*big, -(2**70)],  # beyond int64: an object array
        "fraction": [Fraction(v) for v in big],
        "mixed": [*big, 0.5],  # a float beside them: np.asarray made all three floats
        "at-2**53": [2**53, 2**53 + 1],  # 2**53 + 1 rounds down to 2**53
    }[kind]
    src, n = get_source(11), 4_000
    picks = [exponential(None, scores, sensitivity=1, epsilon=2.0, rng=src).value for _ in range(n)]
    hits = sum(p == 1 for p in picks)
    assert binomtest(hits, n, math.e / (1 + math.e)).pvalue > 1e-6
    assert binomtest(hits, n, 0.5).pvalue < 1e-9
    noisy = [report_noisy_max(scores, sensitivity=1, epsilon=2.0, rng=src).value for _ in range(n)]
    assert binomtest(sum(p == 1 for p in noisy), n, math.e / (1 + math.e)).pvalue > 1e-6


def test_integer_scores_too_far_apart_for_a_float_pick_the_top() -> None:
    """Exact differences beyond the float range (``2·10**308``) raised OverflowError where
    the float path takes them as infinite (probability 0); found by review."""
    assert exponential(None, [10**308, -(10**308)], sensitivity=1, epsilon=1.0, rng=0).value == 0


@pytest.mark.parametrize("kind", ["fraction", "longdouble"])
def test_scores_a_float_rounds_below_2_53_are_taken_exactly(kind: str) -> None:
    """``2**40 + 2**-13`` rounds to ``2**40`` (the ulp there is ``2**-12``): with
    ``Δ = 2**-20`` the mechanism picked each score half the time where the law (ε/2Δ times
    the gap of ``2**-13`` is 1) says 0.73 / 0.27, and one neighbour's ``Δ`` moved the rounded
    gap by ``2**-12 = 256 Δ``. Only scores beyond ``2**53`` were taken exactly; found by
    checking the exact path's cost."""
    from fractions import Fraction

    from scipy.stats import binomtest

    top = Fraction(2**40) + Fraction(1, 2**13)
    if kind == "longdouble" and np.finfo(np.longdouble).nmant < 60:
        pytest.skip("this platform's long double is a double")
    scores = {
        "fraction": [top, Fraction(2**40)],
        "longdouble": np.array([2**40, 2**40], dtype=np.longdouble) + np.array([2.0**-13, 0.0]),
    }[kind]
    src, n = get_source(12), 4_000
    kw = {"sensitivity": Fraction(1, 2**20), "epsilon": 2.0**-6}
    picks = [exponential(None, scores, **kw, rng=src).value for _ in range(n)]
    hits = sum(p == 0 for p in picks)
    assert binomtest(hits, n, math.e / (1 + math.e)).pvalue > 1e-6
    assert binomtest(hits, n, 0.5).pvalue < 1e-9


@pytest.mark.parametrize(
    ("sensitivity", "exact"), [("third", "third"), (2**60 + 1, 2**60 + 1), (0.5, 0.5)]
)
def test_int_or_fraction_sensitivity_is_taken_exactly(
    monkeypatch: pytest.MonkeyPatch, sensitivity: object, exact: object
) -> None:
    """``Δ = 1/3`` was read as its float (before 1677743 rounded to nearest, ``1/3 - 2**-54/3``:
    a slightly too large ``ε/2Δ``; since then rounded up: private, but not the stated law); an
    int past ``2**53`` likewise (``2**60 + 1``). The γ the coins use is ``ε (u_max - u_i) / 2Δ``
    with ``Δ`` as given, as in ``discrete_laplace``; found by checking the exact path's cost."""
    from fractions import Fraction

    import dpatlas.core.noise.exponential as em

    if sensitivity == "third":
        sensitivity = exact = Fraction(1, 3)
    seen: list[Fraction] = []
    real = em.bernoulli_exp_neg

    def spy(src, est, gamma):  # type: ignore[no-untyped-def]
        seen.extend(gamma(i) for i in range(len(est)))
        return real(src, est, gamma)

    monkeypatch.setattr(em, "bernoulli_exp_neg", spy)
    report_noisy_max([0.0, 1.0], sensitivity=sensitivity, epsilon=1.0, noise="exponential", rng=0)
    assert sorted(set(seen)) == [0, Fraction(1) / (2 * Fraction(exact))]


def test_float_arrays_are_not_listed_on_the_exact_path_check() -> None:
    """A float64 array of scores past ``2**53`` was turned into a Python list (40 ms of the
    250 ms a 10**6-score release takes) only to find it held floats; it is judged by its
    dtype, and its draws are unchanged; found by timing the session-22 paths."""
    from dpatlas.core.noise.exponential import _exact_scores

    class Unlistable(np.ndarray):
        def tolist(self):  # type: ignore[no-untyped-def]
            raise AssertionError("a float array was listed")

    scores = (np.arange(1000.0) + 2.0**60).view(Unlistable)
    assert _exact_scores(scores, scores, np.asarray(scores)) is None
    plain = np.arange(1000.0) + 2.0**60
    got = [exponential(None, scores, sensitivity=1, epsilon=1.0, rng=s).value for s in range(5)]
    assert got == [
        exponential(None, plain, sensitivity=1, epsilon=1.0, rng=s).value for s in range(5)
    ]
