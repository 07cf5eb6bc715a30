"""Cost (ε, δ, ρ): validation, rounding up, composition; open_charge: check, refuse, debit once."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from decimal import Decimal
from fractions import Fraction

import pytest

from dpatlas.core import Budget, Release
from dpatlas.core.accounting.charge import open_charge
from dpatlas.core.accounting.cost import Cost, split
from dpatlas.errors import BudgetExceededError


def typed(x: float) -> Fraction:
    """The decimal a user typed for ``x`` (what budgets add)."""
    return Fraction(Decimal(repr(x)))


@pytest.mark.parametrize("eps", [1e-300, 0.1, 1 / 3, 1.0, 7.3, 1e5])
def test_pure_rho_is_epsilon_squared_over_two_rounded_up(eps: float) -> None:
    rho = Cost.pure(eps).rho
    exact = typed(eps) ** 2 / 2
    assert rho is not None
    assert typed(rho) >= exact
    assert typed(math.nextafter(rho, 0.0)) < exact  # the smallest float above
    assert rho > 0  # never underflows to 0: a pure release always costs some ρ


def test_approx_has_no_rho_and_zcdp_keeps_its_own() -> None:
    assert Cost.approx(1.0, 1e-6).rho is None
    assert Cost.zcdp(1.0, 1e-6, 0.03).rho == 0.03
    assert Cost.approx(1.0, 0.0) == Cost.pure(1.0)


@pytest.mark.parametrize(
    ("build", "error", "match"),
    [
        (lambda: Cost.pure(-1.0), ValueError, r"epsilon must be a finite number > 0, got -1.0"),
        (lambda: Cost.pure(math.inf), ValueError, r"epsilon must be a finite number > 0, got inf"),
        (lambda: Cost.approx(1.0, 1.0), ValueError, r"delta must be"),
        (lambda: Cost(1.0, rho=-0.5), ValueError, r"rho must be a finite number >= 0, got -0.5"),
        (lambda: Cost("1"), TypeError, r"epsilon must be a real number, got '1'"),
        (lambda: Cost.pure(1.0) * 1.5, TypeError, r"multiplied by an integer k >= 0, got 1.5"),
    ],
)
def test_bad_costs_are_refused(build, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        build()


def test_composition_adds_typed_decimals_exactly_and_rounds_up_once() -> None:
    total = Cost.compose([Cost.pure(0.1)] * 10)
    assert total == 10 * Cost.pure(0.1)
    assert (total.epsilon, total.rho) == (1.0, 0.05)  # as a ledger adds them
    assert (Cost.pure(0.4) + Cost.pure(0.1)).epsilon == 0.5  # fl(0.4) + fl(0.1) > 0.5
    third = Cost.compose([Cost.pure(1 / 3)] * 3).epsilon  # 0.9999999999999999 typed, exactly
    assert typed(third) == 3 * typed(1 / 3)
    assert Cost.pure(0.1).rho == 0.005
    mixed = Cost.pure(0.5) + Cost.zcdp(1.0, 1e-6, 0.25)
    assert (mixed.epsilon, mixed.delta, mixed.rho) == (1.5, 1e-6, 0.375)
    assert (Cost.pure(0.5) + Cost.approx(1.0, 1e-6)).rho is None  # no zCDP bound for the whole


def test_delta_saturates_at_one() -> None:
    assert (2_000 * Cost.approx(1.0, 1e-3)).delta == 1.0
    with pytest.raises(BudgetExceededError):
        Budget(1e6, 0.5).check(2_000 * Cost.approx(1.0, 1e-3))


@pytest.mark.parametrize(
    ("eps", "shares"),
    [(1.0, [0.5, 0.5]), (0.3, [0.2, 0.3, 0.5]), (1 / 3, [1 / 3, 2 / 3]), (0.7, [0.9, 0.1])],
)
def test_split_parts_compose_to_exactly_the_whole(eps: float, shares: list[float]) -> None:
    parts = split(eps, shares)
    assert sum(typed(p) for p in parts) <= typed(eps)
    assert Cost.compose(Cost.pure(p) for p in parts).epsilon == eps


def test_open_charge_checks_then_debits_once_then_releases() -> None:
    budget = Budget(1.0)
    charge = open_charge(Cost.pure(0.75), budget, mechanism="count", note="n1")
    assert budget.history == ()
    with pytest.raises(RuntimeError, match="only after its debit"):
        charge.release(Release, value=1, sensitivity=1, scale=1.0, noise=None, seeded=True)
    charge.debit()
    [spend] = budget.history
    assert (float(spend.epsilon), spend.mechanism, spend.note) == (0.75, "count", "n1")
    with pytest.raises(RuntimeError, match="already debited"):
        charge.debit()
    rel = charge.release(Release, value=1, sensitivity=1, scale=1.0, noise=None, seeded=True)
    assert (rel.epsilon, rel.delta, rel.rho, rel.mechanism) == (0.75, 0.0, 0.28125, "count")
    with pytest.raises(TypeError, match="epsilon comes from the charge"):
        charge.release(
            Release, value=1, epsilon=2.0, sensitivity=1, scale=1.0, noise=None, seeded=True
        )


def test_open_charge_refuses_before_spending() -> None:
    budget = Budget(1.0)
    with pytest.raises(ValueError, match=r"too large \(> 2\*\*50\) to sample exactly"):
        open_charge(Cost.pure(0.5), budget, mechanism="m", scales=[Fraction(2**60)])
    with pytest.raises(BudgetExceededError, match=r"requested epsilon=2,"):
        open_charge(Cost.pure(2.0), budget, mechanism="m")
    assert budget.history == ()


def test_zcdp_budget_debits_the_cost_rho() -> None:
    budget = Budget(1.0, 1e-6, accounting="zcdp")
    open_charge(Cost.zcdp(0.5, 1e-7, 0.01), budget, mechanism="g").debit()
    open_charge(Cost.pure(0.1), budget, mechanism="l").debit()
    assert [float(s.rho) for s in budget.history] == [0.01, Cost.pure(0.1).rho]
    with pytest.raises(ValueError, match="has no zCDP cost"):
        open_charge(Cost.approx(0.1, 1e-8), budget, mechanism="s")


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: Cost(1e200), "rho = epsilon²/2"),
        (lambda: Cost.pure(1e6) * 10**300, "the k-fold rho"),
        (lambda: Cost.compose([Cost.zcdp(1.0, 1e-6, 1e308)] * 3), "the composed rho"),
        (lambda: Cost(1e300, 0.5, 1.0) * 10**10, "the k-fold epsilon"),
    ],
)
def test_costs_beyond_the_floats_name_what_overflowed(call: Callable, name: str) -> None:
    with pytest.raises(OverflowError, match=f"^{re.escape(name)} is above the largest float"):
        call()


def test_a_k_fold_delta_is_capped_at_one_before_it_can_overflow() -> None:
    assert (Cost(1e-300, 0.5, 1e-300) * 10**310).delta == 1.0
