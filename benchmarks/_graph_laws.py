"""Exact inputs and exact noise laws for the graph intervals bench (benchmarks/intervals_graphs.py).

The graphs' exact (NOT private) mechanism inputs, each mechanism's sampler on them, and the exact
``P(|K| <= h)`` of its noise, from which the bench takes exact quantiles and exact coverage.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from scipy.special import digamma

import dpatlas as dpa
from dpatlas.core.interval import dlap_cdf
from dpatlas.core.noise.discrete_laplace import discrete_laplace, rational_scale
from dpatlas.core.noise.local.ladder import ladder_mechanism, rung_sizes
from dpatlas.core.noise.local.ladder_exact import ladder_probabilities
from dpatlas.core.noise.local.piecewise_exact import piecewise_pmf, piecewise_quantile
from dpatlas.core.noise.local.piecewise_ladder import piecewise_ladder_mechanism
from dpatlas.core.noise.local.smooth import (
    smooth_beta,
    smooth_bound,
    smooth_mechanism,
    smooth_scale,
)
from dpatlas.core.rng import get_source
from dpatlas.errors import PrivacyLeakWarning
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.kstar_sensitivity import kstar_exact, kstar_ladder
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder

GRAPHS = {  # file, public n (../shared/datasets/README.md)
    "ca-GrQc": ("ca-GrQc.txt", 5_241),
    "facebook": ("facebook_combined.txt.gz", 4_039),
    "wiki-Vote": ("wiki-Vote.txt.gz", 7_115),
    "ca-HepPh": ("ca-HepPh.txt.gz", 12_006),
    "email-Enron": ("email-Enron.txt.gz", 36_692),
}


def read(shared: Path, name: str) -> dpa.graph.EdgeGraph:
    """The graph on the nodes with an edge: its count is the public ``n`` of the README."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*self-loop", category=UserWarning)
        warnings.filterwarnings("ignore", category=PrivacyLeakWarning)
        g = dpa.graph.read_edgelist(shared / "graphs" / GRAPHS[name][0])
    assert g.n == GRAPHS[name][1], (name, g.n)
    return g


