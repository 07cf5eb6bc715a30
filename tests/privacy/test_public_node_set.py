"""Issue #17, problem 2: no graph release takes its node count from the data.

With ``D = {01}`` the nodes seen are 2 (GS = 0: the output was exactly 0 every time) and with
the neighbour ``{01, 12}`` they are 3 (noise): the old warning-and-release had unbounded loss,
and ``metadata["n"]`` published the exact number of nodes with an edge. Every release given
edges without ``n=`` / ``nodes=`` is now refused before the budget is touched (these tests
failed: the old code warned, released and debited); with the public ``n`` any integer ids
work (relabelled; nodes without an edge are isolated), and ``metadata["n"]`` is that public n.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dpatlas.core import Budget
from dpatlas.graph import (
    clustering_coefficient,
    degree_histogram,
    edge_count,
    kstar_count,
    triangle_count,
)

RELEASES: dict[str, Callable[..., Any]] = {
    "triangle_count/ladder": lambda g, **kw: triangle_count(g, epsilon=1.0, **kw),
    "triangle_count/smooth": lambda g, **kw: triangle_count(
        g, epsilon=1.0, method="smooth", delta=1e-6, **kw
    ),
    "triangle_count/global": lambda g, **kw: triangle_count(g, epsilon=1.0, method="global", **kw),
    "triangle_count/interval": lambda g, **kw: triangle_count(
        g, epsilon=1.0, interval_epsilon=0.5, **kw
    ),
    "edge_count": lambda g, **kw: edge_count(g, epsilon=1.0, **kw),
    "degree_histogram/sorted": lambda g, **kw: degree_histogram(g, epsilon=1.0, **kw),
    "degree_histogram/direct": lambda g, **kw: degree_histogram(
        g, epsilon=1.0, method="direct", **kw
    ),
    "kstar_count": lambda g, **kw: kstar_count(g, 2, epsilon=1.0, **kw),
    "clustering_coefficient": lambda g, **kw: clustering_coefficient(g, epsilon=1.0, **kw),
}
D, D_PRIME = np.array([[0, 1]]), np.array([[0, 1], [1, 2]])  # the pair of the issue


@pytest.mark.parametrize("name", RELEASES)
def test_edges_without_a_public_node_set_are_refused_before_the_budget(name: str) -> None:
    budget = Budget(0.01)  # too small for any of them: the node-set refusal must come first
    for edges in (D, D_PRIME):
        with pytest.raises(ValueError, match=r"needs the public node set.*pass n=.*or nodes="):
            RELEASES[name](edges, budget=budget, rng=0)
    assert budget.history == ()


@pytest.mark.parametrize("name", RELEASES)
def test_public_n_or_nodes_with_any_ids_and_public_metadata(name: str) -> None:
    far = np.array([[70, 5_000], [5_000, 12], [12, 70]])  # a triangle, SNAP-style ids
    budget = Budget(10.0, 0.1)
    by_n = RELEASES[name](far, n=9, rng=1, budget=budget)
    by_nodes = RELEASES[name](far, nodes=[12, 70, 5_000, 1, 2, 3, 4, 5, 6], rng=1)
    near = RELEASES[name](np.array([[1, 2], [2, 0], [0, 1]]), n=9, rng=1)
    for rel in (by_n, by_nodes, near):
        assert rel.metadata["n"] == 9
        assert "n_from_data" not in rel.metadata
    assert np.array_equal(by_n.value, near.value)  # relabelling changes no output
    assert np.array_equal(by_nodes.value, near.value)
    assert len(budget.history) == 1
    with pytest.raises(ValueError, match=r"the edges use 3 distinct node ids but n=2"):
        RELEASES[name](far, n=2, budget=budget)
    assert len(budget.history) == 1
