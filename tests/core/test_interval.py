"""Intervals from a bought bound: the steep-ladder dominance they rest on, the closed forms, the
certificate against brute force, and the smooth family (issue 15)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
import pytest
from tests.helpers.distributions import smooth_abs_cdf

from dpatlas.core.interval import (
    NOISE_SHARE,
    bound_rule,
    certified_coverage,
    dlap_cdf,
)
from dpatlas.core.noise.local.ladder_exact import SteepLadder, ladder_pmf, steep_cdf, steep_quantile
from dpatlas.core.noise.local.smooth import smooth_beta, smooth_bound, smooth_scale
from dpatlas.core.noise.local.smooth_family import SmoothSteep, steep_smooth_bound

RNG = np.random.default_rng(20_260_115)


def abs_cdf(ladder, gs: int, eps: float, top: int = 4_000) -> np.ndarray:
    """Exact ``P(|K| <= h)`` for ``h = 0 .. top - 1`` from the ladder's pmf."""
    k = np.arange(top)
    pmf = ladder_pmf(k, ladder, eps, global_sensitivity=gs)
    return np.cumsum(np.where(k == 0, pmf, 2 * pmf))


def steps_ladder(start: int, gs: int, keep: float) -> np.ndarray:
    """A ladder from ``start`` climbing by 0 or 1 (1 with probability ``keep``) up to ``gs``."""
    steps = (RNG.uniform(size=4 * gs + 8) < keep).astype(np.int64)
    lad = np.minimum(gs, start + np.concatenate([[0], np.cumsum(steps)]))
    return lad[: int(np.argmax(lad >= gs)) + 1] if (lad >= gs).any() else np.append(lad, gs)


@pytest.mark.parametrize(
    ("start", "gs", "eps"), [(0, 5, 1.0), (3, 40, 0.5), (61, 400, 0.1), (7, 8, 2.0)]
)
def test_steep_closed_form_equals_the_ladder_pmf(start: int, gs: int, eps: float) -> None:
    exact = abs_cdf(np.minimum(gs, start + np.arange(gs - start + 1)), gs, eps, 30_000)
    h = np.arange(exact.size)
    assert np.abs(steep_cdf(start, h, eps, global_sensitivity=gs) - exact).max() < 1e-11
    for level in (0.3, 0.9, 0.95, 0.999):
        q = int(steep_quantile([start], level, eps, global_sensitivity=gs)[0])
        assert exact[q] >= level
        assert q == 0 or exact[q - 1] < level


def test_insertion_lemma_on_random_ladders() -> None:
    """Inserting a rung no larger than the next into a non-decreasing suffix: tails never grow."""
    for _ in range(60):
        gs, eps = int(RNG.integers(3, 40)), float(RNG.choice([0.3, 1.0, 2.0]))
        lad = np.sort(RNG.integers(0, gs + 1, size=int(RNG.integers(1, 12))))
        t = int(RNG.integers(0, lad.size + 1))
        prev, nxt = (lad[t - 1] if t else 0), (lad[t] if t < lad.size else gs)
        new = np.insert(lad, t, int(RNG.integers(prev, nxt + 1)))  # keep it a valid ladder
        before, after = abs_cdf(lad, gs, eps), abs_cdf(new, gs, eps)
        assert (after >= before - 1e-12).all()


def test_steep_ladder_dominates_every_ladder_of_unit_steps() -> None:
    for _ in range(40):
        gs, eps = int(RNG.integers(5, 60)), float(RNG.choice([0.2, 0.5, 1.0, 2.0]))
        bound = int(RNG.integers(0, gs + 1))
        lad = steps_ladder(int(RNG.integers(0, bound + 1)), gs, float(RNG.uniform(0.1, 1)))
        h = np.arange(3_000)
        assert (
            abs_cdf(lad, gs, eps, h.size) >= steep_cdf(bound, h, eps, global_sensitivity=gs) - 1e-11
        ).all()


def exact_worst_coverage(family, margin: int, noise_level: float, scale: tuple[int, int]) -> float:
    """``min_a Σ_z P(Z = z) cdf(a, h(a + z))`` by brute force (small ``top``), ``h`` unblocked."""
    b = scale[0] / scale[1]
    z = np.arange(-math.ceil(80 * b), math.ceil(80 * b) + 1)
    weight = dlap_cdf(z, scale) - dlap_cdf(z - 1, scale)
    heights = np.maximum.accumulate(family.quantile(np.arange(family.top + 1.0), noise_level))
    worst = 1.0
    for a in range(family.top + 1):
        h = heights[np.clip(a + z + margin, 0, family.top)]
        worst = min(worst, float(weight @ family.cdf(np.full(z.size, float(a)), h)))
    return worst


