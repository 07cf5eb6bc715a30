"""edge_count and degree_histogram: values, brute-force sensitivities, budget and n conventions."""

from __future__ import annotations

import itertools

import networkx as nx
import numpy as np
import pytest
from scipy.optimize import isotonic_regression

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.noise.discrete_laplace import discrete_laplace
from dpatlas.errors import BudgetExceededError
from dpatlas.graph.degrees import degree_histogram, project_simplex, round_to_total
from dpatlas.graph.edges import edge_count


def all_graphs(n: int):
    pairs = list(itertools.combinations(range(n), 2))
    for mask in range(1 << len(pairs)):
        yield [p for e, p in enumerate(pairs) if mask >> e & 1], pairs


def _hist(deg: np.ndarray, top: int) -> np.ndarray:
    return np.bincount(np.minimum(deg, top), minlength=top + 1)


@pytest.mark.parametrize("n", [2, 3, 4, 5])
def test_degree_sensitivities_brute_force(n: int) -> None:
    worst_hist = worst_sorted = 0
    for edges, pairs in all_graphs(n):
        deg = np.zeros(n, dtype=np.int64)
        for u, v in edges:
            deg[u] += 1
            deg[v] += 1
        present = set(edges)
        for u, v in pairs:
            sign = -1 if (u, v) in present else 1
            deg2 = deg.copy()
            deg2[[u, v]] += sign
            for top in range(n):
                worst_hist = max(worst_hist, int(np.abs(_hist(deg, top) - _hist(deg2, top)).sum()))
                a, b = np.sort(np.minimum(deg, top)), np.sort(np.minimum(deg2, top))
                worst_sorted = max(worst_sorted, int(np.abs(a - b).sum()))
    assert worst_sorted == 2
    assert worst_hist == 4


def test_edge_count_release() -> None:
    g = nx.karate_club_graph()
    rel = edge_count(g, epsilon=1.0, rng=3)
    assert rel.mechanism == "edge_count"
    assert rel.sensitivity == 1.0
    assert rel.scale == 1.0
    assert rel.metadata["n"] == 34
    assert "n_from_data" not in rel.metadata
    assert rel.metadata["interval"]["kind"] == "noise only"
    for seed in range(5):  # the same draws as the core sampler (whose law is tested in core)
        core = discrete_laplace(78, sensitivity=1, epsilon=1.0, rng=seed)
        assert edge_count(g, epsilon=1.0, rng=seed).value == core.value


def test_degree_histogram_is_post_processing_of_core_noise() -> None:
    g = nx.barabasi_albert_graph(60, 2, seed=3)
    deg = np.array([d for _, d in g.degree()])
    for seed in range(3):
        raw = discrete_laplace(np.sort(deg), sensitivity=2, epsilon=1.0, rng=seed).value
        seq = np.clip(np.rint(isotonic_regression(raw.astype(float)).x), 0, 59).astype(int)
        ours = degree_histogram(g, epsilon=1.0, rng=seed).value
        assert ours.tolist() == np.bincount(seq, minlength=60).tolist()
        raw = discrete_laplace(np.bincount(deg, minlength=60), sensitivity=4, epsilon=1.0, rng=seed)
        direct = round_to_total(project_simplex(raw.value, 60), 60)
        ours = degree_histogram(g, epsilon=1.0, method="direct", rng=seed).value
        assert ours.tolist() == direct.tolist()


def test_edge_count_refuses_without_n_and_spends_once() -> None:
    b = Budget(1.0)
    with pytest.raises(ValueError, match=r"edge_count needs the public node set.*pass n="):
        edge_count([(0, 1), (1, 2)], epsilon=0.5, budget=b, rng=0)
    edge_count([(0, 1), (1, 2)], epsilon=0.5, budget=b, rng=0, n=5)
    edge_count([(0, 1), (1, 2)], epsilon=0.5, budget=b, rng=0, nodes=[0, 1, 2])
    assert b.spent[0] == pytest.approx(1.0)
    assert len(b.history) == 2
    with pytest.raises(BudgetExceededError):
        edge_count([(0, 1)], epsilon=0.1, budget=b, rng=0, n=2)
    assert len(b.history) == 2


