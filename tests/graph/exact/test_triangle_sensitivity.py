"""LS(s), the relaxed ladder U(s) and smooth sensitivity against brute force.

Brute force (``tests/helpers/brute_triangles.py``) follows the definitions only: a graph's
local sensitivity is the largest change of the triangle count over all single pair flips, and
LS(s) is the largest local sensitivity over all graphs within s flips (every graph on n <= 5
nodes, tables over all 2^C(n,2) graphs).
"""

from __future__ import annotations

import math
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from tests.helpers.brute_triangles import (
    brute_ls_ball,
    graph_of,
    ls_table,
    nrs_formula,
    pairs_of,
)

from dpatlas.graph.exact import _pairs
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.triangle_sensitivity import (
    ladder_upper_bound,
    local_sensitivity,
    sensitivity_ladder,
    smooth_sensitivity,
)
from dpatlas.graph.input.edgegraph import as_edge_graph

# ---------------------------------------------------------------- exhaustive small graphs


def _check_all_masks(n: int, masks: np.ndarray) -> None:
    s_max = max(3, 2 * max(n - 2, 0) + 1)
    table = ls_table(n, s_max)
    s = np.arange(s_max + 1)
    betas = (0.1, 0.7, 3.0)
    uppers = np.empty((s_max + 1, 1 << len(pairs_of(n))), dtype=np.int64)
    for mask in masks.tolist():
        gx = graph_of(mask, n)
        stats = common_neighbour_stats(as_edge_graph(gx))
        ls = local_sensitivity(stats, s)
        assert ls.tolist() == table[:, mask].tolist(), (n, mask)
        assert ls.tolist() == nrs_formula(gx, s).tolist()
        ladder = sensitivity_ladder(stats)
        assert ladder.tolist() == ls[: ladder.size].tolist()
        assert ladder[-1] == max(n - 2, 0)
        assert ladder.size == 1 or ladder[-2] < max(n - 2, 0)
        uppers[:, mask] = ladder_upper_bound(stats, s)
        for beta in betas:
            want = max(v * math.exp(-beta * t) for t, v in enumerate(table[:, mask].tolist()))
            assert smooth_sensitivity(stats, beta) == pytest.approx(want, rel=1e-12)
    assert np.all(uppers[:, masks] >= table[:, masks])
    assert np.all(uppers[0, masks] == table[0, masks])
    for e in range(len(pairs_of(n))):
        neighbour = masks ^ (1 << e)
        assert np.all(table[:-1, masks] <= table[1:, neighbour])
        if np.all(np.isin(neighbour, masks)):
            assert np.all(uppers[:-1, masks] <= uppers[1:, neighbour])


@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5])
def test_every_graph_up_to_five_nodes(n: int) -> None:
    _check_all_masks(n, np.arange(1 << len(pairs_of(n)), dtype=np.int64))


def test_sample_of_six_node_graphs() -> None:
    rng = np.random.default_rng(6)
    _check_all_masks(6, np.unique(rng.integers(0, 1 << 15, size=150)))


@pytest.mark.slow
def test_every_graph_on_six_nodes() -> None:
    _check_all_masks(6, np.arange(1 << 15, dtype=np.int64))


@pytest.mark.slow
def test_sample_of_seven_node_graphs() -> None:
    rng = np.random.default_rng(7)
    _check_all_masks(7, np.unique(rng.integers(0, 1 << 21, size=400)))


# ---------------------------------------------------------------- structural cases


def _k2r(r: int, hub_edge: bool) -> nx.Graph:
    gx = nx.complete_bipartite_graph(2, r)
    if hub_edge:
        gx.add_edge(0, 1)
    return gx


STRUCTURAL = {
    "K5": nx.complete_graph(5),
    "K7": nx.complete_graph(7),
    "star4": nx.star_graph(4),
    "star6": nx.star_graph(6),
    "P6": nx.path_graph(6),
    "P8": nx.path_graph(8),
    "K2,3": _k2r(3, False),
    "K2,3+hub": _k2r(3, True),
    "K2,5": _k2r(5, False),
    "K2,6+hub": _k2r(6, True),
    "2K2": nx.Graph([(0, 1), (2, 3)]),
    "2K2+isolated": nx.Graph([(0, 1), (2, 3), (4, 4)]).copy(),
    "empty6": nx.empty_graph(6),
    "C7": nx.cycle_graph(7),
}
STRUCTURAL["2K2+isolated"].remove_edges_from(nx.selfloop_edges(STRUCTURAL["2K2+isolated"]))


@pytest.mark.parametrize("name", list(STRUCTURAL))
def test_structural_cases_against_ball_enumeration(name: str) -> None:
    gx = STRUCTURAL[name]
    n = gx.number_of_nodes()
    stats = common_neighbour_stats(gx)
    s_top = 3 if n <= 7 else 2
    want = [brute_ls_ball(gx, s) for s in range(s_top + 1)]
    assert local_sensitivity(stats, np.arange(s_top + 1)).tolist() == want
    assert np.all(ladder_upper_bound(stats, np.arange(s_top + 1)) >= want)
    s = np.arange(2 * n)
    assert local_sensitivity(stats, s).tolist() == nrs_formula(gx, s).tolist()


