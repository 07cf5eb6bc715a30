"""The record of one debit and the exact decimals that amounts are kept in.

Both the in-memory :class:`~dpatlas.core.accounting.budget.Budget` and the SQLite ledger
(:mod:`dpatlas.core.accounting.ledger`) store spends as :class:`Spend` rows of exact decimals.
"""

from __future__ import annotations

from dataclasses import dataclass
from decimal import Decimal

__all__ = ["Spend", "dec"]


def dec(x: float) -> Decimal:
    """The decimal a user typed for ``x`` (``Decimal(repr(x))``), exact for sums."""
    return Decimal(repr(float(x)))


@dataclass(frozen=True)
class Spend:
    """One debit: what a release cost, and what it was.

    ``id`` numbers the spends of a budget (1, 2, ... in memory; the row id in a ledger), and
    ``products`` lists the files the release was written to
    (:meth:`~dpatlas.core.accounting.budget.Budget.record_products`).
    """

    epsilon: Decimal
    delta: Decimal
    rho: Decimal | None
    mechanism: str
    note: str
    time: str
    id: int | None = None
    products: tuple[str, ...] = ()
