"""Adaptive grid (AG): level sizes, block partitions, budget, data-independence of the levels."""

from __future__ import annotations

import numpy as np
import pytest
from tests.helpers.sources import CountingSource

from dpatlas.core import Budget, get_source
from dpatlas.errors import BudgetExceededError
from dpatlas.spatial import Grid, SiteCounts
from dpatlas.spatial.methods._cells import block_edges
from dpatlas.spatial.methods.adaptive import _sub_blocks, adaptive_release, first_level_size
from dpatlas.spatial.tree.hierarchy import Hierarchy, least_squares

GRID = Grid.from_bounds((0, 0, 100, 60), cell_size=1, crs="EPSG:3035")


def _data(counts: np.ndarray) -> SiteCounts:
    return SiteCounts(np.asarray(counts, dtype=np.int64).ravel(), np.empty(0), np.empty(0), 1)


def _clustered(seed: int = 0, n: int = 20_000) -> np.ndarray:
    gen = np.random.default_rng(seed)
    rows = np.clip(gen.normal(20, 6, n), 0, 59).astype(int)
    cols = np.clip(gen.normal(70, 9, n), 0, 99).astype(int)
    return np.bincount(rows * 100 + cols, minlength=6000)


@pytest.mark.parametrize(
    ("n", "eps", "shape", "expected"),
    [
        (1e4, 1.0, (256, 256), (10, 10)),  # ¼·sqrt(1000) = 7.9 -> the floor of 10
        (1e6, 1.0, (256, 256), (80, 80)),  # ¼·sqrt(100000) = 79.06 -> 80
        (1e6, 0.1, (256, 256), (25, 25)),
        (1e4, 1.0, (5, 500), (1, 100)),  # 100 blocks shared by aspect ratio
        (1e9, 1.0, (20, 30), (20, 30)),  # never more blocks than cells
    ],
)
def test_first_level_size(n, eps, shape, expected):
    assert first_level_size(n, eps, shape) == expected


def test_sub_blocks_tile_their_parents():
    ry, rx = block_edges(60, 7), block_edges(100, 9)
    r0, c0 = (a.ravel() for a in np.meshgrid(ry[:-1], rx[:-1], indexing="ij"))
    r1, c1 = (a.ravel() for a in np.meshgrid(ry[1:], rx[1:], indexing="ij"))
    m2 = np.random.default_rng(0).integers(1, 20, r0.size)
    s0, s1, t0, t1, parent = _sub_blocks(r0, r1, c0, c1, m2)
    cover = np.zeros((60, 100), dtype=int)
    for a, b, c, d, p in zip(s0, s1, t0, t1, parent, strict=True):
        assert r0[p] <= a < b <= r1[p]
        assert c0[p] <= c < d <= c1[p]
        cover[a:b, c:d] += 1
    np.testing.assert_array_equal(cover, 1)
    per_parent = np.bincount(parent, minlength=r0.size)
    expected = np.minimum(m2, r1 - r0) * np.minimum(m2, c1 - c0)
    np.testing.assert_array_equal(per_parent, expected)


def test_release_levels_consistency_and_metadata():
    rel = adaptive_release(
        _data(_clustered()), GRID, epsilon=1.0, source=get_source(1), budget=None
    )
    h = Hierarchy.from_metadata(rel.metadata["hierarchy"])
    assert h.depth.max() == 2
    level1 = np.flatnonzero(h.depth == 1)
    assert level1.size == np.prod(rel.metadata["level1_blocks"])
    leaf = h.is_leaf
    assert ((h.r1 - h.r0) * (h.c1 - h.c0))[leaf].sum() == GRID.n_cells
    assert rel.value.sum() == pytest.approx(h.noisy[leaf].sum())
    x = least_squares(h)
    sums = np.zeros(h.size)
    np.add.at(sums, h.parent[1:], x[1:])
    np.testing.assert_allclose(x[~leaf], sums[~leaf], atol=1e-8)
    meta = rel.metadata
    assert meta["epsilon_n"] + meta["epsilon_level1"] + meta["epsilon_level2"] == pytest.approx(1.0)
    assert not meta["n_sites_public"]
    assert np.isfinite(h.variance[0])
    assert (rel.mechanism, rel.epsilon, rel.seeded) == ("heatmap/adaptive", 1.0, True)


