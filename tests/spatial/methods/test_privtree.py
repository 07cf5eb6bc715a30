"""PrivTree: the tree it grows, the release contract, the budget, the leaf noise (the split
decisions, their exact privacy and their sampler: ``test_splitrule.py``)."""

from __future__ import annotations

import numpy as np
import pytest
from tests.helpers.distributions import assert_scale_detected, dlap_pmf
from tests.helpers.sources import CountingSource

from dpatlas.core import Budget, get_source
from dpatlas.errors import BudgetExceededError
from dpatlas.spatial import Grid, SiteCounts, heatmap
from dpatlas.spatial.methods import METHODS
from dpatlas.spatial.methods.privtree import grow_tree, privtree_release
from dpatlas.spatial.tree.hierarchy import Hierarchy, least_squares

ALPHA = 1e-6
GRID = Grid.from_bounds((0, 0, 64, 64), cell_size=1, crs="EPSG:3035")


def test_privtree_refuses_theta_and_theta_levels_together_before_spending():
    budget = Budget(epsilon=1.0)
    data = SiteCounts(np.ones(16, dtype=np.int64), np.empty(0), np.empty(0), 1)
    grid = Grid.from_bounds((0, 0, 4, 4), cell_size=1, crs="EPSG:3035")
    with pytest.raises(ValueError, match=r"give theta \(counts\) or theta_levels"):
        privtree_release(
            data, grid, epsilon=0.5, source=get_source(0), budget=budget, theta=0.0,
            theta_levels=2.0,
        )  # fmt: skip
    assert budget.spent.epsilon == 0


class SpyRule:
    """Always split, and record how many nodes were tested at each depth."""

    def __init__(self) -> None:
        self.tested: dict[int, int] = {}

    def decide(self, counts, depth, source):
        if len(counts):
            self.tested[depth] = self.tested.get(depth, 0) + len(counts)
        return np.ones(len(counts), dtype=bool)


def test_single_cells_and_empty_blocks_are_leaves_without_a_decision():
    grid = Grid.from_bounds((0, 0, 4, 4), cell_size=1, crs="EPSG:3035")
    released = np.ones((4, 4), dtype=bool)
    released[:2, :2] = False  # one quadrant has no released cell
    spy = SpyRule()
    tree = grow_tree(np.ones((4, 4), dtype=np.int64), released, spy, get_source(0))
    assert spy.tested == {0: 1, 1: 3}  # root, three quadrants; never a single cell
    assert tree["parent"].size == 1 + 4 + 12
    assert grid.n_cells == 16


def test_a_thin_grid_halves_only_its_long_side():
    spy = SpyRule()
    tree = grow_tree(np.ones((1, 5), dtype=np.int64), np.ones((1, 5), bool), spy, get_source(0))
    widths = (tree["c1"] - tree["c0"]).tolist()
    assert widths == [5, 3, 2, 2, 1, 1, 1, 1, 1]
    assert (tree["r1"] - tree["r0"] == 1).all()


def _data(gen: np.random.Generator, n: int = 5_000) -> SiteCounts:
    cells = np.minimum(gen.exponential(300, n).astype(np.int64), GRID.n_released - 1)
    return SiteCounts(np.bincount(cells, minlength=GRID.n_released), np.empty(0), np.empty(0), 1)


def test_release_contract_totals_tree_and_metadata():
    data = _data(np.random.default_rng(0))
    rel = privtree_release(data, GRID, epsilon=1.0, source=get_source(5), budget=None)
    h = Hierarchy.from_metadata(rel.metadata["hierarchy"])
    leaf = h.is_leaf
    assert rel.value.sum() == pytest.approx(h.noisy[leaf].sum())
    assert np.isnan(h.noisy[~leaf]).all()
    assert np.isinf(h.variance[~leaf]).all()
    assert ((h.r1 - h.r0) * (h.c1 - h.c0))[leaf].sum() == GRID.n_cells
    assert rel.metadata["epsilon_tree"] + rel.metadata["epsilon_leaves"] == 1.0
    assert (rel.epsilon, rel.delta, rel.seeded, rel.scale) == (1.0, 0.0, True, None)
    assert least_squares(h)[0] == pytest.approx(h.noisy[leaf].sum())


