"""Ladder mechanism: exact probabilities vs brute force, sampler vs exact pmf, a broken sampler
rejected, neighbour ratios, the release contract (budget, rng, errors)."""

from __future__ import annotations

import math

import numpy as np
import pytest
from tests.helpers.distributions import assert_distribution, assert_rejected, assert_scale_detected
from tests.helpers.sources import CountingSource

from dpatlas.core import Budget
from dpatlas.core.noise.local.ladder import (
    _place,
    clamp_release,
    ladder_mechanism,
    sample_ladder_rungs,
)
from dpatlas.core.noise.local.ladder_exact import ladder_pmf, ladder_probabilities
from dpatlas.core.rng import get_source
from dpatlas.errors import BudgetExceededError

N = 200_000
ENRON_LIKE = list(range(420, 36_691))  # I_t = min(a_max + t, n - 2) as for email-Enron
LADDERS = [  # (ladder, GS): an empty first rung, plateaus, a jump to GS, a realistic ladder
    ([0, 2, 3, 3, 5, 6], 8),
    ([1, 1, 1, 4], 4),
    ([3], 3),
    (ENRON_LIKE, 36_690),
]


def brute_pmf(ladder: list[int], gs: int, eps: float, window: int) -> dict[int, float]:
    """P(noise = y) by the definition: rung of |y| from the partial sums, weight e^{-εr/2}."""
    sizes = [*ladder, *([gs] * 10 * window)]
    bounds = np.concatenate([[0], np.cumsum(sizes)])
    ys = np.arange(-window, window + 1)
    rung = np.searchsorted(bounds, np.abs(ys), side="left")
    weight = np.exp(-eps * rung / 2)
    return dict(zip(ys.tolist(), (weight / weight.sum()).tolist(), strict=True))


@pytest.mark.parametrize(("ladder", "gs"), LADDERS[:3])
@pytest.mark.parametrize("eps", [0.5, 1.0, 2.0])
def test_pmf_matches_brute_force_definition(ladder: list[int], gs: int, eps: float) -> None:
    window = 4000
    brute = brute_pmf(ladder, gs, eps, window)
    ys = np.arange(-60, 61)
    got = ladder_pmf(ys, ladder, eps, global_sensitivity=gs)
    want = np.array([brute[y] for y in ys.tolist()])
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=0)


@pytest.mark.parametrize(("ladder", "gs"), LADDERS)
def test_rung_probabilities_sum_to_one_and_agree_with_pmf(ladder: list[int], gs: int) -> None:
    p = ladder_probabilities(ladder, 1.0, 400, global_sensitivity=gs)
    assert p.sum() == pytest.approx(1.0, abs=1e-12)
    sizes = np.concatenate([[1], 2 * np.array([*ladder, *([gs] * 400)])[:400]])
    starts = np.concatenate([[0], np.cumsum([*ladder, *([gs] * 400)])])[:400] + 1
    nonempty = sizes[1:] > 0
    per_output = ladder_pmf(starts[nonempty], ladder, 1.0, global_sensitivity=gs)
    np.testing.assert_allclose(per_output * sizes[1:][nonempty], p[1:][nonempty], rtol=1e-10)
    assert np.all(p[1:][~nonempty] == 0)


def test_global_sensitivity_zero_means_no_noise() -> None:
    assert ladder_probabilities([0], 1.0, 2).tolist() == [1.0, 0.0, 0.0]
    assert not ladder_mechanism(0, [0], epsilon=1.0, rng=0, size=1000).value.any()
    assert ladder_mechanism(0, [0, 0], epsilon=1.0, rng=0).value == 0


def rung_pmf(ladder: list[int], gs: int, eps: float):
    def pmf(k: np.ndarray) -> np.ndarray:
        p = ladder_probabilities(ladder, eps, max(int(k.max()), 0), global_sensitivity=gs)
        return np.where(k >= 0, p[np.clip(k, 0, None)], 0.0)

    return pmf


