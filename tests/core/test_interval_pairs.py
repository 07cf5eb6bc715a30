"""The pair rule (dpatlas.core.interval_pairs): exact coverage of ``|K_T - ρK_W| <= h_T + ρh_W``
summed over both noises and both bound noises, at the worst ladders, against the level; a
multiplier 30% smaller caught; the mixture floor against its closed form; public scales."""

from __future__ import annotations

import dataclasses
import math

import numpy as np
import pytest

from dpatlas.core.interval import dlap_cdf
from dpatlas.core.interval_pairs import PublicLaplace, pair_rule
from dpatlas.core.interval_shape import _Y, LAMBDA_EDGES, mixture_table
from dpatlas.core.noise.discrete_laplace import rational_scale
from dpatlas.core.noise.local.ladder_exact import SteepLadder, ladder_pmf

TOPS, EPS, SCALE = (30, 60), 1.0, (2, 1)
K = np.arange(-4_000, 4_001)


def steep_cdf_table(a: int, gs: int) -> np.ndarray:
    """``P(K <= k)`` on ``K`` for the steep ladder ``min(gs, a + t)`` (the worst ladder at ``a``)."""
    ladder = np.minimum(gs, a + np.arange(gs + 1))
    return np.cumsum(ladder_pmf(K, ladder, EPS, global_sensitivity=gs))


def exact_coverage(rule, a: tuple[int, int], rho: float, scale=SCALE, box: bool = False) -> float:
    """``Σ P(Z_T) P(Z_W) Σ_w P(K_W = w) P(|K_T - ρw| <= q)`` (exact up to 1e-9).

    ``q = τ_k (G_T + ρ G_W)`` with ``k`` the block of ``λ = G_T/(G_T + ρG_W)``: then ``ρ`` is in
    the set ``S`` of :mod:`dpatlas.core.interval_ratio`, so inside ``rule.interval``; with ``box``,
    ``q = h_T + ρ h_W`` (the box of ``rule.halfwidths``).
    """
    z = np.arange(-60, 61)
    wz = dlap_cdf(z, scale) - dlap_cdf(z - 1, scale)
    g_t, g_w = rule.heights(a[0] + z, a[1] + z)
    if box:
        g_t, g_w = rule.halfwidths(a[0] + z, a[1] + z)
    cdf_t, cdf_w = steep_cdf_table(a[0], TOPS[0]), steep_cdf_table(a[1], TOPS[1])
    pmf_w = np.diff(np.concatenate([[0.0], cdf_w]))

    def f_t(x: np.ndarray) -> np.ndarray:
        return cdf_t[np.clip(x.astype(np.int64) - K[0], 0, K.size - 1)] * (x >= K[0])

    total = 0.0
    for vt in np.unique(g_t):
        for vw in np.unique(g_w):
            q = vt + rho * vw
            if not box:
                block = min(int(vt / q * (LAMBDA_EDGES.size - 1)), LAMBDA_EDGES.size - 2)
                q *= rule.multipliers[block]
            inside = f_t(np.floor(rho * K + q)) - f_t(np.ceil(rho * K - q) - 1)
            total += wz[g_t == vt].sum() * wz[g_w == vw].sum() * float(pmf_w @ inside)
    return total


@pytest.mark.parametrize("level", [0.9, 0.95])
def test_exact_coverage_of_the_pair_is_at_least_the_level_and_can_fail(level: float) -> None:
    rule = pair_rule(SteepLadder(TOPS[0], EPS), SteepLadder(TOPS[1], EPS), level, SCALE)
    assert rule.margin is not None  # the bounded path, not the worst case
    taus = np.array(rule.multipliers)
    assert (taus <= rule.multiplier).all()
    assert taus.min() < 0.9 * rule.multiplier
    narrow = dataclasses.replace(rule, multiplier=0.7 * rule.multiplier)
    middle = dataclasses.replace(rule, multipliers=tuple(np.minimum(taus, 0.6 * taus.max())))
    cases = [
        (a, rho) for a in ((0, 0), (3, 10), (12, 40), (30, 60)) for rho in (0, 0.1, 0.5, 2, 50)
    ]
    assert min(exact_coverage(rule, a, rho) for a, rho in cases) >= level
    # the exact check catches a single multiplier 30% too small (in the box of ``halfwidths``)
    assert any(exact_coverage(narrow, a, rho, box=True) < level for a, rho in cases)
    # and per-block multipliers too small in the middle blocks
    assert any(exact_coverage(middle, a, rho) < level for a, rho in cases)


def test_public_scales_cover_exactly_and_the_rule_is_near_each_quantile() -> None:
    fams = (PublicLaplace(40.0), PublicLaplace(90.0))
    rule = pair_rule(*fams, 0.95, None)
    h_t, h_w = (float(h[0]) for h in rule.halfwidths([0], [0]))
    assert rule.margin == 0
    assert rule.certified >= 0.95
    one = [float(f.quantile(np.array([0.0]), 0.95)[0]) for f in fams]
    box = [float(f.quantile(np.array([0.0]), math.sqrt(0.95))[0]) for f in fams]
    assert one[0] <= h_t < box[0]
    assert one[1] <= h_w < box[1]
    k = np.arange(-3_000, 3_001)
    p = [np.exp(-np.abs(k) / b) * math.tanh(1 / (2 * b)) for b in (40.0, 90.0)]
    for rho in (0.0, 0.3, 1.0, 5.0):
        cdf_t = np.cumsum(p[0])
        hi = np.clip(np.floor(rho * k + h_t + rho * h_w).astype(int) - k[0], -1, k.size - 1)
        lo = np.clip(np.ceil(rho * k - h_t - rho * h_w).astype(int) - 1 - k[0], -1, k.size - 1)
        inside = np.where(hi >= 0, cdf_t[np.maximum(hi, 0)], 0) - np.where(
            lo >= 0, cdf_t[np.maximum(lo, 0)], 0
        )
        assert float(p[1] @ inside) >= 0.95


def test_mixture_table_matches_exponential_edges_and_grows() -> None:
    q = 1 - np.exp(-3.0 * _Y)  # V exponential with P(V > 1) = e^-3
    values = np.diag(mixture_table(q, q, [0.5, 1.0, 2.0], [0.5, 1.0, 2.0]))
    assert (np.diff(values) >= 0).all()
    # λ = 1 is one exponential alone: the floor is at most its cdf, and within the grid's step
    assert values[1] <= 1 - math.exp(-3.0) + 1e-9
    assert values[1] > 1 - math.exp(-3.0) - 5e-3


def test_rule_certifies_for_unequal_bound_scales_only_through_one_scale() -> None:
    rule = pair_rule(SteepLadder(TOPS[0], EPS), SteepLadder(TOPS[1], EPS), 0.9, rational_scale(4))
    assert rule.certified >= 0.9
    assert rule.margin is not None
