"""Each heatmap method's registered check is pinned to its release: same options, same debit.

:func:`~dpatlas.spatial.methods.open_release` runs a method's check (:data:`CHECKS`) before the
sites are read; :func:`~dpatlas.spatial.heatmap` then checks the budget with the cost the check
returns, and the method debits its own. The two must agree exactly, for every registered
method (found in the registry, so a new method is covered), every option and every kind of
budget; and a too-small ε is refused with ``epsilon=`` and the smallest ε the check accepts.
"""

from __future__ import annotations

import inspect
import math
import re
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from tests.helpers.unreadable import Unreadable

import dpatlas.spatial as sp
from dpatlas.core import Budget
from dpatlas.core.accounting.charge import Charge, open_charge
from dpatlas.core.accounting.records import dec
from dpatlas.errors import BudgetExceededError
from dpatlas.spatial.heatmap import check_heatmap
from dpatlas.spatial.methods import CHECKS, METHODS, open_release, smallest_epsilon
from dpatlas.spatial.methods import privtree as privtree_module

CRS = "EPSG:3035"
GRID = sp.Grid.from_bounds((0, 0, 16, 16), cell_size=1, crs=CRS)  # 256 cells
_gen = np.random.default_rng(0)
SITES = (_gen.uniform(0, 16, 300), _gen.uniform(0, 16, 300))

METHOD_ARGS = {"epsilon", "source", "budget"}  # every method's; the rest are its options
CHECK_ARGS = {"epsilon", "sensitivity"}  # every check's; the rest are the method's options

NON_DEFAULT: dict[str, dict[str, list[Any]]] = {
    "uniform": {},
    "privtree": {
        "tree_fraction": [0.2, 0.8],
        "theta": [3.0, -2.5],
        "theta_levels": [0.0, 2.5],
    },
    "adaptive": {"n_sites": [300.0, 0], "n_fraction": [0.1], "alpha": [0.25, 0.75]},
    # target "regions" picks PrivTree (ε/3 for the tree); a public n_sites this dense at the
    # ε below picks the uniform grid again (auto's rule reads n_sites·ε/cells)
    "auto": {"target": ["regions"], "n_sites": [300.0, 10**7]},
}
"""Values other than the default for every option of every method (a new option must be
listed here, or :func:`test_every_option_of_every_method_has_non_default_values` fails)."""

EPSILONS = (0.03, 40.0)


def _keyword_options(fn: Any, fixed: set[str]) -> set[str]:
    params = inspect.signature(fn).parameters.values()
    return {p.name for p in params if p.kind is p.KEYWORD_ONLY and p.name not in fixed}


def method_options(name: str) -> set[str]:
    """The keyword options the release of method ``name`` takes."""
    return _keyword_options(METHODS[name], METHOD_ARGS)


def check_options(name: str) -> set[str]:
    """The keyword options the registered check of method ``name`` takes."""
    return _keyword_options(CHECKS[name], CHECK_ARGS)


def option_sets(name: str) -> list[dict[str, Any]]:
    """The defaults, then each non-default value of each option alone."""
    sets: list[dict[str, Any]] = [{}]
    for option, values in NON_DEFAULT.get(name, {}).items():
        sets += [{option: v} for v in values]
    return sets


def _heatmap_args(options: dict[str, Any]) -> dict[str, Any]:
    """``heatmap`` takes ``target`` as its own argument, the other options as method_options."""
    rest = {k: v for k, v in options.items() if k != "target"}
    target = {"target": options["target"]} if "target" in options else {}
    return {"method_options": rest, **target}


def _budget(kind: str, tmp_path: Path) -> Budget:
    if kind == "pure":
        return Budget(1e6)
    if kind == "approx":
        return Budget(1e6, 1e-6)
    if kind == "zcdp":
        return Budget(1e6, 1e-6, accounting="zcdp")
    return Budget.open(tmp_path / "ledger.sqlite", dataset="sites", epsilon=1e6)  # "ledger"


def the_check(name: str, options: dict[str, Any], epsilon: float, k: int = 1) -> Charge:
    """The charge the check of ``name`` returns, as :func:`~dpatlas.spatial.heatmap` runs it."""
    return open_release(name, GRID, epsilon=epsilon, sensitivity=k, options=options)


