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


# The default map (target="cells"): the uniform release and its per-cell posterior medians. The
# median step only runs on maps of >= 256 cells, so these audits use a 16 x 16 grid, and the
# output audited is the whole map: the raw counts and the published estimate side by side.
CELLS_GRID = Grid.from_bounds((0, 0, 16_000, 16_000), cell_size=1_000, crs="EPSG:3035")
_gen = np.random.default_rng(0)
CELLS_SITES = (_gen.uniform(0, 16_000, 150), _gen.uniform(0, 16_000, 150))
CELLS_EXTRA = (np.append(CELLS_SITES[0], 1_000.0), np.append(CELLS_SITES[1], 2_000.0))


def cells_map(sites: Any, *, rng: np.random.Generator) -> np.ndarray:
    hm = heatmap(sites, CELLS_GRID, epsilon=1.0, crs="EPSG:3035", rng=rng)
    assert hm.steps == ("empirical_bayes",)  # the new path really runs
    return np.r_[hm.release.value, hm.estimate]


def twice_epsilon_cells_map(sites: Any, *, rng: np.random.Generator) -> np.ndarray:
    """The same pipeline with noise for ε = 2 while claiming 1: the audit must catch it."""
    from dpatlas.core.noise.discrete_laplace import discrete_laplace
    from dpatlas.spatial import Heatmap, bin_points, empirical_bayes

    counts = bin_points(CELLS_GRID, *sites).ravel()
    release = discrete_laplace(counts, sensitivity=1, epsilon=2.0, rng=rng)
    hm = empirical_bayes(Heatmap(grid=CELLS_GRID, release=release))
    return np.r_[hm.release.value, hm.estimate]


def test_default_cells_map_passes_and_the_same_audit_catches_a_twofold_violation() -> None:
    """1,000 runs per input (~10 s): enough to reject the ε = 2 version (ε_lb ≈ 1.7 > 1)."""
    result = audit(cells_map, CELLS_SITES, CELLS_EXTRA, epsilon=1.0, samples=1_000, rng=45)
    assert result.passed
    broken = audit(
        twice_epsilon_cells_map, CELLS_SITES, CELLS_EXTRA, epsilon=1.0, samples=1_000, rng=45
    )
    assert not broken.passed
    assert broken.epsilon_lb > 1.2


@pytest.mark.slow
def test_default_cells_map_passes_with_many_runs() -> None:
    result = audit(cells_map, CELLS_SITES, CELLS_EXTRA, epsilon=1.0, samples=10_000, rng=46)
    assert result.passed
    assert result.epsilon_lb > 0.6