@pytest.mark.parametrize(
    "family",
    [
        SteepLadder(120, 1.0),
        SteepLadder(60, 0.2),
        SmoothSteep(90, 0.5, 0.0),
        SmoothSteep(90, 1.0, 1e-6),
    ],
)
def test_certificate_is_below_the_brute_force_coverage(family) -> None:
    scale = (5, 2)  # ε_I = 0.4
    for margin in (0, 1, 3, 8):
        cert = certified_coverage(family, margin, 0.9, scale)
        brute = exact_worst_coverage(family, margin, 0.9, scale)
        assert cert <= brute + 1e-12
        assert cert > brute - 0.01  # and not uselessly pessimistic on a small top


def test_rule_certifies_the_level_and_its_width_follows_the_bound() -> None:
    family, scale = SteepLadder(5_000, 0.5), (10, 1)
    rule = bound_rule(family, 0.95, scale)
    assert rule.certified >= 0.95
    assert rule.noise_level == pytest.approx(1 - NOISE_SHARE * 0.05)
    assert 0 <= rule.margin <= 20  # a fraction of the bound's noise scale, not several times it
    assert exact_worst_coverage(SteepLadder(300, 0.5), rule.margin, rule.noise_level, scale) < 1
    assert (
        certified_coverage(family, rule.margin - 1, rule.noise_level, scale) < 0.95
        if rule.margin
        else True
    )
    widths = rule.halfwidth([10, 100, 1_000])
    assert (np.diff(widths) > 0).all()
    oracle = steep_quantile([100], 0.95, 0.5, global_sensitivity=5_000)[0]
    assert oracle <= widths[1] <= 1.3 * oracle


def rule_coverage(family, rule, scale: tuple[int, int], a: int) -> float:
    """Exact ``Σ_z P(Z = z) cdf(a, h(a + z))`` of a rule (brute force over ``z``)."""
    b = scale[0] / scale[1]
    z = np.arange(-math.ceil(80 * b), math.ceil(80 * b) + 1)
    weight = dlap_cdf(z, scale) - dlap_cdf(z - 1, scale)
    return float(weight @ family.cdf(np.full(z.size, float(a)), rule.halfwidth(a + z)))


@dataclass(frozen=True)
class Cliff:
    """A toy family on ``top = 1``: statistic 1 needs ``h >= 10``, else half the mass is lost."""

    top: int = 1

    def cdf(self, bound: np.ndarray, h: np.ndarray) -> np.ndarray:
        return np.where(np.asarray(h) >= 10 * np.asarray(bound), 1.0, 0.5)

    def quantile(self, bound: np.ndarray, level: float) -> np.ndarray:
        return (10 * np.asarray(bound)).astype(np.int64)


def test_when_no_margin_certifies_the_rule_is_the_worst_case() -> None:
    family, scale = Cliff(), (20, 1)
    rule = bound_rule(family, 0.99, scale)
    assert rule.margin is None
    assert rule.halfwidth([-50, 0, 1, 9]).tolist() == [10] * 4
    assert min(rule_coverage(family, rule, scale, a) for a in (0, 1)) == 1.0
    small = bound_rule(SteepLadder(1, 1.0), 0.9, (2, 1))  # a 3-node graph certifies normally
    assert small.margin == 0
    assert min(rule_coverage(SteepLadder(1, 1.0), small, (2, 1), a) for a in (0, 1)) >= 0.9


@pytest.mark.parametrize("eps", [0.5, 100.0, 1e4])  # from 100 on, c S/ε is floored at 1/2
def test_smooth_family_bounds_the_discrete_cauchy_and_laplace(eps: float) -> None:
    for delta in (0.0, 1e-6):
        family = SmoothSteep(200, eps, delta)
        beta = smooth_beta(eps, delta)
        for a in (0, 4, 30, 200):
            steep = np.minimum(200, a + np.arange(201))
            s = smooth_bound(steep, beta, global_sensitivity=200)
            assert steep_smooth_bound([a], beta, global_sensitivity=200)[0] == pytest.approx(
                s, rel=1e-12
            )
            exact = smooth_abs_cdf(smooth_scale(s, eps, delta), delta, 40_000)
            h = np.arange(0, 40_000, 97)
            assert (family.cdf(np.full(h.size, float(a)), h) <= exact[h] + 1e-12).all()
            q = int(family.quantile(np.array([float(a)]), 0.9)[0])
            assert exact[q] >= 0.9


def test_steep_smooth_bound_stays_above_the_floored_release_bound() -> None:
    """A release's smooth bound is at least SMALLEST when GS > 0 (no underflow to an exact
    release); the family's S(A) must dominate it, or the interval at ε = 5000 claims no noise."""
    beta = smooth_beta(5000.0)
    assert steep_smooth_bound([0.0], beta, global_sensitivity=2)[0] >= smooth_bound([0, 1, 2], beta)
    assert steep_smooth_bound([0.0], beta, global_sensitivity=0)[0] == 0.0
