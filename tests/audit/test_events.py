"""Events: validation, membership, and selection on cases whose best event is known."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpatlas.audit import Event, select_event


def test_event_membership_is_closed_on_both_ends() -> None:
    outputs = np.array([[0.0, 5.0], [1.0, 5.0], [2.0, 5.0], [3.0, 5.0]])
    assert Event(1.0, 2.0).contains(outputs).tolist() == [False, True, True, False]
    assert Event(high=1.0).contains(outputs).tolist() == [True, True, False, False]
    assert Event(5.0, 5.0, projection=1).contains(outputs).all()
    assert Event(low=6.0, projection=None).contains(outputs).tolist() == [False, True, True, True]


@pytest.mark.parametrize(
    ("event", "text"),
    [
        (Event(2.5), "o[0] ≥ 2.5"),
        (Event(high=-1), "o[0] ≤ -1"),
        (Event(3, 3, projection=2), "o[2] = 3"),
        (Event(0, 1.5, projection=None), "sum(o) ∈ [0, 1.5]"),
    ],
)
def test_event_reads_as_a_set(event: Event, text: str) -> None:
    assert str(event) == text


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"low": 2.0, "high": 1.0}, ValueError, r"need low <= high, got low=2\.0, high=1\.0"),
        ({"low": math.nan}, ValueError, r"low must not be NaN"),
        ({"high": "3"}, TypeError, r"high must be a number, got '3'"),
        ({"projection": -1}, ValueError, r"projection must be an int >= 0 or None \(sum\), got -1"),
        ({"projection": 1.0}, ValueError, r"projection must be an int >= 0"),
        (
            {"low": 10**400},
            ValueError,
            r"low is an integer of 401 digits, beyond the float range; "
            r"use math\.inf for an open end",
        ),
        (
            {"high": -(10**5000)},
            ValueError,
            r"high is an integer of 5001 digits, beyond the float range",
        ),
    ],
)
def test_event_rejects_bad_fields(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        Event(**kwargs)


def test_event_projection_out_of_range_names_the_length() -> None:
    with pytest.raises(ValueError, match=r"projection 3 is out of range for outputs of length 2"):
        Event(projection=3).contains(np.zeros((4, 2)))


def _bernoulli(gen: np.random.Generator, p: float, n: int) -> np.ndarray:
    return (gen.random((n, 1)) < p).astype(np.float64)


def test_selection_finds_the_event_with_the_known_ratio() -> None:
    # Bernoulli(0.6) vs Bernoulli(0.3): {o = 1} has ratio 2, {o = 0} only 0.7/0.4 = 1.75
    gen = np.random.default_rng(11)
    n = 100_000
    event, score = select_event(_bernoulli(gen, 0.6, n), _bernoulli(gen, 0.3, n))
    assert event.contains(np.array([[0.0], [1.0]])).tolist() == [False, True]
    assert math.log(2) - 0.05 < score < math.log(2)
    # reversed inputs: the same event, the bound now from q over p
    event_rev, score_rev = select_event(_bernoulli(gen, 0.3, n), _bernoulli(gen, 0.6, n))
    assert event_rev.contains(np.array([[0.0], [1.0]])).tolist() == [False, True]
    assert math.log(2) - 0.05 < score_rev < math.log(2)


def test_selection_prefers_the_smaller_ratio_when_it_is_the_only_one_with_mass() -> None:
    # {o = 1}: 0.02 vs 0.002 (ratio 10, little mass); {o = 0}: 0.98 vs 0.998 (ratio ~1):
    # with 2,000 runs the rare event cannot show ratio 10 but still wins; with 20 runs no event
    # has a positive bound
    gen = np.random.default_rng(5)
    event, score = select_event(_bernoulli(gen, 0.02, 2_000), _bernoulli(gen, 0.002, 2_000))
    assert event.contains(np.array([[0.0], [1.0]])).tolist() == [False, True]
    assert 0.0 < score < math.log(10)
    _, score_small = select_event(_bernoulli(gen, 0.02, 20), _bernoulli(gen, 0.002, 20))
    assert score_small < 0.0


def test_selection_picks_the_coordinate_that_differs() -> None:
    # coordinate 0 is the same on both inputs; coordinate 1 is shifted by 3 (Laplace scale 1),
    # the sum dilutes the shift with coordinate 0's noise
    gen = np.random.default_rng(3)
    n = 50_000
    d = gen.laplace(size=(n, 2))
    d_prime = gen.laplace(size=(n, 2)) + np.array([0.0, 3.0])
    event, score = select_event(d, d_prime)
    assert event.projection == 1
    assert 2.5 < score < 3.0


def test_selection_among_given_candidates_and_their_validation() -> None:
    gen = np.random.default_rng(2)
    n = 20_000
    d, d_prime = _bernoulli(gen, 0.6, n), _bernoulli(gen, 0.3, n)
    candidates = [Event(0, 0), Event(-1, 2), Event(0.5)]
    event, score = select_event(d, d_prime, candidates=candidates)
    assert event == Event(0.5)
    assert 0.55 < score < math.log(2)
    with pytest.raises(TypeError, match=r"candidates must be a non-empty sequence of Event"):
        select_event(d, d_prime, candidates=[])


def test_selection_finds_a_point_mass_inside_a_continuous_distribution() -> None:
    # d: exact 0 (no noise); d': Laplace noise around 0: the point {o = 0} separates them
    gen = np.random.default_rng(4)
    n = 50_000
    event, score = select_event(np.zeros((n, 1)), gen.laplace(size=(n, 1)))
    assert event == Event(0.0, 0.0)
    # 1.0 vs 0.0 on 50,000 runs, confidence 1 - 0.01/K for K ~ 7,000 scored events
    assert 7.5 < score < math.log(50_000)


_SAMPLE = np.random.default_rng(0).laplace(size=(500, 1))


@pytest.mark.parametrize(
    ("d", "d_prime", "kwargs", "error", "match"),
    [
        (_SAMPLE, _SAMPLE, {"delta": -1.0}, ValueError, r"delta must be in \[0, 1\), got -1\.0"),
        (_SAMPLE, _SAMPLE, {"confidence": 2.0}, ValueError, r"confidence must be a number in"),
        (_SAMPLE, _SAMPLE, {"max_thresholds": 0}, ValueError, r"max_thresholds must be an "),
        (_SAMPLE, _SAMPLE, {"max_thresholds": -5}, ValueError, r"integer >= 2, got -5"),
        (_SAMPLE, _SAMPLE, {"max_thresholds": 2.5}, TypeError, r"max_thresholds must be an int"),
        (
            _SAMPLE.ravel(),
            _SAMPLE.ravel(),
            {},
            ValueError,
            r"outputs_d must be a 2-D array \(runs, dim\), got shape \(500,\); "
            r"reshape one number per run with x\.reshape\(-1, 1\)",
        ),
        (
            np.zeros((0, 1)),
            np.zeros((0, 1)),
            {},
            ValueError,
            r"outputs_d must hold at least one run and one coordinate, got shape \(0, 1\)",
        ),
        (
            _SAMPLE,
            np.vstack([_SAMPLE] * 3),
            {},
            ValueError,
            r"outputs_d and outputs_d_prime must have the same shape \(runs, dim\), got "
            r"\(500, 1\) and \(1500, 1\)",
        ),
        (
            _SAMPLE,
            np.hstack([_SAMPLE, _SAMPLE]),
            {},
            ValueError,
            r"same shape \(runs, dim\), got \(500, 1\) and \(500, 2\)",
        ),
        (
            _SAMPLE.astype(str),
            _SAMPLE,
            {},
            TypeError,
            r"outputs_d must be an array of real numbers, got dtype <U",
        ),
        (
            np.full((500, 1), np.nan),
            _SAMPLE,
            {},
            ValueError,
            r"outputs_d must not contain NaN",
        ),
    ],
)
def test_selection_rejects_bad_arguments(
    d: np.ndarray, d_prime: np.ndarray, kwargs: dict, error: type, match: str
) -> None:
    with pytest.raises(error, match=match):
        select_event(d, d_prime, **kwargs)


def test_selection_reads_candidates_from_any_iterable() -> None:
    gen = np.random.default_rng(2)
    d, d_prime = _bernoulli(gen, 0.6, 5_000), _bernoulli(gen, 0.3, 5_000)
    listed = select_event(d, d_prime, candidates=[Event(0, 0), Event(0.5)])
    assert select_event(d, d_prime, candidates=(e for e in [Event(0, 0), Event(0.5)])) == listed
    with pytest.raises(TypeError, match=r"candidates must be an iterable of Event, got Event"):
        select_event(d, d_prime, candidates=Event(0.5))  # type: ignore[arg-type]
