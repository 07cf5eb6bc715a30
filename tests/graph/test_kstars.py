"""k-star counts and LS⁽ˢ⁾ against brute force on every graph with n <= 5 nodes (s <= 3)."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest

from dpatlas.graph.exact.kstar_sensitivity import (
    check_k,
    kstar_exact,
    kstar_frontier,
    kstar_ladder,
    ladder_of_pairs,
    star_gain,
)
from dpatlas.graph.input.edgegraph import as_edge_graph


def _tables(n: int, k: int) -> tuple[list[tuple[int, int]], np.ndarray]:
    pairs = list(itertools.combinations(range(n), 2))
    masks = np.arange(1 << len(pairs))
    deg = np.zeros((masks.size, n), dtype=np.int64)
    for e, (u, v) in enumerate(pairs):
        bit = (masks >> e) & 1
        deg[:, u] += bit
        deg[:, v] += bit
    comb = np.array([math.comb(d, k) for d in range(n)], dtype=np.int64)
    return pairs, comb[deg].sum(axis=1)


def brute_ladder(n: int, k: int, s_max: int) -> np.ndarray:
    """``LS⁽ˢ⁾`` of every graph (rows: bitmask) for ``s = 0 .. s_max``, from the definition."""
    pairs, f = _tables(n, k)
    masks = np.arange(f.size)
    flips = [masks ^ (1 << e) for e in range(len(pairs))]
    ls = np.max([np.abs(f[m] - f) for m in flips], axis=0)
    out = [ls]
    for _ in range(s_max):
        ls = np.maximum(ls, np.max([ls[m] for m in flips], axis=0))
        out.append(ls)
    return np.stack(out, axis=1)


@pytest.mark.parametrize(("n", "k"), [(n, k) for n in (2, 3, 4, 5) for k in (2, 3, 4)])
def test_ladder_equals_brute_force(n: int, k: int) -> None:
    pairs = list(itertools.combinations(range(n), 2))
    expected = brute_ladder(n, k, 3)
    _, f = _tables(n, k)
    gs = 2 * math.comb(max(n - 2, 0), k - 1)
    assert expected.max() == gs
    for mask in range(1 << len(pairs)):
        edges = np.array([p for e, p in enumerate(pairs) if mask >> e & 1]).reshape(-1, 2)
        g = as_edge_graph(edges, n=n)
        assert kstar_exact(g, k) == f[mask]
        lad = kstar_ladder(g, k)
        padded = np.concatenate([lad, np.full(4, gs)])[:4]
        assert padded.tolist() == expected[mask].tolist(), (mask, lad)
        assert lad[-1] == gs
        assert np.all(np.diff(lad) >= 0)


def test_frontier_on_known_graphs() -> None:
    assert kstar_frontier(as_edge_graph(nx.star_graph(4))).tolist() == [[3, 0], [1, 1]]
    assert kstar_frontier(as_edge_graph(nx.complete_graph(5))).tolist() == [[3, 3]]
    assert kstar_frontier(as_edge_graph(np.zeros((0, 2), dtype=int), n=1)).shape == (0, 2)


def test_larger_graph_against_networkx_flip_scan() -> None:
    g = nx.gnp_random_graph(30, 0.2, seed=4)
    eg = as_edge_graph(g)
    deg = dict(g.degree())
    for k in (2, 3):
        ls0 = max(
            math.comb(deg[i] - g.has_edge(i, j), k - 1)
            + math.comb(deg[j] - g.has_edge(i, j), k - 1)
            for i, j in itertools.combinations(g.nodes, 2)
        )
        assert int(kstar_ladder(eg, k)[0]) == ls0
        assert kstar_exact(eg, k) == sum(math.comb(d, k) for d in deg.values())


def test_k_checks_and_overflow() -> None:
    with pytest.raises(ValueError, match="k must be >= 2, got 1; k = 1 counts 2 m: use edge_count"):
        check_k(1)
    with pytest.raises(TypeError, match=r"k must be an integer >= 2, got 2\.0"):
        check_k(2.0)
    with pytest.raises(ValueError, match="k=30 is too large for n=1000"):
        star_gain(1000, 30)


@pytest.mark.parametrize("seed", range(4))
def test_frontier_pruning_equals_all_pairs(seed: int) -> None:
    g = nx.powerlaw_cluster_graph(60, 3, 0.5, seed=seed)
    eg = as_edge_graph(g)
    deg = np.asarray(eg.degrees, dtype=np.int64)
    adj = eg.to_scipy().toarray().astype(np.int64)
    i, j = np.triu_indices(eg.n, 1)
    e = np.stack([deg[i] - adj[i, j], deg[j] - adj[i, j]], axis=1)
    for k in (2, 3):
        gain = star_gain(eg.n, k)
        lad = kstar_ladder(eg, k)
        s = np.arange(lad.size)
        assert ladder_of_pairs(e, gain, s).tolist() == lad.tolist()