@pytest.mark.parametrize(("ladder", "gs"), LADDERS)
def test_sampled_rungs_fit_exact_probabilities(ladder: list[int], gs: int) -> None:
    rungs = sample_ladder_rungs(get_source(11), ladder, 1.0, N, global_sensitivity=gs)
    assert_distribution(rungs, pmf=rung_pmf(ladder, gs, 1.0))


@pytest.mark.parametrize(("ladder", "gs"), LADDERS)
def test_sampled_noise_fits_pmf_and_rejects_epsilon_off_by_30_percent(
    ladder: list[int], gs: int
) -> None:
    draws = ladder_mechanism(0, ladder, epsilon=1.0, global_sensitivity=gs, rng=12, size=N).value

    def family(eps: float):
        return lambda k: ladder_pmf(k, ladder, eps, global_sensitivity=gs)

    assert_scale_detected(draws, family, 1.0)


def test_non_dyadic_epsilon_fits_the_probabilities_the_sampler_uses() -> None:
    draws = ladder_mechanism(
        0, [0, 2, 3, 3, 5, 6], epsilon=0.3, global_sensitivity=8, rng=13, size=N
    ).value
    assert_distribution(
        draws, pmf=lambda k: ladder_pmf(k, [0, 2, 3, 3, 5, 6], 0.3, global_sensitivity=8)
    )


@pytest.mark.parametrize(("ladder", "gs"), LADDERS[:2])
def test_a_sampler_that_forgets_the_rung_start_is_rejected(ladder: list[int], gs: int) -> None:
    """The public-implementation bug: offsets 1..I_{r-1} instead of u_{r-1}+1..u_r."""
    src = get_source(14)
    rungs = sample_ladder_rungs(src, ladder, 1.0, N, global_sensitivity=gs)
    lad = np.array(ladder)
    forgetful = np.concatenate([[0], np.cumsum(lad)])  # subtract u_{r-1} from each offset
    good = _place(src, lad, gs, rungs)
    starts = np.where(rungs > 0, np.append(forgetful, 0)[np.minimum(rungs - 1, lad.size)], 0)
    far = rungs - 1 > lad.size
    starts[far] = forgetful[-1] + (rungs[far] - 1 - lad.size) * gs
    broken = np.sign(good) * (np.abs(good) - starts)
    pmf = lambda k: ladder_pmf(k, ladder, 1.0, global_sensitivity=gs)  # noqa: E731
    assert_distribution(good, pmf=pmf)
    assert_rejected(broken, pmf=pmf)


def test_neighbouring_ladders_stay_within_e_epsilon_exactly() -> None:
    """T = 5 and T' = 7 with ladders satisfying (L1), (L2): exact pointwise ratio <= e^ε."""
    eps, ys = 1.0, np.arange(-400, 400)
    lad_g, lad_h = [2, 3, 4, 5, 5], [3, 4, 5, 5]
    p = ladder_pmf(ys - 5, lad_g, eps, global_sensitivity=5)
    q = ladder_pmf(ys - 7, lad_h, eps, global_sensitivity=5)
    ratio = np.maximum(p / q, q / p)
    assert ratio.max() <= math.exp(eps) * (1 + 1e-12)
    assert ratio.max() > math.exp(eps / 2)


def test_release_contract_budget_before_noise_and_private_scale() -> None:
    budget = Budget(1.0)
    src = CountingSource(3)
    rel = ladder_mechanism(50, [2, 3, 4], epsilon=0.75, rng=src, budget=budget, note="t")
    assert budget.spent.epsilon == 0.75
    assert len(budget.history) == 1
    assert (rel.epsilon, rel.delta, rel.scale, rel.sensitivity, rel.seeded) == (
        0.75,
        0.0,
        None,
        None,
        True,
    )
    assert rel.rho == pytest.approx(0.75**2 / 2)
    with pytest.raises(ValueError, match="depends on the data and is private"):
        rel.confidence_interval()
    drawn = src.drawn
    with pytest.raises(BudgetExceededError, match=r"requested epsilon=0\.5"):
        ladder_mechanism(50, [2, 3, 4], epsilon=0.5, rng=src, budget=budget)
    assert src.drawn == drawn
    assert len(budget.history) == 1
    assert ladder_mechanism(1, [1], epsilon=1.0).seeded is False


