"""Budgets, ledgers and seeds: an overspend is refused, a seeded run is flagged."""

from __future__ import annotations

import copy
from pathlib import Path
from typing import Any

from tests.fuzz.bad_inputs.row import CRS, GRID, K4, XY, Row

import dpatlas as dp
from dpatlas import graph as gr
from dpatlas import spatial as sp
from dpatlas.errors import BudgetExceededError, LedgerError


def _spent_then_overspend(_: Path) -> Any:
    budget = dp.Budget(1.0)
    dp.laplace(1.0, sensitivity=1, epsilon=0.75, budget=budget, rng=0)
    try:
        return dp.laplace(1.0, sensitivity=1, epsilon=0.5, budget=budget, rng=0)
    finally:
        assert len(budget.history) == 1, "the refused release was recorded"


def _deleted_ledger(tmp: Path) -> Any:
    path = tmp / "ledger.sqlite"
    budget = dp.Budget.open(path, dataset="d", epsilon=1.0)
    path.unlink()
    return dp.laplace(1.0, sensitivity=1, epsilon=0.5, budget=budget, rng=0)


def _reopened_as_zcdp(tmp: Path) -> Any:
    dp.Budget.open(tmp / "reopened.sqlite", dataset="d", epsilon=1.0)
    return dp.Budget.open(tmp / "reopened.sqlite", dataset="d", delta=1e-6, accounting="zcdp")


def _products_of_another_budget(tmp: Path) -> Any:
    mine, theirs = dp.Budget(1.0), dp.Budget(1.0)
    dp.laplace(1.0, sensitivity=1, epsilon=0.5, budget=mine, rng=0)
    dp.laplace(1.0, sensitivity=1, epsilon=0.25, budget=theirs, rng=0)
    return theirs.record_products(mine.made_here[0], tmp / "map.gpkg")


BUDGET: tuple[Row, ...] = (
    Row(
        "an (ε, δ) release on a pure budget",
        "gaussian (with budget=)",
        lambda _: dp.gaussian(
            1.0, sensitivity=1, epsilon=0.5, delta=1e-6, budget=dp.Budget(1.0), rng=0
        ),
        BudgetExceededError,
        "release with a smaller delta (delta=0 for a pure-ε release)",
    ),
    Row(
        "an (ε, δ) release without ρ on a zCDP budget",
        "graph.triangle_count (method='smooth', delta=)",
        lambda _: gr.triangle_count(
            K4,
            n=4,
            epsilon=0.5,
            method="smooth",
            delta=1e-7,
            budget=dp.Budget(1.0, 1e-6, accounting="zcdp"),
        ),
        ValueError,
        "has no zCDP cost, and a zCDP budget needs one",
    ),
    Row(
        "a ledger reopened with another accounting",
        "Budget.open (epsilon=None)",
        _reopened_as_zcdp,
        ValueError,
        "with delta=0.0, accounting='basic'; got delta=1e-06, accounting='zcdp'",
    ),
    Row(
        "the products of another budget's spend",
        "Budget.record_products",
        _products_of_another_budget,
        ValueError,
        "spend 1 (laplace, epsilon=0.5) is not a spend of this budget",
    ),
    Row(
        "a copy of an in-memory budget",
        "copy.deepcopy(Budget)",
        lambda _: copy.deepcopy(dp.Budget(1.0)),
        TypeError,
        "an in-memory Budget cannot be copied or pickled",
    ),
    Row(
        "budget overspend",
        "laplace (with budget=)",
        _spent_then_overspend,
        BudgetExceededError,
        "privacy budget exceeded: requested epsilon=0.5",
    ),
    Row(
        "ledger path is a directory",
        "Budget.open",
        lambda tmp: dp.Budget.open(tmp, dataset="d", epsilon=1),
        LedgerError,
        "ledger path <tmp> is a directory",
    ),
    Row(
        "unknown dataset in a ledger",
        "Budget.open",
        lambda tmp: dp.Budget.open(tmp / "l.sqlite", dataset="d"),
        ValueError,
        "dataset 'd' is not in ledger <tmp>/l.sqlite; pass epsilon= to register it",
    ),
    Row(
        "dataset name differing from a registered one only in case or spaces",
        "Budget.open",
        lambda tmp: (
            dp.Budget.open(tmp / "l.sqlite", dataset="nests", epsilon=1),
            dp.Budget.open(tmp / "l.sqlite", dataset="Nests ", epsilon=1),
        ),
        ValueError,
        "dataset 'Nests ' is not in ledger <tmp>/l.sqlite, but 'nests' is (the names differ "
        "only in case or spaces); open 'nests' to debit that data, or name other data so that "
        "it differs by more",
    ),
    Row(
        "ledger deleted while open",
        "Budget.open, then a release",
        _deleted_ledger,
        LedgerError,
        "is gone (deleted or moved while open); nothing was spent",
    ),
    Row(
        "seeded run (rng=int)",
        "laplace",
        lambda _: f"flagged: seeded={dp.laplace(1.0, sensitivity=1, epsilon=1, rng=0).seeded}",
        "flagged: seeded=True",
        "",
    ),
    Row(
        "seeded run (rng=int)",
        "spatial.heatmap",
        lambda _: (
            f"flagged: seeded={sp.heatmap(XY, GRID, epsilon=1, crs=CRS, rng=1).release.seeded}"
        ),
        "flagged: seeded=True",
        "",
    ),
)