def ladder_abs_cdf(ladder: np.ndarray, eps: float, gs: int, h: np.ndarray) -> np.ndarray:
    """Exact ``P(|K| <= h)`` of the ladder mechanism, vectorised over ``h``."""
    rungs = int(ladder.size + 2 + 60 * math.ceil(2 / eps) + 2 * np.max(h) // max(gs, 1))
    rungs = min(rungs, ladder.size + 2 + int(np.max(h)))
    p = ladder_probabilities(ladder, eps, rungs, global_sensitivity=gs)
    sizes = rung_sizes(ladder, gs, np.arange(1, rungs + 1)).astype(np.float64)
    depth = np.concatenate([[0.0], np.cumsum(sizes)])
    before = np.cumsum(p)
    hh = np.asarray(h, dtype=np.float64)
    r = np.clip(np.searchsorted(depth, hh, side="left"), 1, rungs)
    inside = np.where(sizes[r - 1] > 0, (hh - depth[r - 1]) / np.maximum(sizes[r - 1], 1), 0.0)
    out = before[r - 1] + p[r] * np.clip(inside, 0, 1)
    return np.where(hh <= 0, p[0], np.minimum(out, 1.0))


def piecewise_abs_cdf(
    ladder: np.ndarray, eps: float, gs: int
) -> Callable[[np.ndarray], np.ndarray]:
    """Exact ``P(|K| <= h)`` of the piecewise ladder (a table up to its 1 - 1e-9 quantile)."""
    top = piecewise_quantile(1 - 1e-9, ladder, eps, global_sensitivity=gs) + 1
    pmf = piecewise_pmf(np.arange(top + 1), ladder, eps, global_sensitivity=gs)
    cum = np.cumsum(np.where(np.arange(top + 1) == 0, pmf, 2 * pmf))

    def cdf(h: np.ndarray) -> np.ndarray:
        hh = np.asarray(h, dtype=np.int64)
        return np.where(hh < 0, 0.0, cum[np.clip(hh, 0, top)])  # beyond: >= 1 - 1e-9, kept low

    return cdf


def abs_quantile(cdf: Callable[[np.ndarray], np.ndarray], level: float, start: int = 1) -> int:
    """Smallest integer ``h >= 0`` with ``cdf(h) >= level`` (``cdf`` non-decreasing)."""
    high = max(start, 1)
    while cdf(np.array([high]))[0] < level:
        high *= 2
    low = -1
    while high - low > 1:
        mid = (low + high) // 2
        low, high = (low, mid) if cdf(np.array([mid]))[0] >= level else (mid, high)
    return high


def cauchy_abs_cdf(scale: tuple[int, int]) -> Callable[[np.ndarray], np.ndarray]:
    """Exact ``P(|K| <= h)`` for discrete Cauchy ``K``: ``Σ_{k=1}^{h} b²/(b² + k²)`` in closed form,
    ``-b Im(ψ(h + 1 + ib) - ψ(ib)) - 1`` (partial fractions of ``1/(k² + b²)``, digamma ``ψ``)."""
    b = scale[0] / scale[1]
    norm = math.pi * b / math.tanh(math.pi * b)
    base = digamma(1j * b)

    def cdf(h: np.ndarray) -> np.ndarray:
        hh = np.floor(np.asarray(h, dtype=np.float64))
        inner = -b * np.imag(digamma(np.maximum(hh, 0) + 1 + 1j * b) - base) - 1
        return np.where(hh < 0, 0.0, np.minimum((1 + 2 * inner) / norm, 1.0))

    return cdf


def dlap_abs_cdf(scale: tuple[int, int]) -> Callable[[np.ndarray], np.ndarray]:
    p = math.exp(-scale[1] / scale[0])

    def cdf(h: np.ndarray) -> np.ndarray:
        hh = np.asarray(h, dtype=np.float64)
        return np.where(hh < 0, 0.0, 1 - 2 * p ** (hh + 1) / (1 + p))

    return cdf


def exact_coverage(
    cdf: Callable[[np.ndarray], np.ndarray],
    half: Callable[[np.ndarray], np.ndarray],
    a: int,
    interval_epsilon: float,
) -> float:
    """``Σ_z P(Z = z) P(|K| <= h(a + z))`` for the bound noise of ``interval_epsilon``."""
    scale = rational_scale(1 / interval_epsilon)
    b = scale[0] / scale[1]
    z = np.arange(-math.ceil(60 * b), math.ceil(60 * b) + 1)
    weight = dlap_cdf(z, scale) - dlap_cdf(z - 1, scale)
    return float(weight @ cdf(half(a + z)))


@dataclass
class Graph:
    """The exact (NOT private) inputs of every mechanism, computed once per graph."""

    name: str
    n: int
    triangles: int
    a_max: int
    tri_ladder: np.ndarray
    wedges: int
    wedge_ladder: np.ndarray
    stars3: int
    star3_ladder: np.ndarray
    d_max: int
    stats: object
    edges: int
    degrees: np.ndarray


def prepare(shared: Path, name: str) -> Graph:
    g = read(shared, name)
    st = common_neighbour_stats(g)
    return Graph(
        name,
        g.n,
        st.triangles,
        st.a_max,
        sensitivity_ladder(st),
        kstar_exact(g, 2),
        kstar_ladder(g, 2),
        kstar_exact(g, 3),
        kstar_ladder(g, 3),
        int(np.max(g.degrees)),
        st,
        g.m,
        np.sort(np.asarray(g.degrees, dtype=np.int64)),
    )


def gs3(n: int) -> int:
    """Global sensitivity of the 3-star count: ``2 C(n-2, 2)``."""
    return 2 * math.comb(n - 2, 2)


class Draws:
    """Seeded sources: one per stream, so a row does not depend on the rows before it."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.count = 0

    def __call__(self) -> object:
        self.count += 1
        return get_source(self.seed * 1_000 + self.count)


def count_release(
    draws: Draws,
    exact: int,
    ladder: np.ndarray,
    gs: int,
    method: str,
    eps: float,
    delta: float,
    size: int,
    level: float = 0.95,
) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray], int]:
    """``size`` releases, the exact ``P(|K| <= h)``, and its ``LEVEL`` quantile."""
    if method == "piecewise":
        rel = piecewise_ladder_mechanism(
            exact, ladder, epsilon=eps, global_sensitivity=gs, rng=draws(), size=size
        )
        cdf = piecewise_abs_cdf(ladder, eps, gs)
        start = int(ladder[0])
    elif method == "ladder":
        rel = ladder_mechanism(
            exact, ladder, epsilon=eps, global_sensitivity=gs, rng=draws(), size=size
        )

        def cdf(h: np.ndarray) -> np.ndarray:
            return ladder_abs_cdf(ladder, eps, gs, h)

        start = int(ladder[0])
    elif method == "smooth":
        bound = smooth_bound(ladder, smooth_beta(eps, delta), global_sensitivity=gs)
        rel = smooth_mechanism(exact, bound, epsilon=eps, delta=delta, rng=draws(), size=size)
        scale = smooth_scale(bound, eps, delta)
        cdf = cauchy_abs_cdf(scale) if delta == 0 else dlap_abs_cdf(scale)
        start = int(scale[0] / scale[1])
    else:
        rel = discrete_laplace(np.full(size, exact), sensitivity=gs, epsilon=eps, rng=draws())
        cdf = dlap_abs_cdf(rational_scale(gs / eps))
        start = int(gs / eps)
    return np.asarray(rel.value), cdf, abs_quantile(cdf, level, start)
