"""The contract cases: every public release function, called for real (issue #17).

Each :class:`Contract` calls one public release function on a small valid input as
``call(epsilon, budget=..., rng=...)`` and states, independently of the code under test, what
that call must debit: ``cost(ε) = (ε_total, δ, ρ)``. ``audits`` names the cases of
:mod:`tests.privacy._entry_points` that audit the same function through its entry point.
``noise`` (for releases whose noise scale is public) draws noise values ``release - exact``
in units of the release's lattice, with the scale they should follow.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

from dpatlas import core
from dpatlas.core.noise.gaussian import analytic_gaussian_sigma
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.core.noise.local.piecewise_ladder import piecewise_ladder_mechanism
from dpatlas.core.noise.local.smooth import smooth_mechanism
from dpatlas.graph import (
    as_edge_graph,
    clustering_coefficient,
    degree_histogram,
    edge_count,
    kstar_count,
    synthesize,
    triangle_count,
)
from dpatlas.spatial import Grid, estimate_n_sites, heatmap

CRS = "EPSG:3035"
K5 = as_edge_graph(np.array([(i, j) for i in range(5) for j in range(i + 1, 5)]), n=8)
GRID = Grid.from_bounds((0, 0, 8_000, 8_000), cell_size=1_000, crs=CRS)
SITES = tuple(np.random.default_rng(17).uniform(1_000, 3_000, size=(2, 40)))
BIG_GRID = Grid.from_bounds((0, 0, 400_000, 250_000), cell_size=1_000, crs=CRS)  # 100,000 cells
NOISE_DRAWS = 100_000


def pure(eps: float) -> tuple[float, float, float]:
    return eps, 0.0, eps * eps / 2


@dataclass(frozen=True)
class Noise:
    """``draw(epsilon, size, rng)`` returns ``(noise in lattice units, scale in those units)``."""

    draw: Callable[[float, int, Any], tuple[np.ndarray, float]]
    family: str = "discrete_laplace"


@dataclass(frozen=True)
class Contract:
    function: Callable[..., Any]
    call: Callable[..., Any]
    cost: Callable[[float], tuple[float, float, float | None]] = pure
    audits: tuple[str, ...] = ()
    noise: Noise | None = None


def release_of(out: Any) -> core.Release:
    """The Release inside a result (a heatmap returns a Heatmap)."""
    return out.release if hasattr(out, "release") and hasattr(out, "grid") else out


# noise draws: one call of a vector input, or repeated calls of a scalar release
def _vector(call: Callable[..., Any]) -> Callable[[float, int, Any], tuple[np.ndarray, float]]:
    def draw(eps: float, size: int, rng: Any) -> tuple[np.ndarray, float]:
        rel = call(eps, size, rng)
        grid = rel.metadata.get("grid", 1.0) if isinstance(rel.metadata.get("grid"), float) else 1.0
        return np.rint(np.asarray(rel.value, dtype=np.float64) / grid).astype(
            np.int64
        ), rel.scale / grid

    return draw


def _dl(eps: float, size: int, rng: Any) -> core.Release:
    return core.discrete_laplace(
        np.zeros(size, dtype=np.int64), sensitivity=2, epsilon=eps, rng=rng
    )


def _lap(eps: float, size: int, rng: Any) -> core.Release:
    # the coarsest grid allowed (scale·2**-10), so that the noise spans few lattice points
    return core.laplace(
        np.zeros(size),
        sensitivity=1.0,
        epsilon=eps,
        max_changed=1,
        resolution=eps**-1 / 1024,
        rng=rng,
    )


def _gauss(eps: float, size: int, rng: Any) -> core.Release:
    coarsest = analytic_gaussian_sigma(1.0, eps, 1e-3) * 2.0**-16  # few lattice points
    values = np.zeros(size)
    return core.gaussian(
        values,
        sensitivity=1.0,
        epsilon=eps,
        delta=1e-3,
        max_changed=1,
        resolution=coarsest,
        rng=rng,
    )


def _sorted_degrees(eps: float, size: int, rng: Any) -> tuple[np.ndarray, float]:
    rel = degree_histogram(np.zeros((0, 2), dtype=np.int64), n=size, epsilon=eps, rng=rng)
    return np.asarray(rel.raw.value, dtype=np.int64), float(rel.raw.scale)


def _uniform_map(eps: float, size: int, rng: Any) -> tuple[np.ndarray, float]:
    no_site = (np.empty(0), np.empty(0))
    hm = heatmap(
        no_site, BIG_GRID, epsilon=eps, method="uniform", target="regions", crs=CRS, rng=rng
    )
    return np.asarray(hm.release.value[:size], dtype=np.int64), float(hm.release.scale)


def _map(method: str) -> Callable[..., Any]:
    def call(eps: float, **kw: Any) -> Any:  # ρ of the multi-level maps: the sum of their parts
        return heatmap(SITES, GRID, epsilon=eps, method=method, crs=CRS, **kw)

    return call


def _gaussian_cost(eps: float) -> tuple[float, float, float | None]:
    return eps, 1e-6, None  # ρ from the lattice noise: checked against the release's own


CONTRACTS: dict[str, Contract] = {
    # core mechanisms
    "discrete_laplace": Contract(
        core.discrete_laplace,
        lambda e, **k: core.discrete_laplace([3, 1, 4], sensitivity=1, epsilon=e, **k),
        audits=("discrete_laplace",),
        noise=Noise(_vector(_dl)),
    ),
    "laplace": Contract(
        core.laplace,
        lambda e, **k: core.laplace([1.5, -2.0], sensitivity=1.0, epsilon=e, **k),
        audits=("laplace",),
        noise=Noise(_vector(_lap)),
    ),
    "gaussian": Contract(
        core.gaussian,
        lambda e, **k: core.gaussian([1.5], sensitivity=1.0, epsilon=e, delta=1e-6, **k),
        cost=_gaussian_cost,
        audits=("gaussian",),
        noise=Noise(_vector(_gauss), family="discrete_gaussian"),
    ),
    "exponential": Contract(
        core.exponential,
        lambda e, **k: core.exponential(None, [1.0, 3.0], sensitivity=1.0, epsilon=e, **k),
        audits=("exponential",),
    ),
    "report_noisy_max": Contract(
        core.report_noisy_max,
        lambda e, **k: core.report_noisy_max([1.0, 3.0], sensitivity=1.0, epsilon=e, **k),
        audits=("report_noisy_max",),
    ),
    "randomized_response": Contract(
        core.randomized_response,
        lambda e, **k: core.randomized_response([0, 1, 1], epsilon=e, **k),
        audits=("randomized_response",),
    ),
    "clipped_sum": Contract(
        core.clipped_sum,
        lambda e, **k: core.clipped_sum([0.5, 9.0], lower=0.0, upper=2.0, epsilon=e, **k),
        audits=("clipped_sum",),
    ),
    "clipped_mean": Contract(
        core.clipped_mean,
        lambda e, **k: core.clipped_mean([0.5, 9.0], lower=0.0, upper=2.0, epsilon=e, **k),
        cost=lambda e: (e, 0.0, e * e / 4),  # the sum and the count at ε/2 each
        audits=("clipped_mean", "clipped_mean/n"),
    ),
    "ladder_mechanism": Contract(
        ladder_mechanism,
        lambda e, **k: ladder_mechanism(40, [2, 3, 3], epsilon=e, global_sensitivity=4, **k),
        audits=("ladder_mechanism",),
    ),
    "piecewise_ladder_mechanism": Contract(
        piecewise_ladder_mechanism,
        lambda e, **k: piecewise_ladder_mechanism(40, [2, 3, 4], epsilon=e, **k),
        audits=("triangle_count/piecewise",),
    ),
    "smooth_mechanism": Contract(
        smooth_mechanism,
        lambda e, **k: smooth_mechanism(40, 2.0, epsilon=e, delta=1e-6, **k),
        cost=lambda e: (e, 1e-6, None),
        audits=("smooth_mechanism",),
    ),
    # graph releases (edge-DP on a public node set)
    "edge_count": Contract(
        edge_count, lambda e, **k: edge_count(K5, epsilon=e, **k), audits=("edge_count",)
    ),
    "degree_histogram": Contract(
        degree_histogram,
        lambda e, **k: degree_histogram(K5, epsilon=e, **k),
        audits=("degree_histogram/sorted", "degree_histogram/direct"),
        noise=Noise(_sorted_degrees),
    ),
    "triangle_count": Contract(
        triangle_count,
        lambda e, **k: triangle_count(K5, epsilon=e, interval_epsilon=0.25, **k),
        cost=lambda e: (e + 0.25, 0.0, (e * e + 0.0625) / 2),
        audits=("triangle_count/piecewise", "triangle_count/ladder+interval"),
    ),
    "kstar_count": Contract(
        kstar_count,
        lambda e, **k: kstar_count(K5, 2, epsilon=e, method="smooth", delta=1e-6, **k),
        cost=lambda e: (e, 1e-6, None),
        audits=("kstar_count/ladder", "kstar_count/smooth"),
    ),
    "clustering_coefficient": Contract(
        clustering_coefficient,
        lambda e, **k: clustering_coefficient(K5, epsilon=e, **k),
        cost=lambda e: (e, 0.0, e * e / 4),  # two parts of ε/2
        audits=("clustering_coefficient",),
    ),
    "synthesize": Contract(
        synthesize,
        lambda e, **k: synthesize(K5, n=8, epsilon=e, **k),
        cost=lambda e: (e, 0.0, None),  # ρ: the sum of the four stages' ε²/2
        audits=("tests/privacy/test_synthesize.py",),
    ),
    # maps (one site added or removed)
    "heatmap/uniform": Contract(
        heatmap, _map("uniform"), audits=("heatmap/uniform",), noise=Noise(_uniform_map)
    ),
    "heatmap/privtree": Contract(
        heatmap, _map("privtree"), cost=lambda e: (e, 0.0, None), audits=("heatmap/privtree",)
    ),
    "heatmap/adaptive": Contract(
        heatmap, _map("adaptive"), cost=lambda e: (e, 0.0, None), audits=("heatmap/adaptive",)
    ),
    "heatmap/auto": Contract(
        heatmap, _map("auto"), cost=lambda e: (e, 0.0, None), audits=("heatmap/auto-privtree",)
    ),
    "estimate_n_sites": Contract(
        estimate_n_sites,
        lambda e, **k: estimate_n_sites(SITES, GRID, epsilon=e, crs=CRS, **k),
        audits=("estimate_n_sites",),
    ),
}
