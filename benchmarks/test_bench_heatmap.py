"""Heatmap speed: a private 1000×1000 map of 10⁶ points, and binning 10⁷ points.

Targets: the default private map (``target="cells"``: the uniform grid and its per-cell
posterior medians) in at most 3× the time of ``numpy.histogram2d`` on the same points (issue
16); binning within 2× of numpy.histogram2d (issue 4). Times are the best of three runs in this
process; ratios are what count (the machines are shared). The
reference figures for other libraries are the ones measured for the issue on this kind of
machine (same task: 10⁶ points, 1000×1000 cells, ε = 1).
"""

from __future__ import annotations

import time
from collections.abc import Callable

import numpy as np
import pytest

from dpatlas.core import get_source
from dpatlas.core.noise.discrete_laplace import sample_discrete_laplace
from dpatlas.spatial import Grid, bin_points, heatmap

REFERENCE_SECONDS = {"OpenDP": 24.2, "diffprivlib": 66.6, "PipelineDP": 93.9}
GRID = Grid.from_bounds((0, 0, 1_000_000, 1_000_000), cell_size=1_000, crs="EPSG:3035")


def _best(fn: Callable[[], object], repeats: int = 3) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def _points(n: int, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    gen = np.random.default_rng(seed)
    return gen.normal(500_000, 150_000, n), gen.normal(500_000, 150_000, n)


def _insecure_numpy_map(x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """numpy bincount + two-sided geometric noise from numpy's generator (NOT safe)."""
    col = np.floor(x / 1_000).astype(np.int64)
    row = np.floor(y / 1_000).astype(np.int64)
    ok = (col >= 0) & (col < 1_000) & (row >= 0) & (row < 1_000)
    counts = np.bincount(row[ok] * 1_000 + col[ok], minlength=1_000_000)
    gen = np.random.default_rng()
    q = 1 - np.exp(-1.0)
    return counts + gen.geometric(q, counts.size) - gen.geometric(q, counts.size)


@pytest.mark.bench
def test_private_heatmap_of_a_million_points():
    x, y = _points(1_000_000)
    edges = [GRID.y_edges, GRID.x_edges]
    numpy_hist = _best(lambda: np.histogram2d(y, x, bins=edges))
    ours = _best(lambda: heatmap((x, y), GRID, epsilon=1.0, crs="EPSG:3035"))
    regions = _best(lambda: heatmap((x, y), GRID, epsilon=1.0, target="regions", crs="EPSG:3035"))
    binning = _best(lambda: bin_points(GRID, x, y))
    noise = _best(lambda: sample_discrete_laplace(get_source(None), 1_000_000, 1.0))
    numpy_unsafe = _best(lambda: _insecure_numpy_map(x, y))
    print("\n10^6 points -> 1000x1000 private heatmap, epsilon = 1 (secure default randomness)")
    print(f"  numpy.histogram2d (exact)  {numpy_hist:8.3f} s")
    print(
        f"  dpatlas heatmap (default)  {ours:8.3f} s  (ours / histogram2d = {ours / numpy_hist:.2f}x)"
    )
    print(
        f"  target='regions' (PrivTree){regions:8.3f} s  (/ histogram2d = {regions / numpy_hist:.2f}x)"
    )
    print(f"    of which binning         {binning:8.3f} s")
    print(f"    of which exact noise     {noise:8.3f} s  ({1e6 / noise / 1e6:.1f} M samples/s)")
    print(
        f"  numpy bincount + unsafe    {numpy_unsafe:8.3f} s  (ours / numpy = {ours / numpy_unsafe:.1f}x)"
    )
    for name, seconds in REFERENCE_SECONDS.items():
        print(f"  {name:<26} {seconds:8.1f} s  (reference; {seconds / ours:.0f}x slower than ours)")
    assert ours <= 3 * numpy_hist


@pytest.mark.bench
def test_binning_ten_million_points_against_histogram2d():
    x, y = _points(10_000_000, seed=1)
    ours = _best(lambda: bin_points(GRID, x, y))
    edges = [GRID.y_edges, GRID.x_edges]
    numpy_hist = _best(lambda: np.histogram2d(y, x, bins=edges))
    counts = bin_points(GRID, x, y)
    inside = (x < GRID.bounds[2]) & (y < GRID.bounds[3])
    hist, _, _ = np.histogram2d(y[inside], x[inside], bins=edges)
    np.testing.assert_array_equal(counts, hist[::-1].astype(np.int64))
    print("\n10^7 points binned into 1000x1000 cells")
    print(f"  dpatlas bin_points         {ours:8.3f} s")
    print(
        f"  numpy.histogram2d          {numpy_hist:8.3f} s  (ours / numpy = {ours / numpy_hist:.2f}x)"
    )
    assert ours <= 2 * numpy_hist
