"""Depth dominance (the theorem of ladder_exact) against exact tails, and LadderTable's exact law."""

from __future__ import annotations

import numpy as np
import pytest

from dpatlas.core.noise.local.ladder_dominance import LadderTable, depth_dominates
from dpatlas.core.noise.local.ladder_exact import ladder_pmf

RNG = np.random.default_rng(20_260_215)


def abs_cdf(ladder, gs: int, eps: float, top: int = 3_000) -> np.ndarray:
    """Exact ``P(|K| <= h)`` for ``h = 0 .. top - 1`` from the ladder's pmf."""
    k = np.arange(top)
    pmf = ladder_pmf(k, ladder, eps, global_sensitivity=gs)
    return np.cumsum(np.where(k == 0, pmf, 2 * pmf))


def brute_depth(upper, lower, gs: int, top: int = 400) -> bool:
    """``σ_lower(k) <= σ_upper(k)`` for ``k = 1 .. top`` by listing the rung of every depth."""

    def sizes(lad) -> np.ndarray:
        full = [*map(int, lad), *([gs] * top)]
        return np.repeat(full, full)[:top]

    return bool((sizes(lower) <= sizes(upper)).all())


def test_criterion_equals_the_definition() -> None:
    agree = 0
    for _ in range(3_000):
        gs = int(RNG.integers(2, 10))
        upper = np.sort(RNG.integers(1, gs + 1, size=int(RNG.integers(1, 5))))
        lower = np.sort(RNG.integers(0, gs + 1, size=int(RNG.integers(1, 6))))
        got = depth_dominates(upper, lower, global_sensitivity=gs)
        assert got == brute_depth(upper, lower, gs)
        agree += got
    assert 200 < agree < 2_800  # both answers were exercised


def test_depth_dominance_gives_stochastic_dominance() -> None:
    """The theorem, checked exactly on every dominated pair of many random ladders."""
    checked = 0
    for _ in range(4_000):
        gs = int(RNG.integers(2, 14))
        upper = np.sort(RNG.integers(1, gs + 1, size=int(RNG.integers(1, 6))))
        lower = np.sort(RNG.integers(0, gs + 1, size=int(RNG.integers(1, 7))))
        if not depth_dominates(upper, lower, global_sensitivity=gs):
            continue
        for eps in (0.3, 1.0, 2.5):
            assert (abs_cdf(lower, gs, eps) >= abs_cdf(upper, gs, eps) - 1e-12).all()
        checked += 1
    assert checked > 300


def test_depth_dominance_beyond_insertion() -> None:
    """[1, 2, 4, 5] is not [3, 5] with rungs inserted (3 is split), yet it is dominated."""
    assert depth_dominates([3, 5], [1, 2, 4, 5], global_sensitivity=5)
    assert (abs_cdf([1, 2, 4, 5], 5, 1.0) >= abs_cdf([3, 5], 5, 1.0) - 1e-12).all()


def test_pointwise_smaller_is_not_dominated_and_has_a_heavier_tail() -> None:
    lower = np.minimum(40, 1 + np.arange(40))
    lower[0] = 0
    steep = np.minimum(40, 1 + np.arange(40))
    assert not depth_dominates(steep, lower, global_sensitivity=40)
    assert (abs_cdf(lower, 40, 1.0) < abs_cdf(steep, 40, 1.0) - 0.03).any()


def test_depth_dominates_refuses_an_empty_first_rung_above() -> None:
    with pytest.raises(ValueError, match="upper must have positive rung sizes"):
        depth_dominates([0, 2], [1, 2], global_sensitivity=2)


@pytest.mark.parametrize("eps", [0.3, 1.0, 2.0])
def test_table_is_the_exact_law_inside_and_beyond_the_table(eps: float) -> None:
    for _ in range(30):
        gs, rungs = int(RNG.integers(2, 40)), int(RNG.integers(1, 9))
        rows = np.sort(RNG.integers(1, gs + 1, size=(3, rungs)), axis=1)
        table = LadderTable(rows, gs, eps)
        h = np.arange(3_000)
        for i in range(3):
            exact = abs_cdf(rows[i], gs, eps)
            got = table.cdf(np.full(h.size, i), h)
            assert (got <= exact + 1e-13).all()
            assert np.abs(got - exact).max() < 1e-11
            for level in (0.3, 0.9, 0.95, 0.9999):
                q = int(table.quantile(np.array([i]), level)[0])
                assert exact[q] >= level - 1e-11
                assert q == 0 or exact[q - 1] < level + 1e-11


def test_table_refuses_bad_rows() -> None:
    with pytest.raises(ValueError, match="non-decreasing"):
        LadderTable(np.array([[3, 2]]), 5, 1.0)
    with pytest.raises(ValueError, match=r"rung sizes in \[1, GS\]"):
        LadderTable(np.array([[0, 2]]), 5, 1.0)