def test_random_graphs_on_eight_nodes_against_ball_enumeration() -> None:
    rng = np.random.default_rng(8)
    for _ in range(6):
        gx = nx.gnp_random_graph(8, float(rng.uniform(0.1, 0.7)), seed=int(rng.integers(1000)))
        stats = common_neighbour_stats(gx)
        want = [brute_ls_ball(gx, s) for s in range(3)]
        assert local_sensitivity(stats, np.arange(3)).tolist() == want


@pytest.mark.parametrize("n", [3, 5, 8])
def test_closed_forms(n: int) -> None:
    s = np.arange(3 * n)
    assert (
        local_sensitivity(common_neighbour_stats(nx.complete_graph(n)), s).tolist()
        == [n - 2] * s.size
    )
    empty = local_sensitivity(common_neighbour_stats(nx.empty_graph(n)), s)
    assert empty.tolist() == np.minimum(s // 2, n - 2).tolist()
    for hub_edge in (False, True):
        stats = common_neighbour_stats(_k2r(n, hub_edge))
        assert stats.a_max == n
        assert local_sensitivity(stats, 0) == n


def test_disjoint_edges_show_why_local_sensitivity_is_not_private() -> None:
    stats = common_neighbour_stats(nx.Graph([(0, 1), (2, 3)]))
    neighbour = common_neighbour_stats(nx.Graph([(0, 1), (2, 3), (1, 2)]))
    assert local_sensitivity(stats, 0) == 0
    assert local_sensitivity(neighbour, 0) == 1
    assert local_sensitivity(stats, 1) == 1


# ---------------------------------------------------------------- medium graphs: frontier vs all pairs


@pytest.mark.parametrize("tiny", [False, True])
def test_frontier_gives_the_all_pairs_value_on_medium_graphs(
    tiny: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    if tiny:
        monkeypatch.setattr(_pairs, "SEED_VERTICES", 2)
        monkeypatch.setattr(_pairs, "BLOCK_FLOPS", 40)
    rng = np.random.default_rng(5)
    graphs = [nx.gnp_random_graph(int(rng.integers(8, 200)), 0.08, seed=k) for k in range(6)]
    graphs += [nx.barabasi_albert_graph(250, 3, seed=1), nx.star_graph(150)]
    for gx in graphs:
        stats = common_neighbour_stats(gx)
        ladder = sensitivity_ladder(stats)
        s = np.arange(ladder.size + 5)
        want = nrs_formula(gx, s)
        assert local_sensitivity(stats, s).tolist() == want.tolist()
        assert ladder.tolist() == want[: ladder.size].tolist()
        upper = sensitivity_ladder(stats, relaxed=True)
        assert upper.size <= ladder.size
        assert np.all(upper >= want[: upper.size])


@pytest.mark.shared
@pytest.mark.filterwarnings("ignore:.*self-loop:UserWarning")
def test_ladder_on_ca_grqc(shared_datasets: Path) -> None:
    from dpatlas.graph.input.io import read_edgelist

    stats = common_neighbour_stats(read_edgelist(shared_datasets / "graphs" / "ca-GrQc.txt"))
    ladder = sensitivity_ladder(stats)
    upper = sensitivity_ladder(stats, relaxed=True)
    assert ladder[0] == upper[0] == 61
    assert ladder[-1] == upper[-1] == stats.n - 2
    assert np.all(np.diff(ladder) >= 0)
    assert np.all(upper >= ladder[: upper.size])
    assert local_sensitivity(stats, 10) == min(61 + 10, (10 + 156) // 2, stats.n - 2) == 71


# ---------------------------------------------------------------- validation


def test_argument_guards_and_return_types() -> None:
    stats = common_neighbour_stats(nx.path_graph(5))
    assert isinstance(local_sensitivity(stats, np.int64(2)), int)
    assert local_sensitivity(stats, [[0, 1], [2, 3]]).shape == (2, 2)
    assert isinstance(ladder_upper_bound(stats, 1), int)
    with pytest.raises(ValueError, match="s must be >= 0"):
        local_sensitivity(stats, -1)
    with pytest.raises(TypeError, match="s must be a non-negative integer"):
        local_sensitivity(stats, 1.5)
    with pytest.raises(TypeError, match="s must be a non-negative integer"):
        ladder_upper_bound(stats, True)
    with pytest.raises(TypeError, match=r"common_neighbour_stats\(graph\), got EdgeGraph"):
        sensitivity_ladder(as_edge_graph(nx.path_graph(5)))
    with pytest.raises(ValueError, match=r"beta must be a finite number > 0, got 0\.0"):
        smooth_sensitivity(stats, 0.0)
    assert smooth_sensitivity(common_neighbour_stats(nx.empty_graph(2)), 1.0) == 0.0
    assert sensitivity_ladder(common_neighbour_stats(nx.empty_graph(0))).tolist() == [0]
