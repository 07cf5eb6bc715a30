"""Private triangle counts: exact DP over every neighbouring pair on 5 nodes, the DESIGN.md
counterexamples (where local-sensitivity noise fails), intervals, and the public API contract."""

from __future__ import annotations

import itertools
import math

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from tests.helpers.sources import CountingSource

import dpatlas as dpa
from dpatlas.core.noise.discrete_cauchy import discrete_cauchy_pmf
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.core.noise.local.ladder_exact import ladder_pmf
from dpatlas.core.noise.local.piecewise_exact import piecewise_pmf
from dpatlas.core.noise.local.smooth import smooth_beta, smooth_bound, smooth_scale
from dpatlas.errors import BudgetExceededError
from dpatlas.graph import triangles as tri
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder, smooth_sensitivity

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


def test_interval_coverage_is_exact_and_at_least_the_level() -> None:
    """Coverage = Σ_z P(Z = z) P(|noise| <= h(a_max + z)), computed exactly."""
    g = nx.karate_club_graph()
    stats = common_neighbour_stats(g)
    t, lad, gs = stats.triangles, sensitivity_ladder(stats), 32
    for method, level in (("ladder", 0.9), ("piecewise", 0.9), ("smooth", 0.8)):
        rel = dpa.graph.triangle_count(g, epsilon=1.0, method=method, interval_epsilon=0.5, rng=1)
        scale, zs = rel.metadata["a_max_noise_scale"], np.arange(-60, 61)
        p = math.exp(-1 / scale)
        pz = (1 - p) / (1 + p) * p ** np.abs(zs)
        cover = 0.0
        for z, weight in zip(zs.tolist(), pz.tolist(), strict=True):
            meta = {**rel.metadata, "noisy_a_max": stats.a_max + z}
            probe = tri.TriangleRelease(t, 1.5, 0.0, "probe", None, None, None, True, None, meta)
            h = probe.confidence_interval(level)[1] - t
            ks = np.arange(-h, h + 1)
            if method == "ladder":
                inside = ladder_pmf(ks, lad, 1.0, global_sensitivity=gs).sum()
            elif method == "piecewise":
                inside = piecewise_pmf(ks, lad, 1.0, global_sensitivity=gs).sum()
            else:
                s_t = smooth_scale(smooth_sensitivity(stats, 1 / 6), 1.0)
                inside = discrete_cauchy_pmf(ks, s_t).sum()
            cover += weight * inside
        assert level <= cover < 1.0


def test_budget_checked_before_counting_spent_once_before_noise(monkeypatch) -> None:
    g = nx.karate_club_graph()
    budget = dpa.Budget(1.0)
    with monkeypatch.context() as m:
        m.setattr(tri, "common_neighbour_stats", lambda _: pytest.fail("counted before check"))
        with pytest.raises(BudgetExceededError, match=r"requested epsilon=1\.5"):
            tri.triangle_count(g, epsilon=1.0, interval_epsilon=0.5, budget=budget)
    assert budget.history == ()

    class Watch(CountingSource):
        def _raw(self, n: int) -> np.ndarray:
            assert len(budget.history) == 1, "noise drawn before the budget was debited"
            return super()._raw(n)

    rel = tri.triangle_count(g, epsilon=0.6, interval_epsilon=0.2, budget=budget, rng=Watch())
    assert rel.epsilon == pytest.approx(0.8)
    assert budget.spent.epsilon == pytest.approx(0.8)
    assert budget.history[0].mechanism == "triangle_count/piecewise"


def test_release_carries_only_public_facts() -> None:
    g = nx.karate_club_graph()
    allowed = {
        "method",
        "n",
        "relaxed",
        "beta",
        "delta",
        "noisy_a_max",
        "a_max_noise_scale",
        "interval_epsilon",
        "count_epsilon",
        "global_sensitivity",
        "interval",
        "floor",
    }
    for method, delta in (("piecewise", 0.0), ("ladder", 0.0), ("smooth", 0.0), ("smooth", 1e-6)):
        rel = tri.triangle_count(g, epsilon=1.0, method=method, delta=delta, rng=2)
        assert (rel.scale, rel.sensitivity) == (None, None)
        assert set(rel.metadata) <= allowed
        assert rel.metadata["relaxed"] is False
        with pytest.raises(ValueError, match="depends on the data and is private"):
            rel.confidence_interval()
    assert rel.metadata["beta"] == smooth_beta(1.0, 1e-6)
    glob = tri.triangle_count(g, epsilon=0.5, method="global", rng=2)
    assert glob.scale == 64.0
    assert glob.sensitivity == 32.0
    low, high = glob.confidence_interval(0.95)
    assert high - low == 2 * 192  # discrete Laplace, scale 64, 95%


