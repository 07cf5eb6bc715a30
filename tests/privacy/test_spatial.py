"""Audits of ``dpatlas.spatial.heatmap`` on site sets that differ by one site on a cell border.

The heatmap takes one release per call (~1 ms for the uniform grid, ~3-4 ms for the adaptive
grid and PrivTree), so the default suite uses few runs (400 for the adaptive methods: enough to
catch an exact or near-exact cell, ε_lb up to ~3.5); the slow tests use many more.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from dpatlas.audit import audit
from dpatlas.core import Release
from dpatlas.spatial import Grid, heatmap

GRID = Grid.from_bounds((0, 0, 3_000, 3_000), cell_size=1_000, crs="EPSG:3035")
SITES = (np.array([500.0, 1_500.0, 2_999.0]), np.array([500.0, 2_500.0, 10.0]))


def _with(x: float, y: float) -> tuple[np.ndarray, np.ndarray]:
    return np.append(SITES[0], x), np.append(SITES[1], y)


def uniform_map(sites: Any, *, rng: np.random.Generator) -> Release:
    return heatmap(sites, GRID, epsilon=1.0, crs="EPSG:3035", rng=rng).release


def method_map(method: str) -> Callable[..., Release]:
    def release(sites: Any, *, rng: np.random.Generator) -> Release:
        return heatmap(sites, GRID, epsilon=1.0, method=method, crs="EPSG:3035", rng=rng).release

    return release


def test_heatmap_passes_when_the_extra_site_sits_on_a_corner_of_four_cells() -> None:
    # half-open cells: (1000, 2000) belongs to row 0 (y in [2000, 3000)), column 1 only
    result = audit(uniform_map, SITES, _with(1_000.0, 2_000.0), epsilon=1.0, samples=1_500, rng=41)
    assert result.passed
    assert result.epsilon_lb > 0.3
    assert result.event.projection == 1


@pytest.mark.slow
@pytest.mark.parametrize(
    ("extra_site", "cell"),
    [
        ((1_000.0, 2_000.0), 1),  # a corner shared by four cells: row 0, column 1
        ((2_000.0, 500.0), 8),  # an inner edge between two cells: row 2, column 2
        ((0.0, 0.0), 6),  # the outer corner of the extent (inside): row 2, column 0
    ],
)
def test_heatmap_passes_with_many_runs_and_the_bound_nears_epsilon(
    extra_site: tuple[float, float], cell: int
) -> None:
    result = audit(uniform_map, SITES, _with(*extra_site), epsilon=1.0, samples=20_000, rng=42)
    assert result.passed
    assert result.epsilon_lb > 0.8
    assert result.event.projection == cell


@pytest.mark.parametrize("method", ["adaptive", "privtree"])
def test_adaptive_heatmaps_pass_with_a_site_on_a_corner(method: str) -> None:
    extra = _with(1_000.0, 2_000.0)
    result = audit(method_map(method), SITES, extra, epsilon=1.0, samples=400, rng=43)
    assert result.passed


@pytest.mark.slow
@pytest.mark.parametrize("method", ["adaptive", "privtree"])
def test_adaptive_heatmaps_pass_with_many_runs(method: str) -> None:
    extra = _with(1_000.0, 2_000.0)
    result = audit(method_map(method), SITES, extra, epsilon=1.0, samples=5_000, rng=44)
    assert result.passed
