"""Shared fuzz harness: run one call, accept a valid result or a documented error, nothing else."""

from __future__ import annotations

import re
import warnings
from collections.abc import Callable, Iterable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, event, settings
from hypothesis import strategies as st

from dpatlas import Budget
from dpatlas.errors import BudgetExceededError, LedgerError, PrivacyLeakWarning

ALLOWED = (TypeError, ValueError, BudgetExceededError, LedgerError)

FAST = settings(
    max_examples=250,
    deadline=None,
    derandomize=True,
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
SLOW = settings(FAST, max_examples=10_000)

BAD_NUMBERS = [0, 0.0, -0.0, -1, -1e-300, float("nan"), float("inf"), -float("inf"), True, False]
# Tolerances for open findings, each pinned by a strict xfail in tests/fuzz/test_known_bugs.py
# (none is open now: create it for the next one) so that the fuzzers keep hunting meanwhile;
# delete an entry with its fix: the XPASS then fails the suite and the pin moves beside its
# module's tests as a regression test (tests/<package>/test_<module>_regressions.py).
# Hypothesis statistics (--hypothesis-show-statistics) count the hits.
# Messages of documented errors that do not name the parameter yet:
KNOWN_UNCLEAR: tuple[str, ...] = ()
# Exceptions that are bugs (wrong type, or a spend recorded before the failure):
KNOWN_BUGS: tuple[tuple[type[BaseException], str], ...] = ()
# Warnings other than PrivacyLeakWarning that a docstring documents (category, message part).
DOCUMENTED_WARNINGS = ((UserWarning, "self-loop(s) (lines with u == v)"),)


def _known_bug(exc: BaseException) -> str | None:
    """The KNOWN_BUGS entry ``exc`` matches, as text for the statistics, or None."""
    for kind, text in KNOWN_BUGS:
        if isinstance(exc, kind) and text in str(exc):
            return f"{kind.__name__}: {text}"
    return None


WEIRD_OBJECTS = [None, "1", b"1", [1.0], (), {}, object(), 1 + 2j, np.float64("nan")]

# Privacy parameters and δ as a fuzzer draws them: valid, out of range, not numbers at all.
params = st.one_of(
    st.floats(min_value=1e-6, max_value=1e6),
    st.floats(allow_nan=True, allow_infinity=True),
    st.integers(-3, 10**30),
    st.sampled_from(BAD_NUMBERS + WEIRD_OBJECTS + [10**400, -(10**400)]),
)
deltas = st.one_of(
    st.floats(min_value=1e-12, max_value=0.5),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([0, 0.0, 1, 1.0, -1e-9, True, None, "0.1"]),
)


def twin(strategy_given: Callable[[Callable[..., None]], Callable[..., None]]):
    """Decorate a test body into (fast, slow) hypothesis tests with the same strategies."""

    def wrap(body: Callable[..., None]):
        fast = FAST(strategy_given(body))
        slow = pytest.mark.slow(SLOW(strategy_given(body)))
        return fast, slow

    return wrap


def finite_values(value: Any) -> None:
    """Assert a released value holds no NaN or infinity."""
    if isinstance(value, np.ma.MaskedArray):
        value = value.compressed()
    arr = np.asarray(value)
    if arr.dtype.kind in "fc":
        assert np.all(np.isfinite(arr)), f"non-finite value released: {value!r}"


def _check_refusal(
    exc: BaseException, names: tuple[str, ...], budget: Budget | None, before: object
) -> None:
    message = str(exc)
    assert len(message) > 10, f"{type(exc).__name__} without a clear message: {message!r}"
    known = [k for k in KNOWN_UNCLEAR if k in message]
    if known:
        event(f"known unclear message: {known[0]}")
    if names and not known and not isinstance(exc, BudgetExceededError):
        assert any(n in message for n in names), f"message names none of {names}: {message}"
    if budget is not None:
        assert budget.history == before, f"spend recorded for a refused call: {exc!r}"


def run(
    call: Callable[[], Any],
    *,
    budget: Budget | None = None,
    names: Iterable[str] = (),
) -> Any:
    """Run ``call``; return its result, or ``None`` when it raised a documented error.

    A documented error must carry a message naming one of ``names`` (when given) and leave
    ``budget.history`` unchanged. Only :class:`PrivacyLeakWarning` may be warned.
    """
    before = budget.history if budget is not None else None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("error")
        warnings.simplefilter("always", PrivacyLeakWarning)
        for category, text in DOCUMENTED_WARNINGS:
            warnings.filterwarnings("always", f".*{re.escape(text)}", category)
        try:
            result = call()
        except ALLOWED as exc:
            _check_refusal(exc, tuple(names), budget, before)
            event(f"refused: {type(exc).__name__}")
            result = None
        except (ArithmeticError, RuntimeWarning, MemoryError) as exc:
            bug = _known_bug(exc)
            if bug is None:
                raise
            event(f"known bug: {bug}")
            result = None
        else:
            event("accepted")
    bad = [
        w
        for w in caught
        if not issubclass(w.category, PrivacyLeakWarning)
        and not any(text in str(w.message) for _, text in DOCUMENTED_WARNINGS)
    ]
    assert not bad, f"undocumented warning: {bad[0].category.__name__}: {bad[0].message}"
    return result
