"""Fuzz the core mechanisms: a valid Release or a documented error, never NaN, never a spend
recorded for a refused release (the budget and the ledger: ``test_accounting_fuzz.py``)."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp
from tests.fuzz._harness import WEIRD_OBJECTS, deltas, finite_values, params, run, twin

from dpatlas import (
    Budget,
    Release,
    clipped_mean,
    clipped_sum,
    discrete_laplace,
    exponential,
    gaussian,
    laplace,
    randomized_response,
    report_noisy_max,
)

VALUE_LIMIT = 2**62 - 1  # discrete_laplace clamps the answer to this magnitude
FLOAT_MAX = float(np.finfo(np.float64).max)  # real-valued releases saturate here

float_arrays = hnp.arrays(
    np.float64,
    hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=6),
    elements=st.floats(allow_nan=True, allow_infinity=True, width=64),
)
int_arrays = hnp.arrays(
    np.int64,
    hnp.array_shapes(min_dims=0, max_dims=2, min_side=0, max_side=6),
    elements=st.one_of(st.integers(-(2**62), 2**62), st.sampled_from([2**63 - 1, -(2**63)])),
)
data_values = st.one_of(
    float_arrays,
    int_arrays,
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.lists(st.one_of(st.integers(-100, 100), st.booleans()), max_size=6),
    st.sampled_from([*WEIRD_OBJECTS, True, [], [[1, 2], [3]], ["a", "b"]]),
)
rngs = st.one_of(st.none(), st.integers(0, 2**32), st.sampled_from([-1, 1.5, "seed"]))


def _budget() -> Budget:
    return Budget(1e6, 0.5)


def _check_release(result: object, budget: Budget, before: int) -> None:
    if result is None:
        return
    assert isinstance(result, Release)
    finite_values(result.value)
    if result.scale is not None:
        assert np.isfinite(result.scale), f"non-finite scale released: {result.scale!r}"
    assert len(budget.history) > before, "a release spent nothing from the budget"
    assert isinstance(result.seeded, bool)


def _release(call, budget: Budget, names: tuple[str, ...]) -> Release | None:
    before = len(budget.history)
    result = run(call, budget=budget, names=names)
    _check_release(result, budget, before)
    return result


def _check_noise(result: Release | None, values: object) -> None:
    """Each coordinate moved by less than 200 noise scales (fails with probability ~e^-200).

    Exact arithmetic (Python ints, fractions of floats), so an int64 wrap-around or a float
    overflow of ``value + noise`` is caught. The reference is the value clamped to the public
    range the mechanism saturates at (issue #17: never refused for its magnitude), and a float
    release may be off by half its ulp (rounding of the exact lattice value).
    """
    if result is None:
        return
    exact = np.asarray(values, dtype=object).ravel()
    released = np.asarray(result.value, dtype=object).ravel()
    step = Fraction(result.metadata.get("grid", 0))
    limit = Fraction(VALUE_LIMIT if "grid" not in result.metadata else FLOAT_MAX)
    for x, y in zip(exact, released, strict=True):
        # math.ulp is finite at the largest float, where np.spacing overflows
        ulp = Fraction(math.ulp(abs(float(y)))) if "grid" in result.metadata else 0
        bound = 200 * Fraction(result.scale) + step + ulp
        reference = min(max(Fraction(x), -limit), limit)
        assert abs(Fraction(y) - reference) <= bound, (x, y, result.scale)


NOISE_NAMES = ("epsilon", "sensitivity", "values", "rng", "resolution", "max_changed", "delta")


@twin(given(values=data_values, sensitivity=params, epsilon=params, rng=rngs))
def _noise_body(values, sensitivity, epsilon, rng):
    b = _budget()
    for mech in (discrete_laplace, laplace):
        result = _release(
            lambda m=mech: m(values, sensitivity=sensitivity, epsilon=epsilon, rng=rng, budget=b),
            b,
            NOISE_NAMES,
        )
        _check_noise(result, values)


test_discrete_laplace_and_laplace, test_discrete_laplace_and_laplace_slow = _noise_body


@twin(
    given(
        values=data_values,
        sensitivity=params,
        epsilon=params,
        delta=deltas,
        method=st.sampled_from(["analytic", "classic", "discrete", "bogus", None]),
        rng=rngs,
    )
)
def _gaussian_body(values, sensitivity, epsilon, delta, method, rng):
    b = _budget()
    _release(
        lambda: gaussian(
            values,
            sensitivity=sensitivity,
            epsilon=epsilon,
            delta=delta,
            method=method,
            rng=rng,
            budget=b,
        ),
        b,
        (*NOISE_NAMES, "method"),
    )


test_gaussian, test_gaussian_slow = _gaussian_body

scores = st.one_of(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=1, max_dims=1, min_side=0, max_side=8),
        elements=st.floats(allow_nan=True, allow_infinity=True, width=64),
    ),
    st.lists(st.integers(-(2**40), 2**40), max_size=8),
    st.sampled_from([*WEIRD_OBJECTS, [], [[1.0]], [True, False]]),
)


@twin(
    given(
        scores=scores,
        sensitivity=params,
        epsilon=params,
        noise=st.sampled_from(["gumbel", "exponential", "laplace", "nope", 3]),
        monotonic=st.sampled_from([True, False, 1, None]),
        rng=rngs,
    )
)
def _selection_body(scores, sensitivity, epsilon, noise, monotonic, rng):
    b = _budget()
    names = ("scores", "sensitivity", "epsilon", "noise", "monotonic", "candidates", "rng")
    _release(
        lambda: report_noisy_max(
            scores,
            sensitivity=sensitivity,
            epsilon=epsilon,
            noise=noise,
            monotonic=monotonic,
            rng=rng,
            budget=b,
        ),
        b,
        names,
    )
    size = len(scores) if hasattr(scores, "__len__") else 0
    candidates = [f"c{i}" for i in range(size)]
    _release(
        lambda: exponential(
            candidates or None,
            scores,
            sensitivity=sensitivity,
            epsilon=epsilon,
            monotonic=monotonic,
            rng=rng,
            budget=b,
        ),
        b,
        names,
    )


test_report_noisy_max_and_exponential, test_report_noisy_max_and_exponential_slow = _selection_body


@twin(
    given(
        values=data_values,
        epsilon=params,
        categories=st.one_of(
            st.none(),
            st.integers(-2, 6),
            st.sampled_from([2**62, 2**63, 10**400]),
            st.lists(st.integers(0, 5), max_size=5),
            st.sampled_from([True, 2.5, "ab", float("nan")]),
        ),
        rng=rngs,
    )
)
def _rr_body(values, epsilon, categories, rng):
    b = _budget()
    _release(
        lambda: randomized_response(
            values, epsilon=epsilon, categories=categories, rng=rng, budget=b
        ),
        b,
        ("values", "epsilon", "categories", "rng"),
    )


test_randomized_response, test_randomized_response_slow = _rr_body


@twin(
    given(
        values=data_values,
        lower=params | st.floats(-1e6, 0),
        upper=params,
        epsilon=params,
        n=st.one_of(st.none(), st.integers(-2, 10**6), st.sampled_from([True, 2.5, float("nan")])),
        split=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.sampled_from([0, 1])),
        rng=rngs,
    )
)
def _clipped_body(values, lower, upper, epsilon, n, split, rng):
    b = _budget()
    names = ("values", "lower", "upper", "epsilon", "n", "split", "rng")
    _release(
        lambda: clipped_sum(values, lower=lower, upper=upper, epsilon=epsilon, rng=rng, budget=b),
        b,
        names,
    )
    _release(
        lambda: clipped_mean(
            values, lower=lower, upper=upper, epsilon=epsilon, n=n, split=split, rng=rng, budget=b
        ),
        b,
        names,
    )


test_clipped_sum_and_mean, test_clipped_sum_and_mean_slow = _clipped_body
