"""The privacy errors' messages: the fix they suggest is one that works."""

from __future__ import annotations

from pathlib import Path

import pytest

import dpatlas as dpa
from dpatlas.errors import BudgetExceededError

DATASETS = Path(__file__).resolve().parents[1] / "datasets"


@pytest.mark.parametrize(
    ("amounts", "advice"),
    [
        ((0.5, 0.0, 0.25, 0.0), "release with a smaller epsilon or open"),
        ((0.5, 1e-6, 1.0, 0.0), "release with a smaller delta (delta=0 for a pure-ε release) or"),
        ((0.5, 1e-6, 0.25, 0.0), "release with a smaller epsilon and delta or open"),
    ],
)
def test_an_overspend_advises_the_amount_that_is_short(amounts, advice):
    """Short of δ only (an (ε, δ) release on a pure budget), it said "release with a smaller
    epsilon", which can never fit."""
    assert advice in str(BudgetExceededError(*amounts))


def test_a_zcdp_budget_says_how_to_release_what_it_cannot_account():
    """It said "pass rho=" to users of triangle_count(method="smooth", delta=...), which
    takes no rho."""
    graph = dpa.graph.read_edgelist(DATASETS / "les-miserables.txt", n=77)
    budget = dpa.Budget(1.0, 1e-6, accounting="zcdp")
    with pytest.raises(ValueError, match=r"has no zCDP cost, and a zCDP budget needs one: rel"):
        dpa.graph.triangle_count(graph, epsilon=0.5, method="smooth", delta=1e-7, budget=budget)
    assert budget.history == ()
