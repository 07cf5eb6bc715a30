"""Privacy maps at their edge cases: 0, infinity, negative, k = 1, and known values."""

from __future__ import annotations

import math
import re
from collections.abc import Callable

import pytest

from dpatlas.core import advanced_composition, group_privacy, pure_to_zcdp, zcdp_to_approx_dp


def test_advanced_composition_values() -> None:
    eps, delta = advanced_composition(0.01, 1e-7, 1000, delta_slack=1e-6)
    expected = math.sqrt(2000 * math.log(1e6)) * 0.01 + 1000 * 0.01 * math.expm1(0.01)
    assert eps == pytest.approx(expected, rel=1e-15)
    assert eps < 10 * 0.01 * 1000 / 5
    assert delta == pytest.approx(1000 * 1e-7 + 1e-6, rel=1e-15)


def test_advanced_composition_falls_back_to_basic() -> None:
    assert advanced_composition(1.0, 1e-6, 1, delta_slack=1e-6) == (1.0, 1e-6)
    assert advanced_composition(2.0, 0.0, 10, delta_slack=1e-6) == (20.0, 0.0)
    assert advanced_composition(0.0, 0.0, 5, delta_slack=0.5) == (0.0, 0.0)
    assert advanced_composition(0.5, 0.3, 10, delta_slack=0.5)[1] == 1.0  # delta capped at 1


@pytest.mark.parametrize(
    ("args", "kwargs", "error", "match"),
    [
        (
            (-0.1, 0.0, 2),
            {"delta_slack": 1e-6},
            ValueError,
            r"epsilon must be a finite number >= 0, got -0.1",
        ),
        (
            (math.inf, 0.0, 2),
            {"delta_slack": 1e-6},
            ValueError,
            r"epsilon must be a finite number >= 0, got inf",
        ),
        ((0.1, 1.0, 2), {"delta_slack": 1e-6}, ValueError, r"delta must be < 1, got 1.0"),
        ((0.1, 0.0, 0), {"delta_slack": 1e-6}, ValueError, r"k must be an integer >= 1, got 0"),
        ((0.1, 0.0, 2.5), {"delta_slack": 1e-6}, TypeError, r"k must be an integer, got 2.5"),
        (
            (0.1, 0.0, 2),
            {"delta_slack": 0.0},
            ValueError,
            r"delta_slack must be in \(0, 1\), got 0.0",
        ),
        (
            (0.1, 0.0, 2),
            {"delta_slack": 1.0},
            ValueError,
            r"delta_slack must be in \(0, 1\), got 1.0",
        ),
    ],
)
def test_advanced_composition_refuses(args: tuple, kwargs: dict, error: type, match: str) -> None:
    with pytest.raises(error, match=match):
        advanced_composition(*args, **kwargs)


def test_zcdp_conversion() -> None:
    assert zcdp_to_approx_dp(0.0, 1e-6) == 0.0
    assert zcdp_to_approx_dp(0.5, 1e-6) == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e6)))
    with pytest.raises(ValueError, match="rho must be a finite number >= 0, got inf"):
        zcdp_to_approx_dp(math.inf, 1e-6)
    with pytest.raises(ValueError, match=r"rho must be a finite number >= 0, got -1\.0"):
        zcdp_to_approx_dp(-1.0, 1e-6)
    with pytest.raises(ValueError, match=r"delta must be in \(0, 1\), got 0.0"):
        zcdp_to_approx_dp(0.1, 0.0)
    with pytest.raises(TypeError, match="rho must be a real number, got '1'"):
        zcdp_to_approx_dp("1", 1e-6)


def test_pure_to_zcdp() -> None:
    assert pure_to_zcdp(0.0) == 0.0
    assert pure_to_zcdp(2.0) == 2.0
    with pytest.raises(ValueError, match="epsilon must be a finite number >= 0, got nan"):
        pure_to_zcdp(math.nan)


