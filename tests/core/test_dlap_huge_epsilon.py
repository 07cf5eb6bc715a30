"""Interval widths at noise scales so small that ``exp(-1/scale)`` underflows to 0 (ε > ~745).

ε up to 10⁶ is accepted; a release there must not fail after its debit when its interval or
tail bound is computed (``math.log(0)``): its noise is 0 with probability 1 - 2⁻¹⁰⁷⁴.
"""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
from shapely.geometry import box

import dpatlas.spatial as sp
from dpatlas.core.accounting.budget import Budget
from dpatlas.core.noise.discrete_laplace import _halfwidth, upper_tail_bound
from dpatlas.core.noise.local.smooth import smooth_halfwidth
from dpatlas.graph import edge_count, triangle_count


def test_tail_bounds_are_zero_when_the_noise_cannot_move() -> None:
    assert _halfwidth(1e-3, 0.95) == 0.0
    assert upper_tail_bound(1e-3, 0.05) == 0
    # Laplace-smooth at 2S/ε ~ 2e-4: the scale is floored at 1/2 (the proof's rounding), where
    # P(K != 0) = 2p/(1 + p) = 0.24 and P(|K| > 1) = 0.03 (p = e^-2)
    assert smooth_halfwidth(1.0, 1e4, 1e-6, 0.7) == 0
    assert smooth_halfwidth(1.0, 1e4, 1e-6, 0.95) == 1
    assert _halfwidth(1e-2, 0.95) == 0.0  # p = e^-100: finite, same answer by the formula
    assert _halfwidth(1.0, 0.95) == 3.0  # P(|Z| > 3) = 0.027, P(|Z| > 2) = 0.073


@pytest.mark.parametrize("method", ["uniform", "privtree", "adaptive"])
def test_a_map_at_huge_epsilon_exports_with_exact_intervals(tmp_path, method: str) -> None:
    grid = sp.Grid.from_bounds((0, 0, 2000, 2000), cell_size=1000, crs="EPSG:3035")
    budget = Budget(2e4)
    hm = sp.heatmap(
        (np.array([500.0]), np.array([500.0])),
        grid,
        epsilon=1e4,
        method=method,
        target="regions",
        crs="EPSG:3035",
        budget=budget,
        rng=0,
    )
    hm.to_file(tmp_path / "m.gpkg")
    assert sp.read_heatmap(tmp_path / "m.gpkg").release.epsilon == 1e4
    est = hm.query(box(0, 0, 2000, 2000))
    assert (est.ci_low, est.ci_high) == (1, 1)


def test_graph_counts_at_huge_epsilon_have_zero_width_intervals() -> None:
    g = nx.karate_club_graph()
    assert edge_count(g, epsilon=1e6, rng=0).confidence_interval(0.95) == (78, 78)
    assert triangle_count(g, epsilon=1e4, method="global", rng=0).confidence_interval(0.95) == (
        45,
        45,
    )


def test_piecewise_intervals_at_huge_epsilon_raise_no_warning() -> None:
    # the steep rungs' exponentials under- and overflow there; warnings are errors in the suite
    g = nx.karate_club_graph()
    for eps in (700.0, 5000.0, 1e5):
        rel = triangle_count(g, epsilon=eps, interval_epsilon=eps, rng=1)
        assert rel.confidence_interval(0.95) == (45, 45)
