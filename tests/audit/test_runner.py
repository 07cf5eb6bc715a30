"""audit(): calling conventions, validation, the report, and the auditor's own error rates."""

from __future__ import annotations

import math

import numpy as np
import pytest

from dpatlas.audit import AuditResult, Event, audit
from dpatlas.core import discrete_laplace


def laplace_count(count: float, *, size: int, rng: np.random.Generator) -> np.ndarray:
    """Reference ε = 1 counting query (sensitivity 1): numpy Laplace at scale 1/ε."""
    return count + rng.laplace(scale=1.0, size=size)


def bernoulli_one(p: float, *, rng: np.random.Generator) -> int:
    """One draw of Bernoulli(p), without a ``size`` keyword: the auditor calls it per run."""
    return int(rng.random() < p)


def test_correct_laplace_passes_and_the_bound_is_close_to_its_epsilon() -> None:
    result = audit(laplace_count, 0, 1, epsilon=1.0, samples=200_000, rng=1)
    assert result.passed
    assert 0.93 < result.epsilon_lb <= 1.0
    assert result.samples == 200_000
    assert result.n_test == 100_000


def test_per_run_calls_give_the_known_bernoulli_ratio() -> None:
    # Bernoulli(0.6) vs Bernoulli(0.3): the largest privacy loss is ln 2 on {o = 1}
    result = audit(bernoulli_one, 0.6, 0.3, epsilon=math.log(2), samples=40_000, rng=3)
    assert result.passed
    assert result.event.contains(np.array([[0.0], [1.0]])).tolist() == [False, True]
    assert math.log(2) - 0.1 < result.epsilon_lb <= math.log(2)
    assert result.p == pytest.approx(0.6, abs=0.015)
    assert result.q == pytest.approx(0.3, abs=0.015)
    assert result.p_interval[0] < result.p < result.p_interval[1]
    assert result.forward


def test_delta_is_subtracted_from_the_larger_probability() -> None:
    # Bernoulli(0.6) vs Bernoulli(0.3) is (0, 0.3)-DP: with δ = 0.3 nothing is left to find
    result = audit(bernoulli_one, 0.6, 0.3, epsilon=0.01, delta=0.3, samples=40_000, rng=3)
    assert result.passed
    assert result.epsilon_lb == 0.0
    loose = audit(bernoulli_one, 0.6, 0.3, epsilon=0.01, delta=0.1, samples=40_000, rng=3)
    assert not loose.passed
    assert 0.4 < loose.epsilon_lb <= math.log(0.5 / 0.3)


def test_release_outputs_and_vector_outputs_are_read() -> None:
    def release_pair(counts: list[int], *, size: int, rng: np.random.Generator) -> object:
        return discrete_laplace(np.tile(counts, (size, 1)), sensitivity=1, epsilon=1.0, rng=rng)

    result = audit(release_pair, [5, 0], [5, 1], epsilon=1.0, samples=100_000, rng=2)
    assert result.passed
    assert result.epsilon_lb > 0.85
    assert result.event.projection in (1, None)


def test_a_fixed_event_is_tested_on_all_runs() -> None:
    result = audit(laplace_count, 0, 1, epsilon=1.0, samples=50_000, events=Event(high=0.0), rng=4)
    assert result.event == Event(high=0.0)
    assert result.n_test == 50_000
    assert result.p == pytest.approx(0.5, abs=0.01)
    assert result.q == pytest.approx(0.5 * math.exp(-1), abs=0.01)
    assert 0.9 < result.epsilon_lb <= 1.0


def test_candidate_events_restrict_the_search() -> None:
    # both events are symmetric about 1/2, so they have the same probability under 0 and 1
    candidates = [Event(-0.5, 1.5), Event(0.25, 0.75)]
    result = audit(laplace_count, 0, 1, epsilon=1.0, samples=50_000, events=candidates, rng=4)
    assert result.event in candidates
    assert result.epsilon_lb < 0.05


def test_seeded_audits_are_reproducible() -> None:
    first = audit(laplace_count, 0, 1, epsilon=1.0, samples=10_000, rng=9)
    assert audit(laplace_count, 0, 1, epsilon=1.0, samples=10_000, rng=9) == first
    assert audit(laplace_count, 0, 1, epsilon=1.0, samples=10_000, rng=10) != first


