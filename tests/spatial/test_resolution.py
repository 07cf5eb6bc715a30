"""Cell size by the Qardaji–Yang–Li rule, and the private estimate of N it may need."""

from __future__ import annotations

import math

import numpy as np
import pytest
from shapely.geometry import box
from tests.helpers.unreadable import Unreadable

from dpatlas.core import Budget
from dpatlas.errors import BudgetExceededError
from dpatlas.spatial import Grid, estimate_n_sites, heatmap, suggest_cell_size


def test_qyl_rule_on_a_square_gives_sqrt_n_eps_over_10_cells_per_side():
    side = 256_000.0
    for n, eps in [(10_000, 1.0), (1_000_000, 0.1), (40_000, 0.5)]:
        size = suggest_cell_size((0, 0, side, side), eps, n)
        assert side / size == pytest.approx(math.sqrt(n * eps / 10))


def test_polygon_and_grid_extents_use_their_area():
    poly = box(0, 0, 200_000, 50_000)
    assert suggest_cell_size(poly, 1.0, 1_000) == pytest.approx(math.sqrt(200_000 * 50_000 / 100))
    grid = Grid.from_bounds((0, 0, 200_000, 50_000), cell_size=10_000, crs=3035)
    assert suggest_cell_size(grid, 1.0, 1_000) == pytest.approx(suggest_cell_size(poly, 1.0, 1_000))
    assert suggest_cell_size(poly, 1.0, 0) == pytest.approx(100_000.0)  # one cell
    assert suggest_cell_size(poly, 1.0, np.int64(-7)) == pytest.approx(100_000.0)


@pytest.mark.parametrize(
    ("args", "error", "match"),
    [
        (((0, 0, 1, 1), 0.0, 10), ValueError, r"epsilon must be a finite number > 0, got 0.0"),
        (((0, 0, 1, 1), 1.0, "10"), TypeError, r"n_sites must be a number .* got '10'"),
        (((0, 0, 1, 1), 1.0, float("nan")), TypeError, r"n_sites must be a number .* got nan"),
        (("big", 1.0, 10), TypeError, r"extent must be \(minx, miny, maxx, maxy\)"),
        (((0, 0, 0, 1), 1.0, 10), ValueError, r"extent must have a finite area > 0, got 0.0"),
    ],
)
def test_suggest_errors(args, error, match):
    with pytest.raises(error, match=match):
        suggest_cell_size(*args)


def test_private_n_then_heatmap_composes_sequentially():
    gen = np.random.default_rng(0)
    x, y = gen.uniform(0, 100_000, 5_000), gen.uniform(0, 100_000, 5_000)
    area = box(0, 0, 100_000, 100_000)
    budget = Budget(1.0)
    coarse = Grid.from_polygon(area, cell_size=100_000, crs=3035)
    n = estimate_n_sites((x, y), coarse, epsilon=0.05, budget=budget, crs=3035, rng=1)
    assert n.mechanism == "heatmap/n_sites"
    assert n.scale == 20.0
    assert abs(n.value - 5_000) < 20 * 20  # P(|Z| >= 400) < 1e-8
    size = suggest_cell_size(area, 0.95, max(n.value, 0))
    grid = Grid.from_polygon(area, cell_size=size, crs=3035)
    assert grid.nx == math.ceil(100_000 / size - 1e-9)
    hm = heatmap((x, y), grid, method="uniform", epsilon=0.95, budget=budget, crs=3035, rng=2)
    assert [s.mechanism for s in budget.history] == ["heatmap/n_sites", "heatmap/uniform"]
    assert budget.remaining.epsilon == pytest.approx(0.0)
    assert hm.epsilon == 0.95
    with pytest.raises(BudgetExceededError):
        estimate_n_sites((x, y), coarse, epsilon=0.01, budget=budget, crs=3035)


def test_estimate_uses_sensitivity_k_with_individuals():
    x, y = np.full(9, 10.0), np.full(9, 10.0)
    grid = Grid.from_bounds((0, 0, 100, 100), cell_size=100, crs=3035)
    rel = estimate_n_sites(
        (x, y),
        grid,
        epsilon=1.0,
        crs=3035,
        rng=0,
        individual_column=np.arange(9) // 3,
        max_sites_per_individual=2,
    )
    assert rel.sensitivity == 2
    assert rel.scale == 2.0


def test_a_study_area_as_a_geoseries_uses_its_area():
    import geopandas as gpd

    area = gpd.GeoSeries([box(0, 0, 50_000, 100_000), box(50_000, 0, 100_000, 100_000)], crs=3035)
    assert suggest_cell_size(area, epsilon=1.0, n_sites=10_000) == pytest.approx(
        suggest_cell_size((0, 0, 100_000, 100_000), epsilon=1.0, n_sites=10_000)
    )
    assert suggest_cell_size(gpd.GeoDataFrame(geometry=area), 1.0, 10_000) == pytest.approx(
        1_000 * math.sqrt(10)
    )
    with pytest.raises(ValueError, match=r"needs a projected CRS \(metres\), got EPSG:4326"):
        suggest_cell_size(area.to_crs(4326), epsilon=1.0, n_sites=10_000)


def test_an_estimate_too_small_to_sample_is_refused_before_the_sites_are_read():
    """The scale k/ε was checked at the debit, after the sites were read (nothing spent)."""
    grid = Grid.from_bounds((0, 0, 2_000, 2_000), cell_size=1_000, crs="EPSG:3035")
    budget = Budget(1.0)
    with pytest.raises(ValueError, match=r"too large \(> 2\*\*50\) to sample exactly"):
        estimate_n_sites(
            Unreadable(), grid, epsilon=1e-15, max_sites_per_individual=2, budget=budget
        )
    assert budget.history == ()
