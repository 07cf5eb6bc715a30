"""The released tree: least squares (against brute-force GLS), query variances, subtree estimates,
metadata (post-processing of the tree: ``test_estimates.py``)."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest
from tests.helpers.trees import children_sums, random_tree

from dpatlas.spatial.tree.estimates import (
    drop_empty,
    empty_regions,
    integer_counts,
    nonnegative,
    to_cells,
)
from dpatlas.spatial.tree.hierarchy import (
    Hierarchy,
    least_squares,
    query_variance,
    subtree_estimates,
)


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
