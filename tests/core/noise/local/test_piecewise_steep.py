"""The interval noise family of the piecewise ladder: exact, dominating, monotone in A."""

from __future__ import annotations

import numpy as np
import pytest

from dpatlas.core.noise.local.piecewise_exact import piecewise_pmf
from dpatlas.core.noise.local.piecewise_steep import SteepPiecewise


def abs_cdf(ladder: np.ndarray, eps: float, floor: int, gs: int, top: int) -> np.ndarray:
    """Exact ``P(|noise| <= h)`` for ``h = 0 .. top - 1``."""
    k = np.arange(top)
    pmf = piecewise_pmf(k, ladder, eps, floor=floor, global_sensitivity=gs)
    return np.cumsum(np.where(k == 0, pmf, 2 * pmf))


@pytest.mark.parametrize(("gs", "eps", "floor"), [(40, 1.0, 4), (60, 0.3, 14), (25, 2.0, 0)])
def test_steep_family_is_exact_and_dominates_every_unit_growth_ladder(
    gs: int, eps: float, floor: int
) -> None:
    """cdf = the steep ladder's exact law; below it for every ladder with I_0 <= A (the lemma);
    quantile is the smallest h reaching the level; cdf falls as A grows."""
    fam, rng, h = SteepPiecewise(gs, eps, floor), np.random.default_rng(3), np.arange(3000)
    for a in (0, 3, gs // 2, gs):
        steep = np.minimum(a + np.arange(gs - a + 1), gs)
        exact = abs_cdf(steep, eps, floor, gs, h.size)
        np.testing.assert_allclose(fam.cdf(np.full(h.size, a), h), exact, rtol=0, atol=1e-12)
        for level in (0.5, 0.9, 0.99):
            q = int(fam.quantile(np.array([a]), level)[0])
            assert exact[q] >= level - 1e-12
            assert q == 0 or exact[q - 1] < level
        for _ in range(20):  # ladders from I_0 <= a with steps 0 or 1, capped at GS
            start = int(rng.integers(0, a + 1))
            climb = start + np.concatenate([[0], np.cumsum(rng.integers(0, 2, 3 * gs))])
            below = climb[climb < gs]
            lad = np.concatenate([below, np.arange(below.max() + 1 if below.size else gs, gs + 1)])
            assert (abs_cdf(lad, eps, floor, gs, h.size) >= exact - 1e-12).all()
    grid = np.arange(gs + 1)
    assert np.all(np.diff(fam.cdf(grid, np.full(grid.size, 20))) <= 1e-12)
    assert np.all(np.diff(fam.quantile(grid, 0.95)) >= 0)


def test_steep_family_beyond_its_table_sums_directly(monkeypatch) -> None:
    from dpatlas.core.noise.local import piecewise_steep

    fam = SteepPiecewise(500, 0.5, 8)
    bounds, h = np.array([0, 7, 100, 499, 500]), np.array([3, 50, 400, 900, 2000])
    want = fam.cdf(bounds, h)
    monkeypatch.setattr(piecewise_steep, "_TABLE_LIMIT", 50)
    piecewise_steep._steep_table.cache_clear()
    np.testing.assert_allclose(SteepPiecewise(500, 0.5, 8).cdf(bounds, h), want, rtol=1e-12)
    piecewise_steep._steep_table.cache_clear()
