"""Privacy budget accounting: check, then spend, atomically; refuse an overspend.

A :class:`Budget` holds a total ``(epsilon, delta)`` and a history of spends. Amounts are kept
as exact decimals (``Decimal(repr(x))``), so 100 spends of ``0.01`` add up to exactly ``1.0``
and the last one is not refused by float drift.

Two ways to add spends up:

``accounting="basic"`` (default)
    Sequential composition: ``(Σ ε_i, Σ δ_i) <= (ε, δ)`` (Dwork & Roth 2014, Thm. 3.16).
``accounting="zcdp"``
    Zero-concentrated DP (Bun & Steinke 2016): each spend is charged its ``rho`` (a pure
    ε-DP release costs ``ε²/2``, Prop. 1.4; a Gaussian release ``Δ²/2σ²``), zCDP composes by
    adding ``rho``, and the total ``(ε, δ)`` is met when ``Σρ <= ρ*`` where ``ρ*`` is the
    largest ``ρ`` with ``ρ + 2·sqrt(ρ·ln(1/δ)) <= ε`` (Prop. 1.3). Needs ``delta > 0``.

Parallel composition (one release over disjoint parts costs its ε once) is the job of the
release function, which then spends once. Releases pay through
:func:`~dpatlas.core.accounting.charge.open_charge` (check before the data is read, one debit
before the noise); :meth:`Budget.spend` takes the same
:class:`~dpatlas.core.accounting.cost.Cost`, or the plain numbers ``epsilon, delta[, rho]`` (a
pure spend is charged ``ρ = ε²/2``). :meth:`Budget.open` gives the same interface over a
persistent SQLite ledger shared by processes (:mod:`dpatlas.core.accounting.ledger`).
"""

from __future__ import annotations

import math
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from datetime import datetime, timezone
from decimal import MAX_PREC, Context, Decimal, Inexact, localcontext
from pathlib import Path
from typing import Any, NamedTuple

from dpatlas.core.accounting.composition import pure_to_zcdp
from dpatlas.core.accounting.cost import Cost
from dpatlas.core.accounting.records import Spend, dec
from dpatlas.core.validation import check_delta, check_epsilon
from dpatlas.errors import BudgetExceededError

__all__ = ["Budget", "BudgetAmount"]


class BudgetAmount(NamedTuple):
    """An amount of privacy budget (what remains, or what was spent)."""

    epsilon: float
    delta: float


def rho_for_total(epsilon: float, delta: float) -> float:
    """Largest ρ whose zCDP guarantee implies (ε, δ)-DP: ``(sqrt(L + ε) − sqrt(L))²``, L = ln(1/δ).

    Rounded down, so that a zCDP budget of ``(epsilon, delta)`` admits a spend of exactly this
    ρ (it is the bound :class:`Budget` checks, in decimals).

    Examples
    --------
    >>> round(rho_for_total(1.0, 1e-6), 6)
    0.017469
    >>> Budget(1.0, 1e-6, accounting="zcdp").check(1.0, 1e-6, rho=rho_for_total(1.0, 1e-6))
    """
    bound = _rho_bound(epsilon, delta)
    rho = float(bound)
    while dec(rho) > bound:
        rho = math.nextafter(rho, 0.0)
    return rho


def _rho_bound(epsilon: float, delta: float) -> Decimal:
    """``(sqrt(L + ε) − sqrt(L))²`` with ``L = ln(1/δ)``, in 50-digit decimals, rounded down.

    Safe whether the totals are read as typed (``repr``) or as binary: the bound grows with ε
    and falls with ``L``, so it takes the smaller ε and the smaller δ of the two readings. ``L``
    (``Decimal.ln``, correctly rounded) and the root ``ε / (sqrt(L + ε) + sqrt(L))`` (no
    cancellation) are within ``1e-48`` relative; the square is lowered by a relative ``1e-40``.
    """
    with localcontext() as ctx:
        ctx.prec = 50
        log_term = -min(dec(delta), Decimal(delta)).ln()
        eps = min(dec(epsilon), Decimal(epsilon))
        root = eps / ((log_term + eps).sqrt() + log_term.sqrt())
        return root * root * (1 - Decimal("1e-40"))


def _exact_sum(values: Iterable[Decimal]) -> Decimal:
    """The exact sum of decimals (the default context keeps 28 digits: 1 + 1e-30 would be 1)."""
    with localcontext(Context(prec=MAX_PREC, traps=[Inexact])):
        return sum(values, Decimal(0))


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="microseconds")


