"""Post-processing: totals-preserving non-negative counts, suppression on noisy values only."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import optimize

from dpatlas.spatial import Grid, heatmap
from dpatlas.spatial.products.denoise import empirical_bayes
from dpatlas.spatial.products.postprocess import project_simplex, round_preserving_total

GRID = Grid.from_bounds((0, 0, 64, 64), cell_size=1, crs="EPSG:3035")


def _sparse_map(seed: int = 0, epsilon: float = 1.0):
    gen = np.random.default_rng(seed)
    x, y = gen.normal(20, 3, 300), gen.normal(40, 3, 300)  # 300 sites in few of 4,096 cells
    return heatmap(
        (x, y), GRID, method="uniform", target="regions", epsilon=epsilon, crs=3035, rng=seed
    )


@pytest.mark.parametrize("seed", range(5))
def test_projection_is_the_least_squares_solution(seed):
    gen = np.random.default_rng(seed)
    v = gen.normal(0, 3, 12)
    total = float(gen.uniform(0.5, 20))
    got = project_simplex(v, total)
    constraint = optimize.LinearConstraint(np.ones((1, 12)), total, total)
    best = optimize.minimize(
        lambda x: ((x - v) ** 2).sum(),
        np.full(12, total / 12),
        jac=lambda x: 2 * (x - v),
        bounds=[(0, None)] * 12,
        constraints=[constraint],
        method="trust-constr",
        options={"gtol": 1e-12, "xtol": 1e-12, "maxiter": 5_000},
    )
    np.testing.assert_allclose(got, best.x, atol=1e-5)
    assert got.sum() == pytest.approx(total, abs=1e-9)
    assert got.min() >= 0


def test_projection_edge_cases():
    assert project_simplex(np.array([1.0, 2.0]), -3.0).tolist() == [0.0, 0.0]
    np.testing.assert_array_equal(project_simplex(np.array([1.0, 2.0]), 3.0), [1.0, 2.0])
    np.testing.assert_allclose(project_simplex(np.array([-5.0, -5.0]), 2.0), [1.0, 1.0])


def test_rounding_keeps_the_total_and_is_nearest():
    values = np.array([0.4, 0.4, 0.4, 1.8])
    got = round_preserving_total(values, 3)
    assert got.sum() == 3
    assert got.tolist() == [1, 0, 0, 2]  # ties go to the lower index among equal remainders
    # No integer vector with the same total is closer in L1.
    best = min(
        (c for c in itertools.product(range(4), repeat=4) if sum(c) == 3),
        key=lambda c: np.abs(np.array(c) - values).sum(),
    )
    assert np.abs(got - values).sum() == pytest.approx(np.abs(np.array(best) - values).sum())


@pytest.mark.parametrize("integer", [True, False])
def test_nonnegative_preserves_noisy_total_where_clamping_inflates_it(integer):
    hm = _sparse_map()
    raw_total = int(hm.release.value.sum())
    nn = hm.nonnegative(integer=integer)
    assert nn.estimate.min() >= 0
    assert nn.estimate.sum() == pytest.approx(raw_total, abs=1e-6)
    if integer:
        assert nn.estimate.dtype == np.int64
    clamped_total = np.maximum(hm.release.value, 0).sum()
    assert clamped_total > 1.5 * raw_total  # plain clamping inflates this sparse map
    np.testing.assert_array_equal(nn.release.value, hm.release.value)  # raw kept unchanged
    assert nn.steps == ("nonnegative(integer)" if integer else "nonnegative",)
    np.testing.assert_array_equal(nn.flags["adjusted"], nn.estimate != hm.estimate)


def test_nonnegative_with_negative_total_gives_zeros():
    def empty_map(seed: int):
        none = (np.empty(0), np.empty(0))
        return heatmap(
            none, GRID, method="uniform", target="regions", epsilon=1.0, crs=3035, rng=seed
        )

    hm = next(h for s in range(3, 100) if (h := empty_map(s)).release.value.sum() < 0)
    assert not hm.nonnegative().estimate.any()


def test_suppress_flags_on_noisy_values_only_and_keeps_estimates():
    hm = _sparse_map().nonnegative()
    flagged = hm.suppress(3)
    np.testing.assert_array_equal(flagged.flags["suppressed"], hm.estimate < 3)
    np.testing.assert_array_equal(flagged.estimate, hm.estimate)
    assert flagged.steps == ("nonnegative(integer)", "suppress(<3)")
    with pytest.raises(ValueError, match="read-only"):
        flagged.flags["suppressed"][0] = True
    with pytest.raises(TypeError, match="threshold must be a number, got '3'"):
        hm.suppress("3")
    with pytest.raises(ValueError, match="threshold must be finite, got nan"):
        hm.suppress(float("nan"))


def test_intervals_come_from_the_raw_release_clipped_at_zero():
    hm = _sparse_map()
    low, high = hm.nonnegative().confidence_interval(0.95)
    raw_low, raw_high = hm.release.confidence_interval(0.95)
    np.testing.assert_array_equal(low, np.maximum(raw_low, 0))
    np.testing.assert_array_equal(high, np.maximum(raw_high, 0))
    assert (raw_high - raw_low == 2 * 3).all()  # discrete Laplace, scale 1: P(|Z| <= 3) = 0.973


@pytest.mark.parametrize("integer", [True, False])
def test_nonnegative_twice_is_once(integer):
    """A map already non-negative (integer) is its own projection: no second step is logged
    (the demo's captions read 'nonnegative(integer), nonnegative(integer)' before)."""
    once = _sparse_map().nonnegative(integer=integer)
    assert once.nonnegative(integer=integer) is once
    assert once.steps == ("nonnegative(integer)" if integer else "nonnegative",)
    small = Grid.from_bounds((0, 0, 10, 10), cell_size=1, crs="EPSG:3035")  # < 256 cells
    hm = heatmap((np.full(9, 2.5), np.full(9, 3.5)), small, epsilon=1.0, crs=3035, rng=2)
    assert hm.steps == ("nonnegative(integer)",)  # the default map's own projection
    assert hm.nonnegative().steps == hm.steps


@pytest.mark.parametrize(
    "step",
    [lambda hm: hm.nonnegative(integer=False), lambda hm: empirical_bayes(hm)],
)
def test_a_new_estimate_after_suppress_is_refused_not_left_with_a_stale_flag(step):
    # was: the "suppressed" flag of the old estimate kept (57 cells under 5 shown, others greyed)
    hm = _sparse_map()
    with pytest.raises(ValueError, match="call suppress last"):
        step(hm.suppress(5))
    last = step(hm).suppress(5)
    np.testing.assert_array_equal(last.flags["suppressed"], last.estimate < 5)
