"""Per-cell accuracy and hotspots of private heatmaps (issue 16), through the public heatmap API.

The planner reads a map cell by cell. Setting: a 64 × 64 grid of 1 km cells (EPSG:3035);
N sites (N = 10⁴ and 10⁵) sampled multinomially from a shape and placed uniformly inside their
cells; ε = 0.1 and 1; each method releases the map at ε. Scores, averaged over repetitions:

* cell L1: ``Σ|x̂ − x| / N`` over the cells (the map's per-cell error);
* hotspot recall: the share of the true top 1% cells (41 cells; every cell whose count ties the
  41st largest counts) among the released top 1%, ranked by the map's estimate, ties broken
  by the raw released value, then at random (seeded);
* MRE: DPBench's mean relative error ``|q̂ − q| / max(q, 0.001·N)`` over 2,000 random
  rectangles (sides uniform in [1, 64]), the regions question.

Shapes. *Tuning* shapes (every choice of the default was measured on them): the four shared
DPBench shapes (:mod:`benchmarks.dpbench`), summed from 256 × 256 to 64 × 64 cells, and three
seeded dense surfaces (``Plain``: a gentle gradient; ``Hills`` and ``Ridges``: exponentiated
smoothed noise) where every cell holds sites. *Held-out* shapes (reported separately): the
GBIF Galápagos penguin sightings and Snow's cholera deaths (each point spread by a Gaussian of
0.75 cells, binned on 64 × 64 cells over the study area), and three seeded synthetic shapes
(seabird colonies on a coast, clustered settlements with a sparse background, and a smooth,
dense population surface): :mod:`benchmarks.cell_shapes`.
``CELLS_REPS`` sets the repetitions (default 3), ``CELLS_SEED`` the seed (default 0).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from benchmarks.cell_shapes import SIDE, TUNING, load
from benchmarks.dpbench import SHAPES as DPBENCH_SHAPES
from benchmarks.dpbench import answer, load_shape, sample_points

from dpatlas.spatial import Grid, consistent, heatmap

CELL = 1_000.0
CRS = "EPSG:3035"
GRID = Grid.from_bounds((0, 0, SIDE * CELL, SIDE * CELL), cell_size=CELL, crs=CRS)
SIZES = (10_000, 100_000)
EPSILONS = (0.1, 1.0)
DEFAULT_REPS = 3
N_QUERIES = 2_000
HOTSPOT_SHARE = 0.01


@dataclass(frozen=True)
class CellScore:
    """Errors of one method in one setting, averaged over repetitions."""

    shape: str
    n: int
    epsilon: float
    method: str
    cell_l1: float
    recall: float
    mre: float
    seconds: float


def workload(seed: int = 2016) -> tuple[np.ndarray, ...]:
    """2,000 rectangles ``rows [r0, r1) × cols [c0, c1)`` with sides uniform in [1, 64]."""
    gen = np.random.default_rng(seed)
    h, w = gen.integers(1, SIDE + 1, (2, N_QUERIES))
    r0, c0 = gen.integers(0, SIDE - h + 1), gen.integers(0, SIDE - w + 1)
    return r0, r0 + h, c0, c0 + w


def hotspot_recall(
    estimate: np.ndarray, raw: np.ndarray, counts: np.ndarray, gen: np.random.Generator
) -> float:
    """Share of the true top 1% cells among the map's top 1% (ties: raw value, then random)."""
    k = int(np.ceil(HOTSPOT_SHARE * counts.size))
    exact = counts.ravel()
    hot = exact >= np.sort(exact)[-k]
    order = np.lexsort((gen.random(exact.size), -np.ravel(raw), -np.ravel(estimate)))
    return float(hot[order[:k]].mean())


Release = Callable[[tuple[np.ndarray, np.ndarray], float, np.random.Generator], tuple]


def _map(method: str, target: str, post: str = "", grid: Grid = GRID, crs: str = CRS) -> Release:
    def release(xy, eps, rng):
        hm = heatmap(xy, grid, epsilon=eps, method=method, target=target, crs=crs, rng=rng)
        if post == "nonnegative":
            hm = hm.nonnegative()
        elif post == "least_squares":  # AG as published: least squares, no non-negativity
            hm = consistent(hm.replace(estimate=None, steps=()), nonnegative=False)
        return hm.estimate, hm.release.value

    return release


