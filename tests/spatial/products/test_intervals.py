"""The interval layer of maps: quantiles of noise sums, what a release measured, the bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats
from shapely.geometry import box

import dpatlas.spatial as sp
from dpatlas.core.release import Release
from dpatlas.spatial.products._noise_sums import NoiseSum, one_sided
from dpatlas.spatial.products.intervals import Measured, cell_intervals, region_interval

GRID = sp.Grid.from_bounds((0, 0, 16, 16), cell_size=1, crs="EPSG:3035")


def _dlap_pmf(scale: float, reach: int) -> np.ndarray:
    p = math.exp(-1 / scale)
    return (1 - p) / (1 + p) * p ** np.abs(np.arange(-reach, reach + 1))


def _sum_cdf(scales: list[float], reach: int = 300) -> tuple[np.ndarray, int]:
    """Exact cdf of a sum of discrete Laplace noises by direct convolution, and its offset."""
    pmf = np.ones(1)
    for b in scales:
        pmf = np.convolve(pmf, _dlap_pmf(b, reach))
    return np.cumsum(pmf), reach * len(scales)


@pytest.mark.parametrize("scales", [[1.0, 1.0], [2.0, 0.5, 3.5], [1.5] * 6, [4.0, 1.0, 1.0, 2.5]])
def test_exact_quantile_of_a_sum_with_mixed_scales(scales):
    cdf, offset = _sum_cdf(scales)
    s = NoiseSum("discrete_laplace", np.array(scales))
    assert s.method == "exact"
    for prob in (0.6, 0.9, 0.95, 0.975, 0.999):
        assert s.upper(prob) == np.argmax(cdf >= prob) - offset
    assert s.upper(0.5) == 0.0
    assert s.upper(0.3) == 0.0  # valid: P(S <= 0) >= 1/2 for a symmetric sum


@pytest.mark.parametrize(("n", "scale"), [(2, 1.0), (10, 2.0), (40, 0.7)])
def test_chernoff_bound_is_valid_and_within_a_factor_of_the_exact_quantile(n, scale):
    cdf, offset = _sum_cdf([scale] * n, reach=200)
    exact = NoiseSum("discrete_laplace", np.full(n, scale))
    bound = NoiseSum("discrete_laplace", np.full(n, scale), max_lattice=16)
    assert bound.method == "chernoff"
    for prob in (0.9, 0.975, 0.999):
        q = bound.upper(prob)
        assert cdf[int(q) + offset] >= prob  # valid
        assert exact.upper(prob) <= q <= 2.5 * exact.upper(prob) + 2


def test_other_laws_use_the_union_bound_which_is_valid():
    scales = np.array([1.0, 2.0, 0.5])
    s = NoiseSum("gaussian", scales)
    assert s.method == "union bound"
    for prob in (0.9, 0.975):
        q = s.upper(prob)
        assert stats.norm.cdf(q / math.sqrt((scales**2).sum())) >= prob  # the sum is normal
    assert NoiseSum("gaussian", np.array([2.0])).upper(0.975) == pytest.approx(
        one_sided("gaussian", 2.0, 0.975)
    )


def test_one_sided_quantile_of_one_noise():
    for scale in (0.5, 2.0, 7.3):
        cdf, offset = _sum_cdf([scale], reach=400)
        for prob in (0.55, 0.9, 0.975):
            assert one_sided("discrete_laplace", scale, prob) == np.argmax(cdf >= prob) - offset
    assert one_sided("laplace", 1.0, 0.975) >= math.log(1 / 0.05)  # P(Z > q) = exp(-q)/2


def test_measured_reads_both_forms_of_the_contract_and_refuses_releases_without_one():
    x, y = np.random.default_rng(0).uniform(0, 16, (2, 300))
    uniform = sp.heatmap((x, y), GRID, epsilon=1.0, method="uniform", crs=3035, rng=0)
    m = uniform.measured
    assert (m.unit, m.size, m.noise) == ("cell", 256, "discrete_laplace")
    np.testing.assert_array_equal(m.raw, uniform.release.value)
    tree = sp.heatmap((x, y), GRID, epsilon=1.0, method="privtree", crs=3035, rng=0)
    t, h = tree.measured, tree.hierarchy
    assert t.unit == "leaf"
    np.testing.assert_array_equal(t.raw, h.noisy[t.node])
    assert t.n_cells.sum() == GRID.n_released
    assert (h.r0[t.node[t.of_cell]] <= np.repeat(np.arange(16), 16)).all()
    bare = Release(np.zeros(256), 1.0, 0.0, "made-up", None, None, None, False)
    with pytest.raises(ValueError, match="does not say what its values measure"):
        Measured.of(bare, GRID)
    meta = {k: v for k, v in tree.release.metadata.items() if k != "leaf_noise"}
    with pytest.raises(ValueError, match=r"has a tree but no metadata\['leaf_noise'\]"):
        Measured.of(
            Release(np.zeros(256), 1.0, 0.0, "m", None, None, None, False, None, meta), GRID
        )


def test_cell_intervals_of_measured_cells_and_of_cells_in_leaves():
    m = Measured(
        "leaf",
        raw=np.array([7.0, -9.0, 3.0]),
        noise="discrete_laplace",
        scale=np.array([1.0, 1.0, 2.0]),
        of_cell=np.array([0, 1, 1, 2, 2, 2]),
        n_cells=np.array([1, 2, 3]),
        node=np.array([1, 2, 3]),
    )
    low, high, spread = cell_intervals(m, 0.95)
    # scale 1: P(|Z| <= 3) = 0.96 (two-sided 95%), P(Z <= 2) = 0.96 (one-sided 95%)
    assert low.tolist() == [4.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    assert high.tolist() == [10.0, 0.0, 0.0, 8.0, 8.0, 8.0]  # scale 2: one-sided 95% is 5
    assert spread.tolist() == [False, True, True, True, True, True]
    whole = region_interval(m, np.array([0]), np.array([], dtype=int), 0.95)
    assert (whole.low, whole.high, whole.covers) == (4.0, 10.0, "noise")


def test_region_interval_is_the_narrowest_split_and_bounds_both_parts():
    m = Measured(
        "cell",
        np.array([50.0, 40.0, 30.0, 5.0]),
        "discrete_laplace",
        np.full(4, 2.0),
        np.arange(4),
        np.ones(4, dtype=np.int64),
    )
    r = region_interval(m, np.array([0, 1]), np.array([2, 3]), 0.9)
    inner, outer = (
        NoiseSum("discrete_laplace", np.full(2, 2.0)),
        NoiseSum("discrete_laplace", np.full(4, 2.0)),
    )
    widths = {
        a: inner.upper(1 - a * 0.1) + outer.upper(1 - (1 - a) * 0.1) for a in np.arange(1, 20) / 20
    }
    best = min(widths, key=widths.get)
    assert r.low == 90 - inner.upper(1 - best * 0.1)
    assert r.high == 125 + outer.upper(1 - (1 - best) * 0.1)
    assert r.high - r.low == 35 + min(widths.values())
    assert r.covers == "noise and spread"
    empty = region_interval(m, np.array([], dtype=int), np.array([], dtype=int), 0.9)
    assert (empty.low, empty.high) == (0.0, 0.0)


def test_a_query_on_a_tree_map_uses_whole_and_cut_leaves():
    gen = np.random.default_rng(3)
    x, y = gen.normal(4, 1, 500) % 16, gen.normal(12, 1, 500) % 16
    hm = sp.heatmap((x, y), GRID, epsilon=1.0, method="privtree", crs=3035, rng=3)
    m, h = hm.measured, hm.hierarchy
    q = hm.query(box(0.5, 0.5, 15.5, 15.5))  # every leaf on the border is cut
    border = np.zeros((16, 16), dtype=bool)
    border[[0, -1], :] = border[:, [0, -1]] = True
    cut = np.unique(m.of_cell[border.ravel()])
    assert (q.n_cut, q.n_whole) == (cut.size, m.size - cut.size)
    assert q.ci_high >= m.raw.sum()
    assert q.unit == "leaf"
    assert h is not None


def test_intervals_shown_beside_an_estimate_contain_it():
    """The default map's posterior medians shrink: a cell read as 4 beside a raw 15 would show
    [9, 21]. Exports, plots and region queries widen the interval to the shown estimate (a
    superset, so coverage cannot drop); ``confidence_interval`` keeps the noise interval."""
    rng = np.random.default_rng(5)
    grid = sp.Grid.from_bounds((0, 0, 20_000, 20_000), cell_size=1_000, crs="EPSG:3035")
    x = np.r_[rng.normal(5_000, 800, 3_000), rng.uniform(0, 20_000, 500)]
    y = np.r_[rng.normal(5_000, 800, 3_000), rng.uniform(0, 20_000, 500)]
    hm = sp.heatmap((x, y), grid, epsilon=0.5, crs="EPSG:3035", rng=3)
    assert hm.steps == ("empirical_bayes",)
    low, high = hm.confidence_interval(0.95)
    outside = (hm.estimate < low) | (hm.estimate > high)
    assert outside.sum() >= 5  # the raw interval misses the shrunk estimate in some cells
    gdf = hm.to_geodataframe()
    count, shown_low, shown_high = (gdf[c].to_numpy() for c in ("count", "ci95_low", "ci95_high"))
    assert ((shown_low <= count) & (count <= shown_high)).all()
    assert (shown_low >= 0).all()
    kept = ~outside
    np.testing.assert_array_equal(shown_low[kept], low[kept])  # widened only where needed
    np.testing.assert_array_equal(shown_high[kept], high[kept])
    np.testing.assert_array_equal(np.minimum(low, hm.estimate), shown_low)
    for x0 in range(0, 20_000, 2_500):
        q = hm.query(box(x0 + 300, 3_300, x0 + 2_700, 6_900))
        assert q.ci_low <= max(q.estimate, 0) <= q.ci_high


@pytest.mark.parametrize("method", ["uniform", "privtree"])
def test_every_interval_sentence_says_bounded_contributions_count_only_the_kept_sites(method):
    # One observer with 40 sites in one cell, k = 2: the map counts 2 of them, so the cell's
    # interval covers the kept count, never the 40 (0 of 50 maps). Every sentence that states
    # an interval must say whose sites it counts; without bounding nothing is added.
    from dpatlas.cli.heatmap.outputs import interval_lines
    from dpatlas.plot import _interval_layers
    from dpatlas.spatial.products.formats.facts import release_facts

    x, y = np.full(40, 0.5), np.full(40, 0.5)
    options = {"epsilon": 1.0, "crs": 3035, "method": method, "max_sites_per_individual": 2}
    cell = GRID.ny * GRID.nx - GRID.nx  # row ny - 1 (south), column 0
    for seed in range(5):
        hm = sp.heatmap((x, y), GRID, rng=seed, individual_column=np.zeros(40), **options)
        assert (
            not hm.confidence_interval(0.95)[0][cell] <= 40 <= hm.confidence_interval(0.95)[1][cell]
        )
    kept = "of the sites kept, at most 2 per individual (chosen at random)"
    facts = release_facts(hm)
    units = ["interval_cell", "interval_leaf"][: 2 if hm.measured.unit == "leaf" else 1]
    assert all(kept in facts[unit] for unit in units)
    assert kept in " ".join(interval_lines(hm, []))
    assert kept in hm.query(box(0, 0, 1, 1)).describe()
    assert kept in _interval_layers(hm, 0.95, "cell")[1]
    plain = sp.heatmap((x, y), GRID, rng=0, **options)  # each row its own individual
    assert "kept" not in release_facts(plain)["interval_cell"]
    assert "kept" not in " ".join(interval_lines(plain, []))
    assert "kept" not in plain.query(box(0, 0, 1, 1)).describe()


def test_a_file_written_before_contributions_bounded_existed_still_says_kept_sites():
    """Files record the individual column by name; the key came later (found by review)."""
    from dpatlas.core.release import Release
    from dpatlas.spatial.products.intervals import kept_sites

    meta = {"individual_column": "observer", "max_sites_per_individual": 3}
    old = Release(
        0, 1.0, 0.0, "heatmap/uniform", 3.0, 3.0, "discrete_laplace", False, metadata=meta
    )
    assert kept_sites(old).startswith("of the sites kept, at most 3 per individual")
    meta = {"individual_column": None, "max_sites_per_individual": 1}
    plain = Release(
        0, 1.0, 0.0, "heatmap/uniform", 1.0, 1.0, "discrete_laplace", False, metadata=meta
    )
    assert kept_sites(plain) == ""
