"""The one step that pays for a release: check before the data, debit once before the noise.

:func:`open_charge` is the only caller of :meth:`Budget.spend
<dpatlas.core.accounting.budget.Budget.spend>` in dpatlas; the protocol it enforces is
described in :mod:`dpatlas.core.accounting.cost`.

Examples
--------
>>> from dpatlas.core.accounting.budget import Budget
>>> from dpatlas.core.accounting.charge import open_charge
>>> from dpatlas.core.accounting.cost import Cost
>>> budget = Budget(1.0)
>>> charge = open_charge(Cost.pure(0.75), budget, mechanism="count")  # checked, not spent
>>> budget.spent.epsilon
0.0
>>> _ = charge.debit()  # the recorded Spend
>>> budget.spent.epsilon
0.75
>>> open_charge(Cost.pure(0.5), budget, mechanism="count")
Traceback (most recent call last):
...
dpatlas.errors.BudgetExceededError: privacy budget exceeded: requested epsilon=0.5, ...
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, Any, TypeVar

from dpatlas.core.accounting.cost import Cost
from dpatlas.core.noise._sampling.dlap import rational_scale

if TYPE_CHECKING:
    from dpatlas.core.accounting.budget import Budget
    from dpatlas.core.accounting.records import Spend
    from dpatlas.core.release import Release

__all__ = ["Charge", "open_charge"]

R = TypeVar("R", bound="Release")


class Charge:
    """A checked cost, waiting to be debited once (see the module docstring).

    Made by :func:`open_charge`. ``debit()`` spends ``cost`` from the budget (if any), once;
    ``release(Kind, **fields)`` builds the release with the debited ``epsilon``, ``delta``
    and ``rho``. An opened charge that is never debited spent nothing (a refusal after the
    check, or a pre-check such as the CLI's before it reads a file).
    """

    __slots__ = ("_budget", "_debited", "cost", "mechanism", "note")

    def __init__(self, cost: Cost, budget: Budget | None, mechanism: str, note: str) -> None:
        self.cost, self._budget = cost, budget
        self.mechanism, self.note = mechanism, note
        self._debited = False

    @property
    def debited(self) -> bool:
        """True once :meth:`debit` has run."""
        return self._debited

    def debit(self, scales: Iterable[Fraction | float | int] = ()) -> Spend | None:
        """Spend the cost once, before any noise; return the recorded spend (None without budget).

        ``scales`` are noise scales that became known from the *public* part of the input
        (e.g. a global sensitivity from the number of nodes of a networkx graph): one the
        exact samplers cannot draw is refused here, before anything is spent.
        """
        if self._debited:
            raise RuntimeError(f"{self.mechanism}: the charge was already debited; debit once")
        for scale in scales:
            rational_scale(Fraction(scale))
        spend = None
        if self._budget is not None:
            spend = self._budget.spend(self.cost, mechanism=self.mechanism, note=self.note)
        self._debited = True
        return spend

    def release(self, kind: type[R], /, **fields: Any) -> R:
        """``kind(**fields)`` with ``epsilon``, ``delta``, ``rho`` of the debited cost.

        ``mechanism`` defaults to the charge's. Refused (RuntimeError) before the debit.
        """
        if not self._debited:
            raise RuntimeError(f"{self.mechanism}: a release is built only after its debit")
        for name in ("epsilon", "delta", "rho"):
            if name in fields:
                raise TypeError(f"{name} comes from the charge's cost; do not pass it")
        fields.setdefault("mechanism", self.mechanism)
        return kind(epsilon=self.cost.epsilon, delta=self.cost.delta, rho=self.cost.rho, **fields)

    def __repr__(self) -> str:
        state = "debited" if self._debited else "open"
        return f"Charge({self.cost!r}, mechanism={self.mechanism!r}, {state})"


def open_charge(
    cost: Cost,
    budget: Budget | None,
    *,
    mechanism: str,
    note: str = "",
    scales: Iterable[Fraction | float | int] = (),
) -> Charge:
    """Check, before the data is read, that a release can be drawn and paid; spend nothing.

    Parameters
    ----------
    cost : Cost
        What the release costs (its privacy map on its public parameters).
    budget : Budget or None
        Checked: an overspend raises :class:`~dpatlas.errors.BudgetExceededError`.
    mechanism, note : str
        The labels of the debit in the budget's history.
    scales : iterable of Fraction
        The exact public noise scales (``sensitivity / epsilon`` per noise family, in the
        units the sampler draws) the release will draw: one that the exact samplers cannot
        represent (above about ``2**50``) is refused now, instead of after the debit.

    Returns
    -------
    Charge
        Debit it with ``.debit()`` once the data is read, before any noise.
    """
    if not isinstance(cost, Cost):
        raise TypeError(f"cost must be a Cost, got {cost!r}")
    for scale in scales:
        rational_scale(Fraction(scale))
    if budget is not None:
        budget.check(cost)
    return Charge(cost, budget, str(mechanism), str(note))
