"""Piecewise ladder: exact pmf vs the definition, the normalizer bound, the sampler vs the exact
pmf (and broken samplers and wrong parameters rejected), quantiles, intervals, the contract."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from tests.helpers.distributions import assert_distribution, assert_rejected, assert_scale_detected
from tests.helpers.sources import CountingSource

from dpatlas.core import Budget
from dpatlas.core.noise._sampling.piecewise import _exponent
from dpatlas.core.noise.local.ladder_exact import ladder_pmf
from dpatlas.core.noise.local.piecewise_exact import piecewise_pmf, piecewise_quantile
from dpatlas.core.noise.local.piecewise_ladder import (
    default_floor,
    normalizer_loss,
    piecewise_ladder_mechanism,
    piecewise_scale,
    piecewise_theta,
    sample_piecewise_ladder,
)
from dpatlas.core.rng import get_source
from dpatlas.errors import BudgetExceededError

N = 200_000
ENRON_LIKE = list(range(420, 36_691))  # I_t = min(a_max + t, n - 2) as for email-Enron
LADDERS = [  # (ladder, GS, floor): empty first rungs, a plateau, floor above and below, Enron
    ([0, 1, 2, 3, 4, 5, 6, 7, 8], 8, 0),
    ([1, 1, 2, 3, 3, 4], 4, None),
    ([2, 3, 3, 4, 5, 6, 7], 7, 5),
    ([3], 3, 1),
    (ENRON_LIKE, 36_690, None),
]


def lengths(ladder: list[int], gs: int, floor: int, d: np.ndarray) -> np.ndarray:
    """The definition: ℓ(d) = t + j / J_t at u_t + j, J = max(I, floor) (a loop over rungs)."""
    widths = [max(w, floor) for w in [*ladder, *([gs] * 20_000)]]
    out = np.zeros(d.size)
    for i, x in enumerate(np.abs(d).tolist()):
        u = 0
        for t, w in enumerate(widths):
            if x <= u + w and x > 0:
                out[i] = t + (x - u) / w
                break
            u += w
    return out


def brute_log_pmf(
    ladder: list[int], gs: int, floor: int, theta: float, ys: np.ndarray
) -> np.ndarray:
    reach = ys.max() + math.ceil(60 / theta) * gs  # the mass beyond is below e^-60
    window = np.arange(-reach, reach + 1)
    log_w = -theta * lengths(ladder, gs, floor, window)
    log_z = np.logaddexp.reduce(log_w)
    return -theta * lengths(ladder, gs, floor, ys) - log_z


@pytest.mark.parametrize(("ladder", "gs", "floor"), LADDERS[:4])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_pmf_matches_the_definition(
    ladder: list[int], gs: int, floor: int | None, eps: float
) -> None:
    k = default_floor(eps) if floor is None else floor
    t, s = piecewise_theta(eps, min(k, gs), gs)
    ys = np.arange(-40, 41)
    want = brute_log_pmf(ladder, gs, min(k, gs), s / t, ys)
    got = piecewise_pmf(ys, ladder, eps, floor=floor, global_sensitivity=gs, log=True)
    np.testing.assert_allclose(got, want, rtol=0, atol=1e-9)


@pytest.mark.parametrize(("ladder", "gs", "floor"), LADDERS)
def test_pmf_sums_to_one_and_quantiles_invert_it(
    ladder: list[int], gs: int, floor: int | None
) -> None:
    ks = np.arange(-200_000, 200_001)
    p = piecewise_pmf(ks, ladder, 1.0, floor=floor, global_sensitivity=gs)
    assert p.sum() == pytest.approx(1.0, abs=1e-9)
    by_abs = np.concatenate([[p[200_000]], p[200_001:] + p[:200_000][::-1]])
    cum = np.cumsum(by_abs)
    for level in (0.3, 0.5, 0.9, 0.99):
        h = piecewise_quantile(level, ladder, 1.0, floor=floor, global_sensitivity=gs)
        assert cum[h] >= level - 1e-12
        assert h == 0 or cum[h - 1] < level + 1e-12


def test_rate_spends_epsilon_between_rungs_and_normalizer() -> None:
    for eps in (0.05, 0.1, 0.5, 1.0, 2.0, 8.0):
        for floor in (0, 1, default_floor(eps), 10**6):
            t, s = piecewise_theta(eps, floor, 10**7)
            used = s / t + normalizer_loss(s / t, floor)
            assert eps * (1 - 1e-6) <= used <= eps
            assert s / t >= eps / 2 - 1e-12  # never below the exponential mechanism's ε/2
    t, s = piecewise_theta(1.0, 4, 100)
    assert s / t == pytest.approx(0.8112, abs=1e-4)
    t, s = piecewise_theta(0.3, 7, 7)  # floor = GS: one constant width, θ = ε
    assert 0.3 * (1 - 1e-12) <= s / t <= 0.3
    assert normalizer_loss(0.1, 10**6) < 1e-6  # a huge floor: the normalizer costs nothing


def log_norm(widths: list[int], theta: float) -> float:
    """ln Z by the definition for a ladder that is constant after its array (long enough)."""
    q = math.exp(-theta)
    g = [(1 - q) / math.expm1(theta / w) if w else 0.0 for w in widths]
    head = sum(2 * q**t * gt for t, gt in enumerate(g))
    return math.log(1 + head + 2 * q ** len(g) * g[-1] / (1 - q))


@pytest.mark.parametrize("floor", [0, 1, 4, 40])
def test_normalizer_ratio_of_neighbouring_ladders_is_within_the_bound(floor: int) -> None:
    """Lemma 2 on the worst pair (one ladder is the other shifted by a rung) and random pairs."""
    rng = np.random.default_rng(5)
    theta, gs = 0.7, 3_000
    bound = normalizer_loss(theta, floor)

    def floored(lad: np.ndarray) -> list[int]:
        return np.maximum(np.minimum(lad, gs), min(floor, gs)).tolist()

    base = np.arange(0, 400) + floor
    worst = log_norm(floored(base + 1), theta) - log_norm(floored(base), theta)
    assert worst <= bound
    assert worst >= 0.8 * bound  # the bound is nearly attained by the shifted pair
    for _ in range(300):  # (L2) in both directions, (L3): I'_t in [I_{t-1}, I_{t+1}]
        lad = np.minimum(np.cumsum(rng.integers(0, 2, 400)) + rng.integers(0, 30), gs)
        lad = np.maximum.accumulate(lad)
        prev = np.concatenate([[0], lad[:-1]])
        other = np.maximum.accumulate(rng.integers(prev, np.append(lad[1:], gs) + 1))
        other = np.minimum(other, np.append(other[0], other[:-1] + 1))  # keep (L3)
        if not ((lad[:-1] <= other[1:]).all() and (other[:-1] <= lad[1:]).all()):
            continue
        diff = log_norm(floored(lad), theta) - log_norm(floored(other), theta)
        assert abs(diff) <= bound + 1e-12


@pytest.mark.parametrize(("ladder", "gs", "floor"), LADDERS)
def test_sampled_noise_fits_pmf_and_rejects_epsilon_off_by_30_percent(
    ladder: list[int], gs: int, floor: int | None
) -> None:
    k = default_floor(1.0) if floor is None else floor
    draws = piecewise_ladder_mechanism(
        0, ladder, epsilon=1.0, floor=k, global_sensitivity=gs, rng=21, size=N
    ).value

    def family(eps: float):
        return lambda y: piecewise_pmf(y, ladder, eps, floor=k, global_sensitivity=gs)

    assert_scale_detected(draws, family, 1.0)


def test_non_dyadic_epsilon_fits_the_probabilities_the_sampler_uses() -> None:
    lad, gs = [0, 1, 2, 3, 3, 4, 5, 6, 7], 8
    draws = sample_piecewise_ladder(get_source(22), lad, 0.3, N, global_sensitivity=gs)
    assert_distribution(draws, pmf=lambda k: piecewise_pmf(k, lad, 0.3, global_sensitivity=gs))


@pytest.mark.parametrize(("ladder", "gs", "floor"), [LADDERS[1], LADDERS[2]])
def test_wrong_rung_structures_are_rejected(ladder: list[int], gs: int, floor: int | None) -> None:
    """Draws fit their pmf but not the pmf without the floor, the ladder's staircase at the
    same rate, or a sampler that forgets the rung start (offsets 1..J_t in every rung)."""
    draws = sample_piecewise_ladder(
        get_source(23), ladder, 1.0, N, floor=floor, global_sensitivity=gs
    )
    k = default_floor(1.0) if floor is None else floor
    pmf = lambda y: piecewise_pmf(y, ladder, 1.0, floor=k, global_sensitivity=gs)  # noqa: E731
    assert_distribution(draws, pmf=pmf)
    assert_rejected(
        draws, pmf=lambda y: piecewise_pmf(y, ladder, 1.0, floor=0, global_sensitivity=gs)
    )
    t, s = piecewise_theta(1.0, min(k, gs), gs)
    stair = np.maximum(ladder, min(k, gs))  # the ladder at rate 2θ has weights q^rung: staircase
    assert_rejected(draws, pmf=lambda y: ladder_pmf(y, stair, 2 * s / t, global_sensitivity=gs))
    widths = np.array([*np.maximum(ladder, min(k, gs)), *([gs] * 200)])
    starts = np.concatenate([[0], np.cumsum(widths)])
    rung = np.searchsorted(starts, np.abs(draws), side="left") - 1
    forgetful = np.sign(draws) * (np.abs(draws) - starts[np.maximum(rung, 0)])
    assert_rejected(forgetful, pmf=pmf)


def test_neighbouring_ladders_stay_within_e_epsilon_exactly() -> None:
    """T' = T + a, the ladder (a, a+1, ...) and its shift by one rung (L1–L3 hold): the exact
    pointwise ratio is at most e^ε, and well above the exponential mechanism's e^{ε/2}."""
    eps, ys, gs = 1.0, np.arange(-3000, 3000), 30
    for a in (2, 4, 8):
        for floor in (0, a):
            lad_g, lad_h = np.arange(a, gs + 1), np.arange(a + 1, gs + 1)
            p = piecewise_pmf(ys, lad_g, eps, floor=floor, global_sensitivity=gs, log=True)
            q = piecewise_pmf(ys - a, lad_h, eps, floor=floor, global_sensitivity=gs, log=True)
            loss = np.abs(p - q).max()
            assert 0.55 * eps < loss <= eps + 1e-12


