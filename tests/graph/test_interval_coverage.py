"""Every graph interval covers at its level (issue 15): exact coverage on small graphs, sampled
coverage against a binomial bound at α = 1e-6, and a deliberately too-narrow interval caught.

Exact coverage is ``Σ_z P(Z = z) P(|K| <= h(a + z))`` with the release's true noise law (the
graph's own ladder or smooth scale) and the bought bound's discrete Laplace law: it is what the
interval promises, with no sampling error. Sampled coverage draws the release from the
mechanism's own sampler and the bound from its own, and builds each interval with the library's
code; it fails when the hits are below what the level allows at α = 1e-6. Both checks are shown
to catch an interval three points too narrow (the true noise's own quantile at ``level - 0.03``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from scipy import stats
from tests.helpers.distributions import smooth_abs_cdf

from dpatlas.core.interval import dlap_cdf
from dpatlas.core.noise.discrete_laplace import rational_scale, sample_discrete_laplace
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.core.noise.local.ladder_exact import ladder_pmf
from dpatlas.core.noise.local.piecewise_exact import piecewise_pmf
from dpatlas.core.noise.local.piecewise_ladder import piecewise_ladder_mechanism
from dpatlas.core.noise.local.smooth import (
    smooth_beta,
    smooth_bound,
    smooth_mechanism,
    smooth_scale,
)
from dpatlas.core.release import Release
from dpatlas.core.rng import get_source
from dpatlas.graph import (
    clustering_coefficient,
    degree_histogram,
    edge_count,
    kstar_count,
    triangle_count,
)
from dpatlas.graph._interval import bounded_halfwidth, interval_inputs
from dpatlas.graph.clustering import pair_rule_of, ratio_interval
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.kstar_sensitivity import kstar_exact, kstar_ladder
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder
from dpatlas.graph.input.edgegraph import as_edge_graph

ALPHA = 1e-6
LESMIS = Path(__file__).resolve().parents[2] / "datasets" / "les-miserables.txt"


def graphs() -> dict[str, nx.Graph]:
    lesmis = nx.read_edgelist(LESMIS, nodetype=int)
    return {
        "karate": nx.karate_club_graph(),
        "lesmis": nx.convert_node_labels_to_integers(lesmis),
        "clustered": nx.powerlaw_cluster_graph(400, 4, 0.4, seed=7),
    }


GRAPHS = graphs()


def plausible(hits: int, draws: int, level: float) -> bool:
    """False when ``hits`` of ``draws`` is below a ``level`` coverage at α = 1e-6 (binomial)."""
    return bool(stats.binom.cdf(hits, draws, level) > ALPHA)


def counts(name: str, statistic: str) -> tuple[int, np.ndarray, int, int]:
    """``(exact count, true ladder, GS, bounded statistic)`` of a graph (NOT private)."""
    g = as_edge_graph(GRAPHS[name])
    if statistic == "triangles":
        st = common_neighbour_stats(g)
        return st.triangles, sensitivity_ladder(st), g.n - 2, st.a_max
    if statistic == "3-stars":
        d_max = int(np.max(g.degrees))
        return kstar_exact(g, 3), kstar_ladder(g, 3), 2 * math.comb(g.n - 2, 2), d_max
    ladder = kstar_ladder(g, 2)
    return kstar_exact(g, 2), ladder, 2 * (g.n - 2), int(ladder[0])


def inputs(name: str, statistic: str, method: str, eps: float, eps_i: float, delta: float) -> dict:
    """The public facts of the release's interval (``n``, ``k`` for 3-stars)."""
    gs = counts(name, statistic)[2]
    k = 3 if statistic == "3-stars" else 2
    return interval_inputs(method, gs, eps, eps_i, delta, n=GRAPHS[name].number_of_nodes(), k=k)


