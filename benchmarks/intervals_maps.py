"""Coverage and width of the intervals of released maps, on DPBench shapes and real points.

For every method and every interval the library gives — per cell, per measured leaf, per
region (``Heatmap.query`` on 100 random rectangles per map, corners anywhere, not on cell
edges) — the share that covers the true count, at the level the library prints (95%), and the
median width ÷ the width of the central 95% of the actual error of the value shown beside it
(the map's estimate; ``raw``: the released value). Data:

* DPBench: each shared 256 × 256 shape, N points sampled as in :mod:`benchmarks.dpbench`,
  binned on a public 64 × 64 grid (cells of 4 × 4 shape cells), N ∈ {10⁴, 10⁵}, ε ∈ {0.1, 1};
* the GBIF Galápagos penguin records (1,192 points; each record one site), 10 km cells of
  EPSG:6933 over the archipelago's box, ε ∈ {0.5, 1};
* John Snow's 1854 cholera deaths (the embedded GeoPackage, 392 points), 25 m cells over the
  streets' extent, ε ∈ {0.5, 1}.

Every map draws fresh noise (and DPBench maps fresh points); the coverage of a row pools every
interval of its maps, and "lowest setting" is the smallest coverage among its settings (one
shape, N and ε: a few maps, so its intervals are few and correlated). The width ratios divide
the median width by the central 95% range of the error pooled over the row's intervals: for
measured units (cells of a one-level map, leaves) every unit has the same noise, so the raw
ratio is the tightness of the promise; for cells inside leaves and for regions the pooled
error mixes units of very different sizes and is shown for information.
``python -m benchmarks.intervals_maps [DPBench seeds]`` prints the table.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import geopandas as gpd
import numpy as np
from benchmarks.dpbench import SHAPES, load_shape, sample_points
from shapely.geometry import box
from tests.helpers.coverage import Measurement, map_intervals, rectangles

from dpatlas.spatial import Grid, heatmap

LEVEL = 0.95
METHODS = ("uniform", "adaptive", "privtree", "auto")
REGIONS_PER_MAP = 100
ROOT = Path(__file__).resolve().parents[1]
DPBENCH_GRID = Grid.from_bounds((0, 0, 256, 256), cell_size=4, crs="EPSG:3035")


def _galapagos(shared: Path) -> tuple[np.ndarray, np.ndarray, Grid]:
    from dpatlas.spatial import read_gbif

    sites = read_gbif(shared / "spatial" / "galapagos-penguin-occurrence.txt.gz").to_crs(6933)
    area = gpd.GeoSeries([box(-92.0, -1.5, -89.0, 0.7)], crs=4326).to_crs(6933)
    grid = Grid.from_bounds(tuple(area.total_bounds), cell_size=10_000, crs="EPSG:6933")
    return sites.geometry.x.to_numpy(), sites.geometry.y.to_numpy(), grid


def _snow() -> tuple[np.ndarray, np.ndarray, Grid]:
    path = ROOT / "datasets" / "snow-cholera-deaths-1854.gpkg"
    deaths = gpd.read_file(path, layer="deaths")
    streets = gpd.read_file(path, layer="streets")
    grid = Grid.from_bounds(tuple(streets.total_bounds), cell_size=25, crs="EPSG:27700")
    return deaths.geometry.x.to_numpy(), deaths.geometry.y.to_numpy(), grid


def maps(
    shared: Path, *, seeds: int = 3, real_seeds: int = 20, sizes: tuple[int, ...] = (10**4, 10**5)
) -> Iterator[tuple[str, str, float, np.ndarray, np.ndarray, Grid]]:
    """``(source, setting, ε, x, y, grid)`` of every map to measure (the points are public)."""
    for shape in SHAPES:
        probs = load_shape(shared, shape)
        for n in sizes:
            for seed in range(seeds):
                gen = np.random.default_rng([seed, n, 4])
                _, (x, y) = sample_points(probs, n, gen)
                for eps in (0.1, 1.0):
                    yield "DPBench", f"{shape} N={n}", eps, x, y, DPBENCH_GRID
    for source, (x, y, grid) in (("Galápagos", _galapagos(shared)), ("Snow", _snow())):
        for eps in (0.5, 1.0):
            for _ in range(real_seeds):
                yield source, source, eps, x, y, grid


def run(shared: Path, **kwargs: int | tuple[int, ...]) -> dict[tuple[str, str, str], Measurement]:
    """Measurements by ``(source, method, unit)``, and by ``(setting, method, unit)`` too."""
    out: dict[tuple[str, str, str], Measurement] = {}
    for index, (source, setting, eps, x, y, grid) in enumerate(maps(shared, **kwargs)):
        gen = np.random.default_rng([index, 15])
        boxes = rectangles(grid, REGIONS_PER_MAP, gen)
        for method in METHODS:
            rng = np.random.default_rng([index, 15])  # fresh noise for every map
            # target="regions": the estimate beside an interval is the raw count (uniform) or
            # PrivTree's map (auto), as when these tables were made (docs/cells.md: "cells")
            hm = heatmap(
                (x, y), grid, epsilon=eps, method=method, target="regions", crs=grid.crs, rng=rng
            )
            parts: dict[str, Measurement] = {}
            map_intervals(hm, x, y, boxes, level=LEVEL, index=index, out=parts)
            for unit, part in parts.items():
                for key in ((source, method, unit), (f"{setting}, ε={eps:g}", method, unit)):
                    merged = out.setdefault(key, Measurement())
                    for name in NAMES:
                        getattr(merged, name).extend(getattr(part, name))
                    merged.maps += 1
    return out


SOURCES = ("DPBench", "Galápagos", "Snow")
NAMES = ("low", "high", "truth", "estimate", "raw", "group", "spread", "old_low", "old_high")


def _markdown(header: list[str], rows: list[list[str]]) -> str:
    lines = [header, ["---"] * len(header), *rows]
    return "\n".join("| " + " | ".join(line) + " |" for line in lines)


def table(results: dict[tuple[str, str, str], Measurement]) -> str:
    """Markdown: per source, method and unit, n, coverage, worst setting, width ratios."""
    rows = []
    for source in SOURCES:
        for method in METHODS:
            for unit in ("cell", "leaf", "region"):
                m = results.get((source, method, unit))
                if m is None:
                    continue
                settings = [
                    r.coverage()
                    for (setting, meth, u), r in results.items()
                    if (meth, u) == (method, unit)
                    and "ε=" in setting
                    and _source(setting) == source
                ]
                rows.append(
                    [
                        source,
                        method,
                        unit,
                        f"{m.n:,} ({m.maps})",
                        f"{m.coverage():.4f}",
                        f"{min(settings):.4f}",
                        f"{m.width_ratio():.2f}",
                        f"{m.width_ratio('raw'):.2f}",
                        f"{m.covered(old=True).mean():.4f}",
                    ]
                )
    header = ["data", "method", "unit", "intervals (maps)", "coverage", "lowest setting"]
    header += ["width ÷ error range", "width ÷ raw error range", "coverage before issue 15"]
    return _markdown(header, rows)


def spread_table(results: dict[tuple[str, str, str], Measurement]) -> str:
    """Markdown: occupied cells of multi-level maps whose interval allows for the spread."""
    rows = []
    for source in SOURCES:
        for method in METHODS[1:]:
            share, width, truth, error = results[(source, method, "cell")].spread_cells()
            rows.append(
                [source, method, f"{share:.0%}", f"{width:g}", f"{truth:g}", f"{error:.3g}"]
            )
    header = ["data", "method", "share of occupied cells", "median width", "median true count"]
    return _markdown([*header, "median error of the estimate"], rows)


def _source(setting: str) -> str:
    return setting.split(",")[0] if setting.split(",")[0] in SOURCES[1:] else "DPBench"


if __name__ == "__main__":
    shared = ROOT.parent / "shared" / "datasets"
    seeds = int(sys.argv[1]) if len(sys.argv) > 1 else 3
    results = run(shared, seeds=seeds)
    print(table(results))
    print()
    print(spread_table(results))
