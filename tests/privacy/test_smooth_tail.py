"""Issue #17, problem 1: a ladder array continues with ``GS``, and the smooth bound must see it.

The ladder ``[LS(G)]`` (one rung, then ``GS = n - 2`` for ever) is valid. Two disjoint edges on
12 nodes have ``LS = 0``; before the fix :func:`smooth_bound` took the maximum over the array
only, gave ``S = 0`` and :func:`smooth_mechanism` released the exact count every time, while
the neighbouring path (``LS = 1``) got noise: ``ε = ∞``. Each test here failed on that code.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pytest

from dpatlas.audit import audit
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.core.noise.local.smooth import smooth_beta, smooth_bound, smooth_mechanism
from dpatlas.graph import as_edge_graph
from dpatlas.graph.exact.counting import common_neighbour_stats

N = 12
GS = N - 2
TWO_EDGES = [(0, 1), (2, 3)]
PATH = [(0, 1), (1, 2), (2, 3)]


def one_rung(edges: list[tuple[int, int]]) -> tuple[int, list[int]]:
    """Exact triangles and the shortest valid ladder ``[LS(G)]`` (then GS) of a graph on N nodes."""
    stats = common_neighbour_stats(as_edge_graph(np.array(edges), n=N))
    return stats.triangles, [stats.a_max]


def test_the_pair_is_the_one_of_the_issue() -> None:
    assert one_rung(TWO_EDGES) == (0, [0])
    assert one_rung(PATH) == (0, [1])


@pytest.mark.parametrize("delta", [0.0, 1e-3])
def test_the_bound_takes_the_gs_tail_into_the_maximum(delta: float) -> None:
    beta = smooth_beta(1.0, delta)
    assert smooth_bound([0], beta, global_sensitivity=GS) == pytest.approx(GS * math.exp(-beta))
    # a ladder ending below GS: its tail after 3 rungs, 10·e^{-3β}, beats every entry
    assert smooth_bound([0, 1, 2], beta, global_sensitivity=GS) == pytest.approx(
        GS * math.exp(-3 * beta)
    )
    # a ladder ending at GS: the tail (later, so smaller) changes nothing
    lad = [1, 2, 4, 7, GS]
    best = max(v * math.exp(-beta * t) for t, v in enumerate(lad))
    assert smooth_bound(lad, beta, global_sensitivity=GS) == pytest.approx(best, rel=1e-12)


def test_smooth_noise_on_the_one_rung_ladder_is_not_exact() -> None:
    triangles, ladder = one_rung(TWO_EDGES)
    bound = smooth_bound(ladder, smooth_beta(1.0), global_sensitivity=GS)
    values = smooth_mechanism(triangles, bound, epsilon=1.0, size=5_000, rng=1).value
    # scale 6·10·e^{-1/6}/1 ≈ 51: P(K = 0) ≈ 1/(π·51) ≈ 0.006; it was 1 (S = 0)
    assert np.mean(values == 0) < 0.02


def smooth_on_one_rung(delta: float) -> Callable[..., np.ndarray]:
    def release(edges: list, *, size: int, rng: np.random.Generator) -> np.ndarray:
        triangles, ladder = one_rung(edges)
        bound = smooth_bound(ladder, smooth_beta(1.0, delta), global_sensitivity=GS)
        return smooth_mechanism(
            triangles, bound, epsilon=1.0, delta=delta, size=size, rng=rng
        ).value

    return release


def ladder_on_one_rung(edges: list, *, size: int, rng: np.random.Generator) -> np.ndarray:
    triangles, ladder = one_rung(edges)
    return ladder_mechanism(
        triangles, ladder, epsilon=1.0, global_sensitivity=GS, size=size, rng=rng
    ).value


@pytest.mark.parametrize(
    ("release", "delta"),
    [(smooth_on_one_rung(0.0), 0.0), (smooth_on_one_rung(1e-3), 1e-3), (ladder_on_one_rung, 0.0)],
    ids=["smooth-cauchy", "smooth-laplace", "ladder"],
)
def test_one_rung_ladders_pass_an_audit_on_the_disjoint_edges_pair(
    release: Callable[..., np.ndarray], delta: float
) -> None:
    # before the fix the smooth variants failed: {o = 0} had probability 1 on the two edges
    result = audit(release, TWO_EDGES, PATH, epsilon=1.0, delta=delta, samples=40_000, rng=1701)
    assert result.passed, str(result)
