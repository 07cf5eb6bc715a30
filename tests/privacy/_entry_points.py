"""The audited releases: every public release function, called through its public entry point.

Each :class:`Case` is one release path on two neighbouring inputs where it takes its real
code path, with the whole output summarised by :func:`dpatlas.audit.summarize` (value,
noisy bounds and counts in the metadata, the released tree and its structure code). A case
runs the release at ``scale · ε`` (every ε of the call multiplied, e.g. ``interval_epsilon``
too); ``scale = 1`` is the product, ``scale = broken`` the deliberately broken variant of the
meta-test (see test_entry_point_audits.py for the choice of runs and of ``broken``).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
from tests.privacy._core_calls import (
    SCORES,
    SCORES_MOVED,
    _clipped_mean,
    _clipped_mean_n,
    _clipped_sum,
    _discrete_laplace,
    _exponential,
    _gaussian,
    _ladder,
    _laplace,
    _noisy_max,
    _randomized_response,
    _smooth,
)

from dpatlas.audit import summarize
from dpatlas.graph import (
    clustering_coefficient,
    degree_histogram,
    edge_count,
    kstar_count,
    triangle_count,
)
from dpatlas.spatial import Grid, estimate_n_sites, heatmap

Release = Callable[[Any, float, np.random.Generator], np.ndarray]
Batched = Callable[[Any, float, int, np.random.Generator], np.ndarray]


@dataclass(frozen=True)
class Case:
    """One audited release path.

    ``release(data, scale, rng)`` returns the summary of one release at ``scale·ε``, or, when
    ``batched``, ``release(data, scale, size, rng)`` returns ``size`` independent releases of
    one coordinate each (a vector input of a coordinate-wise mechanism, ``max_changed=1``).
    ``epsilon`` / ``delta`` are the release's claimed total cost at scale 1. ``broken`` is
    the scale of the broken variant: 2, or more where the mechanism realises only part of its
    ε on every pair (see ``realised`` and the test module's docstring).
    """

    release: Release | Batched
    d: Any
    d_prime: Any
    epsilon: float
    samples: int
    delta: float = 0.0
    broken: float = 2.0
    batched: bool = False
    realised: str = "ε (a shift by the sensitivity)"

    def mechanism(self, scale: float) -> Callable[..., np.ndarray]:
        """The callable :func:`dpatlas.audit.audit` runs, at ``scale · ε``."""
        if self.batched:
            batched: Batched = self.release  # type: ignore[assignment]

            def many(data: Any, *, size: int, rng: np.random.Generator) -> np.ndarray:
                return batched(data, scale, size, rng)

            return many
        single: Release = self.release  # type: ignore[assignment]

        def one(data: Any, *, rng: np.random.Generator) -> np.ndarray:
            return single(data, scale, rng)

        return one


# graphs: edge lists on a public node count, as (edges, n)
TWO_EDGES, PATH = [(0, 1), (2, 3)], [(0, 1), (1, 2), (2, 3)]  # a_max 0 vs 1, c_max 2 vs 3
K24 = [(hub, leaf) for hub in (0, 1) for leaf in range(2, 6)]  # 0 triangles, a_max = 4
K24_HUB = [*K24, (0, 1)]  # + the hub-hub edge: 4 triangles (the global sensitivity n - 2)
K5 = list(itertools.combinations(range(5), 2))  # 10 triangles, every ladder at GS = 3


def _graph(call: Callable[..., Any], n: int) -> Release:
    def release(edges: list[tuple[int, int]], scale: float, rng: np.random.Generator) -> Any:
        return summarize(call(np.array(edges), scale, n=n, rng=rng))

    return release


def _triangles(method: str, **kw: Any) -> Callable[..., Any]:
    interval = kw.pop("interval_epsilon", None)

    def call(edges: np.ndarray, scale: float, **more: Any) -> Any:
        extra = {} if interval is None else {"interval_epsilon": interval * scale}
        return triangle_count(edges, epsilon=scale, method=method, **kw, **extra, **more)

    return call


def _kstars(method: str, **kw: Any) -> Callable[..., Any]:
    interval = kw.pop("interval_epsilon", None)

    def call(edges: np.ndarray, scale: float, **more: Any) -> Any:
        extra = {} if interval is None else {"interval_epsilon": interval * scale}
        return kstar_count(edges, 2, epsilon=scale, method=method, **kw, **extra, **more)

    return call


# spatial: a public grid and site sets that differ by one site
CRS = "EPSG:3035"
GRID_3 = Grid.from_bounds((0, 0, 3_000, 3_000), cell_size=1_000, crs=CRS)  # 9 cells: uniform
GRID_8 = Grid.from_bounds((0, 0, 8_000, 8_000), cell_size=1_000, crs=CRS)  # 64: regions: PrivTree
GRID_16 = Grid.from_bounds((0, 0, 16_000, 16_000), cell_size=1_000, crs=CRS)  # 256: cells: medians
SITES_3 = (np.array([500.0, 1_500.0, 2_999.0]), np.array([500.0, 2_500.0, 10.0]))
CLUSTER = np.random.default_rng(17).uniform(1_000, 3_000, size=(40, 2))  # 40 sites in 4 cells
SITES_8 = (CLUSTER[:, 0], CLUSTER[:, 1])
SPREAD = np.random.default_rng(16).uniform(0, 16_000, size=(150, 2))
SITES_16 = (SPREAD[:, 0], SPREAD[:, 1])


def _plus(sites: tuple[np.ndarray, np.ndarray], x: float, y: float) -> tuple[np.ndarray, ...]:
    return np.append(sites[0], x), np.append(sites[1], y)


def _heatmap(method: str, grid: Grid, target: str = "cells", **options: Any) -> Release:
    def release(sites: Any, scale: float, rng: np.random.Generator) -> np.ndarray:
        hm = heatmap(
            sites,
            grid,
            epsilon=scale,
            method=method,
            target=target,
            method_options=options,
            crs=CRS,
            rng=rng,
        )
        return summarize(hm.release, hm.estimate, width=grid.n_released + 32)

    return release


def _n_sites(sites: Any, scale: float, rng: np.random.Generator) -> np.ndarray:
    return summarize(estimate_n_sites(sites, GRID_3, epsilon=scale, crs=CRS, rng=rng))


LADDER = "ε/2: the ladder's normaliser term never materialises (exact pmf, every pair tried)"
CAUCHY = "under ε/5: Cauchy noise of scale 6S/ε against a shift by S (exact pmf, 180 pairs)"
INTERVAL = "ε_interval (the bound, a_max or c_max, moves by 1) or the count's part, not both"
HISTOGRAM = "part of ε: isotonic fitting or the simplex projection merges bins"
HALVES = "ε/2 in each of two parts, and no one-coordinate event sees both"
PIECEWISE = (
    "its rate θ (exact pmf): ε on k24 at ε = 1 (floor ⌈4/ε⌉ = GS: discrete Laplace at GS), "
    "0.81ε for wedges on k5; run at 2.5ε the floor is 2 and the loss 2.14 on both"
)
PAIRS = {
    "k24": (K24, K24_HUB, 6),
    "k5": (K5, K5[1:], 5),
    "two-edges": (TWO_EDGES, PATH, 4),
}
ADD_SITE_3 = (SITES_3, _plus(SITES_3, 1_000, 2_000))  # on a corner of four cells
ADD_SITE_8 = (SITES_8, _plus(SITES_8, 1_500, 1_500))  # inside the cluster
ADD_SITE_16 = (SITES_16, _plus(SITES_16, 7_000, 9_000))  # on a corner of four cells


def _graph_case(call: Callable[..., Any], pair: str, epsilon: float = 1.0, **kw: Any) -> Case:
    d, d_prime, n = PAIRS[pair]
    return Case(_graph(call, n), d, d_prime, epsilon, kw.pop("samples", 600), **kw)


def _map_case(release: Release, pair: tuple[Any, Any], **kw: Any) -> Case:
    return Case(release, *pair, 1.0, 600, **kw)


def _degrees(method: str) -> Callable[..., Any]:
    def call(edges: np.ndarray, scale: float, **more: Any) -> Any:
        return degree_histogram(edges, epsilon=scale, method=method, **more)

    return call


def _edges(edges: np.ndarray, scale: float, **more: Any) -> Any:
    return edge_count(edges, epsilon=scale, **more)


def _clustering(edges: np.ndarray, scale: float, **more: Any) -> Any:
    return clustering_coefficient(edges, epsilon=scale, method="global", **more)


def _clustering_default(edges: np.ndarray, scale: float, **more: Any) -> Any:
    return clustering_coefficient(edges, epsilon=scale, **more)  # piecewise for both parts


SMOOTH_DELTA = {"delta": 1e-3, "broken": 4.0}
CASES: dict[str, Case] = {
    # graph releases (edge-DP, public n)
    "triangle_count/global": _graph_case(_triangles("global"), "k24"),
    "triangle_count/piecewise": _graph_case(
        _triangles("piecewise"), "k24", broken=2.5, realised=PIECEWISE
    ),
    "triangle_count/piecewise-relaxed": _graph_case(
        _triangles("piecewise", relaxed=True), "k24", broken=2.5, realised=PIECEWISE
    ),
    "triangle_count/piecewise+interval": _graph_case(
        _triangles("piecewise", interval_epsilon=1.0),
        "two-edges",
        2.0,
        broken=4.0,
        realised=INTERVAL,
    ),
    "triangle_count/ladder": _graph_case(_triangles("ladder"), "k5", broken=4.0, realised=LADDER),
    "triangle_count/ladder-relaxed": _graph_case(
        _triangles("ladder", relaxed=True), "k5", broken=4.0, realised=LADDER
    ),
    "triangle_count/smooth": _graph_case(_triangles("smooth"), "k24", broken=24.0, realised=CAUCHY),
    "triangle_count/smooth-delta": _graph_case(
        _triangles("smooth", delta=1e-3), "k24", **SMOOTH_DELTA
    ),
    "triangle_count/ladder+interval": _graph_case(
        _triangles("ladder", interval_epsilon=1.0), "two-edges", 2.0, broken=4.0, realised=INTERVAL
    ),
    "triangle_count/smooth+interval": _graph_case(
        _triangles("smooth", interval_epsilon=1.0), "two-edges", 2.0, broken=4.0, realised=INTERVAL
    ),
    "kstar_count/piecewise": _graph_case(
        _kstars("piecewise"), "k5", broken=2.5, realised=PIECEWISE
    ),
    "kstar_count/ladder": _graph_case(_kstars("ladder"), "k5", broken=4.0, realised=LADDER),
    "kstar_count/smooth": _graph_case(_kstars("smooth", delta=1e-3), "k5", **SMOOTH_DELTA),
    "kstar_count/global": _graph_case(_kstars("global"), "k5"),
    "kstar_count/ladder+interval": _graph_case(
        _kstars("ladder", interval_epsilon=1.0), "two-edges", 2.0, broken=4.0, realised=INTERVAL
    ),
    "clustering_coefficient": _graph_case(_clustering, "k5", broken=4.0, realised=HALVES),
    "clustering_coefficient/piecewise": _graph_case(
        _clustering_default, "k5", broken=4.0, realised=HALVES
    ),
    "edge_count": _graph_case(_edges, "two-edges"),
    "degree_histogram/sorted": _graph_case(
        _degrees("sorted"), "two-edges", broken=4.0, realised=HISTOGRAM
    ),
    "degree_histogram/direct": _graph_case(
        _degrees("direct"), "two-edges", broken=4.0, realised=HISTOGRAM
    ),
    # heatmaps (one site added); on GRID_8 (64 cells) "auto" for target="regions" runs PrivTree
    # (ε/3, θ = -1.5δ); on GRID_16 (256 cells) the default, target="cells", releases the uniform
    # grid and publishes its posterior medians (on GRID_3 its total-preserving projection)
    "heatmap/uniform": _map_case(_heatmap("uniform", GRID_3), ADD_SITE_3),
    "heatmap/auto-uniform": _map_case(_heatmap("auto", GRID_3), ADD_SITE_3),
    "heatmap/auto-cells": _map_case(_heatmap("auto", GRID_16), ADD_SITE_16),
    "heatmap/adaptive": _map_case(_heatmap("adaptive", GRID_8), ADD_SITE_8, broken=4.0),
    "heatmap/privtree": _map_case(
        _heatmap("privtree", GRID_8), ADD_SITE_8, broken=4.0, realised=HALVES
    ),
    "heatmap/auto-privtree": _map_case(
        _heatmap("auto", GRID_8, target="regions"), ADD_SITE_8, broken=4.0
    ),
    "estimate_n_sites": _map_case(_n_sites, ADD_SITE_3),
    # core mechanisms: batched ones draw `size` releases per call
    "discrete_laplace": Case(_discrete_laplace, 3, 4, 1.0, 4_000, batched=True),
    "laplace": Case(_laplace, 0.25, 1.25, 1.0, 4_000, batched=True),
    "gaussian": Case(_gaussian, 0.0, 1.0, 1.0, 40_000, delta=1e-3, batched=True),
    "randomized_response": Case(_randomized_response, 0, 1, 1.0, 4_000, batched=True),
    "ladder_mechanism": Case(_ladder, 0, 4, 1.0, 4_000, broken=4.0, batched=True, realised=LADDER),
    "smooth_mechanism": Case(_smooth, 0, 1, 1.0, 4_000, batched=True, **SMOOTH_DELTA),
    "exponential": Case(_exponential, SCORES, SCORES_MOVED, 1.0, 3_000),
    "report_noisy_max": Case(_noisy_max, SCORES, SCORES_MOVED, 1.0, 3_000),
    "clipped_sum": Case(_clipped_sum, [1.0, 2.0], [1.0, 2.0, 4.0], 1.0, 600),
    "clipped_mean": Case(
        _clipped_mean, [1.0, 2.0], [1.0, 2.0, 4.0], 1.0, 600, broken=4.0, realised=HALVES
    ),
    "clipped_mean/n": Case(_clipped_mean_n, [1.0, 2.0, 0.0], [1.0, 2.0, 4.0], 1.0, 600),
}