def methods_on(grid: Grid, crs: str = CRS) -> dict[str, Release]:
    """Every method of the tables, releasing on ``grid``."""
    return {
        "uniform": _map("uniform", "regions", grid=grid, crs=crs),
        "uniform+nn": _map("uniform", "regions", "nonnegative", grid, crs),
        "default": _map("auto", "cells", grid=grid, crs=crs),
        "regions": _map("auto", "regions", grid=grid, crs=crs),
        "privtree": _map("privtree", "regions", grid=grid, crs=crs),
        "ag": _map("adaptive", "regions", "least_squares", grid, crs),
    }


METHODS: dict[str, Release] = methods_on(GRID)
LABELS = {
    "uniform": "uniform",
    "uniform+nn": "uniform + nonnegative()",
    "default": 'default (target="cells")',
    "regions": 'target="regions"',
    "privtree": "PrivTree",
    "ag": "AG",
}


def run(
    directory: Path,
    *,
    shapes: Iterable[str] = TUNING,
    reps: int = DEFAULT_REPS,
    sizes: Iterable[int] = SIZES,
    epsilons: Iterable[float] = EPSILONS,
    methods: Iterable[str] = METHODS,
    seed: int = 0,
    releases: dict[str, Release] = METHODS,
    loader: Callable[[str, Path], np.ndarray] = load,
    cell: float = CELL,
    rects: tuple[np.ndarray, ...] | None = None,
) -> list[CellScore]:
    """Score every method in every setting (``reps`` samples of the sites, one release each).

    ``releases``, ``loader`` and ``cell`` change the grid (e.g. :func:`dpbench_grid`); the MRE
    is over ``rects`` (default :func:`workload`, nan when the grid is not 64 × 64).
    """
    if rects is None and releases is METHODS:
        rects = workload()
    scores = []
    for name in shapes:
        probs = loader(name, directory)
        for n in sizes:
            for eps in epsilons:
                found: dict[str, list[tuple[float, ...]]] = {m: [] for m in methods}
                for rep in range(reps):
                    counts, (x, y) = sample_points(probs, n, np.random.default_rng([seed, rep, n]))
                    truth = None if rects is None else answer(counts, rects)
                    for method in found:
                        rng = np.random.default_rng([seed, rep, int(1000 * eps), 16])
                        start = time.perf_counter()
                        estimate, raw = releases[method]((x * cell, y * cell), eps, rng)
                        took = time.perf_counter() - start
                        cells = np.asarray(estimate, dtype=np.float64).reshape(counts.shape)
                        l1 = float(np.abs(cells - counts).sum() / n)
                        recall = hotspot_recall(cells, raw, counts, np.random.default_rng(rep))
                        mre = np.nan
                        if rects is not None and truth is not None:
                            errors = np.abs(answer(cells, rects) - truth)
                            mre = float(np.mean(errors / np.maximum(truth, 0.001 * n)))
                        found[method].append((l1, recall, mre, took))
                for method, rows in found.items():
                    l1, recall, mre, took = np.mean(rows, axis=0)
                    scores.append(CellScore(name, n, eps, method, l1, recall, mre, took))
    return scores


def dpbench_grid(directory: Path, *, reps: int = 2, seed: int = 0) -> list[CellScore]:
    """Per-cell scores on the DPBench grid itself (256 × 256 unit cells, N = 10⁴ and 10⁶).

    The DPBench settings are far sparser per cell (N·ε per cell 0.015 to 15) than the 64 × 64
    ones; this shows where per-cell readings stop finding hotspots. No MRE (docs/dpbench.md).
    """
    from benchmarks.dpbench import CRS as DPBENCH_CRS
    from benchmarks.dpbench import GRID as DPBENCH_GRID

    return run(
        directory,
        shapes=DPBENCH_SHAPES,
        reps=reps,
        sizes=(10_000, 1_000_000),
        methods=("uniform+nn", "default", "regions"),
        seed=seed,
        releases=methods_on(DPBENCH_GRID, DPBENCH_CRS),
        loader=lambda name, directory: load_shape(directory, name),
        cell=1.0,
    )


def by_setting(scores: list[CellScore]) -> dict[tuple[str, int, float], dict[str, CellScore]]:
    """Scores grouped by (shape, N, ε), then by method."""
    out: dict[tuple[str, int, float], dict[str, CellScore]] = {}
    for s in scores:
        out.setdefault((s.shape, s.n, s.epsilon), {})[s.method] = s
    return out


def baseline(setting: dict[str, CellScore]) -> tuple[float, float]:
    """The better per-cell L1 of uniform and uniform + nonnegative(), and uniform's recall."""
    return min(setting["uniform"].cell_l1, setting["uniform+nn"].cell_l1), setting["uniform"].recall
