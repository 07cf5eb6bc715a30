"""Hierarchy post-processing: least squares (against brute-force GLS), non-negativity, integers."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

from dpatlas.spatial import Grid
from dpatlas.spatial.products.postprocess import project_simplex
from dpatlas.spatial.tree._groups import project_groups, round_groups
from dpatlas.spatial.tree.estimates import (
    drop_empty,
    empty_regions,
    integer_counts,
    leaf_of_cell,
    nonnegative,
    to_cells,
)
from dpatlas.spatial.tree.hierarchy import (
    Hierarchy,
    least_squares,
    query_variance,
    subtree_estimates,
)


def random_tree(gen: np.random.Generator, *, side: int = 8, measured: float = 0.7) -> Hierarchy:
    """A random quadtree over a ``side × side`` grid with random noisy values and variances."""
    nodes = [(0, side, 0, side, -1)]
    i = 0
    while i < len(nodes):
        r0, r1, c0, c1, _ = nodes[i]
        if r1 - r0 > 1 and gen.random() < 0.6:
            rm, cm = (r0 + r1) // 2, (c0 + c1) // 2
            nodes += [
                (a, b, c, d, i) for a, b in ((r0, rm), (rm, r1)) for c, d in ((c0, cm), (cm, c1))
            ]
        i += 1
    r0, r1, c0, c1, parent = (np.array(v) for v in zip(*nodes, strict=True))
    leaf = np.ones(len(nodes), dtype=bool)
    leaf[parent[1:]] = False
    observe = leaf | (gen.random(len(nodes)) < measured)
    variance = np.where(observe, gen.uniform(0.5, 4.0, len(nodes)), np.inf)
    noisy = np.where(observe, gen.normal(5, 3, len(nodes)), np.nan)
    n_cells = (r1 - r0) * (c1 - c0)
    return Hierarchy(r0, r1, c0, c1, parent, noisy, variance, n_cells)


def brute_force_gls(h: Hierarchy) -> np.ndarray:
    """Weighted least squares over the leaf values (x = leaf totals; every node = sum of leaves)."""
    leaves = np.flatnonzero(h.is_leaf)
    below = np.zeros((h.size, leaves.size))
    below[leaves, np.arange(leaves.size)] = 1
    for i in range(h.size - 1, 0, -1):
        below[h.parent[i]] += below[i]
    seen = np.isfinite(h.variance)
    weight = 1 / np.sqrt(h.variance[seen])
    solution = np.linalg.lstsq(below[seen] * weight[:, None], h.noisy[seen] * weight, rcond=None)
    return below @ solution[0]


def children_sums(h: Hierarchy, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    internal = np.flatnonzero(~h.is_leaf)
    sums = np.zeros(h.size)
    np.add.at(sums, h.parent[1:], values[1:])
    return values[internal], sums[internal]


@pytest.mark.parametrize("seed", range(12))
def test_least_squares_is_the_weighted_least_squares_solution_and_consistent(seed):
    h = random_tree(np.random.default_rng(seed))
    x = least_squares(h)
    np.testing.assert_allclose(x, brute_force_gls(h), rtol=1e-9, atol=1e-9)
    parents, sums = children_sums(h, x)
    np.testing.assert_allclose(parents, sums, rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("seed", range(8))
def test_query_variance_is_the_variance_of_the_linear_least_squares_map(seed):
    gen = np.random.default_rng(seed)
    h = random_tree(gen)
    seen = np.flatnonzero(np.isfinite(h.variance))
    base = np.where(np.isnan(h.noisy), 0.0, h.noisy)
    columns = []
    for j in seen:  # A[:, j] = x(y + e_j) - x(y): the map is linear
        bumped = base.copy()
        bumped[j] += 1.0
        again = Hierarchy(
            h.r0,
            h.r1,
            h.c0,
            h.c1,
            h.parent,
            np.where(np.isnan(h.noisy), np.nan, bumped),
            h.variance,
            h.n_released,
        )
        columns.append(least_squares(again) - least_squares(h))
    a = np.array(columns).T
    for _ in range(5):
        q = gen.normal(size=h.size) * (gen.random(h.size) < 0.5)
        expected = float(((q @ a) ** 2 * h.variance[seen]).sum())
        assert query_variance(h, q) == pytest.approx(expected, rel=1e-9)


def test_least_squares_by_hand_two_levels():
    # parent 10 (var 2), children 4 and 4 (var 2): z = (10/2 + 8/4) / (1/2 + 1/4) = 28/3
    h = Hierarchy(
        [0, 0, 0], [1, 1, 1], [0, 0, 1], [2, 1, 2], [-1, 0, 0], [10, 4, 4], [2, 2, 2], [2, 1, 1]
    )
    np.testing.assert_allclose(least_squares(h), [28 / 3, 14 / 3, 14 / 3])


def test_unmeasured_parents_are_the_sum_and_exact_nodes_keep_their_value():
    nan, inf = np.nan, np.inf
    h = Hierarchy(
        [0, 0, 0], [1, 1, 1], [0, 0, 1], [2, 1, 2], [-1, 0, 0], [nan, 7, 0], [inf, 3, 0], [1, 1, 0]
    )
    np.testing.assert_allclose(least_squares(h), [7, 7, 0])
    h = Hierarchy(
        [0, 0, 0], [1, 1, 1], [0, 0, 1], [2, 1, 2], [-1, 0, 0], [20, 7, 0], [1, 3, 0], [1, 1, 0]
    )
    np.testing.assert_allclose(least_squares(h), [16.75, 16.75, 0])


@pytest.mark.parametrize("seed", range(12))
def test_nonnegative_keeps_the_total_consistency_and_sign(seed):
    h = random_tree(np.random.default_rng(seed))
    x = least_squares(h) - 4.0 * h.is_leaf  # push some leaves below zero
    x = least_squares(Hierarchy(h.r0, h.r1, h.c0, h.c1, h.parent, x, h.variance, h.n_released))
    y = nonnegative(h, x)
    assert (y >= 0).all()
    assert y[0] == pytest.approx(max(x[0], 0.0))
    parents, sums = children_sums(h, y)
    np.testing.assert_allclose(parents, sums, rtol=1e-9, atol=1e-9)
    clamped_total = np.maximum(x[h.is_leaf], 0).sum()
    if (x[h.is_leaf] < 0).any() and x[0] > 0:
        assert clamped_total > y[0]  # plain clamping would inflate the total


def test_nonnegative_of_a_negative_total_is_all_zero():
    h = Hierarchy(
        [0, 0, 0],
        [1, 1, 1],
        [0, 0, 1],
        [2, 1, 2],
        [-1, 0, 0],
        [np.nan, -5, 2],
        [np.inf, 1, 1],
        [2, 1, 1],
    )
    np.testing.assert_array_equal(nonnegative(h, least_squares(h)), [0, 0, 0])


@pytest.mark.parametrize("seed", range(6))
def test_integer_counts_are_consistent_integers_with_the_rounded_total(seed):
    h = random_tree(np.random.default_rng(seed))
    y = nonnegative(h, least_squares(h))
    k = integer_counts(h, y)
    assert k.dtype == np.int64
    assert (k >= 0).all()
    assert k[0] == int(np.floor(y[0] + 0.5))
    parents, sums = children_sums(h, k.astype(float))
    np.testing.assert_array_equal(parents, sums)
    assert np.abs(k - y).max() < h.size


def test_to_cells_spreads_leaves_over_their_released_cells_only():
    grid = Grid.from_bounds((0, 0, 4, 2), cell_size=1, crs="EPSG:3035")
    mask = np.array([[True, True, False, True], [True, True, True, True]])
    grid = Grid(grid.x0, grid.y0, 1, 4, 2, grid.crs, mask=mask)
    h = Hierarchy(
        [0, 0, 0],
        [2, 2, 2],
        [0, 0, 2],
        [4, 2, 4],
        [-1, 0, 0],
        [np.nan, 8, 6],
        [np.inf, 1, 1],
        [7, 4, 3],
    )
    np.testing.assert_allclose(to_cells(h, h.noisy, grid), [2, 2, 2, 2, 2, 2, 2])
    ints = to_cells(h, np.array([14, 9, 5]), grid, integer=True)
    assert ints.tolist() == [3, 2, 2, 2, 2, 2, 1]  # leaf 1 = cells 0, 1, 3, 4; leaf 2 = 2, 5, 6


def test_leaf_of_cell_matches_painting():
    h = random_tree(np.random.default_rng(3))
    painted = np.full((8, 8), -1)
    for i in np.flatnonzero(h.is_leaf):
        painted[h.r0[i] : h.r1[i], h.c0[i] : h.c1[i]] = i
    np.testing.assert_array_equal(leaf_of_cell(h, (8, 8)), painted)


def test_group_projection_matches_the_simplex_projection_per_group():
    gen = np.random.default_rng(0)
    for _ in range(100):
        sizes = gen.integers(1, 6, gen.integers(1, 6))
        group = np.repeat(np.arange(sizes.size), sizes)
        gen.shuffle(group)
        values, target = gen.normal(0, 3, group.size), gen.normal(3, 4, sizes.size)
        out = project_groups(values, group, target)
        for g in range(sizes.size):
            np.testing.assert_allclose(
                out[group == g], project_simplex(values[group == g], target[g])
            )


def test_group_rounding_meets_every_target():
    gen = np.random.default_rng(1)
    group = gen.integers(0, 5, 40)
    values = gen.uniform(0, 3, 40)
    target = np.round(np.bincount(group, weights=values, minlength=5)).astype(np.int64)
    out = round_groups(values, group, target)
    np.testing.assert_array_equal(np.bincount(group, weights=out, minlength=5), target)
    assert np.abs(out - values).max() < 1 + 1e-12


def test_metadata_round_trip_through_strict_json():
    h = random_tree(np.random.default_rng(1), measured=0.3)
    assert np.isinf(h.variance).any()
    text = json.dumps({k: v.tolist() for k, v in h.to_metadata().items()}, allow_nan=False)
    again = Hierarchy.from_metadata(json.loads(text))
    np.testing.assert_array_equal(again.noisy, h.noisy)
    np.testing.assert_array_equal(again.variance, h.variance)
    np.testing.assert_array_equal(again.parent, h.parent)


def test_bad_hierarchies_are_refused():
    with pytest.raises(ValueError, match="parents before children"):
        Hierarchy([0, 0], [1, 1], [0, 0], [1, 1], [-1, 1], [1, 1], [1, 1], [1, 1])
    with pytest.raises(ValueError, match="every leaf must be measured"):
        Hierarchy([0, 0], [1, 1], [0, 0], [1, 1], [-1, 0], [1, np.nan], [1, np.inf], [1, 1])
    with pytest.raises(ValueError, match="1-D of one length"):
        Hierarchy([0, 0], [1, 1], [0, 0], [1, 1], [-1, 0], [1, 1], [1, 1], [1])


def test_post_processing_reads_only_released_values():
    """Every post-processing function takes the hierarchy (noisy values, variances), never sites."""
    for fn in (
        least_squares,
        subtree_estimates,
        nonnegative,
        empty_regions,
        drop_empty,
        integer_counts,
        to_cells,
    ):
        for name, param in inspect.signature(fn).parameters.items():
            assert "SiteCounts" not in str(param.annotation), (fn.__name__, name)
    assert "count" not in Hierarchy.__dataclass_fields__


@pytest.mark.parametrize("seed", range(6))
def test_subtree_estimates_of_a_leaves_only_tree_are_leaf_sums(seed):
    h = random_tree(np.random.default_rng(seed), measured=0.0)
    own, var = subtree_estimates(h)
    below = np.where(h.is_leaf, h.noisy, 0.0)
    below_var = np.where(h.is_leaf, h.variance, 0.0)
    for idx in reversed(h.levels()[1:]):
        np.add.at(below, h.parent[idx], below[idx])
        np.add.at(below_var, h.parent[idx], below_var[idx])
    np.testing.assert_allclose(own, below)
    np.testing.assert_allclose(var, below_var)


def test_subtree_estimates_pool_a_measured_node_with_its_children():
    h = Hierarchy([0, 0, 0], [1, 1, 1], [0, 0, 1], [2, 1, 2], [-1, 0, 0],
                  [10.0, 4.0, 4.0], [2.0, 2.0, 2.0], [2, 1, 1])  # fmt: skip
    own, var = subtree_estimates(h)
    # (10/2 + 8/4) / (1/2 + 1/4) and 1 / (1/2 + 1/4); the children only see themselves
    np.testing.assert_allclose(own, [28 / 3, 4.0, 4.0])
    np.testing.assert_allclose(var, [4 / 3, 2.0, 2.0])


def _quad(noisy: list[float], variance: float = 2.0) -> Hierarchy:
    """A 2×2 grid: root and four one-cell leaves with these noisy counts."""
    return Hierarchy(
        r0=[0, 0, 0, 1, 1],
        r1=[2, 1, 1, 2, 2],
        c0=[0, 0, 1, 0, 1],
        c1=[2, 1, 2, 1, 2],
        parent=[-1, 0, 0, 0, 0],
        noisy=[np.nan, *noisy],
        variance=[np.inf, *[variance] * 4],
        n_released=[4, 1, 1, 1, 1],
    )


def test_empty_regions_flags_regions_within_z_noise_sds_of_zero():
    h = _quad([50.0, 2.9, 3.1, -4.0])  # sd 2**0.5 = 1.414 per leaf: 1.5 sd = 2.12, 2 sd = 2.83
    assert empty_regions(h, min_share=0.25).tolist() == [False, False, False, False, True]
    assert empty_regions(h, z=2.0, min_share=0.25).tolist() == [False, False, False, False, True]
    assert empty_regions(h, z=2.1, min_share=0.25).tolist() == [False, False, True, False, True]
    assert empty_regions(h, z=0.0, min_share=0.25).tolist() == [False, False, False, False, True]
    # regions smaller than min_share of the released cells are never judged, nor is the root
    assert not empty_regions(h, z=100.0, min_share=0.5).any()
    assert not empty_regions(_quad([0.0] * 4), z=100.0, min_share=1.0).any()


def test_empty_regions_marks_the_whole_subtree_of_an_empty_node():
    gen = np.random.default_rng(3)
    h = random_tree(gen, side=16, measured=0.0)
    empty = empty_regions(h, z=1.0, min_share=1 / 64)
    own, var = subtree_estimates(h)
    tested = (h.n_released >= 4) & (own <= np.sqrt(var))
    tested[0] = False
    assert tested.any()
    # empty = tested itself, or below a tested node
    below = tested.copy()
    for i in range(1, h.size):
        below[i] |= below[h.parent[i]]
    np.testing.assert_array_equal(empty, below)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"z": -1.0}, "z must be a finite number >= 0, got -1.0"),
        ({"z": float("inf")}, "z must be a finite number >= 0, got inf"),
        ({"z": True}, "z must be a finite number >= 0, got True"),
        ({"min_share": 0.0}, r"min_share must be a number in \(0, 1\], got 0.0"),
        ({"min_share": 2}, r"min_share must be a number in \(0, 1\], got 2"),
    ],
)
def test_empty_regions_refuses_bad_parameters(kwargs, message):
    with pytest.raises(ValueError, match=message):
        empty_regions(_quad([1.0] * 4), **kwargs)


@pytest.mark.parametrize("seed", range(6))
def test_drop_empty_keeps_the_total_and_consistency(seed):
    gen = np.random.default_rng(seed)
    h = random_tree(gen, side=16, measured=0.0)
    values = nonnegative(h, least_squares(h))
    empty = empty_regions(h, z=1.0, min_share=1 / 64)
    dropped = drop_empty(h, values, empty)
    assert dropped[0] == pytest.approx(values[0])
    assert (dropped[empty] == 0).all()
    assert (dropped >= 0).all()
    internal, sums = children_sums(h, dropped)
    np.testing.assert_allclose(internal, sums, atol=1e-9)
    kept = h.is_leaf & ~empty & (values > 0)
    ratio = dropped[kept] / values[kept]
    np.testing.assert_allclose(ratio, ratio[0])  # the mass goes back in proportion


def test_drop_empty_with_everything_empty_changes_nothing():
    h = _quad([1.0, 1.0, 1.0, 1.0])
    values = np.array([4.0, 1.0, 1.0, 1.0, 1.0])
    out = drop_empty(h, values, np.array([False, True, True, True, True]))
    np.testing.assert_array_equal(out, values)
