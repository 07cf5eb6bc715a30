"""Multi-level methods through the public API: heatmap(), Heatmap, queries, exports, options."""

from __future__ import annotations

import numpy as np
import pytest
from shapely.geometry import box

import dpatlas.spatial as sp
from dpatlas.core import Budget
from dpatlas.spatial.methods.auto import choose_method
from dpatlas.spatial.products._noise_sums import NoiseSum
from dpatlas.spatial.products.export import describe
from dpatlas.spatial.products.plot import caption
from dpatlas.spatial.tree.estimates import drop_empty, empty_regions, leaf_of_cell, to_cells
from dpatlas.spatial.tree.estimates import nonnegative as tree_nonnegative
from dpatlas.spatial.tree.hierarchy import least_squares, query_variance
from dpatlas.spatial.tree.smoothing import pycnophylactic

CRS = "EPSG:3035"
GRID = sp.Grid.from_bounds((0, 0, 64, 64), cell_size=1, crs=CRS)


def _sites(n: int = 3_000, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    gen = np.random.default_rng(seed)
    x = np.clip(gen.normal(16, 5, n), 0, 63.9)
    y = np.clip(gen.normal(48, 5, n), 0, 63.9)
    return x, y


@pytest.mark.parametrize("method", ["privtree", "adaptive"])
def test_tree_heatmaps_are_consistent_non_negative_and_keep_the_total(method):
    hm = sp.heatmap(_sites(), GRID, epsilon=1.0, method=method, crs=CRS, rng=1)
    h = hm.hierarchy
    assert h is not None
    assert hm.steps == ("least_squares", "nonnegative", "empty_regions(z=1.5)", "pycnophylactic")
    assert (hm.estimate >= 0).all()
    total = max(least_squares(h)[0], 0.0)
    assert hm.estimate.sum() == pytest.approx(total, rel=1e-9)
    raw = hm.replace(estimate=None, steps=())
    values = tree_nonnegative(h, least_squares(h))
    even = sp.consistent(raw, smooth=False)
    np.testing.assert_allclose(
        even.estimate, to_cells(h, drop_empty(h, values, empty_regions(h)), GRID)
    )
    plain = sp.consistent(raw, smooth=False, empty_z=None)
    assert plain.steps == ("least_squares", "nonnegative", "spread_evenly")
    np.testing.assert_allclose(plain.estimate, to_cells(h, values, GRID))
    measured = h.is_leaf & (h.n_released > 0) if method == "privtree" else np.isfinite(h.variance)
    sd = np.sqrt(h.variance[measured].sum())  # the raw total's noise (an upper bound for AG)
    assert np.abs(hm.estimate.sum() - 3_000) < 4 * sd
    assert (
        sp.heatmap(_sites(), GRID, method="uniform", epsilon=1.0, crs=CRS, rng=1).hierarchy is None
    )


def test_empty_regions_keep_noise_mass_out_of_the_empty_part_of_the_map():
    """30 paired PrivTree releases: mass estimated > 5 sd away from the one cluster of sites."""
    rows, cols = np.mgrid[0:64, 0:64]
    far = np.hypot(cols + 0.5 - 16, 63 - rows + 0.5 - 48) > 25  # (almost) no site there
    with_step, without = [], []
    for seed in range(30):
        hm = sp.heatmap(_sites(), GRID, epsilon=0.5, method="privtree", crs=CRS, rng=seed)
        plain = sp.consistent(hm.replace(estimate=None, steps=()), empty_z=None)
        with_step.append(hm.estimate.reshape(64, 64)[far].sum())
        without.append(plain.estimate.reshape(64, 64)[far].sum())
    # measured: 2.7 against 8.4 sites on average; the step never adds mass there on average
    assert np.mean(with_step) < 0.5 * np.mean(without)
    assert np.mean(np.array(with_step) <= np.array(without) + 1e-9) >= 0.8


def test_consistent_refuses_a_bad_empty_z():
    hm = sp.heatmap(_sites(), GRID, epsilon=1.0, method="privtree", crs=CRS, rng=1)
    with pytest.raises(ValueError, match="z must be a finite number >= 0, got -1"):
        sp.consistent(hm.replace(estimate=None, steps=()), empty_z=-1)


def test_cell_and_leaf_intervals_and_descriptions():
    opts = {"theta": 0.0}  # the paper's tree: no leaf below -6 here (see the xfail below)
    hm = sp.heatmap(
        _sites(), GRID, epsilon=1.0, method="privtree", crs=CRS, rng=2, method_options=opts
    )
    h = hm.hierarchy
    low, high = hm.confidence_interval(0.95)
    leaf_scale = hm.release.metadata["leaf_noise"]["scale"]
    ids = np.arange(64 * 64).reshape(64, 64)
    big = np.flatnonzero(h.is_leaf & (h.n_released > 1))
    one = np.flatnonzero(h.is_leaf & (h.n_released == 1))
    assert big.size
    assert one.size
    for leaf in (big[0], big[-1]):
        cells = ids[h.r0[leaf] : h.r1[leaf], h.c0[leaf] : h.c1[leaf]].ravel()
        # scale 2: P(Z <= 5) = 0.96 >= 0.95 > P(Z <= 4): a cell holds 0 up to all of its leaf
        np.testing.assert_array_equal(high[cells], max(h.noisy[leaf] + 5, 0))
        np.testing.assert_array_equal(low[cells], 0)
    for leaf in one[:5]:
        cell = ids[h.r0[leaf], h.c0[leaf]]  # measured on its own: ±6 at 95%, noise only
        assert (low[cell], high[cell]) == (max(h.noisy[leaf] - 6, 0), max(h.noisy[leaf] + 6, 0))
    leaf_low, leaf_high = hm.confidence_interval(0.95, unit="leaf")
    nodes = hm.measured.node
    np.testing.assert_array_equal(nodes, np.flatnonzero(h.is_leaf & (h.n_released > 0)))
    np.testing.assert_array_equal(leaf_high, np.maximum(h.noisy[nodes] + 6, 0))
    np.testing.assert_array_equal(leaf_low, np.maximum(h.noisy[nodes] - 6, 0))
    assert (low >= 0).all()
    assert (high >= low).all()
    facts = describe(hm)
    assert facts["noise"] == "discrete_laplace per leaf of a released tree"
    assert float(facts["noise_scale"]) == leaf_scale == 2.0
    assert (facts["measured_unit"], facts["measured_units"]) == ("leaf", str(nodes.size))
    assert "valid but wide" in facts["interval_cell"]
    assert "noise only" in facts["interval_leaf"]
    assert "per leaf" in caption(hm)
    gdf = hm.to_geodataframe()
    assert len(gdf) == GRID.n_released
    np.testing.assert_array_equal(gdf["ci95_high"], high)
    assert (
        gdf["ci_covers"]
        == np.where(hm.measured.n_cells[hm.measured.of_cell] > 1, "noise and spread", "noise")
    ).all()
    np.testing.assert_array_equal(gdf["leaf"], nodes[hm.measured.of_cell])
    with pytest.raises(ValueError, match='unit must be "cell" or "leaf", got \'node\''):
        hm.confidence_interval(0.95, unit="node")


def test_region_queries_use_the_least_squares_tree_with_exact_variance():
    hm = sp.heatmap(_sites(), GRID, epsilon=0.5, method="adaptive", crs=CRS, rng=3)
    h = hm.hierarchy
    blocks = np.flatnonzero(h.depth == 1)
    i = blocks[0]
    region = box(h.c0[i], 64 - h.r1[i], h.c1[i], 64 - h.r0[i])  # one whole level-1 block
    q = hm.query(region)
    weights = np.zeros(h.size)
    children = np.flatnonzero(h.parent == i)
    weights[children] = 1.0
    assert q.estimate == pytest.approx(least_squares(h)[children].sum())
    assert q.variance == pytest.approx(query_variance(h, weights))
    assert q.variance < h.variance[children].sum()  # the hierarchy helps
    assert q.n_cells == (h.r1[i] - h.r0[i]) * (h.c1[i] - h.c0[i])
    # the interval rests on the measured leaves (its whole children): exact, noise only
    assert (q.interval, q.covers, q.unit) == ("exact", "noise", "leaf")
    assert (q.n_whole, q.n_cut) == (children.size, 0)
    raw = h.noisy[children].sum()
    scales = np.full(children.size, hm.release.metadata["leaf_noise"]["scale"])
    half = NoiseSum("discrete_laplace", scales).upper(0.975)
    assert (q.ci_low, q.ci_high) == (max(raw - half, 0), raw + half)


def test_method_options_reach_the_method_and_unknown_ones_are_refused():
    budget = Budget(1.0)
    hm = sp.heatmap(
        _sites(),
        GRID,
        epsilon=0.4,
        method="privtree",
        method_options={"tree_fraction": 0.25},
        crs=CRS,
        rng=4,
        budget=budget,
    )
    assert hm.release.metadata["epsilon_tree"] == pytest.approx(0.1)
    assert len(budget.history) == 1
    assert budget.remaining.epsilon == pytest.approx(0.6)
    hm = sp.heatmap(
        _sites(),
        GRID,
        epsilon=0.4,
        method="adaptive",
        method_options={"n_sites": 3_000},
        crs=CRS,
        rng=4,
    )
    assert hm.release.metadata["n_sites_public"]
    with pytest.raises(TypeError, match="method 'privtree' has no option 'n_sites'; its options"):
        sp.heatmap(
            _sites(),
            GRID,
            epsilon=1,
            method="privtree",
            method_options={"n_sites": 3},
            crs=CRS,
            budget=budget,
        )
    with pytest.raises(TypeError, match="method_options must be a mapping"):
        sp.heatmap(_sites(), GRID, epsilon=1, method="privtree", method_options=[1], crs=CRS)
    with pytest.raises(ValueError, match="method must be one of"):
        sp.heatmap(_sites(), GRID, epsilon=1, method="quadtree", crs=CRS)
    assert len(budget.history) == 1


def test_masked_grid_and_exports(tmp_path):
    from shapely.geometry import Polygon

    triangle = Polygon([(0, 0), (64, 0), (0, 64)])
    grid = sp.Grid.from_polygon(triangle, cell_size=1, crs=CRS)
    x, y = _sites(seed=5)
    hm = sp.heatmap((x, 64 - y), grid, epsilon=1.0, method="privtree", crs=CRS, rng=5)
    assert hm.estimate.shape == (grid.n_released,)
    h = hm.hierarchy
    assert (h.noisy[h.is_leaf & (h.n_released == 0)] == 0).all()
    assert hm.to_geotiff(tmp_path / "map.tif").exists()
    assert hm.nonnegative().estimate.sum() == round(hm.estimate.sum())


def test_pycnophylactic_keeps_every_leaf_total_and_the_sign():
    hm = sp.heatmap(_sites(), GRID, epsilon=0.5, method="privtree", crs=CRS, rng=6)
    h = hm.hierarchy
    values = tree_nonnegative(h, least_squares(h))
    cells = pycnophylactic(h, values, GRID, iterations=30, window=5)
    assert (cells >= 0).all()
    owner = leaf_of_cell(h, GRID.shape).ravel()
    sums = np.bincount(owner, weights=cells, minlength=h.size)
    np.testing.assert_allclose(sums[h.is_leaf], values[h.is_leaf], rtol=1e-9, atol=1e-9)
    assert not np.allclose(cells, to_cells(h, values, GRID))  # it did move mass inside leaves
    with pytest.raises(ValueError, match="non-negative at the leaves"):
        pycnophylactic(h, least_squares(h) - 1e6, GRID)


def test_pycnophylactic_default_runs_until_a_round_moves_almost_nothing():
    grid = sp.Grid.from_bounds((0, 0, 256, 256), cell_size=1, crs=CRS)
    gen = np.random.default_rng(7)  # 2,000 sites at ε = 0.1 on 65,536 cells: large leaves
    x = np.concatenate([gen.normal(60, 20, 1000), gen.uniform(0, 256, 1000)]).clip(0, 255.9)
    y = np.concatenate([gen.normal(190, 20, 1000), gen.uniform(0, 256, 1000)]).clip(0, 255.9)
    hm = sp.heatmap((x, y), grid, epsilon=0.1, method="privtree", crs=CRS, rng=7)
    h = hm.hierarchy
    values = tree_nonnegative(h, least_squares(h))
    total = values[h.is_leaf].sum()
    default = pycnophylactic(h, values, grid)
    twenty, settled = (pycnophylactic(h, values, grid, iterations=k) for k in (20, 400))
    far, near = np.abs(twenty - settled).sum(), np.abs(default - settled).sum()
    assert far > 0.1 * total  # 20 rounds are far from settled here
    assert near < far / 4
    even = to_cells(h, values, grid)
    np.testing.assert_allclose(pycnophylactic(h, values, grid, iterations=0), even)


@pytest.mark.parametrize(
    ("side", "n_sites", "eps", "expected"),
    [
        (4, None, 1.0, "uniform"),  # 16 cells
        (5, None, 1.0, "privtree"),
        (64, None, 1.0, "privtree"),
        (64, 204_800, 1.0, "uniform"),  # N·ε / cells = 50
        (64, 204_799, 1.0, "privtree"),
        (64, 204_800, 0.5, "privtree"),
    ],
)
def test_auto_rule_reads_public_inputs_only(side, n_sites, eps, expected):
    grid = sp.Grid.from_bounds((0, 0, side, side), cell_size=1, crs=CRS)
    assert choose_method(grid, eps, n_sites, target="regions") == expected
    assert choose_method(grid, eps, n_sites, target="cells") == "uniform"


def test_auto_releases_the_chosen_method_and_records_it():
    fine = sp.heatmap(_sites(), GRID, epsilon=1.0, target="regions", crs=CRS, rng=7)
    options = {"tree_fraction": 1 / 3, "theta_levels": 1.5}
    same = sp.heatmap(
        _sites(), GRID, epsilon=1.0, method="privtree", method_options=options, crs=CRS, rng=7
    )
    assert fine.release.metadata["auto_choice"] == "privtree"
    assert fine.release.metadata["epsilon_tree"] == pytest.approx(1 / 3)
    split = fine.release.metadata["split"]
    assert split["theta"] == pytest.approx(-1.5 * split["delta"], abs=1 / split["lattice"])
    np.testing.assert_array_equal(fine.estimate, same.estimate)
    coarse = sp.Grid.from_bounds((0, 0, 64, 64), cell_size=16, crs=CRS)
    hm = sp.heatmap(_sites(), coarse, epsilon=1.0, target="regions", crs=CRS, rng=7)
    assert hm.release.mechanism == "heatmap/uniform"
    assert hm.release.metadata["auto_choice"] == "uniform"
    assert (hm.release.metadata["target"], hm.steps) == ("regions", ())
    cells = sp.heatmap(_sites(), GRID, epsilon=1.0, crs=CRS, rng=7)
    assert cells.release.mechanism == "heatmap/uniform"
    assert (cells.release.metadata["target"], cells.release.metadata["auto_choice"]) == (
        "cells",
        "uniform",
    )
    assert cells.steps == ("empirical_bayes",)
    with pytest.raises(ValueError, match="n_sites must be a finite public number"):
        sp.heatmap(
            _sites(), GRID, epsilon=1, method="auto", method_options={"n_sites": -1}, crs=CRS
        )
    budget = Budget(1.0)  # refused before the debit: inf once crashed after it
    for method in ("auto", "adaptive"):
        with pytest.raises(ValueError, match="n_sites must be a finite public number"):
            sp.heatmap(
                _sites(),
                GRID,
                epsilon=0.5,
                method=method,
                method_options={"n_sites": float("inf")},
                budget=budget,
                crs=CRS,
            )
    assert budget.history == ()
    numpy_count = {"n_sites": np.int64(200)}  # a numpy integer is a number
    hm = sp.heatmap(
        _sites(), GRID, epsilon=1, method="adaptive", method_options=numpy_count, crs=CRS, rng=0
    )
    assert hm.release.metadata["n_sites_public"] is True


@pytest.mark.parametrize("method", ["privtree", "adaptive", "auto"])
def test_an_unusable_epsilon_is_refused_before_anything_is_spent(method):
    budget = Budget(1.0)
    with pytest.raises(
        ValueError, match=rf"^epsilon=1e-300 is too small for heatmap method '{method}'"
    ):
        sp.heatmap(_sites(), GRID, epsilon=1e-300, method=method, crs=CRS, budget=budget, rng=0)
    assert budget.history == ()


def test_interval_of_a_very_negative_leaf_is_not_inverted():
    hm = sp.heatmap(_sites(), GRID, epsilon=1.0, method="privtree", crs=CRS, rng=2)
    assert (hm.release.metadata["hierarchy"]["noisy"] < -6).any()  # a leaf whose y + 6 < 0
    low, high = hm.confidence_interval(0.95)
    assert (high >= low).all()
    assert (low >= 0).all()
    assert ((low == 0) & (high == 0)).any()
