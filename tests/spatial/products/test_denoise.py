"""Per-cell posterior medians of a uniform map: exact arithmetic, accuracy, post-processing only."""

from __future__ import annotations

import inspect

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from dpatlas.spatial import Grid, Heatmap, heatmap
from dpatlas.spatial.products.denoise import (
    empirical_bayes,
    neighbour_means,
    posterior_medians,
)

GRID = Grid.from_bounds((0, 0, 64_000, 64_000), cell_size=1_000, crs="EPSG:3035")


def _dlap(gen: np.random.Generator, scale: float, size: int) -> np.ndarray:
    q = 1 - np.exp(-1 / scale)
    return gen.geometric(q, size) - gen.geometric(q, size)


def _clustered_counts(seed: int = 0, n: int = 10_000) -> np.ndarray:
    """Exact counts of a 64 × 64 map: a few Gaussian clusters, most cells empty."""
    gen = np.random.default_rng(seed)
    rows, cols = np.mgrid[0:64, 0:64]
    shape = np.zeros((64, 64))
    for _ in range(8):
        r, c = gen.uniform(5, 59, 2)
        shape += gen.pareto(1.5) * np.exp(-((rows - r) ** 2 + (cols - c) ** 2) / 8)
    return gen.multinomial(n, (shape / shape.sum()).ravel())


def test_neighbour_means_leave_the_cell_out_and_skip_unreleased_cells():
    released = np.array([[True, True, False], [True, True, True]])
    values = np.array([1.0, 2.0, 4.0, 8.0, 16.0])
    means = neighbour_means(values, released, 3)
    np.testing.assert_allclose(means, [(2 + 4 + 8) / 3, (1 + 4 + 8 + 16) / 4, 11 / 3, 23 / 4, 5])


def test_posterior_medians_halve_the_error_of_a_sparse_map_and_need_the_right_scale():
    counts = _clustered_counts()
    released = np.ones((64, 64), dtype=bool)
    errors = {}
    for eps in (0.1, 1.0):
        values = counts + _dlap(np.random.default_rng(2), 1 / eps, counts.size)
        nonneg = np.abs(np.maximum(values, 0) - counts).sum()
        for factor in (1 / 3, 1.0, 3.0):
            estimate = posterior_medians(values, factor / eps, released)
            errors[eps, factor] = np.abs(estimate - counts).sum() / nonneg
    assert errors[0.1, 1.0] < 0.5
    assert errors[1.0, 1.0] < 0.5
    for eps in (0.1, 1.0):  # a wrong noise scale is clearly worse
        assert errors[eps, 1 / 3] > 1.2 * errors[eps, 1.0]
        assert errors[eps, 3.0] > 1.2 * errors[eps, 1.0]


def test_large_counts_keep_their_value_and_estimates_are_monotone_in_a_group():
    gen = np.random.default_rng(3)
    counts = np.where(gen.random(2_000) < 0.8, 0, gen.integers(0, 400, 2_000))
    values = counts + _dlap(gen, 2.0, counts.size)
    estimate = posterior_medians(values, 2.0, np.ones((40, 50), dtype=bool))
    big = values > 32
    np.testing.assert_array_equal(estimate[big], values[big])
    order = np.argsort(values, kind="stable")
    assert (np.diff(estimate[order]) >= 0).all()  # one group (2,000 < 2 x 1,024 cells)
    assert (estimate >= 0).all()
    assert estimate.dtype == np.int64


def test_values_at_or_below_zero_say_the_same_as_zero():
    gen = np.random.default_rng(7)
    values = np.where(gen.random(3_000) < 0.7, 0, gen.poisson(20, 3_000)) + _dlap(gen, 3.0, 3_000)
    released = np.ones((50, 60), dtype=bool)
    clipped = posterior_medians(np.maximum(values, 0), 3.0, released, groups=1)
    np.testing.assert_array_equal(posterior_medians(values, 3.0, released, groups=1), clipped)
    assert (values < -5).sum() > 100


def test_wide_noise_uses_a_coarser_lattice_and_stays_sane():
    gen = np.random.default_rng(4)
    counts = np.where(gen.random(4_096) < 0.9, 0, 2_000)
    values = counts + _dlap(gen, 200.0, counts.size)  # ε = 0.005
    estimate = posterior_medians(values, 200.0, np.ones((64, 64), dtype=bool))
    fitted = values <= 16 * 200
    step = int(np.ceil(32 * 200 / 4096))
    assert step == 2
    assert (estimate[fitted] % step == 0).all()  # a lattice of at most 4,096 points
    np.testing.assert_array_equal(estimate[~fitted], values[~fitted])
    assert np.abs(estimate - counts).sum() < 0.5 * np.abs(values - counts).sum()