class _MemoryStore:
    name = "this budget"

    def __init__(self) -> None:
        self._rows: list[Spend] = []
        self._lock = threading.Lock()

    def __reduce__(self) -> Any:
        # a copy (deepcopy, pickle, a worker process) would be a second budget for the same data
        raise TypeError(
            "an in-memory Budget cannot be copied or pickled: the copy could spend the same "
            "privacy budget again. Pass the Budget itself, or share a ledger between processes "
            "with Budget.open(path, dataset=...)"
        )

    def rows(self) -> list[Spend]:
        with self._lock:
            return list(self._rows)

    def append_if(self, spend: Spend, admit: Callable[[Sequence[Spend]], None]) -> int:
        with self._lock:
            admit([*self._rows, spend])
            self._rows.append(replace(spend, id=len(self._rows) + 1))
            return len(self._rows)

    def add_products(self, spend_id: int, paths: Sequence[str], time: str) -> None:
        with self._lock:
            if not 1 <= spend_id <= len(self._rows):
                raise ValueError(f"spend {spend_id} is not a spend of this budget")
            row = self._rows[spend_id - 1]
            self._rows[spend_id - 1] = replace(row, products=(*row.products, *paths))


def as_cost(epsilon: float | Cost, delta: float = 0.0, rho: float | None = None) -> Cost:
    """A :class:`Cost` as given, or built from ``epsilon, delta[, rho]`` (checked as a spend)."""
    if isinstance(epsilon, Cost):
        if delta != 0.0 or rho is not None:
            raise TypeError("pass a Cost alone, or epsilon, delta and rho as numbers, not both")
        return epsilon
    return Cost(check_epsilon(epsilon), check_delta(delta), rho)  # ρ = 0 is refused by a spend


