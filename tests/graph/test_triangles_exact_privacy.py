"""Private triangle counts, checked exactly: every release is ε-DP (or (ε, δ)) on every
neighbouring pair of graphs on 5 nodes, and the DESIGN.md counterexamples (where
local-sensitivity noise fails) hold for the library's ladders."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest

from dpatlas.core.noise.discrete_cauchy import discrete_cauchy_pmf
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.core.noise.local.ladder_exact import ladder_pmf
from dpatlas.core.noise.local.piecewise_exact import piecewise_pmf
from dpatlas.core.noise.local.smooth import smooth_beta, smooth_bound, smooth_scale
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder

PAIRS = list(itertools.combinations(range(5), 2))
YS = np.arange(-80, 91)


def graph_of(mask: int, n: int = 5) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(p for i, p in enumerate(PAIRS) if mask >> i & 1)
    return g


@pytest.fixture(scope="module")
def all_graphs() -> dict[str, np.ndarray]:
    """Every graph on 5 nodes: triangles, library ladders (exact and relaxed), brute LS(s)."""
    tri_count = np.array([sum(nx.triangles(graph_of(m)).values()) // 3 for m in range(1024)])
    flips = np.array([[m ^ (1 << e) for e in range(10)] for m in range(1024)])
    local = np.abs(tri_count[:, None] - tri_count[flips]).max(axis=1)
    dist = np.array([[bin(a ^ b).count("1") for b in range(1024)] for a in range(1024)])
    brute = np.array([[local[dist[m] <= s].max() for s in range(11)] for m in range(1024)])
    lad, rel = np.full((1024, 11), 3), np.full((1024, 11), 3)
    for m in range(1024):
        stats = common_neighbour_stats(graph_of(m))
        for out, relaxed in ((lad, False), (rel, True)):
            ladder = sensitivity_ladder(stats, relaxed=relaxed)
            out[m, : ladder.size] = ladder[:11]
    return {"T": tri_count, "flips": flips, "brute": brute, "exact": lad, "relaxed": rel}


def test_library_ladders_are_valid_ladders(all_graphs: dict[str, np.ndarray]) -> None:
    t, flips = all_graphs["T"], all_graphs["flips"]
    np.testing.assert_array_equal(all_graphs["exact"], all_graphs["brute"])
    assert (all_graphs["relaxed"] >= all_graphs["exact"]).all()
    for key in ("exact", "relaxed"):
        lad = all_graphs[key]
        assert (np.abs(t[:, None] - t[flips]) <= lad[:, :1]).all()  # (L1)
        assert (lad[:, None, :-1] <= lad[flips][:, :, 1:]).all()  # (L2)


def pmf_table(all_graphs: dict[str, np.ndarray], kind: str, eps: float, delta: float = 0.0):
    rows = []
    for m in range(1024):
        t, lad = int(all_graphs["T"][m]), all_graphs[kind.split("/")[-1]][m]
        if kind.startswith("smooth"):
            bound = smooth_bound(lad, smooth_beta(eps, delta), global_sensitivity=3)
            t_s, s_s = smooth_scale(bound, eps, delta)
            if delta == 0:
                rows.append(discrete_cauchy_pmf(YS - t, (t_s, s_s)))
            else:
                p = math.exp(-s_s / t_s)
                rows.append((1 - p) / (1 + p) * p ** np.abs(YS - t))
        elif kind.startswith("piecewise"):
            rows.append(piecewise_pmf(YS - t, lad, eps, global_sensitivity=3))
        else:
            rows.append(ladder_pmf(YS - t, lad, eps, global_sensitivity=3))
    return np.array(rows)


@pytest.mark.parametrize(
    "kind",
    [
        "ladder/exact",
        "ladder/relaxed",
        "piecewise/exact",
        "piecewise/relaxed",
        "smooth/exact",
        "smooth/relaxed",
    ],
)
@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_pure_releases_are_eps_dp_on_every_neighbouring_pair(
    all_graphs, kind: str, eps: float
) -> None:
    """Exact output distributions of all 1024 graphs on 5 nodes and their 10 neighbours."""
    table = np.log(pmf_table(all_graphs, kind, eps))
    loss = np.abs(table[:, None, :] - table[all_graphs["flips"]]).max()
    assert loss <= eps + 1e-9
    if not kind.startswith("smooth"):
        assert loss > 0.6 * eps  # and the ladders spend most of their budget


@pytest.mark.parametrize("delta", [1e-3, 1e-6])
def test_smooth_laplace_is_eps_delta_dp_on_every_neighbouring_pair(
    all_graphs, delta: float
) -> None:
    eps = 1.0
    table = pmf_table(all_graphs, "smooth/exact", eps, delta)
    other = table[all_graphs["flips"]]
    excess = np.maximum(table[:, None, :] - math.exp(eps) * other, 0).sum(axis=2)
    assert excess.max() <= delta


def ls_laplace_pmf(t: int, ls: int, eps: float) -> np.ndarray:
    """NOT private (built here only to show it fails): T + discrete Laplace(LS / ε)."""
    if ls == 0:
        return (t == YS).astype(float)
    p = math.exp(-eps / ls)
    return (1 - p) / (1 + p) * p ** np.abs(YS - t)


def ratio_loss(p: np.ndarray, q: np.ndarray) -> float:
    with np.errstate(divide="ignore"):
        return float(np.abs(np.log(p) - np.log(q))[(p > 0) | (q > 0)].max())


def ladder_of(g: nx.Graph) -> tuple[int, np.ndarray]:
    stats = common_neighbour_stats(g)
    return stats.triangles, sensitivity_ladder(stats)


def common(g: nx.Graph, pairs) -> int:
    return max((len(set(g[u]) & set(g[v])) for u, v in pairs), default=0)


def k2r_plus_hub_edge(r: int) -> nx.Graph:
    h = nx.complete_bipartite_graph(2, r)
    h.add_edge(0, 1)
    return h


@pytest.mark.parametrize(
    ("g", "h", "scope"),
    [  # two disjoint edges vs the path P4: all-pairs LS 0 vs 1 (rule 1 of DESIGN.md);
        # K_{2,5} vs K_{2,5} + hub–hub edge: the max over *edges* is 0 vs 5 (T: 0 vs 5)
        (nx.Graph([(0, 1), (2, 3)]), nx.Graph([(0, 1), (1, 2), (2, 3)]), "pairs"),
        (nx.complete_bipartite_graph(2, 5), k2r_plus_hub_edge(5), "edges"),
    ],
    ids=["disjoint-edges-vs-path", "K2r-hub-edge"],
)
def test_design_counterexamples(g: nx.Graph, h: nx.Graph, scope: str) -> None:
    eps, (t_g, lad_g), (t_h, lad_h) = 1.0, ladder_of(g), ladder_of(h)
    gs = g.number_of_nodes() - 2
    exact = ratio_loss(
        ladder_pmf(YS - t_g, lad_g, eps, global_sensitivity=gs),
        ladder_pmf(YS - t_h, lad_h, eps, global_sensitivity=gs),
    )
    assert exact <= eps + 1e-12
    ls = [
        common(x, x.edges() if scope == "edges" else itertools.combinations(x, 2)) for x in (g, h)
    ]
    assert ls[0] == 0  # local-sensitivity noise releases T(G) exactly ...
    assert ratio_loss(ls_laplace_pmf(t_g, ls[0], eps), ls_laplace_pmf(t_h, ls[1], eps)) > 5 * eps
    # sampled ladder releases, binned, agree within e^ε up to sampling slack
    n_draws, edges = 200_000, np.array([-np.inf, -6.5, -2.5, -0.5, 0.5, 2.5, 6.5, np.inf])
    freq = []
    for seed, (t, lad) in enumerate(((t_g, lad_g), (t_h, lad_h))):
        rel = ladder_mechanism(t, lad, epsilon=eps, global_sensitivity=gs, rng=seed, size=n_draws)
        freq.append(np.histogram(rel.value, bins=edges)[0] / n_draws)
    big = (freq[0] > 0.01) & (freq[1] > 0.01)
    assert big.sum() >= 3
    assert (np.abs(np.log(freq[0][big] / freq[1][big])) <= eps + 0.1).all()