def test_every_input_type_gives_the_same_release() -> None:
    g = nx.karate_club_graph()
    edges = np.array(g.edges())
    values = {
        tri.triangle_count(x, epsilon=1.0, rng=7, n=34).value
        for x in (g, dpa.graph.as_edge_graph(g), edges, sp.csr_array(nx.to_scipy_sparse_array(g)))
    }
    assert len(values) == 1


def test_edges_without_a_public_node_set_are_refused_before_anything_is_spent() -> None:
    # was a PrivacyLeakWarning, then a release (and a debit) with n = 3 taken from the edges
    budget = dpa.Budget(5.0)
    for method in tri.METHODS:
        with pytest.raises(ValueError, match=r"needs the public node set.*pass n=.* or nodes="):
            tri.triangle_count([(0, 1), (1, 2), (2, 0)], epsilon=1.0, method=method, budget=budget)
    assert budget.history == ()
    assert tri.triangle_count([(0, 1), (1, 2)], epsilon=1.0, rng=0, n=10).metadata["n"] == 10
    by_nodes = tri.triangle_count([(0, 1), (1, 2)], epsilon=1.0, rng=0, nodes=[0, 1, 2, 7])
    assert by_nodes.metadata["n"] == 4


def test_ids_are_relabelled_on_the_public_node_count() -> None:
    # SNAP-style ids: the same release as the graph on 0 .. n-1, for every method
    far = np.array([[100, 2_000], [2_000, 35], [35, 100], [35, 9]])
    near = np.array([[2, 3], [3, 0], [0, 2], [0, 1]])  # the same graph, ids relabelled
    for method in tri.METHODS:
        kw = {"epsilon": 1.0, "method": method, "n": 12, "rng": 5}
        assert tri.triangle_count(far, **kw).value == tri.triangle_count(near, **kw).value
    with pytest.raises(ValueError, match=r"the edges use 4 distinct node ids but n=3"):
        tri.triangle_count(far, epsilon=1.0, n=3)


def test_tiny_graphs_release_zero_exactly_and_still_debit() -> None:
    budget = dpa.Budget(2.0)
    for method in ("ladder", "smooth", "global"):
        rel = tri.triangle_count(nx.path_graph(2), epsilon=0.5, method=method, budget=budget)
        assert rel.value == 0
        assert rel.confidence_interval(0.99) == (0, 0)
    assert budget.spent.epsilon == 1.5


@pytest.mark.parametrize(
    ("kwargs", "exc", "match"),
    [
        (
            {"method": "laplace"},
            ValueError,
            "method must be one of 'piecewise', 'ladder', 'smooth', 'global', got 'laplace'",
        ),
        ({"delta": 1e-6}, ValueError, "delta=1e-06 applies only to method='smooth'"),
        ({"method": "global", "interval_epsilon": 0.1}, ValueError, "drop interval_epsilon"),
        (
            {"interval_epsilon": -1},
            ValueError,
            "interval_epsilon must be a finite number > 0, got -1.0",
        ),
        ({"relaxed": "yes"}, TypeError, "relaxed must be True or False, got 'yes'"),
        ({"epsilon": float("inf")}, ValueError, "epsilon must be a finite number > 0, got inf"),
        ({"n": 3}, ValueError, "n=3 does not match"),
    ],
)
def test_errors_name_the_parameter(kwargs: dict, exc: type, match: str) -> None:
    with pytest.raises(exc, match=match):
        tri.triangle_count(nx.karate_club_graph(), **{"epsilon": 1.0, **kwargs})


def test_smooth_delta_on_a_zcdp_budget_is_refused_before_counting() -> None:
    budget = dpa.Budget(10.0, 1e-5, accounting="zcdp")
    with pytest.raises(ValueError, match="has no zCDP cost"):
        tri.triangle_count(
            nx.karate_club_graph(), epsilon=0.5, method="smooth", delta=1e-6, budget=budget
        )
    rel = tri.triangle_count(nx.karate_club_graph(), epsilon=0.5, budget=budget, rng=1)
    assert rel.rho == 0.125


def test_sensitivity_report_is_labelled_not_private() -> None:
    report = dpa.graph.sensitivity_report(nx.complete_bipartite_graph(2, 5))
    assert "NOT PRIVATE" in repr(report)
    assert "NOT PRIVATE" in (type(report).__doc__ or "")
    assert "NOT private" in (dpa.graph.sensitivity_report.__doc__ or "")
    assert all(name.endswith("_not_private") for name in vars(report))
    assert report.local_sensitivity_not_private == 5
    assert report.ladder_head_not_private == (5,) * 8
    assert report.c_max_not_private == 10


def test_secure_default_is_not_seeded() -> None:
    assert tri.triangle_count(nx.karate_club_graph(), epsilon=1.0, n=34).seeded is False
    assert tri.triangle_count(
        nx.karate_club_graph(), epsilon=1.0, rng=np.random.default_rng(1)
    ).seeded
