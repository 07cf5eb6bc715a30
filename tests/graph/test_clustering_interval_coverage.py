"""Clustering-coefficient intervals cover at their level on graphs of five shapes (slow).

Every method (piecewise, ladder, smooth with δ = 0 and δ > 0, global) on a star (C = 0), a
clique with isolated nodes (C = 1), a sparse random graph, a real co-authorship graph and a
grid (no triangles, C = 0). The law of the ratio interval is not available in closed form, so
coverage is sampled: 50,000 releases per cell, drawn as ``clustering_coefficient`` draws them
(each part from its mechanism's own sampler on the graph's exact count and ladder, each bound
from its own), and every interval built by the rule the release uses
(:func:`~dpatlas.graph.clustering.pair_rule_of`, the same public facts). A cell fails when its
hits are below what the level allows at α = 1e-6 (one-sided binomial); at level 0.9 that
misses a true coverage of 0.89 with probability below 1%. The check catches half-widths
times 0.9 where the interval is tight (global, sparse random graph). A last test runs the
public entry point itself.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import networkx as nx
import numpy as np
import pytest
from scipy import stats

from dpatlas.core.accounting.cost import split
from dpatlas.core.interval_ratio import ratio_set
from dpatlas.core.noise.discrete_laplace import rational_scale, sample_discrete_laplace
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.core.noise.local.piecewise_ladder import piecewise_ladder_mechanism
from dpatlas.core.noise.local.smooth import smooth_beta, smooth_bound, smooth_mechanism
from dpatlas.core.rng import get_source
from dpatlas.graph import clustering_coefficient
from dpatlas.graph.clustering import pair_rule_of
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.kstar_sensitivity import kstar_exact, kstar_ladder
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder, smooth_sensitivity
from dpatlas.graph.input.edgegraph import EdgeGraph, as_edge_graph
from dpatlas.graph.input.io import read_edgelist

pytestmark = pytest.mark.slow

ALPHA = 1e-6
DRAWS = 50_000
METHODS = [("piecewise", 0.0), ("ladder", 0.0), ("smooth", 0.0), ("smooth", 1e-6), ("global", 0.0)]


def plausible(hits: int, draws: int, level: float) -> bool:
    """False when ``hits`` of ``draws`` is below a ``level`` coverage at α = 1e-6 (binomial)."""
    return bool(stats.binom.cdf(hits, draws, level) > ALPHA)


def shape(name: str, shared: Path | None = None) -> EdgeGraph:
    if name == "star":
        return as_edge_graph(nx.star_graph(39))
    if name == "clique+isolated":
        g = nx.complete_graph(12)
        g.add_nodes_from(range(12, 40))
        return as_edge_graph(g)
    if name == "sparse random":
        return as_edge_graph(nx.gnp_random_graph(300, 0.02, seed=5))
    if name == "grid (0 triangles)":
        return as_edge_graph(nx.convert_node_labels_to_integers(nx.grid_2d_graph(15, 15)))
    assert shared is not None
    return read_edgelist(shared / "graphs" / "ca-GrQc.txt", n=5_241)  # public node count


def draws(g: EdgeGraph, method: str, eps: float, delta: float, eps_i: float, seed: int):
    """``[(T̂, â), (Ŵ, ĉ)]``, ``DRAWS`` of each, and the exact ``3T/W`` (NOT private).

    As :func:`clustering_coefficient` draws them: ε split by ``split``, δ and the interval's ε
    halved, each part from the sampler its count release uses, on the same ladder and bound.
    """
    st = common_neighbour_stats(g)
    eps_t, eps_w = split(eps, [0.5, 0.5])
    wedges, wedge_ladder = kstar_exact(g, 2), kstar_ladder(g, 2)
    parts = [
        (st.triangles, sensitivity_ladder(st), g.n - 2, st.a_max, eps_t),
        (wedges, wedge_ladder, 2 * (g.n - 2), int(wedge_ladder[0]), eps_w),
    ]
    out = []
    for i, (exact, ladder, gs, stat, part_eps) in enumerate(parts):
        rng = 100 * seed + i
        if method == "global":
            scale = rational_scale(Fraction(gs) / Fraction(part_eps))
            value = exact + sample_discrete_laplace(get_source(rng), DRAWS, scale)
        elif method in ("ladder", "piecewise"):
            mech = ladder_mechanism if method == "ladder" else piecewise_ladder_mechanism
            value = mech(
                exact, ladder, epsilon=part_eps, global_sensitivity=gs, rng=rng, size=DRAWS
            )
            value = np.asarray(value.value)
        else:
            beta = smooth_beta(part_eps, delta / 2)
            if i == 0:  # as triangle_count: its smooth sensitivity, at least LS(0)
                bound = max(smooth_sensitivity(st, beta), float(min(st.a_max, gs)))
            else:
                bound = smooth_bound(ladder, beta, global_sensitivity=gs)
            rel = smooth_mechanism(
                exact, bound, epsilon=part_eps, delta=delta / 2, rng=rng, size=DRAWS
            )
            value = np.asarray(rel.value)
        noisy = np.zeros(DRAWS)
        if method != "global":
            scale = rational_scale(1 / Fraction(eps_i / 2))
            noisy = stat + sample_discrete_laplace(get_source(rng + 50), DRAWS, scale)
        out.append((value, noisy))
    return out, (3 * st.triangles / wedges if wedges else 0.0)


def hits(g: EdgeGraph, method: str, delta: float, level: float, factor: float = 1.0) -> int:
    eps, eps_i = 1.0, 0.2
    extra = None if method == "global" else eps_i
    rel = clustering_coefficient(  # the public facts of this graph's release (one draw)
        g, epsilon=eps, delta=delta, method=method, interval_epsilon=extra, rng=0
    )
    pair = pair_rule_of(rel.triangles, rel.wedges, level)
    assert pair is not None
    rule = pair[0]
    ((t, bound_t), (w, bound_w)), truth = draws(g, method, eps, delta, eps_i, seed=1)
    g_t, g_w = rule.heights(bound_t, bound_w)
    low, high = ratio_set(t, w, factor * g_t, factor * g_w, np.array(rule.multipliers))
    return int(np.sum((low <= truth) & (truth <= high)))


SHAPES = ["star", "clique+isolated", "sparse random", "grid (0 triangles)"]


@pytest.mark.parametrize("name", SHAPES)
@pytest.mark.parametrize(("method", "delta"), METHODS)
def test_clustering_interval_covers_on_every_shape(name: str, method: str, delta: float) -> None:
    assert plausible(hits(shape(name), method, delta, 0.9), DRAWS, 0.9)


@pytest.mark.shared
@pytest.mark.filterwarnings("ignore:.*self-loop:UserWarning")
@pytest.mark.parametrize(("method", "delta"), METHODS)
def test_clustering_interval_covers_on_a_real_graph(
    shared_datasets: Path, method: str, delta: float
) -> None:
    g = shape("ca-GrQc", shared_datasets)
    for level in (0.9, 0.95):
        assert plausible(hits(g, method, delta, level), DRAWS, level)


def test_a_narrower_interval_is_caught() -> None:
    """Half-widths times 0.9 where the interval is tight: global noise, a sparse graph."""
    g = shape("sparse random")
    assert plausible(hits(g, "global", 0.0, 0.9), DRAWS, 0.9)
    assert not plausible(hits(g, "global", 0.0, 0.9, factor=0.9), DRAWS, 0.9)


@pytest.mark.parametrize("name", ["clique+isolated", "grid (0 triangles)"])
def test_the_public_entry_point_covers(name: str) -> None:
    """400 releases through ``clustering_coefficient`` itself (smooth with δ, the method the
    earlier checks left out), and each interval is the one the simulation above builds."""
    g = shape(name)
    truth = 1.0 if name.startswith("clique") else 0.0
    covered = 0
    for seed in range(400):
        rel = clustering_coefficient(
            g, epsilon=1.0, delta=1e-6, method="smooth", interval_epsilon=0.2, rng=seed
        )
        low, high = rel.confidence_interval(0.9)
        rule, bounds = pair_rule_of(rel.triangles, rel.wedges, 0.9)
        g_t, g_w = rule.heights(*bounds)
        want = ratio_set(
            rel.triangles.value, rel.wedges.value, g_t, g_w, np.array(rule.multipliers)
        )
        assert (low, high) == (float(want[0]), float(want[1]))
        covered += low <= truth <= high
    assert plausible(covered, 400, 0.9)
