"""Dominating ladders of k-star counts: the relaxed depths against brute force, domination of
real k-star ladders (random and extreme graphs), the check catching an invalid ladder."""

from __future__ import annotations

import math

import networkx as nx
import numpy as np
import pytest

from dpatlas.core.noise.local.ladder_dominance import depth_dominates
from dpatlas.core.noise.local.smooth import smooth_bound
from dpatlas.graph.exact.kstar_envelope import (
    _verified,
    point_depth,
    star_envelope,
    star_smooth_bounds,
)
from dpatlas.graph.exact.kstar_sensitivity import kstar_ladder, ladder_of_pairs, star_gain
from dpatlas.graph.input.edgegraph import as_edge_graph

RNG = np.random.default_rng(20_260_216)


def pair_ladder(n: int, k: int, x: int, y: int, rungs: int) -> np.ndarray:
    gain = star_gain(n, k)
    return ladder_of_pairs(np.array([[x, y]]), gain, np.arange(rungs))


@pytest.mark.parametrize(("n", "k"), [(30, 3), (30, 4), (12, 5)])
def test_point_depth_is_below_every_pair_ladders_depth(n: int, k: int) -> None:
    """``cap(v)`` (real Y) never exceeds the least depth at which some ``V(D, y)`` reaches ``v``."""
    c, rungs = n - 2, 3 * n
    for d in range(c + 1):
        points = []
        for y in range(d + 1):
            lad = pair_ladder(n, k, d, y, rungs)
            points.append(np.stack([lad, np.concatenate([[0], np.cumsum(lad)[:-1]])], axis=1))
        pts = np.concatenate(points)
        v = np.unique(np.concatenate([pts[:, 0], pts[:, 0] + 1, [1]]))
        v = v[v <= 2 * star_gain(n, k)[-1]]
        brute = np.array([pts[pts[:, 0] >= x, 1].min() for x in v])
        assert (point_depth(v, np.full(v.size, d), n, k) <= brute).all()


def graphs() -> list[nx.Graph]:
    out = [
        nx.gnp_random_graph(int(RNG.integers(5, 40)), float(RNG.uniform(0.05, 0.9)), seed=s)
        for s in range(60)
    ]
    out += [nx.star_graph(20), nx.complete_graph(12), nx.barabasi_albert_graph(60, 3, seed=1)]
    hub = nx.star_graph(25)  # a hub with a dense neighbourhood and an isolated part
    hub.add_edges_from((i, j) for i in range(1, 8) for j in range(i + 1, 8))
    hub.add_nodes_from(range(26, 40))
    return [*out, hub]


@pytest.mark.parametrize("k", [3, 4, 5])
def test_envelope_dominates_the_k_star_ladder_of_real_graphs(k: int) -> None:
    checked = 0
    for G in graphs():
        n = G.number_of_nodes()
        if n < k + 2:
            continue
        lad = kstar_ladder(as_edge_graph(G), k)
        gs = 2 * math.comb(n - 2, k - 1)
        d_max = max(d for _, d in G.degree())
        for bound in (d_max, d_max + 2):
            env = star_envelope(n, k, np.array([bound]), 2 * n)[0]
            assert depth_dominates(env, lad, global_sensitivity=gs)
            checked += 1
    assert checked > 100


def test_the_pair_ladder_itself_is_not_a_valid_envelope() -> None:
    """``V(D, D)`` is not enough: ``V(D, D - 1)`` starts a larger rung at a shallower depth."""
    n, k, d = 200, 3, 81
    steep = pair_ladder(n, k, d, d, 50)
    assert not _verified(steep[None, :], np.array([d]), n, k)[0]
    assert not depth_dominates(
        steep, pair_ladder(n, k, d, d - 1, 50), global_sensitivity=2 * 198 * 197 // 2
    )
    env = star_envelope(n, k, np.array([d]), 50)[0]
    assert (env >= steep).all()
    assert env[0] == steep[1]  # one rung ahead, at first


def test_every_row_is_a_verified_ladder_and_a_failing_row_becomes_gs(monkeypatch) -> None:
    n, k = 60, 3
    gs = 2 * math.comb(n - 2, k - 1)
    env = star_envelope(n, k, np.arange(0, 59), 30)
    assert (np.diff(env, axis=1) >= 0).all()
    assert (env >= 1).all()
    assert (env <= gs).all()
    assert _verified(env, np.arange(0, 59), n, k).all()
    steep = np.stack([pair_ladder(n, k, d, d, 30) for d in (20, 40)])
    monkeypatch.setattr("dpatlas.graph.exact.kstar_envelope._greedy", lambda *_: steep)
    assert (star_envelope(n, k, np.array([20, 40]), 30) == gs).all()


@pytest.mark.parametrize(("n", "k", "beta"), [(40, 3, 0.3), (25, 4, 0.05)])
def test_smooth_bound_of_the_pair_ladder_is_above_real_ones(n: int, k: int, beta: float) -> None:
    table = star_smooth_bounds(n, k, beta)
    gs = 2 * math.comb(n - 2, k - 1)
    for d in (0, 3, n // 2, n - 2):
        pair = pair_ladder(n, k, d, d, 4 * n)
        assert table[d] == pytest.approx(smooth_bound(pair, beta, global_sensitivity=gs), rel=1e-12)
    for seed in range(20):
        G = nx.gnp_random_graph(n, float(RNG.uniform(0.05, 0.9)), seed=seed)
        lad = kstar_ladder(as_edge_graph(G), k)
        d_max = max(d for _, d in G.degree())
        assert smooth_bound(lad, beta, global_sensitivity=gs) <= table[min(d_max, n - 2)] + 1e-9


def test_star_smooth_bounds_stay_above_the_floored_release_bound() -> None:
    """The 3-star ladder of an empty graph is (0, 0, 1, ...): at β = 1000 its release bound is
    floored at SMALLEST (no underflow to 0), and the table for d_max <= 0 must dominate it."""
    lad = kstar_ladder(as_edge_graph(nx.empty_graph(6)), 3)
    gs = 2 * math.comb(4, 2)
    assert star_smooth_bounds(6, 3, 1000.0)[0] >= smooth_bound(lad, 1000.0, global_sensitivity=gs)
