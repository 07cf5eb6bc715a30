"""Budgets, ledgers and seeds: an overspend is refused, a seeded run is flagged."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fuzz.bad_inputs.row import CRS, GRID, XY, Row

import dpatlas as dp
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


BUDGET: tuple[Row, ...] = (
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