def test_bad_inputs_are_refused():
    released = np.ones((2, 2), dtype=bool)
    with pytest.raises(ValueError, match="one value per released cell"):
        posterior_medians(np.zeros(3, dtype=np.int64), 1.0, released)
    with pytest.raises(ValueError, match="values must be integers"):
        posterior_medians(np.array([0.5, 1, 2, 3]), 1.0, released)
    with pytest.raises(ValueError, match="scale must be a finite number > 0"):
        posterior_medians(np.zeros(4, dtype=np.int64), 0.0, released)
    with pytest.raises(ValueError, match="window must be odd"):
        posterior_medians(np.zeros(4, dtype=np.int64), 1.0, released, window=4)
    tree = heatmap(
        (np.array([500.0]), np.array([500.0])),
        GRID,
        epsilon=1.0,
        method="privtree",
        crs="EPSG:3035",
        rng=0,
    )
    with pytest.raises(ValueError, match="needs a one-level release"):
        empirical_bayes(tree)


def test_small_maps_get_the_total_preserving_projection():
    small = Grid.from_bounds((0, 0, 9, 9), cell_size=1, crs="EPSG:3035")  # 81 cells
    hm = heatmap((np.full(30, 4.5), np.full(30, 4.5)), small, epsilon=0.5, crs="EPSG:3035", rng=1)
    assert hm.steps == ("nonnegative(integer)",)
    assert hm.estimate.sum() == max(int(hm.release.value.sum()), 0)
    assert not hm.flags


def test_default_map_is_post_processing_of_the_release_only():
    """The cells estimate is a function of the release and the grid: rebuilt from a bare copy
    of the release (no sites anywhere) it is the same; no function takes the sites."""
    counts = _clustered_counts(5)
    cell = np.repeat(np.arange(counts.size), counts)
    x = (cell % 64 + 0.5) * 1_000
    y = (63 - cell // 64 + 0.5) * 1_000
    hm = heatmap((x, y), GRID, epsilon=0.5, crs="EPSG:3035", rng=6)
    assert hm.release.metadata["target"] == "cells"
    assert hm.steps == ("empirical_bayes",)
    bare = Heatmap(grid=GRID, release=hm.release)
    np.testing.assert_array_equal(empirical_bayes(bare).estimate, hm.estimate)
    for fn in (empirical_bayes, posterior_medians, neighbour_means):
        for name, param in inspect.signature(fn).parameters.items():
            assert "SiteCounts" not in str(param.annotation), (fn.__name__, name)
    raw = np.abs(hm.release.value - counts).sum()
    assert np.abs(hm.estimate - counts).sum() < 0.6 * raw


def test_target_is_checked_before_anything_is_spent_and_recorded():
    from dpatlas import Budget

    budget = Budget(1.0)
    with pytest.raises(ValueError, match='target must be "cells"'):
        heatmap(
            (np.array([1.0]), np.array([1.0])),
            GRID,
            epsilon=0.5,
            target="cell",
            budget=budget,
            crs="EPSG:3035",
        )
    assert budget.spent.epsilon == 0
    with pytest.raises(TypeError, match="has no option 'target'"):
        heatmap(
            (np.array([1.0]), np.array([1.0])),
            GRID,
            epsilon=0.5,
            method_options={"target": "regions"},
            crs="EPSG:3035",
        )
    regions = heatmap(
        (np.array([1.0]), np.array([1.0])),
        GRID,
        epsilon=0.5,
        method="uniform",
        target="regions",
        crs="EPSG:3035",
        rng=0,
    )
    assert regions.steps == ()
    assert regions.release.metadata["target"] == "regions"


@settings(max_examples=150, deadline=None, derandomize=True, database=None)
@given(
    seed=st.integers(0, 2**32),
    shape=st.tuples(st.integers(1, 70), st.integers(1, 70)),
    fill=st.floats(0.05, 1.0),
    log_scale=st.floats(-3, 13),
    spread=st.sampled_from([0, 1, 10, 10**4, 10**9]),
    groups=st.integers(1, 6),
    window=st.sampled_from([1, 3, 5, 9]),
)
def test_posterior_medians_of_any_map_are_sane(
    seed, shape, fill, log_scale, spread, groups, window
):
    """Any integers, any public scale, any mask: int64 estimates >= 0, one per released cell, and
    (in a single group) non-decreasing in the released value."""
    gen = np.random.default_rng(seed)
    released = gen.random(shape) < fill
    released.flat[0] = True
    values = gen.integers(-spread, spread + 1, int(released.sum())) * gen.integers(0, 2, 1)
    values = values + gen.integers(-3, 4, values.size)
    scale = float(10.0**log_scale)
    estimate = posterior_medians(values, scale, released, groups=groups, window=window)
    assert estimate.dtype == np.int64
    assert estimate.shape == values.shape
    assert (estimate >= 0).all()
    big = values > 16 * scale
    np.testing.assert_array_equal(estimate[big], values[big])
    if values.size < 2 * 1024 or groups == 1:
        order = np.argsort(values, kind="stable")
        assert (np.diff(estimate[order]) >= 0).all()