def test_exact_exponent_of_the_offset_thinning_uses_python_integers() -> None:
    """γ = (s/t) j/J for the rare draws a float cannot settle; no int64 overflow at 2**40."""
    exact = _exponent((2**40 + 1, 3), np.array([2**40]), np.array([2**40 + 5]))
    assert exact(0) == Fraction(3 * 2**40, (2**40 + 1) * (2**40 + 5))


def test_global_sensitivity_zero_means_no_noise() -> None:
    assert piecewise_pmf([0, 1], [0], 1.0).tolist() == [1.0, 0.0]
    assert not piecewise_ladder_mechanism(0, [0], epsilon=1.0, rng=0, size=100).value.any()
    assert piecewise_quantile(0.5, [0], 1.0) == 0


def test_release_contract_budget_before_noise_and_public_metadata() -> None:
    budget, src = Budget(1.0), CountingSource(3)
    rel = piecewise_ladder_mechanism(50, [2, 3, 4], epsilon=0.75, rng=src, budget=budget, note="t")
    t, s = piecewise_theta(0.75, 4, 4)  # ⌈4/0.75⌉ = 6, capped at GS = 4: θ = ε
    assert (budget.spent.epsilon, len(budget.history), rel.metadata) == (
        0.75,
        1,
        {"floor": 4, "theta": s / t},
    )
    public = (rel.epsilon, rel.delta, rel.scale, rel.sensitivity, rel.seeded, rel.rho)
    assert public == (0.75, 0.0, None, None, True, pytest.approx(0.75**2 / 2))
    with pytest.raises(ValueError, match="depends on the data and is private"):
        rel.confidence_interval()
    drawn = src.drawn
    with pytest.raises(BudgetExceededError, match=r"requested epsilon=0\.5"):
        piecewise_ladder_mechanism(50, [2, 3, 4], epsilon=0.5, rng=src, budget=budget)
    assert src.drawn == drawn  # refused before any noise
    assert piecewise_ladder_mechanism(1, [1], epsilon=1.0).seeded is False
    many = piecewise_ladder_mechanism(7, [1, 2], epsilon=0.5, rng=1, budget=Budget(9.0), size=4)
    assert (many.value.shape, many.epsilon) == ((4,), 2.0)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"ladder": [1, 3]}, ValueError, "grow by at most 1 per rung"),
        ({"ladder": [1, 2], "global_sensitivity": 4}, ValueError, "global_sensitivity=4 after"),
        ({"ladder": [3, 2]}, ValueError, "non-decreasing"),
        ({"floor": -1}, ValueError, "floor must be an integer >= 0, got -1"),
        ({"floor": 2.5}, TypeError, "floor"),
        ({"epsilon": 0.0}, ValueError, "epsilon must be a finite number > 0, got 0.0"),
        ({"value": 2.5}, ValueError, "value must be integers, got 2.5"),
        ({"size": 0}, ValueError, "size must be an integer >= 1, got 0"),
    ],
)
def test_errors_name_the_parameter(kwargs: dict, exc: type, match: str) -> None:
    args = {"value": 10, "ladder": [1, 2], "epsilon": 1.0, **kwargs}
    value, ladder = args.pop("value"), args.pop("ladder")
    with pytest.raises(exc, match=match):
        piecewise_ladder_mechanism(value, ladder, **args)


@pytest.mark.parametrize("epsilon", [1e-6, 0.01, 0.5, 1.0, 3.0, 50.0])
@pytest.mark.parametrize("floor", [0, 1, 4, 1000])
def test_the_public_scale_bounds_the_sampler_scale(epsilon: float, floor: int) -> None:
    """The scale checked before the budget must be >= the sampler's ``1/θ``: it was ``2/ε``
    while θ is ``ε/2 (1 - 1e-9)`` at a floor of 0 or 1 and small ε; found by a review."""
    t, s = piecewise_theta(epsilon, floor, 10**6)
    assert Fraction(t, s) <= piecewise_scale(epsilon, 10**6)
    assert piecewise_scale(epsilon, 10**6) <= Fraction(2) / Fraction(epsilon) * (1 + 2e-8)
