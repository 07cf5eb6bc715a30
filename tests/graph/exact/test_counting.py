"""Exact counts and common-neighbour statistics against networkx and dense brute force."""

from __future__ import annotations

import math
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

from dpatlas.graph._testgraphs import chung_lu_edges
from dpatlas.graph.exact import _forward, _pairs
from dpatlas.graph.exact.counting import (
    CommonNeighbourStats,
    common_neighbour_stats,
    triangle_count_exact,
    wedge_count,
)
from dpatlas.graph.input.edgegraph import as_edge_graph


def dense_pair_stats(gx: nx.Graph) -> tuple[int, int, set[tuple[int, int]]]:
    """(a_max, c_max, Pareto frontier) over all pairs from a dense A @ A (brute force)."""
    a = nx.to_numpy_array(gx, dtype=np.int64)
    n = a.shape[0]
    if n < 2:
        return 0, 0, set()
    i, j = np.triu_indices(n, 1)
    common = (a @ a)[i, j]
    d = a.sum(axis=1)
    c = d[i] + d[j] - 2 * a[i, j]
    points = set(zip(common.tolist(), c.tolist(), strict=True))
    front = {p for p in points if not any(q != p and q[0] >= p[0] and q[1] >= p[1] for q in points)}
    return int(common.max()), int(c.max()), front


def test_dense_pair_stats_helper_on_hand_computed_graphs() -> None:
    assert dense_pair_stats(nx.complete_graph(4)) == (2, 4, {(2, 4)})
    assert dense_pair_stats(nx.star_graph(3)) == (1, 2, {(1, 2)})
    assert dense_pair_stats(nx.path_graph(4)) == (1, 3, {(1, 3)})
    assert dense_pair_stats(nx.Graph([(0, 1), (1, 2), (3, 4), (3, 5), (3, 6)])) == (
        1,
        5,
        {(0, 5), (1, 2)},
    )


def _families() -> list[nx.Graph]:
    graphs = [
        nx.gnp_random_graph(n, p, seed=seed)
        for seed, (n, p) in enumerate([(30, 0.2), (150, 0.05), (300, 0.02), (200, 0.3)])
    ]
    graphs += [nx.barabasi_albert_graph(n, k, seed=k) for n, k in [(300, 2), (400, 5)]]
    graphs += [
        nx.powerlaw_cluster_graph(300, 4, 0.5, seed=1),
        nx.random_regular_graph(4, 200, seed=2),
    ]
    graphs += [nx.connected_caveman_graph(12, 14), nx.complete_multipartite_graph(3, 5, 150)]
    graphs.append(nx.Graph(chung_lu_edges(600, 3000, exponent=2.2, offset=2.0, seed=3).tolist()))
    star_of_cliques = nx.disjoint_union_all([nx.complete_graph(6) for _ in range(25)])
    star_of_cliques.add_edges_from((150, v) for v in range(0, 150, 3))
    graphs.append(star_of_cliques)
    return graphs


FAMILIES = _families()