def test_report_is_readable() -> None:
    result = AuditResult(
        event=Event(high=0.0),
        p=0.5,
        q=0.1,
        p_interval=(0.49, 0.51),
        q_interval=(0.09, 0.11),
        epsilon_lb=1.4955,
        epsilon=0.5,
        delta=0.0,
        confidence=0.99,
        samples=200_000,
        n_test=100_000,
        forward=True,
    )
    assert not result.passed
    assert str(result) == (
        "audit FAILED: ε_lb = 1.4955 > claimed ε = 0.5 (δ = 0, confidence 0.99)\n"
        "  event E: o[0] ≤ 0\n"
        "  p = P[M(d) ∈ E]  = 0.50000  [0.49000, 0.51000]\n"
        "  q = P[M(d′) ∈ E] = 0.10000  [0.09000, 0.11000]\n"
        "  bound from ln((p_low - δ) / q_high); 200000 runs per input, 100000 for the test"
    )


def test_auditor_false_positive_rate_on_a_correct_mechanism() -> None:
    # 300 audits of a correct ε = 1 Laplace at confidence 0.5: a valid auditor fails at most
    # half; this one (Bonferroni over four interval ends, held-out test half) fails ~3%.
    # Selecting and testing on the same runs fails ~27% here, and is caught by the ≤ 10% bar.
    fails = sum(
        not audit(laplace_count, 0, 1, epsilon=1.0, samples=2_000, confidence=0.5, rng=s).passed
        for s in range(300)
    )
    assert fails <= 30


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"epsilon": -1.0}, ValueError, r"epsilon must be a finite number > 0, got -1\.0"),
        ({"epsilon": 1.0, "delta": 1.0}, ValueError, r"delta must be in \[0, 1\), got 1\.0"),
        ({"epsilon": 1.0, "samples": 1}, ValueError, r"samples must be an integer >= 2, got 1"),
        ({"epsilon": 1.0, "confidence": 0.0}, ValueError, r"confidence must be a number in"),
        ({"epsilon": 1.0, "events": "all"}, TypeError, r'events must be "auto", an Event or a'),
        ({"epsilon": 1.0, "rng": "seed"}, TypeError, r"rng must be None, an int seed"),
    ],
)
def test_audit_rejects_bad_arguments(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        audit(laplace_count, 0, 1, samples=kwargs.pop("samples", 100), **kwargs)


def test_audit_rejects_bad_mechanisms() -> None:
    with pytest.raises(TypeError, match=r"mechanism must be callable, got 3"):
        audit(3, 0, 1, epsilon=1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"must return 10 outputs along the first axis, got"):
        audit(lambda d, *, size, rng: np.zeros(3), 0, 1, epsilon=1.0, samples=10, rng=0)
    with pytest.raises(ValueError, match=r"mechanism returned NaN"):
        audit(lambda d, *, rng: math.nan, 0, 1, epsilon=1.0, samples=10, rng=0)
    with pytest.raises(TypeError, match=r"mechanism must return numbers, an array or a Release"):
        audit(lambda d, *, rng: "x", 0, 1, epsilon=1.0, samples=10, rng=0)
    with pytest.raises(
        ValueError, match=r"outputs of length 100000 over samples=2000 runs are too"
    ):
        audit(lambda d, *, size, rng: np.zeros((size, 100_000)), 0, 1, epsilon=1.0, samples=2_000)
    with pytest.raises(ValueError, match=r"outputs on d and d_prime differ in length \(1 vs 2\)"):
        audit(lambda d, *, rng: np.zeros(d), 1, 2, epsilon=1.0, samples=10, rng=0)


def test_audit_rejects_outputs_whose_length_changes_or_is_zero() -> None:
    def varying(d: int, *, size: int, rng: np.random.Generator) -> np.ndarray:
        return np.zeros((size, 1 if size == 1_000 else 2))  # first batch 1 number, then 2

    with pytest.raises(
        ValueError,
        match=r"mechanism outputs must all have the same length, got 1 number\(s\) per output "
        r"in the first batch and 2 in the batch of size=500",
    ):
        audit(varying, 0, 1, epsilon=1.0, samples=1_500, rng=0)
    with pytest.raises(ValueError, match=r"mechanism returned an empty output; the auditor"):
        audit(lambda d, *, size, rng: np.zeros((size, 0)), 0, 1, epsilon=1.0, samples=10, rng=0)
    with pytest.raises(ValueError, match=r"mechanism returned an empty output; the auditor"):
        audit(lambda d, *, rng: np.zeros(0), 0, 1, epsilon=1.0, samples=10, rng=0)
