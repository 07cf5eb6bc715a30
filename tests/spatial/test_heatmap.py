"""heatmap(): budget, randomness, noise distribution, contribution bounds, errors."""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pytest
from shapely.geometry import Point
from tests.helpers.distributions import assert_scale_detected, dlap_pmf
from tests.helpers.unreadable import Unreadable

from dpatlas.core import Budget, get_source
from dpatlas.spatial import Grid, SiteAdjacency, bin_points, heatmap
from dpatlas.spatial.sites import bound_contributions

ALPHA = 1e-6
GRID = Grid.from_bounds((0, 0, 500_000, 200_000), cell_size=1_000, crs="EPSG:3035")  # 100,000 cells


def _sites(n: int = 20_000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    gen = np.random.default_rng(seed)
    return gen.uniform(-10_000, 510_000, n), gen.normal(100_000, 40_000, n)


@pytest.mark.parametrize(
    ("epsilon", "k", "relation", "scale"),
    [(0.5, 1, "add_remove", 2.0), (1.5, 3, "add_remove", 2.0), (1.0, 2, "replace", 4.0)],
)
def test_released_noise_is_discrete_laplace_at_k_over_epsilon(epsilon, k, relation, scale):
    x, y = _sites()
    owners = np.arange(x.size) // 4  # four sites per individual
    hm = heatmap(
        (x, y),
        GRID,
        method="uniform",
        epsilon=epsilon,
        crs=3035,
        rng=2024,
        individual_column=owners,
        adjacency=SiteAdjacency(max_sites_per_individual=k, relation=relation),
    )
    assert hm.release.scale == scale
    assert hm.release.sensitivity == k * (2 if relation == "replace" else 1)
    keep = bound_contributions(owners, k, get_source(2024))  # same seed: same kept sites
    exact = bin_points(GRID, x[keep], y[keep]).ravel()
    assert exact.sum() <= k * (owners.max() + 1)
    noise = hm.release.value - exact
    assert noise.size == 100_000
    # Chi-square at alpha = 1e-6 that accepts k/ε and rejects 0.7·k/ε and 1.3·k/ε.
    assert_scale_detected(noise, dlap_pmf, scale, alpha=ALPHA)


def test_seeded_runs_are_reproducible_and_flagged():
    a = heatmap(_sites(5_000), GRID, method="uniform", epsilon=1.0, crs=3035, rng=7)
    b = heatmap(_sites(5_000), GRID, method="uniform", epsilon=1.0, crs=3035, rng=7)
    c = heatmap(_sites(5_000), GRID, method="uniform", epsilon=1.0, crs=3035, rng=8)
    assert np.array_equal(a.release.value, b.release.value)
    assert not np.array_equal(a.release.value, c.release.value)
    assert a.release.seeded
    assert not heatmap(_sites(10), GRID, method="uniform", epsilon=1.0, crs=3035).release.seeded


def test_outside_sites_dropped_and_never_reported():
    x, y = _sites(3_000)
    hm = heatmap((x, y), GRID, method="uniform", epsilon=1.0, crs=3035, rng=0)
    assert int(bin_points(GRID, x, y).sum()) < 3_000  # some sites are outside
    # The metadata holds public facts only: no count of kept, dropped or bounded sites.
    assert set(hm.release.metadata) == {
        "method",
        "target",
        "max_sites_per_individual",
        "relation",
        "individual_column",
        "contributions_bounded",
        "grid",
        "created",
    }
    assert set(hm.release.metadata["grid"]) == {"crs", "bounds", "cell_size", "shape", "n_released"}


def test_raw_counts_are_read_only_and_shapes_follow_the_mask():
    hm = heatmap(_sites(1_000), GRID, method="uniform", epsilon=1.0, crs=3035, rng=0)
    with pytest.raises(ValueError, match="read-only"):
        hm.release.value[0] = 0
    assert hm.counts.shape == GRID.shape
    with pytest.raises(ValueError, match=r"estimate must have shape \(100000,\), got \(3,\)"):
        hm.replace(estimate=np.zeros(3))
    assert hm.release.value.shape == (GRID.n_cells,)


def test_geodataframe_sites_with_individual_column_in_other_crs():
    lonlat = [Point(10 + i * 0.01, 50) for i in range(6)]
    sites = gpd.GeoDataFrame({"observer": list("aaaabb")}, geometry=lonlat, crs="EPSG:4326")
    x, y = sites.to_crs(3035).geometry.x, sites.to_crs(3035).geometry.y
    grid = Grid.from_bounds(
        (x.min() - 50, y.min() - 50, x.max() + 50, y.max() + 50), cell_size=100, crs=3035
    )
    hm = heatmap(
        sites,
        grid,
        method="uniform",
        epsilon=1.0,
        individual_column="observer",
        max_sites_per_individual=2,
        rng=0,
    )
    assert hm.release.sensitivity == 2
    assert hm.release.scale == 2.0
    assert hm.release.metadata["individual_column"] == "observer"


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"epsilon": -1}, ValueError, r"epsilon must be a finite number > 0, got -1.0"),
        ({"epsilon": "1"}, TypeError, r"epsilon must be a real number, got '1'"),
        (
            {"method": "nope"},
            ValueError,
            r"method must be one of \[.*'uniform'.*\], got 'nope'",
        ),
        (
            {"max_sites_per_individual": 0},
            ValueError,
            r"max_sites_per_individual must be an int >= 1",
        ),
        ({"rng": "seed"}, TypeError, r"rng must be None, an int seed"),
        ({"crs": None}, ValueError, r"sites have no CRS"),
        ({"adjacency": "k=2"}, TypeError, r"adjacency must be a SiteAdjacency, got str"),
        (
            {"adjacency": SiteAdjacency(max_sites_per_individual=2), "max_sites_per_individual": 3},
            ValueError,
            r"max_sites_per_individual=3 disagrees with SiteAdjacency",
        ),
    ],
)
def test_heatmap_errors(kwargs, error, match):
    args = {"epsilon": 1.0, "crs": 3035, **kwargs}
    with pytest.raises(error, match=match):
        heatmap(_sites(10), GRID, **args)


