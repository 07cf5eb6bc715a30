"""Private triangle counts: intervals and the public API contract (exact privacy checks:
test_triangles_exact_privacy.py)."""

from __future__ import annotations

import math
import re

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp
from tests.helpers.sources import CountingSource

import dpatlas as dpa
from dpatlas.core.noise.discrete_cauchy import discrete_cauchy_pmf
from dpatlas.core.noise.local.ladder_exact import ladder_pmf
from dpatlas.core.noise.local.piecewise_exact import piecewise_pmf
from dpatlas.core.noise.local.smooth import smooth_beta, smooth_scale
from dpatlas.errors import BudgetExceededError
from dpatlas.graph import triangles as tri
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder, smooth_sensitivity


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
    assert (low, high) == (max(glob.value - 192, 0), glob.value + 192)  # dLap(64), 95%, cut at 0


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


def smallest_epsilon_in(message: str) -> float:
    return float(re.search(r"use epsilon >= (\S+)$", message).group(1))


@pytest.mark.parametrize("delta", [1e-6, 1e-300])
def test_smooth_epsilon_too_small_is_refused_before_the_debit_and_the_data(delta) -> None:
    budget = dpa.Budget(1.0, 1e-3)
    with pytest.raises(ValueError, match="too small for smooth sensitivity") as refused:
        # a graph that is never read: the refusal depends on ε and δ only
        tri.triangle_count(
            "not read", n=4, epsilon=1e-10, delta=delta, method="smooth", budget=budget
        )
    assert budget.history == ()
    floor = smallest_epsilon_in(str(refused.value))
    assert floor == pytest.approx(2 * math.log(2 / delta) * math.expm1(2.0**-37))
    with pytest.raises(ValueError, match="too small"):
        smooth_beta(math.nextafter(floor, 0.0), delta)
    rel = tri.triangle_count(
        nx.karate_club_graph(), epsilon=floor, delta=delta, method="smooth", budget=budget, rng=0
    )
    assert rel.metadata["beta"] > 0
    assert [float(s.epsilon) for s in budget.history] == [floor]


def test_relaxed_takes_a_numpy_bool() -> None:
    """``relaxed=np.True_`` was refused as "must be True or False"; found by a hand fuzz."""
    g = nx.karate_club_graph()
    rel = dpa.graph.triangle_count(g, epsilon=1.0, relaxed=np.bool_(True), rng=2)
    assert rel.metadata["relaxed"] is True
    assert rel.value == dpa.graph.triangle_count(g, epsilon=1.0, relaxed=True, rng=2).value


@pytest.mark.parametrize("eps", [4500.0, 1e6])
def test_smooth_bound_never_underflows_to_an_exact_release(eps: float) -> None:
    """Two disjoint edges have LS = 0 and LS(1) = 1, so S = e^{-ε/6} > 0: it underflowed to 0.0
    for ε >= ~4470 and the count was released exactly, while the neighbouring path gets noise
    of full support (an infinite privacy loss). A positive S is kept >= the smallest normal
    float, and the release draws noise."""
    disjoint = nx.Graph([(0, 1), (2, 3)])
    assert smooth_sensitivity(common_neighbour_stats(disjoint), smooth_beta(eps)) > 0
    src = CountingSource(1)
    rel = tri.triangle_count(disjoint, epsilon=eps, method="smooth", rng=src)
    assert rel.value == 0
    assert src.drawn > 0  # noise was drawn: the release is not the exact count


@pytest.mark.parametrize("release", ["triangles", "kstars"])
def test_piecewise_scale_just_past_the_limit_is_refused_before_the_debit(release) -> None:
    """The outer charge checked the piecewise scale as ``2/ε`` while the sampler's own charge
    checks ``(2/ε)(1 + 1e-8)``: at ε = 2**-49 (1 + 2e-9) the first passed, the budget was
    debited, and the second refused; found by the session's whole-diff review."""
    budget = dpa.Budget(1.0)
    eps = 2.0**-49 * (1 + 2e-9)
    count = {
        "triangles": lambda g, **kw: tri.triangle_count(g, **kw),
        "kstars": lambda g, **kw: dpa.graph.kstar_count(g, 2, **kw),
    }[release]
    with pytest.raises(ValueError, match="too large"):
        count(nx.karate_club_graph(), epsilon=eps, method="piecewise", budget=budget)
    assert budget.history == ()