class Budget:
    """A privacy budget that refuses, before any noise is drawn, a spend it cannot afford.

    Parameters
    ----------
    epsilon : float
        Total ε, > 0.
    delta : float, default 0.0
        Total δ, in [0, 1).
    accounting : {"basic", "zcdp"}
        How spends add up (see the module docstring).

    Examples
    --------
    >>> from dpatlas.core import discrete_laplace
    >>> b = Budget(1.0)
    >>> _ = discrete_laplace(3, sensitivity=1, epsilon=0.4, budget=b)
    >>> b.remaining
    BudgetAmount(epsilon=0.6, delta=0.0)
    >>> discrete_laplace(3, sensitivity=1, epsilon=0.7, budget=b)
    Traceback (most recent call last):
    ...
    dpatlas.errors.BudgetExceededError: privacy budget exceeded: requested epsilon=0.7, ...
    >>> len(b.history)
    1
    """

    def __init__(self, epsilon: float, delta: float = 0.0, *, accounting: str = "basic") -> None:
        self._setup(epsilon, delta, accounting, _MemoryStore())

    def _setup(self, epsilon: float, delta: float, accounting: str, store: object) -> None:
        self.total = BudgetAmount(check_epsilon(epsilon), check_delta(delta))
        if accounting not in ("basic", "zcdp"):
            raise ValueError(f"accounting must be 'basic' or 'zcdp', got {accounting!r}")
        if accounting == "zcdp" and self.total.delta == 0:
            raise ValueError(
                "accounting='zcdp' needs delta > 0 (e.g. 1e-6): zCDP implies (ε, δ)-DP only for δ > 0"
            )
        self.accounting = accounting
        self._store = store
        self._made: list[Spend] = []

    @classmethod
    def open(
        cls,
        path: str | Path,
        *,
        dataset: str,
        epsilon: float | None = None,
        delta: float | None = None,
        accounting: str | None = None,
    ) -> Budget:
        """Open (or create) the persistent budget of ``dataset`` in the SQLite ledger at ``path``.

        The total is fixed when the dataset is first registered; reopening with another total
        is refused (pass ``epsilon=None`` to use the registered one; a ``delta`` or
        ``accounting`` given beside it must match the registered ones, and left out they are
        the registered ones). A new dataset is registered with ``delta`` 0 and ``"basic"``
        accounting unless they are given; a new name that differs from a registered one only in
        case or spaces ("Nests " beside "nests") is refused, since a typo would register a
        second total for the same data. Every spend is checked and recorded in one
        ``BEGIN IMMEDIATE`` transaction, so processes spending at once never overspend
        together, and a process killed mid-spend leaves the ledger consistent. A relative
        ``path`` is made absolute here: a notebook that changes directory later keeps debiting
        the ledger it opened.

        Examples
        --------
        >>> import tempfile, os
        >>> path = os.path.join(tempfile.mkdtemp(), "ledger.sqlite")
        >>> b = Budget.open(path, dataset="nests-2026", epsilon=1.0)
        >>> from dpatlas.core import discrete_laplace
        >>> _ = discrete_laplace([3, 1], sensitivity=1, epsilon=0.25, budget=b)
        >>> Budget.open(path, dataset="nests-2026").remaining
        BudgetAmount(epsilon=0.75, delta=0.0)
        """
        from dpatlas.core.accounting.ledger import SQLiteStore

        if epsilon is not None:  # validate before anything is written
            cls(epsilon, delta or 0.0, accounting=accounting or "basic")
        store, total = SQLiteStore.register(Path(path), dataset, epsilon, delta, accounting)
        budget = cls.__new__(cls)
        budget._setup(float(total[0]), float(total[1]), total[2], store)
        return budget

    @property
    def history(self) -> tuple[Spend, ...]:
        """Every spend so far, oldest first."""
        return tuple(self._store.rows())  # type: ignore[attr-defined]

    @staticmethod
    def _rho(rows: Sequence[Spend]) -> Decimal:
        # rows without rho are pure spends of older ledgers: Cost gives their ε²/2
        return _exact_sum(
            r.rho if r.rho is not None else dec(pure_to_zcdp(float(r.epsilon))) for r in rows
        )

    def _used(self, rows: Sequence[Spend]) -> tuple[Decimal, Decimal]:
        if self.accounting == "zcdp":
            rho = self._rho(rows)
            eps = rho + 2 * (rho * dec(-math.log(self.total.delta))).sqrt()
            return eps, dec(self.total.delta) if rows else Decimal(0)
        return _exact_sum(r.epsilon for r in rows), _exact_sum(r.delta for r in rows)

    @property
    def spent(self) -> BudgetAmount:
        """What has been spent (in zCDP accounting: the ε that the ρ spent so far implies)."""
        eps, delta = self._used(self._store.rows())  # type: ignore[attr-defined]
        return BudgetAmount(float(eps), float(delta))

    @property
    def remaining(self) -> BudgetAmount:
        """What is left to spend."""
        eps, delta = self._used(self._store.rows())  # type: ignore[attr-defined]
        return BudgetAmount(
            float(max(dec(self.total.epsilon) - eps, Decimal(0))),
            float(max(dec(self.total.delta) - delta, Decimal(0))),
        )

    def _make(self, cost: Cost, mechanism: str, note: str) -> Spend:
        eps, d = check_epsilon(cost.epsilon), cost.delta
        if self.accounting == "zcdp" and cost.rho is None:
            raise ValueError(
                f"an (ε, δ) spend with delta={d} has no zCDP cost, and a zCDP budget needs "
                "one: release with delta=0 (pure ε, charged ε²/2) or with the Gaussian "
                "mechanism (it gives its ρ), pass rho= to Budget.spend, or use a Budget with "
                "accounting='basic'"
            )
        if cost.rho == 0:
            raise ValueError(
                f"rho must be > 0, got 0.0: the zCDP cost of epsilon={eps!r} underflows to 0 "
                "(pass a Cost, whose ε²/2 rounds up, or use a larger epsilon)"
            )
        r = None if cost.rho is None else dec(check_epsilon(cost.rho, "rho", maximum=math.inf))
        return Spend(dec(eps), dec(d), r, str(mechanism), str(note), _now())

    def _admit(self, rows: Sequence[Spend]) -> None:
        eps, delta = self._used(rows)
        if self.accounting == "zcdp":
            # Σρ <= ρ* is the same test as ε(Σρ) <= ε, without the rounding of the square root
            over = self._rho(rows) > _rho_bound(self.total.epsilon, self.total.delta)
        else:
            over = eps > dec(self.total.epsilon) or delta > dec(self.total.delta)
        if over:
            before_eps, before_delta = self._used(rows[:-1])
            new = rows[-1]
            raise BudgetExceededError(
                float(new.epsilon if self.accounting == "basic" else eps - before_eps),
                float(new.delta if self.accounting == "basic" else delta - before_delta),
                float(max(dec(self.total.epsilon) - before_eps, Decimal(0))),
                float(max(dec(self.total.delta) - before_delta, Decimal(0))),
                None
                if self.accounting == "basic" or new.rho is None
                else (float(new.epsilon), float(new.rho)),
            )

    def check(self, epsilon: float | Cost, delta: float = 0.0, *, rho: float | None = None) -> None:
        """Raise :class:`~dpatlas.errors.BudgetExceededError` if a spend would not fit; spend nothing.

        Takes a :class:`~dpatlas.core.accounting.cost.Cost`, or ``epsilon, delta[, rho]``.
        """
        spend = self._make(as_cost(epsilon, delta, rho), "check", "")
        self._admit([*self._store.rows(), spend])  # type: ignore[attr-defined]

    def spend(
        self,
        epsilon: float | Cost,
        delta: float = 0.0,
        *,
        mechanism: str,
        note: str = "",
        rho: float | None = None,
    ) -> Spend:
        """Check and record a spend atomically; raise and record nothing if it does not fit.

        ``epsilon`` is a :class:`~dpatlas.core.accounting.cost.Cost`, or a number with
        ``delta`` and, for (ε, δ) spends on a zCDP budget, ``rho``; a pure spend
        (``delta = 0``) is charged ``ρ = ε²/2``. Releases spend through
        :func:`~dpatlas.core.accounting.charge.open_charge` instead of calling this.
        Returns the recorded spend (with its ``id``); it is also appended to :attr:`made_here`.
        """
        spend = self._make(as_cost(epsilon, delta, rho), mechanism, note)
        spend_id = self._store.append_if(spend, self._admit)  # type: ignore[attr-defined]
        spend = replace(spend, id=spend_id)
        self._made.append(spend)
        return spend

    @property
    def made_here(self) -> tuple[Spend, ...]:
        """The spends made through this object, oldest first (other processes' are not here).

        A caller that released through a function taking ``budget=`` finds its own spend here,
        even while other processes spend against the same ledger.
        """
        return tuple(self._made)

    @property
    def spent_here(self) -> BudgetAmount:
        """What the spends in :attr:`made_here` cost together, summed as :attr:`spent` sums the
        ledger's (exact decimals; in zCDP accounting, the ε that their ρ implies).

        Examples
        --------
        >>> from dpatlas.core import discrete_laplace
        >>> b = Budget(1.0)
        >>> for eps in (0.1, 0.2):
        ...     _ = discrete_laplace(3, sensitivity=1, epsilon=eps, budget=b)
        >>> b.spent_here
        BudgetAmount(epsilon=0.3, delta=0.0)
        """
        eps, delta = self._used(self._made)
        return BudgetAmount(float(eps), float(delta))

    def record_products(self, spend: Spend, paths: str | Path | Sequence[str | Path]) -> None:
        """Record the files a release was written to, beside its spend (no privacy cost).

        ``paths`` is one path or a sequence of them.

        Examples
        --------
        >>> from dpatlas.core import discrete_laplace
        >>> b = Budget(1.0)
        >>> _ = discrete_laplace([3, 1], sensitivity=1, epsilon=0.5, budget=b)
        >>> spend = b.made_here[-1]
        >>> b.record_products(spend, ["map.gpkg", "map.html"])
        >>> [Path(p).name for p in b.history[0].products]
        ['map.gpkg', 'map.html']
        """
        if spend.id is None:
            raise ValueError(
                "spend has no id: record products of a spend returned by Budget.spend or "
                "listed in Budget.made_here"
            )
        # ids number the spends of one budget (one ledger file): the spend must be that one
        stored = next((row for row in self.history if row.id == spend.id), None)
        if stored is None or replace(stored, products=()) != replace(spend, products=()):
            raise ValueError(
                f"spend {spend.id} ({spend.mechanism}, epsilon={spend.epsilon}) is not a spend "
                f"of {self._store.name}; record the products with the budget that made it"  # type: ignore[attr-defined]
            )
        if isinstance(paths, (str, Path)):  # one file, not its characters
            paths = [paths]
        files = [str(Path(p).resolve()) for p in paths]
        self._store.add_products(spend.id, files, _now())  # type: ignore[attr-defined]

    def __repr__(self) -> str:
        """The totals, what remains and, for a ledger, which dataset of which file.

        Examples
        --------
        >>> Budget(1.0)
        Budget(epsilon=1.0, delta=0.0, accounting='basic', remaining_epsilon=1.0, remaining_delta=0.0, spends=0)
        """
        rem = self.remaining
        store = self._store
        where = "" if isinstance(store, _MemoryStore) else f"{store.name}: "  # type: ignore[attr-defined]
        return (
            f"Budget({where}epsilon={self.total.epsilon}, delta={self.total.delta}, "
            f"accounting={self.accounting!r}, remaining_epsilon={rem.epsilon}, "
            f"remaining_delta={rem.delta}, spends={len(self.history)})"
        )
