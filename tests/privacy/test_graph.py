"""Audits of the triangle-count releases on the pairs of ``_graphs.py`` (edge-DP neighbours).

``triangle_count`` releases one value per call (~1 ms; audited end to end with few runs in
``test_triangle_count.py``), so here its composition of public pieces (exact count,
sensitivity ladder or smooth bound, core mechanism with ``size=``) is audited with 200,000 runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from tests.privacy._graphs import METHODS, PAIRS

from dpatlas.audit import audit
from dpatlas.core import discrete_laplace
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.core.noise.local.piecewise_ladder import piecewise_ladder_mechanism
from dpatlas.core.noise.local.smooth import smooth_beta, smooth_mechanism
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder, smooth_sensitivity
from dpatlas.graph.input.edgegraph import as_edge_graph


def batched(method: str, n: int, epsilon: float = 1.0, **kw: Any) -> Callable[..., np.ndarray]:
    """``triangle_count(method=...)`` rebuilt from its public pieces, with ``size=`` draws."""
    delta, relaxed = kw.get("delta", 0.0), kw.get("relaxed", False)

    def release(edges: list, *, size: int, rng: np.random.Generator) -> np.ndarray:
        stats = common_neighbour_stats(as_edge_graph(np.array(edges), n=n))
        if method == "global":
            values = np.full(size, stats.triangles)
            return discrete_laplace(values, sensitivity=n - 2, epsilon=epsilon, rng=rng).value
        if method in ("ladder", "piecewise"):
            ladder = sensitivity_ladder(stats, relaxed=relaxed)
            mechanism = ladder_mechanism if method == "ladder" else piecewise_ladder_mechanism
            return mechanism(
                stats.triangles,
                ladder,
                epsilon=epsilon,
                global_sensitivity=n - 2,
                size=size,
                rng=rng,
            ).value
        bound = smooth_sensitivity(stats, smooth_beta(epsilon, delta), relaxed=relaxed)
        return smooth_mechanism(
            stats.triangles, bound, epsilon=epsilon, delta=delta, size=size, rng=rng
        ).value

    return release


@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize(("method", "kw"), METHODS)
def test_triangle_release_pieces_pass_with_many_runs(pair: str, method: str, kw: dict) -> None:
    d, d_prime, n = PAIRS[pair]
    result = audit(
        batched(method, n, **kw), d, d_prime, epsilon=1.0, delta=kw.get("delta", 0.0), rng=61
    )
    assert result.passed


def test_the_pairs_are_the_ones_described() -> None:
    two, path = (
        common_neighbour_stats(as_edge_graph(np.array(e), n=4))
        for e in PAIRS["two edges vs path"][:2]
    )
    assert (two.triangles, two.a_max, path.triangles, path.a_max) == (0, 0, 0, 1)
    k24, hubs = (
        common_neighbour_stats(as_edge_graph(np.array(e), n=6))
        for e in PAIRS["K2,4 +- hub edge"][:2]
    )
    assert (k24.triangles, k24.a_max, hubs.triangles) == (0, 4, 4)
    k24, hubs = (
        common_neighbour_stats(as_edge_graph(np.array(e), n=9))
        for e in PAIRS["K2,4 +- hub edge, n = 9"][:2]
    )
    assert sensitivity_ladder(k24).tolist() == sensitivity_ladder(hubs).tolist()
    assert sensitivity_ladder(k24).tolist() == [4, 4, 5, 5, 6, 6, 7]