def assert_check_pins_the_debit(
    name: str, options: dict[str, Any], epsilon: float, budget: Budget, k: int = 1
) -> None:
    """The check's cost is exactly what the release debits, records and carries."""
    charge = the_check(name, options, epsilon, k)
    before = len(budget.history)
    hm = sp.heatmap(
        SITES,
        GRID,
        epsilon=epsilon,
        method=name,
        budget=budget,
        max_sites_per_individual=k,
        crs=CRS,
        rng=0,
        **_heatmap_args(options),
    )
    spends = budget.history[before:]
    assert len(spends) == 1, f"{name} {options}: {len(spends)} debits"
    spend, cost = spends[0], charge.cost
    rho = None if cost.rho is None else dec(cost.rho)
    assert (spend.epsilon, spend.delta, spend.rho) == (dec(cost.epsilon), dec(cost.delta), rho), (
        f"{name} {options} ε={epsilon}: checked {cost}, debited {spend}"
    )
    assert (spend.mechanism, spend.note) == (charge.mechanism, charge.note)
    release = hm.release
    assert (release.epsilon, release.delta, release.rho) == (cost.epsilon, cost.delta, cost.rho)
    assert release.mechanism == charge.mechanism


def test_every_registered_method_has_a_check_with_exactly_its_options() -> None:
    assert {"uniform", "privtree", "adaptive", "auto"} <= set(METHODS)
    for name in METHODS:
        assert name in CHECKS, f"method {name!r} has no registered check"
        assert check_options(name) == method_options(name), name


def test_every_option_of_every_method_has_non_default_values() -> None:
    for name in METHODS:
        assert set(NON_DEFAULT.get(name, {})) == method_options(name), (
            f"list non-default values of every option of {name!r} in NON_DEFAULT"
        )


@pytest.mark.parametrize("name", sorted(METHODS))
def test_the_check_accepts_what_the_release_accepts_and_no_other_option(name: str) -> None:
    """Each option alone passes the check (and the release below); an unknown one fails both."""
    for options in option_sets(name):
        the_check(name, options, 1.0)
    with pytest.raises(TypeError):
        the_check(name, {"no_such_option": 1}, 1.0)
    with pytest.raises(TypeError, match="no option 'no_such_option'"):
        check_heatmap(GRID, epsilon=1.0, method=name, method_options={"no_such_option": 1})


@pytest.mark.parametrize("kind", ["pure", "approx", "zcdp", "ledger"])
@pytest.mark.parametrize("name", sorted(METHODS))
def test_the_checked_cost_is_the_debited_cost(name: str, kind: str, tmp_path: Path) -> None:
    budget = _budget(kind, tmp_path)
    for options in option_sets(name):
        least = smallest_epsilon(lambda e, o=options: the_check(name, o, e), 1e-300)
        assert least is not None
        for epsilon in (*EPSILONS, least):
            assert_check_pins_the_debit(name, options, epsilon, budget)
    assert_check_pins_the_debit(name, {}, 0.5, budget, k=3)


@pytest.mark.parametrize("name", sorted(METHODS))
def test_a_budget_of_exactly_the_checked_cost_pays_and_one_ulp_less_refuses(name: str) -> None:
    for options in option_sets(name):
        cost = the_check(name, options, 0.7).cost
        short = Budget(math.nextafter(cost.epsilon, 0.0))
        with pytest.raises(BudgetExceededError):
            sp.heatmap(Unreadable(), GRID, epsilon=0.7, method=name, budget=short,
                       crs=CRS, **_heatmap_args(options))  # fmt: skip
        assert short.history == ()
        exact = Budget(cost.epsilon)
        assert_check_pins_the_debit(name, options, 0.7, exact)
        assert exact.remaining.epsilon == 0.0


def test_the_pin_fails_when_a_plan_and_its_release_disagree(monkeypatch, tmp_path) -> None:
    """A plan that returns twice the cost to the check only (budget=None) is caught."""
    plan = privtree_module._plan

    def doubled(epsilon: float, sensitivity: int, budget: Budget | None, **kw: Any) -> Any:
        charge, *rest = plan(epsilon, sensitivity, budget, **kw)
        if budget is None:
            charge = open_charge(2 * charge.cost, None, mechanism=charge.mechanism)
        return (charge, *rest)

    monkeypatch.setattr(privtree_module, "_plan", doubled)
    with pytest.raises(AssertionError, match="checked Cost"):
        assert_check_pins_the_debit("privtree", {}, 1.0, Budget(10.0))