def noise_cdf(ladder: np.ndarray, gs: int, method: str, eps: float, delta: float) -> Callable:
    """Exact ``P(|K| <= h)`` of the release noise (vectorised over ``h``)."""
    top = 400_000
    if method in ("ladder", "piecewise"):
        k = np.arange(top)
        law = ladder_pmf if method == "ladder" else piecewise_pmf
        pmf = law(k, ladder, eps, global_sensitivity=gs)
        cum = np.cumsum(np.where(k == 0, pmf, 2 * pmf))
    else:
        bound = smooth_bound(ladder, smooth_beta(eps, delta), global_sensitivity=gs)
        cum = smooth_abs_cdf(smooth_scale(bound, eps, delta), delta, top)
    return lambda h: cum[np.clip(np.asarray(h), 0, top - 1)]


def exact_coverage(cdf: Callable, info: dict, level: float, a: int) -> float:
    scale = rational_scale(1 / info["interval_epsilon"])
    b = scale[0] / scale[1]
    z = np.arange(-math.ceil(60 * b), math.ceil(60 * b) + 1)
    weight = dlap_cdf(z, scale) - dlap_cdf(z - 1, scale)
    return float(weight @ cdf(bounded_halfwidth(info, level, a + z)))


def too_narrow(cdf: Callable, level: float) -> int:
    """The true noise's own quantile at ``level - 0.03``: an interval three points too narrow."""
    return int(np.searchsorted(cdf(np.arange(400_000)), level - 0.03))


CONFIGS = [  # graph, statistic, method, ε, δ, interval ε, level
    ("karate", "triangles", "ladder", 1.0, 0.0, 0.5, 0.9),
    ("karate", "triangles", "smooth", 1.0, 0.0, 0.5, 0.8),
    ("lesmis", "triangles", "ladder", 0.5, 0.0, 0.1, 0.95),
    ("lesmis", "triangles", "smooth", 0.5, 1e-6, 0.1, 0.95),
    ("clustered", "triangles", "ladder", 0.2, 0.0, 0.05, 0.95),
    ("clustered", "triangles", "smooth", 1.0, 0.0, 0.2, 0.95),
    ("lesmis", "2-stars", "ladder", 1.0, 0.0, 0.1, 0.95),
    ("clustered", "2-stars", "smooth", 0.5, 1e-6, 0.1, 0.9),
    ("karate", "triangles", "piecewise", 1.0, 0.0, 0.5, 0.9),
    ("lesmis", "triangles", "piecewise", 0.5, 0.0, 0.1, 0.95),
    ("clustered", "triangles", "piecewise", 0.2, 0.0, 0.05, 0.95),
    ("lesmis", "2-stars", "piecewise", 1.0, 0.0, 0.1, 0.95),
    ("lesmis", "3-stars", "ladder", 0.5, 0.0, 0.1, 0.95),
    ("karate", "3-stars", "smooth", 0.5, 0.0, 0.2, 0.9),
    ("clustered", "3-stars", "ladder", 1.0, 0.0, 0.1, 0.95),
    ("lesmis", "3-stars", "smooth", 1.0, 1e-6, 0.1, 0.95),
    ("lesmis", "3-stars", "smooth", 1e5, 1e-6, 0.1, 0.78),  # scale floored at 1/2 (P(K = 0) = 0.76)
    ("karate", "triangles", "smooth", 1000.0, 0.0, 0.5, 0.9),  # the same, Cauchy
]


@pytest.mark.parametrize(("name", "statistic", "method", "eps", "delta", "eps_i", "level"), CONFIGS)
def test_exact_coverage_is_at_least_the_level(
    name, statistic, method, eps, delta, eps_i, level
) -> None:
    _, ladder, gs, a = counts(name, statistic)
    cdf = noise_cdf(ladder, gs, method, eps, delta)
    info = inputs(name, statistic, method, eps, eps_i, delta)
    assert exact_coverage(cdf, info, level, a) >= level
    assert cdf(too_narrow(cdf, level)) < level  # the exact check catches a narrow interval


