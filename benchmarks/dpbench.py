"""DPBench protocol for 2-D heatmaps (Hay et al., SIGMOD 2016), through the public heatmap API.

For each shape (a 256×256 histogram), N points are sampled multinomially from it and placed
uniformly inside their cells of a public 256×256 grid (1 m cells of EPSG:3035, extent
(0, 0, 256, 256)); each method releases a map at ε for ``target="regions"`` (the question
scored here; ``auto`` is the default method for it) and 2,000 random rectangles (sides uniform
in [1, 256], placement uniform, fixed seed) are answered from the released map. Scores:

* MRE: mean of ``|q̂ − q| / max(q, 0.001·N)`` over the rectangles (DPBench's relative error);
* scaled L2: ``‖Wx − Wx̂‖₂ / (|W|·N)``;
* cell L1: ``Σ|x̂ − x| / N`` over the 256×256 cells.

The protocol asks for 5 repetitions; the MRE of a single release varies by up to ±50% at
N = 10⁴, so we average 20 by default (``DPBENCH_REPS`` overrides it). Tables, plot and the docs
page: :mod:`benchmarks.dpbench_report` (``python -m benchmarks.dpbench_report --docs``).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from dpatlas.spatial import Grid, consistent, heatmap, suggest_cell_size
from dpatlas.spatial.methods.auto import PRIVTREE_OPTIONS

SHAPES = {
    "Gowalla": "checkin_256_256.npy",
    "Beijing-E": "BeijingTaxiE_256_256.npy",
    "SF-cabs-E": "cabspottingE_256_256.npy",
    "Twitter": "twitter_256_256.npy",
}
SIZES = (10_000, 1_000_000)
EPSILONS = (0.1, 1.0)
DEFAULT_REPS = 20
N_QUERIES = 2_000
SIDE = 256
CRS = "EPSG:3035"
GRID = Grid.from_bounds((0, 0, SIDE, SIDE), cell_size=1, crs=CRS)

# Reference MREs (BENCHMARKS.md; continuous Laplace, N public for UG/AG as in dpcomp_core).
REFERENCE = {
    ("Gowalla", 10_000, 0.1): {"identity": 9.966, "ug": 0.915, "ag": 0.585, "privtree": 0.424},
    ("Gowalla", 10_000, 1.0): {"identity": 0.997, "ug": 0.216, "ag": 0.139, "privtree": 0.098},
    ("Gowalla", 1_000_000, 0.1): {"identity": 0.090, "ug": 0.069, "ag": 0.025, "privtree": 0.018},
    ("Gowalla", 1_000_000, 1.0): {"identity": 0.009, "ug": 0.009, "ag": 0.005, "privtree": 0.003},
    ("Beijing-E", 10_000, 0.1): {"identity": 10.945, "ug": 0.486, "ag": 0.573, "privtree": 0.638},
    ("Beijing-E", 10_000, 1.0): {"identity": 1.095, "ug": 0.166, "ag": 0.097, "privtree": 0.110},
    ("Beijing-E", 1_000_000, 0.1): {"identity": 0.122, "ug": 0.065, "ag": 0.027, "privtree": 0.015},
    ("Beijing-E", 1_000_000, 1.0): {"identity": 0.012, "ug": 0.012, "ag": 0.006, "privtree": 0.002},
    ("SF-cabs-E", 10_000, 0.1): {"identity": 58.097, "ug": 9.295, "ag": 4.542, "privtree": 1.251},
    ("SF-cabs-E", 10_000, 1.0): {"identity": 5.810, "ug": 1.478, "ag": 0.548, "privtree": 0.130},
    ("SF-cabs-E", 1_000_000, 0.1): {"identity": 0.555, "ug": 0.328, "ag": 0.088, "privtree": 0.029},
    ("SF-cabs-E", 1_000_000, 1.0): {"identity": 0.056, "ug": 0.056, "ag": 0.029, "privtree": 0.004},
    ("Twitter", 10_000, 0.1): {"identity": 3.927, "ug": 0.699, "ag": 0.410, "privtree": 0.358},
    ("Twitter", 10_000, 1.0): {"identity": 0.393, "ug": 0.157, "ag": 0.100, "privtree": 0.079},
    ("Twitter", 1_000_000, 0.1): {"identity": 0.040, "ug": 0.031, "ag": 0.017, "privtree": 0.015},
    ("Twitter", 1_000_000, 1.0): {"identity": 0.004, "ug": 0.004, "ag": 0.002, "privtree": 0.002},
}


@dataclass(frozen=True)
class Score:
    """Errors of one method in one setting, averaged over repetitions."""

    shape: str
    n: int
    epsilon: float
    method: str
    mre: float
    scaled_l2: float
    cell_l1: float
    seconds: float


def load_shape(directory: Path, name: str) -> np.ndarray:
    """The 256×256 histogram of a DPBench shape, as probabilities."""
    shape = np.load(Path(directory) / "spatial" / SHAPES[name])
    return shape / shape.sum()


def sample_points(probs: np.ndarray, n: int, gen: np.random.Generator):
    """N points: multinomial cell counts, then uniform positions inside each cell."""
    counts = gen.multinomial(n, probs.ravel()).reshape(probs.shape)
    flat = np.repeat(np.arange(counts.size), counts.ravel())
    row, col = np.divmod(flat, probs.shape[1])
    x = col + gen.random(flat.size)
    y = (probs.shape[0] - 1 - row) + gen.random(flat.size)
    return counts, (x, y)


def workload(seed: int = 2016, side: int = SIDE) -> tuple[np.ndarray, ...]:
    """2,000 rectangles ``rows [r0, r1) × cols [c0, c1)``: sides uniform in [1, side]."""
    gen = np.random.default_rng(seed)
    h, w = gen.integers(1, side + 1, (2, N_QUERIES))
    r0, c0 = gen.integers(0, side - h + 1), gen.integers(0, side - w + 1)
    return r0, r0 + h, c0, c0 + w


def answer(cells: np.ndarray, rects: tuple[np.ndarray, ...]) -> np.ndarray:
    """Rectangle sums over a square map by prefix sums."""
    cells = np.asarray(cells, dtype=np.float64)
    table = np.zeros((cells.shape[0] + 1, cells.shape[1] + 1))
    table[1:, 1:] = cells.cumsum(0).cumsum(1)
    r0, r1, c0, c1 = rects
    return table[r1, c1] - table[r0, c1] - table[r1, c0] + table[r0, c0]


def _overlap(n_fine: int, size: float, n_coarse: int) -> np.ndarray:
    """Length of fine cell i (unit cells) inside coarse cell j of side ``size``."""
    lo = np.arange(n_coarse) * size
    fine = np.arange(n_fine)[:, None]
    return np.clip(np.minimum(fine + 1, lo + size) - np.maximum(fine, lo), 0, None)


def coarse_to_fine(values: np.ndarray, grid: Grid) -> np.ndarray:
    """A coarse grid's counts spread evenly by area over the 256×256 unit cells."""
    density = np.asarray(values, dtype=np.float64).reshape(grid.shape)[::-1] / grid.cell_area
    oy, ox = _overlap(SIDE, grid.cell_size, grid.ny), _overlap(SIDE, grid.cell_size, grid.nx)
    return (oy @ density @ ox.T)[::-1]