def test_refusal_spends_nothing_and_reads_no_graph() -> None:
    b = Budget(0.5)
    with pytest.raises(BudgetExceededError):
        degree_histogram("not a graph", epsilon=1.0, budget=b, n=3)
    with pytest.raises(ValueError, match="method must be one of 'sorted', 'direct', got 'x'"):
        degree_histogram(nx.path_graph(3), epsilon=0.1, method="x", budget=b)
    with pytest.raises(ValueError, match="max_degree must be >= 0, got -1"):
        degree_histogram(nx.path_graph(3), epsilon=0.1, max_degree=-1, budget=b)
    with pytest.raises(TypeError, match="max_degree must be an integer"):
        degree_histogram(nx.path_graph(3), epsilon=0.1, max_degree=2.5, budget=b)
    with pytest.raises(ValueError, match=r"max_degree must be <= n - 1 = 2 .* got 1000000000000"):
        degree_histogram(nx.path_graph(3), epsilon=0.1, max_degree=10**12, budget=b)  # once OOM
    with pytest.raises(ValueError, match="epsilon must be"):
        edge_count(nx.path_graph(3), epsilon=-1.0, budget=b)
    assert len(b.history) == 0


@pytest.mark.parametrize("method", ["sorted", "direct"])
def test_degree_histogram_shape_total_and_accuracy(method: str) -> None:
    g = nx.barabasi_albert_graph(300, 3, seed=1)
    exact = np.bincount([d for _, d in g.degree()], minlength=300)
    b = Budget(1.0)
    rel = degree_histogram(g, epsilon=1.0, method=method, budget=b, rng=5)
    assert rel.value.dtype == np.int64
    assert rel.value.size == 300
    assert int(rel.value.sum()) == 300
    assert rel.value.min() >= 0
    assert rel.sensitivity == (2.0 if method == "sorted" else 4.0)
    assert b.spent[0] == pytest.approx(1.0)
    assert len(b.history) == 1
    assert np.abs(rel.value - exact).sum() < 250  # median over seeds ~160 of at most 600


def test_degree_histogram_clips_into_top_bin() -> None:
    rel = degree_histogram(nx.star_graph(20), epsilon=50.0, max_degree=3, method="direct", rng=0)
    assert rel.value.tolist() == [0, 20, 0, 1]
    assert rel.metadata["max_degree"] == 3
    rel = degree_histogram(nx.star_graph(20), epsilon=50.0, max_degree=3, rng=0)
    assert rel.value.tolist() == [0, 20, 0, 1]


def test_degree_histogram_default_top_is_n_minus_1_and_needs_n() -> None:
    rel = degree_histogram(np.array([[0, 1], [2, 3]]), epsilon=1.0, rng=0, n=6)
    assert rel.value.size == 6
    assert int(rel.value.sum()) == 6
    with pytest.raises(ValueError, match=r"degree_histogram needs the public node set"):
        degree_histogram(np.array([[0, 1], [2, 3]]), epsilon=1.0, rng=0)


def test_post_processing_helpers() -> None:
    rng = np.random.default_rng(0)
    x = rng.normal(0, 5, size=50)
    p = project_simplex(x, 20.0)
    assert p.min() >= 0
    assert p.sum() == pytest.approx(20.0)
    # optimality: the KKT threshold makes positive entries shift by the same amount
    shift = (x - p)[p > 0]
    assert np.ptp(shift) < 1e-9
    assert np.all(x[p == 0] <= shift[0] + 1e-9)
    r = round_to_total(p, 20)
    assert r.sum() == 20
    assert np.abs(r - p).max() < 1
    assert project_simplex(np.array([-1.0, 2.0]), 0).tolist() == [0.0, 0.0]


def test_degree_histogram_has_no_per_bin_interval() -> None:
    rel = degree_histogram(nx.path_graph(5), epsilon=1.0, rng=0)
    assert rel.scale is None
    assert rel.metadata["noise_scale"] == 2.0
    with pytest.raises(ValueError, match="no per-bin confidence interval"):
        rel.confidence_interval()
