"""Budget accounting: exact decimal sums, refusal before spending, zCDP mode."""

from __future__ import annotations

import copy
import math
import pickle

import pytest

from dpatlas.core.accounting.budget import Budget, BudgetAmount, rho_for_total
from dpatlas.errors import BudgetExceededError


def test_hundred_spends_of_a_hundredth_fill_one_exactly() -> None:
    b = Budget(1.0)
    for _ in range(100):
        b.spend(0.01, mechanism="count")
    assert b.remaining == BudgetAmount(0.0, 0.0)
    assert b.spent == BudgetAmount(1.0, 0.0)
    with pytest.raises(BudgetExceededError, match=r"requested epsilon=0\.01.*remaining epsilon=0"):
        b.spend(0.01, mechanism="count")
    assert len(b.history) == 100


def test_refusal_spends_nothing_and_reports_the_shortfall() -> None:
    b = Budget(1.0, 1e-6)
    b.spend(0.7, 5e-7, mechanism="a", note="first")
    with pytest.raises(BudgetExceededError) as info:
        b.spend(0.5, mechanism="b")
    err = info.value
    assert (err.requested_epsilon, err.remaining_epsilon) == (0.5, pytest.approx(0.3))
    assert "short by epsilon=0.2" in str(err)
    assert b.remaining.epsilon == pytest.approx(0.3)
    assert [s.mechanism for s in b.history] == ["a"]
    with pytest.raises(BudgetExceededError, match="short by delta=5e-07"):
        b.spend(0.1, 1e-6, mechanism="c")


