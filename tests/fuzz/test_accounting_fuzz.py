"""Fuzz the budget and the ledger: a spend is recorded whole or not at all, the remainder stays
finite and non-negative, and a reopened ledger holds the same history."""

from __future__ import annotations

import numpy as np
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz._harness import deltas, params, run, twin

from dpatlas import Budget


@twin(
    given(total=params, total_delta=deltas, spends=st.lists(st.tuples(params, deltas), max_size=6))
)
def _budget_body(total, total_delta, spends):
    budget = run(lambda: Budget(total, total_delta), names=("epsilon", "delta"))
    if budget is None:
        return
    for eps, delta in spends:
        before = len(budget.history)
        spent_before = budget.spent
        spend = run(
            lambda e=eps, d=delta: budget.spend(e, d, mechanism="fuzz"),
            budget=budget,
            names=("epsilon", "delta"),
        )
        if spend is not None:
            assert len(budget.history) == before + 1
        else:
            assert budget.spent == spent_before
        rem = budget.remaining
        assert np.isfinite(rem.epsilon), rem
        assert rem.epsilon >= -1e-9, rem
        assert np.isfinite(rem.delta), rem
        assert rem.delta >= -1e-12, rem


test_budget_spend, test_budget_spend_slow = _budget_body


@twin(
    given(
        epsilon=st.one_of(st.none(), params),
        delta=deltas,
        dataset=st.one_of(st.text(max_size=20), st.sampled_from([None, 3, b"x", ""])),
        spends=st.lists(st.tuples(params, deltas), max_size=4),
    )
)
def _ledger_body(tmp_path_factory, epsilon, delta, dataset, spends):
    path = tmp_path_factory.mktemp("ledger") / "ledger.sqlite"
    budget = run(
        lambda: Budget.open(path, dataset=dataset, epsilon=epsilon, delta=delta),
        names=("epsilon", "delta", "dataset", "path", "ledger"),
    )
    if budget is None:
        return
    for eps, d in spends:
        run(
            lambda e=eps, dd=d: budget.spend(e, dd, mechanism="fuzz"),
            budget=budget,
            names=("epsilon", "delta"),
        )
    reopened = Budget.open(path, dataset=dataset)
    assert reopened.history == budget.history


test_budget_open_ledger, test_budget_open_ledger_slow = _ledger_body