def test_group_privacy() -> None:
    assert group_privacy(0.5, 1e-6, 1) == (0.5, 1e-6)
    eps, delta = group_privacy(0.5, 1e-6, 4)
    assert eps == 2.0
    assert delta == pytest.approx(4 * math.exp(1.5) * 1e-6, rel=1e-12)
    assert group_privacy(0.0, 0.0, 100) == (0.0, 0.0)
    assert group_privacy(10.0, 1e-6, 50) == (500.0, 1.0)  # would overflow: capped at 1
    with pytest.raises(ValueError, match="k must be an integer >= 1, got -3"):
        group_privacy(1.0, 0.0, -3)
    with pytest.raises(ValueError, match="delta must be a finite number >= 0, got -1e-06"):
        group_privacy(1.0, -1e-6, 2)


def test_advanced_composition_with_e_to_the_epsilon_beyond_floats_is_basic() -> None:
    assert advanced_composition(1e3, 0.0, 10, delta_slack=1e-6) == (10_000.0, 0.0)


@pytest.mark.parametrize(
    ("call", "name"),
    [
        (lambda: group_privacy(1.0, 1e-6, 10**400), "k * epsilon"),
        (lambda: advanced_composition(1e6, 0.0, 10**400, delta_slack=1e-6), "k * epsilon"),
        (lambda: zcdp_to_approx_dp(1e308, 1e-300), "the epsilon of this rho"),
        (lambda: pure_to_zcdp(1e200), "rho = epsilon²/2"),
    ],
)
def test_totals_beyond_the_floats_name_what_overflowed(call: Callable, name: str) -> None:
    with pytest.raises(OverflowError, match=f"^{re.escape(name)} is above the largest float"):
        call()


def test_every_total_is_rounded_up() -> None:
    # the float arithmetic rounded to nearest: below the exact total in about a third of
    # these cases (advanced 71, zCDP 153, group 105 of 324). Every ε, δ and ρ, given or
    # returned, is the decimal typed, as budgets read it and as the noise is calibrated.
    from dpatlas.core.accounting.cost import exact_epsilon

    mpmath = pytest.importorskip("mpmath")
    mpmath.mp.dps = 60

    def exact(x: float) -> object:
        f = exact_epsilon(x)
        return mpmath.mpf(f.numerator) / f.denominator

    def at_least(value: float, bound: object) -> bool:
        # 60-digit arithmetic rounds a decimal such as 0.3: 1e-50 relative, far below an ulp
        return exact(value) * (1 + mpmath.mpf(10) ** -50) >= bound

    for eps in (1e-3, 0.01, 0.1, 0.3, 0.5, 0.7, 1.0, 1.1, 2.0):
        e = exact(eps)
        for delta in (1e-12, 1e-9, 1e-6, 1e-5, 1e-3, 0.01):
            d = exact(delta)
            for k in (2, 3, 7, 10, 100, 1000):
                total, _ = advanced_composition(eps, 0.0, k, delta_slack=delta)
                adv = mpmath.sqrt(2 * k * mpmath.log(1 / d)) * e + k * e * mpmath.expm1(e)
                assert at_least(total, min(adv, k * e)), (eps, delta, k)
                group_eps, group_delta = group_privacy(eps, delta, k)
                assert at_least(group_eps, k * e), (eps, k)
                assert at_least(group_delta, min(1, k * mpmath.exp((k - 1) * e) * d))
            for rho in (1e-4, 0.01, 0.1, 0.5, 2.0):
                r = exact(rho)
                converted = zcdp_to_approx_dp(rho, delta)
                assert at_least(converted, r + 2 * mpmath.sqrt(r * mpmath.log(1 / d)))
                assert converted <= float(r + 2 * mpmath.sqrt(r * mpmath.log(1 / d))) * (1 + 2**-49)


def test_totals_read_the_decimals_typed_as_budgets_do() -> None:
    # the totals were rounded up on the binary floats: ten spends of 0.1 came to
    # 1.0000000000000002 here while a budget (and k * Cost) says 1.0 and the noise of each
    # is calibrated to 0.1 exactly
    from dpatlas.core.accounting.cost import Cost

    assert group_privacy(0.1, 0.0, 10) == (1.0, 0.0)
    assert advanced_composition(0.1, 0.0, 10, delta_slack=1e-6) == (1.0, 0.0)
    assert group_privacy(4.13674, 0.0, 48)[0] == (48 * Cost.pure(4.13674)).epsilon == 198.56352