def _identity(xy, n, eps, rng):
    hm = heatmap(xy, GRID, epsilon=eps, method="uniform", target="regions", crs=CRS, rng=rng)
    return hm.estimate


def _ug(xy, n, eps, rng):
    """UG (QYL 2013): m = sqrt(N·ε/10) cells per side, N public as in dpcomp_core, m <= 256."""
    size = max(suggest_cell_size(GRID, eps, n), 1.0)
    grid = Grid.from_bounds((0, 0, SIDE, SIDE), cell_size=size, crs=CRS)
    hm = heatmap(xy, grid, epsilon=eps, method="uniform", target="regions", crs=CRS, rng=rng)
    return coarse_to_fine(hm.estimate, grid)


def _ag(xy, n, eps, rng):
    """AG as published: least squares over both levels, no non-negativity (may be negative)."""
    hm = heatmap(xy, GRID, epsilon=eps, method="adaptive", crs=CRS, rng=rng)
    return consistent(hm.replace(estimate=None, steps=()), nonnegative=False).estimate


def _public(method: str) -> Callable:
    def release(xy, n, eps, rng):
        hm = heatmap(xy, GRID, epsilon=eps, method=method, target="regions", crs=CRS, rng=rng)
        return hm.estimate

    return release


METHODS: dict[str, Callable] = {
    "identity": _identity,
    "ug": _ug,
    "ag": _ag,
    "privtree": _public("privtree"),
    "auto": _public("auto"),
}