def test_grid_must_be_a_grid():
    with pytest.raises(TypeError, match=r"grid must be a dpatlas.spatial.Grid .* got tuple"):
        heatmap(_sites(10), (0, 0, 1, 1), method="uniform", epsilon=1.0, crs=3035)


def test_empty_site_set_is_a_valid_dataset():
    hm = heatmap((np.empty(0), np.empty(0)), GRID, method="uniform", epsilon=1.0, crs=3035, rng=0)
    assert hm.release.value.shape == (GRID.n_cells,)


@pytest.mark.parametrize(
    ("method", "target", "epsilon", "k"),
    [
        ("uniform", "cells", 1e-16, 1),
        ("uniform", "cells", 1e-15, 2),  # 1e-15 passes at k = 1: the public k counts
        ("privtree", "cells", 1e-14, 1),  # the split rule's scale, not the leaves'
        ("adaptive", "cells", 1e-14, 1),
        ("auto", "cells", 1e-16, 1),
        ("auto", "regions", 1e-14, 1),
    ],
)
def test_an_epsilon_too_small_to_sample_is_refused_before_the_sites_are_read(
    method, target, epsilon, k
):
    """It was refused by the sampler, after the sites were read (nothing spent either way)."""
    budget = Budget(1.0)
    too_small = (
        rf"^epsilon={epsilon!r} is too small for heatmap method '{method}' .*; use epsilon >= "
    )
    with pytest.raises(ValueError, match=too_small):
        heatmap(
            Unreadable(),
            GRID,
            epsilon=epsilon,
            method=method,
            target=target,
            budget=budget,
            max_sites_per_individual=k,
            crs=3035,
        )
    assert budget.history == ()


def test_an_epsilon_the_sampler_can_draw_is_not_refused_early():
    small = Grid.from_bounds((0, 0, 2_000, 2_000), cell_size=1_000, crs="EPSG:3035")
    hm = heatmap(([500.0], [500.0]), small, epsilon=1e-15, method="uniform", crs=3035, rng=0)
    assert hm.release.scale == 1e15