def test_check_does_not_spend() -> None:
    b = Budget(0.5)
    b.check(0.5)
    with pytest.raises(BudgetExceededError):
        b.check(0.6)
    assert b.history == ()


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"epsilon": 0.0}, ValueError, r"epsilon must be a finite number > 0, got 0\.0"),
        ({"epsilon": -1}, ValueError, r"epsilon must be a finite number > 0, got -1\.0"),
        ({"epsilon": math.nan}, ValueError, "epsilon must be a finite number > 0, got nan"),
        ({"epsilon": math.inf}, ValueError, "epsilon must be a finite number > 0, got inf"),
        ({"epsilon": "1"}, TypeError, "epsilon must be a real number, got '1'"),
        ({"epsilon": 1.0, "delta": 1.0}, ValueError, r"delta must be in \[0, 1\), got 1\.0"),
        ({"epsilon": 1.0, "delta": -0.1}, ValueError, r"delta must be in \[0, 1\)"),
        ({"epsilon": 1.0, "accounting": "rdp"}, ValueError, "accounting must be 'basic' or 'zcdp'"),
        ({"epsilon": 1.0, "accounting": "zcdp"}, ValueError, "needs delta > 0"),
    ],
)
def test_bad_totals_are_refused(kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        Budget(**kwargs)


def test_bad_spends_are_refused_and_not_recorded() -> None:
    b = Budget(1.0)
    with pytest.raises(ValueError, match=r"epsilon must be a finite number > 0, got -0\.1"):
        b.spend(-0.1, mechanism="x")
    assert b.history == ()


def test_zcdp_accounting_admits_more_gaussian_releases_than_basic() -> None:
    # A Gaussian release with sensitivity 1 and sigma 20 has rho = 1/800; its own (eps, delta)
    # calibration at delta = 1e-7 spends about eps = 0.29 each under basic composition.
    total_eps, total_delta = 1.0, 1e-6
    b = Budget(total_eps, total_delta, accounting="zcdp")
    rho = 1 / (2 * 20.0**2)
    n = 0
    while True:
        try:
            b.spend(0.29, 1e-7, rho=rho, mechanism="gaussian")
        except BudgetExceededError:
            break
        n += 1
    assert n == math.floor(rho_for_total(total_eps, total_delta) / rho)
    assert n > 3 * math.floor(total_eps / 0.29)
    assert b.remaining.epsilon < 0.05


def test_zcdp_counts_pure_spends_as_half_epsilon_squared() -> None:
    b = Budget(1.0, 1e-6, accounting="zcdp")
    b.spend(0.1, mechanism="laplace")
    log_term = math.log(1e6)
    rho = 0.1**2 / 2
    assert b.spent.epsilon == pytest.approx(rho + 2 * math.sqrt(rho * log_term))
    with pytest.raises(ValueError, match="pass rho="):
        b.spend(0.1, 1e-8, mechanism="gaussian")


def test_rho_for_total_inverts_the_conversion() -> None:
    rho = rho_for_total(1.0, 1e-6)
    assert rho + 2 * math.sqrt(rho * math.log(1e6)) == pytest.approx(1.0)


def test_repr_shows_what_remains() -> None:
    b = Budget(2.0)
    b.spend(0.5, mechanism="x")
    assert "remaining_epsilon=1.5" in repr(b)


def test_a_zcdp_budget_with_a_subnormal_delta_still_converts() -> None:
    # log(1 / 1e-320) overflowed to inf, and every later call failed with a decimal error
    from dpatlas.core.accounting.composition import zcdp_to_approx_dp

    assert zcdp_to_approx_dp(1.0, 1e-320) == pytest.approx(1 + 2 * math.sqrt(-math.log(1e-320)))
    budget = Budget(1.0, 1e-320, accounting="zcdp")
    assert budget.remaining.epsilon == 1.0
    budget.spend(0.01, mechanism="m")
    assert 0 < budget.remaining.epsilon < 1.0


def test_record_products_takes_one_path_or_several(tmp_path) -> None:
    budget = Budget(1.0)
    spend = budget.spend(0.1, mechanism="m")
    budget.record_products(spend, str(tmp_path / "map.html"))  # once one file per character
    budget.record_products(spend, tmp_path / "map.png")
    budget.record_products(spend, [tmp_path / "a.gpkg", str(tmp_path / "b.tif")])
    names = sorted(p.rsplit("/", 1)[1] for p in budget.history[0].products)
    assert names == ["a.gpkg", "b.tif", "map.html", "map.png"]


@pytest.mark.parametrize("total_eps", [0.1, 0.5, 1.0, 3.5, 7.0])
@pytest.mark.parametrize("total_delta", [1e-5, 1e-7, 3e-8, 1e-12])
def test_zcdp_budget_admits_its_whole_rho_and_not_a_hair_more(
    total_eps: float, total_delta: float
) -> None:
    rho = rho_for_total(total_eps, total_delta)
    whole = Budget(total_eps, total_delta, accounting="zcdp")
    whole.spend(total_eps, total_delta, rho=rho, mechanism="gaussian")
    assert whole.remaining.epsilon == pytest.approx(0.0, abs=1e-12)
    over = Budget(total_eps, total_delta, accounting="zcdp")
    with pytest.raises(BudgetExceededError):
        over.spend(total_eps, total_delta, rho=rho * (1 + 1e-12), mechanism="gaussian")
    assert over.history == ()


def test_products_of_another_budgets_spend_are_refused(tmp_path) -> None:
    """Spends are numbered per budget (per ledger file): the spend of one budget was taken
    for the spend of the same number in another, whose history then listed the wrong files."""
    first, second = Budget(1.0), Budget(1.0)
    theirs = first.spend(0.5, mechanism="count")
    second.spend(0.25, mechanism="count")
    with pytest.raises(ValueError, match=r"spend 1 \(count, epsilon=0\.5\) is not a spend of this"):
        second.record_products(theirs, tmp_path / "map.gpkg")
    assert second.history[0].products == ()
    one = Budget.open(tmp_path / "1.sqlite", dataset="nests", epsilon=1.0)
    two = Budget.open(tmp_path / "2.sqlite", dataset="nests", epsilon=1.0)
    spend = one.spend(0.5, mechanism="heatmap")
    two.spend(0.25, mechanism="heatmap")
    with pytest.raises(ValueError, match=r"is not a spend of dataset 'nests' in .*2\.sqlite; "):
        two.record_products(spend, tmp_path / "map.gpkg")
    assert two.history[0].products == ()
    one.record_products(spend, tmp_path / "map.gpkg")
    assert Budget.open(tmp_path / "1.sqlite", dataset="nests").history[0].products == (
        str(tmp_path / "map.gpkg"),
    )


@pytest.mark.parametrize("how", [copy.deepcopy, lambda b: pickle.loads(pickle.dumps(b))])
def test_an_in_memory_budget_is_not_copied(how) -> None:
    """A copy would be a second budget for the same data (each could spend it all); before,
    the refusal was a traceback ending in "cannot pickle '_thread.lock' object"."""
    budget = Budget(1.0)
    with pytest.raises(TypeError, match=r"an in-memory Budget cannot be copied or pickled: "):
        how(budget)
    assert copy.copy(budget)._store is budget._store  # a shallow copy shares the spends


@pytest.mark.parametrize(
    ("first", "second"),
    [((1.0, 0.0), (1e-30, 0.0)), ((0.5, 1e-5), (0.5, 1e-300)), ((1.0, 0.0), (1e-300, 0.0))],
)
def test_a_spend_past_the_total_below_28_digits_is_refused(
    first: tuple[float, float], second: tuple[float, float]
) -> None:
    # the sums were taken in the default decimal context (28 digits): 1 + 1e-30 rounded to 1,
    # and any number of 1e-30 spends was admitted after the budget was used up
    b = Budget(1.0, 1e-5)
    b.spend(*first, mechanism="count")
    with pytest.raises(BudgetExceededError, match="short by"):
        b.spend(*second, mechanism="count")
    assert len(b.history) == 1


def test_a_release_past_the_total_below_28_digits_is_refused_before_noise() -> None:
    from dpatlas.core import discrete_laplace

    b = Budget(1.0)
    discrete_laplace(0, sensitivity=1, epsilon=1.0, budget=b, rng=0)
    with pytest.raises(BudgetExceededError, match="short by epsilon=1e-30"):
        discrete_laplace(0, sensitivity=1e-20, epsilon=1e-30, budget=b, rng=0)
    assert len(b.history) == 1


def test_rho_bound_is_below_the_exact_bound_on_either_reading_of_the_totals() -> None:
    # ln(1/δ) came from math.log (half the time just below the true value), and the root
    # sqrt(L + ε) − sqrt(L) cancelled: the bound was above the exact one in most of 54 pairs
    from fractions import Fraction

    mpmath = pytest.importorskip("mpmath")
    from dpatlas.core.accounting.budget import _rho_bound

    mpmath.mp.dps = 60

    def exact(x: float) -> object:
        f = Fraction(x)
        return mpmath.mpf(f.numerator) / f.denominator

    for eps in (1e-3, 0.01, 0.1, 0.3, 0.5, 0.7, 1.0, 1.1, 2.0):
        for delta in (1e-12, 1e-9, 1e-6, 1e-5, 1e-3, 0.01):
            log_term = mpmath.log(1 / min(exact(delta), mpmath.mpf(repr(delta))))
            e = min(exact(eps), mpmath.mpf(repr(eps)))
            true = (mpmath.sqrt(log_term + e) - mpmath.sqrt(log_term)) ** 2
            bound = _rho_bound(eps, delta)
            assert mpmath.mpf(str(bound)) <= true, (eps, delta)
            assert mpmath.mpf(str(bound)) >= true * (1 - mpmath.mpf("1e-38")), (eps, delta)