def test_dense_blocks_are_refined_and_empty_ones_are_not():
    rel = adaptive_release(
        _data(_clustered()), GRID, epsilon=1.0, source=get_source(2), budget=None, n_sites=20_000
    )
    h = Hierarchy.from_metadata(rel.metadata["hierarchy"])
    children = np.bincount(h.parent[1:], minlength=h.size)[np.flatnonzero(h.depth == 1)]
    assert children.max() >= 9
    assert children.min() <= 2
    assert rel.metadata["n_sites_public"]
    assert np.isinf(h.variance[0])
    assert rel.metadata["epsilon_level1"] == 0.5


def test_level_two_depends_only_on_released_level_one_values():
    """Two datasets with equal block counts at level 1 get the same partition under one seed."""
    a = _clustered(3)
    b = a.reshape(60, 100).copy()
    my, mx = first_level_size(20_000, 0.2 * 0.98, (60, 100))  # the floor of 10 blocks applies
    ry, rx = block_edges(60, my), block_edges(100, mx)
    for i in range(my):  # shuffle the counts inside each level-1 block
        for j in range(mx):
            block = b[ry[i] : ry[i + 1], rx[j] : rx[j + 1]]
            block[...] = (
                np.random.default_rng(i * 10 + j).permutation(block.ravel()).reshape(block.shape)
            )
    assert not np.array_equal(a, b.ravel())
    runs = [
        adaptive_release(_data(c), GRID, epsilon=0.2, source=get_source(4), budget=None)
        for c in (a, b.ravel())
    ]
    assert runs[0].metadata["level1_blocks"] == [my, mx] == [8, 13]
    for key in ("r0", "r1", "c0", "c1", "parent"):
        np.testing.assert_array_equal(
            runs[0].metadata["hierarchy"][key], runs[1].metadata["hierarchy"][key]
        )


def test_blocks_without_released_cells_get_no_noise():
    mask = np.zeros((60, 100), dtype=bool)
    mask[:, 50:] = True
    grid = Grid(0.0, 0.0, 1.0, 100, 60, "EPSG:3035", mask=mask)
    counts = _clustered().reshape(60, 100)[mask]
    rel = adaptive_release(_data(counts), grid, epsilon=1.0, source=get_source(5), budget=None)
    h = Hierarchy.from_metadata(rel.metadata["hierarchy"])
    empty = h.n_released == 0
    assert empty.any()
    assert (h.noisy[empty] == 0).all()
    assert (h.variance[empty] == 0).all()
    assert rel.value.shape == (grid.n_released,)


def test_budget_debited_once_before_noise_and_refused_overspend():
    source = CountingSource(6)
    budget = Budget(1.0)
    seen = []
    spend = budget.spend
    budget.spend = lambda *a, **k: (seen.append(source.drawn), spend(*a, **k))[1]  # type: ignore[method-assign]
    adaptive_release(_data(_clustered()), GRID, epsilon=0.6, source=source, budget=budget)
    assert seen == [0]
    assert len(budget.history) == 1
    source = CountingSource(7)
    with pytest.raises(BudgetExceededError):
        adaptive_release(_data(_clustered()), GRID, epsilon=0.6, source=source, budget=budget)
    assert source.drawn == 0


def test_same_seed_same_release():
    runs = [
        adaptive_release(_data(_clustered()), GRID, epsilon=0.3, source=get_source(8), budget=None)
        for _ in range(2)
    ]
    np.testing.assert_array_equal(runs[0].value, runs[1].value)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"alpha": 1.0}, "alpha must be a float in"),
        ({"n_fraction": 0}, "n_fraction must be a float in"),
        ({"n_sites": -3}, "n_sites must be a finite public number"),
        ({"n_sites": float("inf")}, "n_sites must be a finite public number"),
        ({"n_sites": float("nan")}, "n_sites must be a finite public number"),
        ({"n_sites": True}, "n_sites must be a finite public number"),
    ],
)
def test_bad_options_are_refused(kwargs, message):
    with pytest.raises(ValueError, match=message):
        adaptive_release(
            _data(_clustered()), GRID, epsilon=1.0, source=get_source(0), budget=None, **kwargs
        )