@pytest.fixture(params=["default", "tiny_blocks"])
def search_knobs(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Run each test with the real settings and with settings that force every code path."""
    if request.param == "tiny_blocks":
        monkeypatch.setattr(_pairs, "SEED_VERTICES", 2)
        monkeypatch.setattr(_pairs, "BLOCK_FLOPS", 40)
        monkeypatch.setattr(_pairs, "MAX_BLOCK_ROWS", 3)
        monkeypatch.setattr(_forward, "HUB_WORDS", 1)
    return str(request.param)


@pytest.mark.parametrize("hub_words", [1, 16])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
def test_compiled_kernel_counts_each_triangle_once(
    dtype: type, hub_words: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    # an 80-clique (64 hubs at hub_words=1: its triangles straddle bitsets and flag scans), 30
    # disjoint 4-cliques and a triangle-free star; compiled once per index width
    monkeypatch.setattr(_forward, "HUB_WORDS", hub_words)
    gx = nx.disjoint_union_all([nx.complete_graph(80)] + [nx.complete_graph(4)] * 30)
    gx.add_edges_from((999, v) for v in range(80, 200, 7))
    g = as_edge_graph(gx)
    order = np.argsort(-g.degrees, kind="stable")
    got = _forward.count_triangles(g.indptr.astype(dtype), g.indices.astype(dtype), order)
    assert got == math.comb(80, 3) + 30 * 4 == sum(nx.triangles(gx).values()) // 3
    assert _forward.count_triangles(g.indptr, g.indices[:0], order) == 0


@pytest.mark.parametrize("k", range(len(FAMILIES)))
def test_triangles_and_wedges_match_networkx(k: int, search_knobs: str) -> None:
    gx = FAMILIES[k]
    g = as_edge_graph(gx)
    assert triangle_count_exact(g) == sum(nx.triangles(gx).values()) // 3
    assert wedge_count(g) == sum(d * (d - 1) // 2 for _, d in gx.degree())


@pytest.mark.parametrize("k", range(len(FAMILIES)))
def test_stats_match_dense_brute_force(k: int, search_knobs: str) -> None:
    gx = FAMILIES[k]
    stats = common_neighbour_stats(as_edge_graph(gx))
    a_max, c_max, front = dense_pair_stats(gx)
    assert (stats.a_max, stats.c_max) == (a_max, c_max)
    assert {tuple(p) for p in stats.frontier.tolist()} == front
    assert stats.frontier.dtype == np.int64
    assert np.all(np.diff(stats.frontier[:, 0]) > 0)
    assert np.all(np.diff(stats.frontier[:, 1]) < 0)
    assert stats.triangles == sum(nx.triangles(gx).values()) // 3
    assert (stats.n, stats.m, stats.d_max) == (
        gx.number_of_nodes(),
        gx.number_of_edges(),
        max(d for _, d in gx.degree()),
    )


def test_random_graphs_many_seeds(search_knobs: str) -> None:
    rng = np.random.default_rng(11)
    for _ in range(40):
        n = int(rng.integers(2, 60))
        gx = nx.gnp_random_graph(n, float(rng.uniform(0.02, 0.9)), seed=int(rng.integers(1 << 30)))
        stats = common_neighbour_stats(gx)
        a_max, c_max, front = dense_pair_stats(gx)
        assert (stats.a_max, stats.c_max) == (a_max, c_max)
        assert {tuple(p) for p in stats.frontier.tolist()} == front


@pytest.mark.parametrize(
    ("gx", "a_max", "c_max", "triangles", "frontier"),
    [
        (nx.complete_graph(6), 4, 8, 20, [[4, 8]]),
        (nx.star_graph(5), 1, 4, 0, [[0, 4], [1, 2]]),
        (nx.path_graph(5), 1, 4, 0, [[1, 4]]),
        (nx.complete_bipartite_graph(2, 6), 6, 12, 0, [[6, 12]]),
        (nx.Graph([(0, 1), (2, 3)]), 0, 2, 0, [[0, 2]]),
        (nx.Graph([(0, 1), (1, 2), (3, 4), (3, 5), (3, 6)]), 1, 5, 0, [[0, 5], [1, 2]]),
        (nx.empty_graph(5), 0, 0, 0, [[0, 0]]),
        (nx.empty_graph(2), 0, 0, 0, [[0, 0]]),
        (nx.complete_graph(2), 0, 0, 0, [[0, 0]]),
        (nx.empty_graph(1), 0, 0, 0, []),
        (nx.empty_graph(0), 0, 0, 0, []),
    ],
    ids=["K6", "star5", "P5", "K2,6", "2K2", "P3+star3", "empty5", "empty2", "K2", "K1", "K0"],
)
def test_structural_cases(
    gx: nx.Graph, a_max: int, c_max: int, triangles: int, frontier: list[list[int]]
) -> None:
    stats = common_neighbour_stats(gx)
    assert (stats.a_max, stats.c_max, stats.triangles) == (a_max, c_max, triangles)
    assert stats.frontier.tolist() == frontier
    assert stats.frontier.shape == (len(frontier), 2)


def test_k2r_hub_edge_makes_r_triangles_and_a_max_counts_non_edges() -> None:
    k2r = nx.complete_bipartite_graph(2, 7)
    assert common_neighbour_stats(k2r).a_max == 7  # the hubs are not adjacent
    k2r.add_edge(0, 1)
    stats = common_neighbour_stats(k2r)
    assert (stats.a_max, stats.triangles) == (7, 7)


def test_accepts_graph_like_input_and_caches() -> None:
    g = as_edge_graph([(0, 1), (1, 2), (2, 0)])
    stats = common_neighbour_stats(g)
    assert isinstance(stats, CommonNeighbourStats)
    assert common_neighbour_stats(g) is stats
    assert triangle_count_exact([(0, 1), (1, 2), (2, 0)]) == 1
    with pytest.raises(ValueError, match="read-only"):
        stats.frontier[0, 0] = 5


SNAP = [
    ("ca-GrQc.txt", 48_260, 81, 61),
    ("facebook_combined.txt.gz", 1_612_010, 1_045, 293),
    ("wiki-Vote.txt.gz", 608_389, 1_065, 562),
    ("ca-HepPh.txt.gz", 3_358_499, 491, 450),
    ("email-Enron.txt.gz", 727_044, 1_383, 420),
]


@pytest.mark.shared
@pytest.mark.filterwarnings("ignore:.*self-loop:UserWarning")
@pytest.mark.parametrize(("name", "triangles", "d_max", "a_max"), SNAP)
def test_snap_graphs_match_published_counts_and_benchmark_facts(
    shared_datasets: Path, name: str, triangles: int, d_max: int, a_max: int
) -> None:
    from dpatlas.graph.input.io import read_edgelist

    g = read_edgelist(shared_datasets / "graphs" / name)
    assert triangle_count_exact(g) == triangles
    stats = common_neighbour_stats(g)
    assert (stats.triangles, stats.d_max, stats.a_max) == (triangles, d_max, a_max)