def sampled_hits(
    name, statistic, method, eps, delta, eps_i, level, draws, seed, narrow=False
) -> int:
    exact, ladder, gs, a = counts(name, statistic)
    if method in ("ladder", "piecewise"):
        mechanism = ladder_mechanism if method == "ladder" else piecewise_ladder_mechanism
        rel = mechanism(exact, ladder, epsilon=eps, global_sensitivity=gs, rng=seed, size=draws)
    else:
        bound = smooth_bound(ladder, smooth_beta(eps, delta), global_sensitivity=gs)
        rel = smooth_mechanism(exact, bound, epsilon=eps, delta=delta, rng=seed, size=draws)
    if narrow:
        h = np.full(draws, too_narrow(noise_cdf(ladder, gs, method, eps, delta), level))
    else:
        noisy = a + sample_discrete_laplace(get_source(seed + 1), draws, rational_scale(1 / eps_i))
        info = inputs(name, statistic, method, eps, eps_i, delta)
        h = bounded_halfwidth(info, level, noisy)
    return int(np.sum(np.abs(np.asarray(rel.value) - exact) <= h))


@pytest.mark.parametrize(
    ("name", "statistic", "method", "eps", "delta", "eps_i", "level"), CONFIGS[::2]
)
def test_sampled_coverage_is_plausible_and_a_narrow_interval_is_caught(
    name, statistic, method, eps, delta, eps_i, level
) -> None:
    args = (name, statistic, method, eps, delta, eps_i, level, 20_000, 11)
    assert plausible(sampled_hits(*args), 20_000, level)
    assert not plausible(sampled_hits(*args, narrow=True), 20_000, level)


def _at_least_0(low: int, high: int) -> tuple[int, int]:
    return max(int(low), 0), max(int(high), 0)


def test_public_entry_points_build_the_same_interval() -> None:
    g = GRAPHS["lesmis"]
    for seed in range(5):
        rel = triangle_count(g, epsilon=0.5, interval_epsilon=0.1, rng=seed)
        h = bounded_halfwidth(rel.metadata, 0.9, rel.metadata["noisy_a_max"])
        assert rel.confidence_interval(0.9) == _at_least_0(rel.value - h, rel.value + h)
        star = kstar_count(g, 2, epsilon=0.5, method="smooth", interval_epsilon=0.1, rng=seed)
        h = bounded_halfwidth(star.metadata, 0.9, star.metadata["noisy_c_max"])
        assert star.confidence_interval(0.9) == _at_least_0(star.value - h, star.value + h)
        assert star.metadata["interval"]["bound"] == "c_max"
        assert star.mechanism == "kstar_count/smooth"
        big = kstar_count(g, 3, epsilon=0.5, interval_epsilon=0.1, rng=seed)
        h = bounded_halfwidth(big.metadata, 0.9, big.metadata["noisy_d_max"])
        assert big.confidence_interval(0.9) == _at_least_0(big.value - h, big.value + h)
        assert big.metadata["interval"]["bound"] == "d_max"


def test_count_intervals_are_cut_at_zero_and_the_estimate_is_not() -> None:
    g = GRAPHS["lesmis"]
    for method in ("piecewise", "global"):
        extra = None if method == "global" else 0.05
        rel = triangle_count(g, epsilon=0.05, interval_epsilon=extra, method=method, rng=3)
        low, high = rel.confidence_interval(0.95)
        raw = rel.value - (high - rel.value)  # high is value + h: the uncut lower end
        assert raw < 0, (method, rel.value, high)
        assert low == 0 < high, (method, rel.value, low, high)
    negative = [
        r.value
        for r in (triangle_count(g, epsilon=0.01, method="global", rng=s) for s in range(20))
        if r.value < 0
    ]
    assert negative  # the unbiased estimate is not cut


