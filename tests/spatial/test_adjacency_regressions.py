"""Bugs the fuzzers found in the neighbour relation of sites, now fixed: a regression test each."""

from __future__ import annotations

import numpy as np
import pytest

from dpatlas import Budget
from dpatlas.spatial import METHODS, Grid, heatmap


# fuzz find: privtree/auto raised OverflowError in _splitrule._loss, uniform and adaptive named
# no parameter; SiteAdjacency now refuses k > 2**31 - 1 before anything is spent
@pytest.mark.parametrize("method", sorted(METHODS))
def test_heatmap_huge_max_sites_per_individual_names_it(method):
    budget = Budget(10.0)
    with pytest.raises(ValueError, match="max_sites_per_individual"):
        heatmap(
            (np.array([1.0]), np.array([1.0])),
            Grid.from_bounds((0, 0, 10, 10), cell_size=1, crs="EPSG:3035"),
            epsilon=1.0,
            method=method,
            crs="EPSG:3035",
            max_sites_per_individual=10**400,
            budget=budget,
            rng=0,
        )
    assert budget.history == ()
