"""The 64 × 64 shapes of the per-cell benchmark (:mod:`benchmarks.cells`): tuning and held out.

*Tuning* shapes: the four shared DPBench shapes summed from 256 × 256 to 64 × 64 cells, and
three seeded dense surfaces (``Plain``, ``Hills``, ``Ridges``). *Held-out* shapes: the GBIF
Galápagos penguin sightings and Snow's cholera deaths (each point spread by a Gaussian of 0.75
cells), and three seeded synthetic shapes (colonies, settlements, a smooth surface).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
from benchmarks.dpbench import SHAPES as DPBENCH_SHAPES
from benchmarks.dpbench import load_shape
from scipy import ndimage

SIDE = 64
DENSE = ("Plain", "Hills", "Ridges")
TUNING = (*DPBENCH_SHAPES, *DENSE)
HELD_OUT = ("Penguins", "Cholera", "Colonies", "Settlements", "Smooth")
REPO = Path(__file__).resolve().parents[1]


def _blurred(rows: np.ndarray, cols: np.ndarray, sigma: float = 0.75) -> np.ndarray:
    hist = np.zeros((SIDE, SIDE))
    np.add.at(hist, (rows, cols), 1.0)
    shape = ndimage.gaussian_filter(hist, sigma, mode="constant")
    return shape / shape.sum()


def _points_shape(x: np.ndarray, y: np.ndarray, bounds: tuple[float, ...]) -> np.ndarray:
    """Points binned on 64 × 64 cells over a square around ``bounds``, then blurred."""
    minx, miny, maxx, maxy = bounds
    side = max(maxx - minx, maxy - miny) * (1 + 1e-9)
    cols = ((x - minx) / side * SIDE).astype(np.int64)
    rows = SIDE - 1 - ((y - miny) / side * SIDE).astype(np.int64)
    keep = (cols >= 0) & (cols < SIDE) & (rows >= 0) & (rows < SIDE)
    return _blurred(rows[keep], cols[keep])


def penguins(directory: Path) -> np.ndarray:
    """GBIF Galápagos penguin sightings (EPSG:6933) over the archipelago's box."""
    import geopandas as gpd
    from shapely.geometry import box

    from dpatlas.spatial import read_gbif

    sites = read_gbif(directory / "spatial" / "galapagos-penguin-occurrence.txt.gz").to_crs(6933)
    area = gpd.GeoSeries([box(-92.0, -1.5, -89.0, 0.7)], crs=4326).to_crs(6933)
    return _points_shape(
        sites.geometry.x.to_numpy(), sites.geometry.y.to_numpy(), area.total_bounds
    )


def cholera() -> np.ndarray:
    """Snow's 1854 cholera deaths (embedded in ``datasets/``) over the streets' extent."""
    import geopandas as gpd

    path = REPO / "datasets" / "snow-cholera-deaths-1854.gpkg"
    deaths = gpd.read_file(path, layer="deaths")
    streets = gpd.read_file(path, layer="streets")
    xy = deaths.geometry.x.to_numpy(), deaths.geometry.y.to_numpy()
    return _points_shape(*xy, streets.total_bounds)


def _gaussians(gen: np.random.Generator, n: int, spread: tuple[float, float]) -> np.ndarray:
    rows, cols = np.mgrid[0:SIDE, 0:SIDE]
    shape = np.zeros((SIDE, SIDE))
    for _ in range(n):
        r, c = gen.uniform(4, SIDE - 4, 2)
        s = gen.uniform(*spread)
        shape += gen.pareto(1.5) * np.exp(-((rows - r) ** 2 + (cols - c) ** 2) / (2 * s * s))
    return shape


def colonies(seed: int = 16) -> np.ndarray:
    """Seabird colonies: a thin coast (a sine curve), a few dense colonies on it."""
    gen = np.random.default_rng(seed)
    rows, cols = np.mgrid[0:SIDE, 0:SIDE]
    coast = 32 + 14 * np.sin(cols / 9.0)
    shape = np.exp(-((rows - coast) ** 2) / 2.0) * 0.02
    for c in gen.uniform(4, SIDE - 4, 7):
        r = 32 + 14 * np.sin(c / 9.0)
        shape += gen.pareto(1.0) * np.exp(-((rows - r) ** 2 + (cols - c) ** 2) / 1.5)
    return shape / shape.sum()


def settlements(seed: int = 17) -> np.ndarray:
    """Clustered settlements of many sizes over a sparse background (1% of the mass)."""
    gen = np.random.default_rng(seed)
    shape = _gaussians(gen, 40, (0.5, 3.0))
    shape = shape / shape.sum()
    return 0.99 * shape + 0.01 / shape.size


def smooth(seed: int = 18) -> np.ndarray:
    """A smooth, dense surface: three broad bumps over a populated plain."""
    gen = np.random.default_rng(seed)
    shape = _gaussians(gen, 3, (8.0, 16.0))
    shape = shape / shape.sum()
    return 0.7 * shape + 0.3 / shape.size


def plain() -> np.ndarray:
    """A dense plain: density rising twofold from west to east."""
    shape = np.tile(1.0 + np.arange(SIDE) / SIDE, (SIDE, 1))
    return shape / shape.sum()


def _rough(seed: int, sigma: float, contrast: float) -> np.ndarray:
    field = ndimage.gaussian_filter(np.random.default_rng(seed).normal(size=(SIDE, SIDE)), sigma)
    shape = np.exp(contrast * field / field.std())
    return shape / shape.sum()


def load(name: str, directory: Path) -> np.ndarray:
    """The 64 × 64 probabilities of a tuning or held-out shape."""
    if name in DPBENCH_SHAPES:
        return load_shape(directory, name).reshape(SIDE, 4, SIDE, 4).sum(axis=(1, 3))
    makers: dict[str, Callable[[], np.ndarray]] = {
        "Penguins": lambda: penguins(directory),
        "Cholera": cholera,
        "Colonies": colonies,
        "Settlements": settlements,
        "Smooth": smooth,
        "Plain": plain,
        "Hills": lambda: _rough(5, 6.0, 1.0),
        "Ridges": lambda: _rough(6, 3.0, 2.0),
    }
    return makers[name]()