def run(
    directory: Path,
    *,
    reps: int = DEFAULT_REPS,
    shapes: Iterable[str] = SHAPES,
    sizes: Iterable[int] = SIZES,
    epsilons: Iterable[float] = EPSILONS,
    methods: Iterable[str] = METHODS,
    seed: int = 0,
) -> list[Score]:
    """Score every method in every setting (``reps`` samples of the points, one release each)."""
    rects = workload()
    scores = []
    for shape_name in shapes:
        probs = load_shape(directory, shape_name)
        for n in sizes:
            for eps in epsilons:
                errs: dict[str, list[tuple[float, ...]]] = {m: [] for m in methods}
                for rep in range(reps):
                    gen = np.random.default_rng([seed, rep, n, SIDE])
                    counts, xy = sample_points(probs, n, gen)
                    truth = answer(counts, rects)
                    for name in methods:
                        start = time.perf_counter()
                        rng = np.random.default_rng([seed, rep, int(1000 * eps), 7])
                        cells = METHODS[name](xy, n, eps, rng)
                        took = time.perf_counter() - start
                        cells = np.asarray(cells, dtype=np.float64).reshape(SIDE, SIDE)
                        diff = answer(cells, rects) - truth
                        mre = float(np.mean(np.abs(diff) / np.maximum(truth, 0.001 * n)))
                        l2 = float(np.linalg.norm(diff) / (N_QUERIES * n))
                        l1 = float(np.abs(cells - counts).sum() / n)
                        errs[name].append((mre, l2, l1, took))
                for name, rows in errs.items():
                    mre, l2, l1, took = np.mean(rows, axis=0)
                    scores.append(Score(shape_name, n, eps, name, mre, l2, l1, took))
    return scores


def coarse_grids(
    directory: Path,
    *,
    reps: int = 10,
    shapes: Iterable[str] = ("Gowalla", "Beijing-E", "Twitter"),
    sides: Iterable[int] = (2, 4, 8, 16, 32),
    sizes: Iterable[int] = (1_000, 10_000),
    epsilons: Iterable[float] = EPSILONS,
) -> list[Score]:
    """Uniform against PrivTree (as ``auto`` runs it) on coarse g×g grids (shapes summed in blocks).

    The evidence for ``method="auto"``'s rule; ``Score.shape`` is ``"<shape> g×g"``.
    """
    scores = []
    for shape_name in shapes:
        fine = load_shape(directory, shape_name)
        for g in sides:
            probs = fine.reshape(g, SIDE // g, g, SIDE // g).sum(axis=(1, 3))
            grid = Grid.from_bounds((0, 0, g, g), cell_size=1, crs=CRS)
            rects = workload(side=g)
            for n in sizes:
                for eps in epsilons:
                    errs: dict[str, list[float]] = {"uniform": [], "privtree": []}
                    for rep in range(reps):
                        counts, xy = sample_points(probs, n, np.random.default_rng([rep, g, n]))
                        truth = answer(counts, rects)
                        for method, found in errs.items():
                            rng = np.random.default_rng([rep, 7])
                            options = PRIVTREE_OPTIONS if method == "privtree" else None
                            hm = heatmap(
                                xy,
                                grid,
                                epsilon=eps,
                                method=method,
                                target="regions",
                                method_options=options,
                                crs=CRS,
                                rng=rng,
                            )
                            diff = answer(hm.estimate.reshape(g, g), rects) - truth
                            found.append(float(np.mean(np.abs(diff) / np.maximum(truth, n / 1e3))))
                    for method, found in errs.items():
                        name = f"{shape_name} {g}×{g}"
                        scores.append(Score(name, n, eps, method, float(np.mean(found)), 0, 0, 0))
    return scores
