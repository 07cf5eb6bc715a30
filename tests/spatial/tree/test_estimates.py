"""Post-processing of a released tree: non-negative and integer counts, cells, groups, empty
regions."""

from __future__ import annotations

import numpy as np
import pytest
from tests.helpers.trees import children_sums, random_tree

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
    subtree_estimates,
)


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


def corner_marks(h, shape):
    """The cumulative sums of corner marks that leaf_of_cell() ran before it was compiled."""
    leaves = np.flatnonzero(h.is_leaf)
    ids = leaves + 1
    marks = np.zeros((shape[0] + 1, shape[1] + 1), dtype=np.int64)
    np.add.at(marks, (h.r0[leaves], h.c0[leaves]), ids)
    np.add.at(marks, (h.r0[leaves], h.c1[leaves]), -ids)
    np.add.at(marks, (h.r1[leaves], h.c0[leaves]), -ids)
    np.add.at(marks, (h.r1[leaves], h.c1[leaves]), ids)
    return marks.cumsum(axis=0).cumsum(axis=1)[: shape[0], : shape[1]] - 1


@pytest.mark.parametrize("method", ["privtree", "adaptive"])
@pytest.mark.parametrize("shape", [(1, 1), (1, 40), (40, 1), (23, 57), (64, 64)])
def test_leaf_of_cell_equals_the_corner_marks_on_released_trees(method, shape):
    import dpatlas.spatial as sp

    grid = Grid(0.0, 0.0, 1.0, shape[1], shape[0], "EPSG:3035")
    gen = np.random.default_rng(shape[0] * shape[1])
    xy = (gen.uniform(0, shape[1], 2_000), gen.uniform(0, shape[0] * 0.3, 2_000))
    h = sp.heatmap(xy, grid, epsilon=1.0, method=method, crs="EPSG:3035", rng=1).hierarchy
    got = leaf_of_cell(h, shape)
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, corner_marks(h, shape))


def plain_to_cells(h, values, grid, *, integer=False):
    """The numpy gathers to_cells() ran before it was compiled."""
    leaf = corner_marks(h, grid.shape)[grid.released]
    values = np.asarray(values)
    share = values[leaf] / np.maximum(h.n_released[leaf], 1)
    if not integer:
        return share
    leaves, group = np.unique(leaf, return_inverse=True)
    return round_groups(share, group, values[leaves].astype(np.int64))


@pytest.mark.parametrize("masked", [False, True])
@pytest.mark.parametrize("shape", [(1, 1), (1, 40), (40, 1), (23, 57), (64, 64)])
def test_to_cells_equals_the_numpy_gathers_bit_for_bit(shape, masked):
    import dpatlas.spatial as sp

    gen = np.random.default_rng(shape[0] + 7 * shape[1])
    mask = gen.random(shape) < 0.6 if masked else None
    if mask is not None:
        mask.flat[0] = True
    grid = Grid(0.0, 0.0, 1.0, shape[1], shape[0], "EPSG:3035", mask=mask)
    xy = (gen.uniform(0, shape[1], 2_000), gen.uniform(0, shape[0] * 0.3, 2_000))
    for method in ("privtree", "adaptive"):
        hm = sp.heatmap(xy, grid, epsilon=1.0, method=method, crs="EPSG:3035", rng=2)
        h = hm.hierarchy
        counts = integer_counts(h, nonnegative(h, least_squares(h)))
        for values, integer in ((h.noisy, False), (least_squares(h), False), (counts, True)):
            want = plain_to_cells(h, values, grid, integer=integer)
            got = to_cells(h, values, grid, integer=integer)
            assert got.dtype == want.dtype
            assert got.tobytes() == want.tobytes()
        assert hm.release.value.tobytes() == plain_to_cells(h, h.noisy, grid).tobytes()
