"""Per-λ multipliers (dpatlas.core.interval_ratio): each block reaches its target and no less; the
ratio set holds ``ρ`` whenever its block's event holds, and the released value; exact coverage for
public scales, with too-small middle multipliers caught."""

from __future__ import annotations

import math

import numpy as np

from dpatlas.core.interval_pairs import PublicLaplace, pair_rule
from dpatlas.core.interval_ratio import block_diagonal, block_multipliers, ratio_set
from dpatlas.core.interval_shape import _Y, LAMBDA_EDGES, block_table
from dpatlas.graph.clustering import ratio_interval

BLOCKS = LAMBDA_EDGES.size - 1


def test_block_multipliers_reach_the_target_and_are_least_to_one_percent() -> None:
    q = 1 - np.exp(-3.0 * _Y)
    taus = block_multipliers(q, q, 0.95)
    at = block_table(q, q, taus[None, :], taus[None, :])[0]
    below = block_table(q, q, 0.99 * taus[None, :], 0.99 * taus[None, :])[0]
    assert (at >= 0.95).all()
    assert (below < 0.95).all()
    assert taus[BLOCKS // 2] < 0.85 * taus[0]  # two exponentials average out in the middle
    # λ = 1 alone is one exponential: 1 - e^(-3τ) = 0.95 within the grid's step
    assert math.isclose(taus[-1], math.log(20) / 3, rel_tol=0.02)


def test_block_diagonal_is_the_least_block_and_non_decreasing() -> None:
    q = 1 - np.exp(-3.0 * _Y)
    taus = block_multipliers(q, q, 0.95)
    r = np.linspace(0.3, 2.0, 30)
    d = block_diagonal(q, q, taus, r)
    x = r[:, None] * taus[None, :]
    assert (np.diff(d) >= 0).all()
    assert (d <= block_table(q, q, x, x).min(axis=1) + 1e-12).all()
    assert abs(d[np.searchsorted(r, 1.0)] - 0.95) < 0.01


def test_ratio_set_holds_rho_whenever_its_block_event_holds() -> None:
    rng = np.random.default_rng(3)
    size = 4_000
    t, w = rng.integers(-50, 400, size), rng.integers(-50, 3_000, size)
    g_t, g_w = rng.uniform(0, 80, size), rng.uniform(0, 300, size)
    g_t[:50], g_w[50:100] = 0.0, 0.0  # one part without height: λ at an end
    taus = rng.uniform(0.6, 1.2, BLOCKS)
    low, high = ratio_set(t, w, g_t, g_w, taus)
    value = np.minimum(1.0, np.maximum(0, 3 * t) / np.maximum(w, 1))
    assert ((low <= value) & (value <= high)).all()
    box = ratio_interval(
        t - taus.max() * g_t, t + taus.max() * g_t, w - taus.max() * g_w, w + taus.max() * g_w
    )
    assert (low >= box[0] - 1e-12).all()
    assert (high <= box[1] + 1e-12).all()
    checked = 0
    for rho in np.linspace(0.0, 1 / 3, 41):
        with np.errstate(invalid="ignore", divide="ignore"):
            lam = np.where(g_t + rho * g_w > 0, g_t / (g_t + rho * g_w), 1.0)
        k = np.minimum((lam * BLOCKS).astype(int), BLOCKS - 1)
        event = np.abs(t - rho * w) <= taus[k] * (g_t + rho * g_w)
        checked += int(event.sum())
        assert ((low[event] <= 3 * rho + 1e-12) & (3 * rho <= high[event] + 1e-12)).all()
    assert checked > 1_000


def exact_public_coverage(taus: np.ndarray, scales: tuple[float, float], rho: float) -> float:
    """``P(|K_T - ρK_W| <= τ_k (G_T + ρG_W))`` for public discrete Laplace noises (exact to 1e-9)."""
    k = np.arange(-4_000, 4_001)
    p = [np.exp(-np.abs(k) / b) * math.tanh(1 / (2 * b)) for b in scales]
    g = [float(PublicLaplace(b).quantile(np.array([0.0]), 0.95)[0]) for b in scales]
    lam = g[0] / (g[0] + rho * g[1])
    q = taus[min(int(lam * BLOCKS), BLOCKS - 1)] * (g[0] + rho * g[1])
    cdf_t = np.cumsum(p[0])
    hi = np.clip(np.floor(rho * k + q).astype(int) - k[0], -1, k.size - 1)
    lo = np.clip(np.ceil(rho * k - q).astype(int) - 1 - k[0], -1, k.size - 1)
    inside = np.where(hi >= 0, cdf_t[np.maximum(hi, 0)], 0) - np.where(
        lo >= 0, cdf_t[np.maximum(lo, 0)], 0
    )
    return float(p[1] @ inside)


def test_public_scales_cover_exactly_per_block_and_too_small_middle_is_caught() -> None:
    scales = (40.0, 150.0)
    rule = pair_rule(PublicLaplace(scales[0]), PublicLaplace(scales[1]), 0.95, None)
    taus = np.array(rule.multipliers)
    assert rule.certified >= 0.95
    rhos = (0.0, 0.05, 0.2, 0.27, 1.0, 3.0, 50.0)  # λ from 1 down to 0.02
    assert min(exact_public_coverage(taus, scales, r) for r in rhos) >= 0.95
    thin = np.minimum(taus, 0.8 * taus.max())
    assert min(exact_public_coverage(thin, scales, r) for r in rhos) < 0.95
    low, high = rule.interval([3_200], [12_000], 0, 0)
    h_t, h_w = rule.halfwidths(0, 0)
    box = ratio_interval(3_200 - h_t, 3_200 + h_t, 12_000 - h_w, 12_000 + h_w)
    assert high[0] - low[0] < 0.85 * (box[1] - box[0])  # balanced here: narrower than the box
