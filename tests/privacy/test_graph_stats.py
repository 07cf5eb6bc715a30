"""Quick end-to-end audits of the graph statistics (one release per call, ``budget=None``).

Neighbouring pairs (public ``n``): for edge counts and degrees, two disjoint edges vs the path
0-1-2-3 (``n = 4``); for k-stars and clustering, the star K₁,₄ without / with a leaf–leaf edge
(``n = 5``; wedges 6 vs 8, triangles 0 vs 1), where the local sensitivities differ.
A broken variant (noise scaled to the observed local sensitivity) must fail. Run counts are
small (each call builds the graph): these catch gross leaks; the noise itself is audited in
the core's own audits.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dpatlas.audit import audit
from dpatlas.core.noise.discrete_laplace import discrete_laplace
from dpatlas.graph.clustering import clustering_coefficient
from dpatlas.graph.degrees import degree_histogram
from dpatlas.graph.edges import edge_count
from dpatlas.graph.exact.kstar_sensitivity import kstar_exact, kstar_ladder
from dpatlas.graph.input.edgegraph import as_edge_graph
from dpatlas.graph.kstars import kstar_count

TWO_EDGES, PATH = [(0, 1), (2, 3)], [(0, 1), (1, 2), (2, 3)]
STAR = [(0, leaf) for leaf in range(1, 5)]
STAR_PLUS = [*STAR, (1, 2)]


def _wrap(fn: Callable[..., Any], n: int, **kw: Any) -> Callable[..., Any]:
    def release(edges: list, *, rng: np.random.Generator) -> Any:
        return fn(np.array(edges), n=n, rng=rng, **kw).value

    return release


CASES = {
    "edge_count": (_wrap(edge_count, 4, epsilon=1.0), TWO_EDGES, PATH, 0.0, 3_000),
    "degrees/sorted": (_wrap(degree_histogram, 4, epsilon=1.0), TWO_EDGES, PATH, 0.0, 3_000),
    "degrees/direct": (
        _wrap(degree_histogram, 4, epsilon=1.0, method="direct"),
        TWO_EDGES,
        PATH,
        0.0,
        3_000,
    ),
    "kstar/ladder": (_wrap(kstar_count, 5, k=2, epsilon=1.0), STAR, STAR_PLUS, 0.0, 1_000),
    "kstar3/ladder": (_wrap(kstar_count, 5, k=3, epsilon=1.0), STAR, STAR_PLUS, 0.0, 1_000),
    "kstar/piecewise": (
        _wrap(kstar_count, 5, k=2, epsilon=1.0, method="piecewise"),
        STAR,
        STAR_PLUS,
        0.0,
        1_000,
    ),
    "kstar/smooth": (
        _wrap(kstar_count, 5, k=2, epsilon=1.0, method="smooth", delta=1e-3),
        STAR,
        STAR_PLUS,
        1e-3,
        1_500,
    ),
    "clustering/piecewise": (
        _wrap(clustering_coefficient, 5, epsilon=1.0),
        STAR,
        STAR_PLUS,
        0.0,
        600,
    ),
    "clustering/ladder": (
        _wrap(clustering_coefficient, 5, epsilon=1.0, method="ladder"),
        STAR,
        STAR_PLUS,
        0.0,
        600,
    ),
}


@pytest.mark.parametrize("case", CASES)
def test_graph_stats_end_to_end_pass(case: str) -> None:
    release, d, d_prime, delta, samples = CASES[case]
    result = audit(release, d, d_prime, epsilon=1.0, delta=delta, samples=samples, rng=91)
    assert result.passed


def test_local_sensitivity_noise_is_caught() -> None:
    def broken(edges: list, *, rng: np.random.Generator) -> int:
        g = as_edge_graph(np.array(edges), n=5)
        ls = int(kstar_ladder(g, 3)[0])  # LS of the data in hand: NOT private
        exact = kstar_exact(g, 3)
        if ls == 0:
            return exact
        return discrete_laplace(exact, sensitivity=ls, epsilon=0.5, rng=rng).value

    # both have no 3-star; LS = 0 on the matching, 1 on the path (node 1 or 2 can gain a 3-star)
    result = audit(broken, TWO_EDGES, PATH, epsilon=0.5, samples=1_000, rng=92)
    assert not result.passed
