"""Every graph statistic debits its budget once, before the first random word is drawn."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import networkx as nx
import numpy as np
import pytest
from tests.helpers.sources import CountingSource

import dpatlas as dpa
from dpatlas.graph.clustering import clustering_coefficient
from dpatlas.graph.degrees import degree_histogram
from dpatlas.graph.edges import edge_count
from dpatlas.graph.kstars import kstar_count

CALLS: dict[str, Callable[..., Any]] = {
    "edge_count": lambda g, **kw: edge_count(g, epsilon=0.5, **kw),
    "degree_histogram/sorted": lambda g, **kw: degree_histogram(g, epsilon=0.5, **kw),
    "degree_histogram/direct": lambda g, **kw: degree_histogram(
        g, epsilon=0.5, method="direct", **kw
    ),
    "kstar_count/ladder": lambda g, **kw: kstar_count(
        g, 3, epsilon=0.4, interval_epsilon=0.1, **kw
    ),
    "kstar_count/smooth": lambda g, **kw: kstar_count(
        g, 2, epsilon=0.5, method="smooth", delta=1e-6, **kw
    ),
    "clustering_coefficient/ladder": lambda g, **kw: clustering_coefficient(
        g, epsilon=0.4, interval_epsilon=0.1, **kw
    ),
}


@pytest.mark.parametrize("name", CALLS)
def test_spent_once_before_noise(name: str) -> None:
    budget = dpa.Budget(1.0, 1e-5)

    class Watch(CountingSource):
        def _raw(self, n: int) -> np.ndarray:
            assert len(budget.history) == 1, "noise drawn before the budget was debited"
            return super()._raw(n)

    rel = CALLS[name](nx.karate_club_graph(), budget=budget, rng=Watch())
    assert len(budget.history) == 1
    assert budget.history[0].mechanism == rel.mechanism
    assert budget.spent.epsilon == pytest.approx(0.5)
    assert rel.epsilon == pytest.approx(0.5)
