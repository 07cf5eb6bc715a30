"""End-to-end audit of dpatlas.graph.synthesize on neighbouring graphs differing by one edge.

Neighbours (public n = 6): the path 0-1-2-3-4-5 and the cycle (the path plus the edge {0, 5}).
Every call runs the real release path (degrees, partition pass, block counts, ladder triangles,
generation) and the output graph is projected onto a summary vector: the indicator of the
edge that differs, the edge count, the triangle count, the degrees of 0 and 5 and whether 0 and
5 share a released community. The auditor looks for an event on any coordinate or their sum.

Power: 700 runs per graph. With Clopper–Pearson intervals at 99% an event of probability about
1/2 can only certify ``ε_lb`` up to roughly 0.4 above the truth, so this catches gross leaks (the
broken variant below: the true edge copied into the output, ``ε = ∞``, is found every time),
not a small excess. The mechanisms themselves are audited with large samples in the core's
audits; this test guards the wiring (what is read, what is released, what is spent).
"""

from __future__ import annotations

import networkx as nx
import numpy as np

from dpatlas.audit import audit
from dpatlas.graph import synthesize

PATH = np.array([(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)])
CYCLE = np.vstack([PATH, [(0, 5)]])


def _summary(rel: object) -> np.ndarray:
    g = rel.value  # type: ignore[attr-defined]
    com = rel.communities  # type: ignore[attr-defined]
    return np.array(
        [
            g.has_edge(0, 5),
            g.number_of_edges(),
            sum(nx.triangles(g).values()) // 3,
            g.degree(0),
            g.degree(5),
            com[0] == com[5],
        ],
        dtype=np.float64,
    )


def release(edges: np.ndarray, *, rng: np.random.Generator) -> np.ndarray:
    return _summary(synthesize(edges, n=6, epsilon=1.0, rng=rng))


def test_synthesize_passes_the_audit() -> None:
    result = audit(release, PATH, CYCLE, epsilon=1.0, samples=700, rng=19)
    assert result.passed, result


def test_a_leaking_variant_is_caught() -> None:
    def leaky(edges: np.ndarray, *, rng: np.random.Generator) -> np.ndarray:
        out = release(edges, rng=rng)
        out[0] = float(any(tuple(e) == (0, 5) for e in edges.tolist()))  # the true edge
        return out

    result = audit(leaky, PATH, CYCLE, epsilon=1.0, samples=300, rng=19)
    assert not result.passed