def test_same_seed_same_map_and_tree():
    data = _data(np.random.default_rng(1))
    a = privtree_release(data, GRID, epsilon=0.5, source=get_source(9), budget=None)
    b = privtree_release(data, GRID, epsilon=0.5, source=get_source(9), budget=None)
    np.testing.assert_array_equal(a.value, b.value)
    for key, value in a.metadata["hierarchy"].items():
        np.testing.assert_array_equal(value, b.metadata["hierarchy"][key])


class WatchedBudget(Budget):
    """Records how many random words had been drawn when each spend happened."""

    def __init__(self, epsilon: float, source) -> None:
        super().__init__(epsilon)
        self.source, self.words_at_spend = source, []

    def spend(self, *args, **kwargs):
        self.words_at_spend.append(self.source.drawn)
        return super().spend(*args, **kwargs)


def test_budget_is_debited_once_in_total_before_any_noise():
    source = CountingSource(2)
    budget = WatchedBudget(1.0, source)
    privtree_release(
        _data(np.random.default_rng(2)), GRID, epsilon=0.75, source=source, budget=budget
    )
    assert budget.words_at_spend == [0]
    assert len(budget.history) == 1
    assert float(budget.history[0].epsilon) == 0.75
    assert source.drawn > 0
    source = CountingSource(3)
    with pytest.raises(BudgetExceededError):
        privtree_release(
            _data(np.random.default_rng(2)), GRID, epsilon=0.5, source=source, budget=budget
        )
    assert source.drawn == 0
    assert len(budget.history) == 1


def test_tree_fraction_is_validated():
    with pytest.raises(ValueError, match="tree_fraction must be a float in"):
        privtree_release(
            _data(np.random.default_rng(0)),
            GRID,
            epsilon=1.0,
            source=get_source(0),
            budget=None,
            tree_fraction=1.0,
        )


@pytest.mark.parametrize(("method", "eps_leaf"), [("privtree", 0.5), ("auto", 2 / 3)])
def test_leaf_noise_has_the_scale_of_the_leaf_budget(method, eps_leaf):
    """Leaf count minus exact count, pooled over 150 releases (the trees differ, the leaf noise
    is i.i.d. given the tree): chi-square at α = 1e-6 accepts 1/ε_leaf, rejects ×0.7 and ×1.3."""
    data = _data(np.random.default_rng(1))
    exact_grid = data.counts.reshape(GRID.shape)
    noise = []
    for seed in range(150):
        options = {"target": "regions"} if method == "auto" else {}
        rel = METHODS[method](
            data, GRID, epsilon=1.0, source=get_source(seed), budget=None, **options
        )
        h = Hierarchy.from_metadata(rel.metadata["hierarchy"])
        assert rel.metadata["epsilon_leaves"] == pytest.approx(eps_leaf)
        for i in np.flatnonzero(h.is_leaf & (h.n_released > 0)):
            exact = exact_grid[h.r0[i] : h.r1[i], h.c0[i] : h.c1[i]].sum()
            noise.append(h.noisy[i] - exact)
    samples = np.asarray(noise, dtype=np.int64)
    assert samples.size > 20_000
    assert_scale_detected(samples, dlap_pmf, 1 / eps_leaf, alpha=ALPHA)


@pytest.mark.parametrize("theta", [1e16, -1e16, 9.007199254740991e15])
def test_privtree_refuses_a_theta_beyond_int64_before_spending(theta):
    """θ = 1e16 passed every check, then the budget was debited and the split test raised
    OverflowError: ε spent, nothing released. It is refused now, before the sites are read."""
    budget = Budget(epsilon=1.0)
    xy = (np.array([1.5, 2.5]), np.array([1.5, 2.5]))
    grid = Grid.from_bounds((0, 0, 8, 8), cell_size=1, crs="EPSG:3035")
    with pytest.raises(ValueError, match=r"theta must be at most 2\*\*48 counts in size"):
        heatmap(
            xy, grid, epsilon=1.0, method="privtree", method_options={"theta": theta},
            budget=budget, crs="EPSG:3035", rng=0,
        )  # fmt: skip
    assert budget.spent.epsilon == 0