def test_size_draws_independent_releases_and_charges_each() -> None:
    budget = Budget(10.0)
    rel = ladder_mechanism(7, [1, 2], epsilon=0.5, rng=1, budget=budget, size=4)
    assert rel.value.shape == (4,)
    assert rel.epsilon == 2.0
    assert budget.spent.epsilon == 2.0


def test_clamp_is_exact_post_processing() -> None:
    assert clamp_release(-3, np.array([2**62, -(2**62), 1])).tolist() == [2**61, -(2**61), -2]


def test_rung_starts_past_2_to_the_63_saturate_instead_of_wrapping() -> None:
    """Rung ``r`` starts at ``u_{r-1} = I_0 + ... + I_{r-2}``; with ``I_t = 2**62 - 1`` every rung
    from the second on starts past the clamp, so a release is in rung 0 or 1 or saturated at
    ``±2**61``. An int64 cumsum wrapped (``4 (2**62 - 1) = 2**64 - 4`` became ``-4``) and put
    rungs 5, 9, ... back next to the answer: about 13% of releases instead of 0.5%."""
    top, eps, n = 2**62 - 1, 0.02, 20_000
    ladder = [top] * 400
    rel = ladder_mechanism(0, ladder, epsilon=eps, global_sensitivity=top, rng=3, size=n)
    p0, p1 = ladder_probabilities(ladder, eps, 1, global_sensitivity=top)
    inside = p0 + p1 * (2**61 - 1) / top  # rung 0, or rung 1 at an offset below the clamp
    share = float(np.mean(np.abs(rel.value) < 2**61))
    assert abs(share - inside) < 5 * math.sqrt(inside * (1 - inside) / n)


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        ({"ladder": [3, 2]}, ValueError, r"non-decreasing integers in \[0, global_sensitivity=2\]"),
        ({"ladder": [1, 5], "global_sensitivity": 4}, ValueError, "global_sensitivity=4"),
        ({"ladder": [-1, 2]}, ValueError, "non-decreasing"),
        ({"ladder": []}, ValueError, "non-empty 1-d array"),
        ({"ladder": [1.5]}, ValueError, "ladder must be integers, got 1.5"),
        ({"epsilon": 0.0}, ValueError, "epsilon must be a finite number > 0, got 0.0"),
        ({"value": 2.5}, ValueError, "value must be integers, got 2.5"),
        ({"value": [1, 2]}, ValueError, "value must be one integer"),
        ({"size": 0}, ValueError, "size must be an integer >= 1, got 0"),
        ({"ladder": "abc"}, TypeError, "ladder must be numbers"),
    ],
)
def test_errors_name_the_parameter(kwargs: dict, exc: type, match: str) -> None:
    args = {"value": 10, "ladder": [1, 2], "epsilon": 1.0, **kwargs}
    value, ladder = args.pop("value"), args.pop("ladder")
    with pytest.raises(exc, match=match):
        ladder_mechanism(value, ladder, **args)


def test_exact_laws_saturate_rather_than_wrap_past_2_to_the_63() -> None:
    """``[2**61] * 6`` and ``[2**61] * 3`` with GS = 2**61 are the same infinite ladder; the
    exact laws' int64 cumsum wrapped on the first (piecewise: 1.8e-22 against 1.2e-19)."""
    from dpatlas.core.noise.local.piecewise_exact import piecewise_pmf

    d = [0, 1, 2**60, 2**61, 2**61 + 7, 2**62 - 1]
    for law in (ladder_pmf, piecewise_pmf):
        long = law(d, [2**61] * 6, 1.0, global_sensitivity=2**61)
        short = law(d, [2**61] * 3, 1.0, global_sensitivity=2**61)
        np.testing.assert_allclose(long, short, rtol=1e-12, atol=0)
