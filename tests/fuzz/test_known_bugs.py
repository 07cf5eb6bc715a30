"""Open fuzz findings in modules this suite does not own: strict xfails until fixed.

Each test states the behaviour we want; when a fix lands the xfail turns into an XPASS, which
fails the suite (``xfail_strict``): then delete the marker, move the test to
``test_regressions_core.py`` or ``test_regressions_spatial.py`` and drop its tolerance in
``_harness.py``, if it has one.
"""

from __future__ import annotations

import numpy as np
import pytest

from dpatlas import Budget
from dpatlas.spatial import METHODS, Grid, heatmap

GRID = Grid.from_bounds((0, 0, 10, 10), cell_size=1, crs="EPSG:3035")


@pytest.mark.xfail(
    reason="SiteAdjacency accepts any int k: privtree/auto raise OverflowError in "
    "_splitrule._loss, uniform says 'sensitivity must be finite', adaptive 'noise scale 2**1330'"
)
@pytest.mark.parametrize("method", sorted(METHODS))
def test_heatmap_huge_max_sites_per_individual_names_it(method):
    budget = Budget(10.0)
    with pytest.raises(ValueError, match="max_sites_per_individual"):
        heatmap(
            (np.array([1.0]), np.array([1.0])),
            GRID,
            epsilon=1.0,
            method=method,
            crs="EPSG:3035",
            max_sites_per_individual=10**400,
            budget=budget,
            rng=0,
        )
    assert budget.history == ()