def test_the_option_pin_fails_when_a_release_takes_an_option_its_check_lacks(monkeypatch) -> None:
    release = METHODS["privtree"]

    def wider(data, grid, *, epsilon, source, budget, extra=0, **options):
        return release(data, grid, epsilon=epsilon, source=source, budget=budget, **options)

    monkeypatch.setitem(METHODS, "privtree", wider)
    assert check_options("privtree") != method_options("privtree")
    with pytest.raises(AssertionError):
        test_every_registered_method_has_a_check_with_exactly_its_options()


# -- a too-small ε: named, with the smallest ε the check accepts ------------------------------

TINY = [
    ("uniform", {}, 1e-16, 1),
    ("privtree", {}, 1e-14, 1),
    ("privtree", {}, 1e-11, 3),  # k = 3: the split rule's λ is three times larger
    ("privtree", {"tree_fraction": 0.1}, 1e-11, 1),
    ("adaptive", {}, 1e-14, 1),
    ("auto", {"target": "regions"}, 1e-14, 1),
    ("auto", {}, 1e-16, 1),
]
SMALLEST = re.compile(r"; use epsilon >= (\S+)$")


def _least(message: str) -> float:
    found = SMALLEST.search(message)
    assert found is not None, message
    return float(found.group(1))


def _refusal(name: str, options: dict[str, Any], epsilon: float, k: int) -> str:
    with pytest.raises(ValueError, match=r"^epsilon=") as err:
        check_heatmap(GRID, epsilon=epsilon, method=name, max_sites_per_individual=k,
                      **_heatmap_args(options))  # fmt: skip
    return str(err.value)


@pytest.mark.parametrize(("name", "options", "epsilon", "k"), TINY)
def test_a_too_small_epsilon_is_named_with_the_smallest_accepted(name, options, epsilon, k):
    """It named the sampler's scale ("about 2**59" lattice steps for PrivTree), not ε."""
    message = _refusal(name, options, epsilon, k)
    assert message.startswith(
        f"epsilon={epsilon!r} is too small for heatmap method {name!r} (sensitivity {k}"
    ), message
    assert "2**" not in message
    least = _least(message)
    check_heatmap(GRID, epsilon=least, method=name, max_sites_per_individual=k,
                  **_heatmap_args(options))  # fmt: skip
    below = math.nextafter(least, 0.0)
    assert _least(_refusal(name, options, below, k)) == least
    budget = Budget(1.0)
    with pytest.raises(ValueError, match=re.escape(message)):
        sp.heatmap(Unreadable(), GRID, epsilon=epsilon, method=name, budget=budget,
                   max_sites_per_individual=k, crs=CRS, **_heatmap_args(options))  # fmt: skip
    assert budget.history == ()


def test_privtree_smallest_epsilon_is_where_its_split_scale_reaches_the_sampler_limit():
    """By hand: PrivTree's split noise ``λ ≈ 7/(3 ε_tree)`` counts, on a lattice of 1024 steps,
    must stay below the sampler's ``2**50`` steps: ``ε >= 2 · 7 · 1024 / (3 · 2**50)``."""
    least = _least(_refusal("privtree", {}, 1e-14, 1))
    assert least == pytest.approx(2 * 7 * 1024 / (3 * 2**50), rel=1e-4)


def test_an_epsilon_refused_for_another_reason_keeps_its_message():
    with pytest.raises(ValueError, match=r"^tree_fraction must be a float in \(0, 1\), got 2.0$"):
        check_heatmap(GRID, epsilon=1e-14, method="privtree", method_options={"tree_fraction": 2.0})


def test_the_smallest_epsilon_search_is_exact_on_a_known_boundary():
    def run(eps: float) -> None:
        if eps < 0.1:
            raise ValueError("too small")

    assert smallest_epsilon(run, 1e-300) == 0.1
    assert smallest_epsilon(run, math.nextafter(0.1, 0.0)) == 0.1
    assert smallest_epsilon(run, 0.5) is None  # accepted: not refused for being small
    assert smallest_epsilon(lambda e: run(1e-9), 1e-3) is None  # refused at every ε

    def refuse_all(eps: float) -> None:
        raise ValueError("bad option")

    assert smallest_epsilon(refuse_all, 1e-3) is None