def test_edge_count_interval_is_cut_at_zero_and_still_covers() -> None:
    """A near-empty graph: the uncut interval often dips below 0, the cut one never does, and
    the cut keeps every interval that held the count (here 1 edge)."""
    g = nx.empty_graph(5)
    g.add_edge(0, 1)
    cut = hits = 0
    for seed in range(300):
        rel = edge_count(g, epsilon=0.5, rng=seed)
        low, high = rel.confidence_interval(0.9)
        raw_low, raw_high = Release.confidence_interval(rel, 0.9)  # value ± h, uncut
        assert (low, high) == (max(raw_low, 0), max(raw_high, 0)), (seed, rel.value)
        assert 0 <= low <= high
        cut += raw_low < 0
        hits += low <= 1 <= high
    assert cut > 100  # the cut was exercised
    assert plausible(hits, 300, 0.9)


def test_public_triangle_intervals_cover_over_seeds() -> None:
    """300 releases through ``triangle_count`` itself (counting included) at level 0.9."""
    g, truth = GRAPHS["karate"], 45
    hits = 0
    for seed in range(300):
        low, high = triangle_count(
            g, epsilon=1.0, interval_epsilon=0.5, rng=seed
        ).confidence_interval(0.9)
        hits += low <= truth <= high
    assert plausible(hits, 300, 0.9)


@pytest.mark.parametrize("method", ["piecewise", "ladder", "smooth", "global"])
def test_clustering_value_inside_its_interval_and_coverage(method: str) -> None:
    g = GRAPHS["lesmis"]
    truth = nx.transitivity(g)
    extra = None if method == "global" else 0.2
    hits = 0
    for seed in range(150):
        rel = clustering_coefficient(
            g, epsilon=1.0, method=method, interval_epsilon=extra, rng=seed
        )
        low, high = rel.confidence_interval(0.9)
        assert 0.0 <= low <= rel.value <= high <= 1.0
        hits += low <= truth <= high
    assert plausible(hits, 150, 0.9)
    assert rel.metadata["interval"]["kind"] == (
        "noise only" if method == "global" else "noise and bound"
    )


def test_degree_histogram_raw_entries_have_intervals_the_histogram_none() -> None:
    g = GRAPHS["clustered"]
    truth = np.sort([d for _, d in g.degree()])
    hits = draws = 0
    for seed in range(40):
        rel = degree_histogram(g, epsilon=0.5, rng=seed)
        low, high = rel.raw.confidence_interval(0.9)
        hits += int(np.sum((low <= truth) & (truth <= high)))
        draws += truth.size
    assert plausible(hits, draws, 0.9)
    assert rel.metadata["interval"]["kind"] == "noise only"
    with pytest.raises(ValueError, match=r"release\.raw\.confidence_interval"):
        rel.confidence_interval()


@pytest.mark.parametrize("method", ["smooth", "global"])
def test_clustering_pair_halfwidths_are_narrower_than_the_box_of_its_parts(method: str) -> None:
    """The pair rule shares one miss rate; the box pays ``γ/2`` per part (for Cauchy, twice);
    the per-λ interval is inside the pair's own box."""
    extra = None if method == "global" else 0.2
    rel = clustering_coefficient(
        GRAPHS["lesmis"], epsilon=1.0, method=method, interval_epsilon=extra, rng=4
    )
    pair = pair_rule_of(rel.triangles, rel.wedges, 0.9)
    assert pair is not None
    rule, bounds = pair
    pair_h = rule.halfwidths(*bounds)
    for h, part in zip(pair_h, (rel.triangles, rel.wedges), strict=True):
        _, high = part.confidence_interval(math.sqrt(0.9))  # value + h (the low end is cut)
        assert h < 0.95 * (high - part.value)
    t, w = rel.triangles.value, rel.wedges.value
    box = ratio_interval(t - pair_h[0], t + pair_h[0], w - pair_h[1], w + pair_h[1])
    low, high = rel.confidence_interval(0.9)
    assert box[0] - 1e-12 <= low <= rel.value <= high <= box[1] + 1e-12
