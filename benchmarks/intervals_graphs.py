"""Coverage and width of every graph interval (issue 15): the harness of docs/intervals-graphs.md.

For each graph, ε, statistic and method: draw ``DRAWS`` releases from the mechanism's own sampler
on the graph's exact inputs (the ladder, the smooth bound, the global scale: what the public
entry point draws from, without recounting the graph for every draw), draw the bought bound with
its own discrete Laplace sampler, and build each interval with the library's interval code.
Reported: the nominal level, the measured coverage (share of draws whose interval contains the
exact value) and, where the release's distribution is known exactly, the exact coverage
``Σ_z P(Z = z) P(|K| <= h(a + z))``; and the median interval width divided by the width of the
central 95% of the release's actual error (exact where known, else from ``ACTUAL`` more draws).

``python -m benchmarks.intervals_graphs`` prints the Markdown tables of the docs page.
"""

from __future__ import annotations

import math
import sys
import time
import warnings
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import numpy as np

import dpatlas as dpa
from dpatlas.core.interval import dlap_cdf
from dpatlas.core.noise.discrete_cauchy import discrete_cauchy_pmf
from dpatlas.core.noise.discrete_laplace import (
    discrete_laplace,
    rational_scale,
    sample_discrete_laplace,
)
from dpatlas.core.noise.ladder import ladder_mechanism, rung_sizes
from dpatlas.core.noise.ladder_exact import ladder_probabilities
from dpatlas.core.noise.smooth import smooth_beta, smooth_bound, smooth_mechanism, smooth_scale
from dpatlas.core.rng import get_source
from dpatlas.errors import PrivacyLeakWarning
from dpatlas.graph._interval import interval_inputs, steep_halfwidth
from dpatlas.graph.clustering import ratio_interval
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.kstar_sensitivity import kstar_exact, kstar_ladder
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder
from dpatlas.graph.kstars import star_halfwidth

GRAPHS = {  # file, public n (../shared/datasets/README.md)
    "ca-GrQc": ("ca-GrQc.txt", 5_241),
    "facebook": ("facebook_combined.txt.gz", 4_039),
    "wiki-Vote": ("wiki-Vote.txt.gz", 7_115),
    "ca-HepPh": ("ca-HepPh.txt.gz", 12_006),
    "email-Enron": ("email-Enron.txt.gz", 36_692),
}
HELD_OUT = ("ca-HepPh", "email-Enron")
"""Never used to choose a constant: reported apart."""
EPSILONS = (0.1, 0.5, 1.0)
INTERVAL_EPSILON = 0.1
LEVEL = 0.95
DRAWS = 4_000
ACTUAL = 40_000
SMOOTH_DELTA = 1e-6


@dataclass(frozen=True)
class Row:
    """One measured interval: coverage over ``draws`` intervals, and width over actual error."""

    graph: str
    statistic: str
    method: str
    epsilon: float
    cost: float
    level: float
    draws: int
    covered: int
    exact: float
    median_width: float
    error_width: float

    @property
    def coverage(self) -> float:
        return self.covered / self.draws

    @property
    def ratio(self) -> float:
        return self.median_width / self.error_width if self.error_width else math.nan


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
    b = scale[0] / scale[1]
    top = int(200 * b) + 10
    pmf = discrete_cauchy_pmf(np.arange(top + 1), scale)
    cum = np.cumsum(np.where(np.arange(top + 1) == 0, pmf, 2 * pmf))

    def cdf(h: np.ndarray) -> np.ndarray:
        hh = np.asarray(h, dtype=np.int64)
        inside = cum[np.clip(hh, 0, top)]
        beyond = 1 - (2 / math.pi) * np.arctan(b / np.maximum(hh, 1))  # lower bound past the table
        return np.where(hh < 0, 0.0, np.where(hh <= top, inside, np.maximum(beyond, cum[-1])))

    return cdf


def dlap_abs_cdf(scale: tuple[int, int]) -> Callable[[np.ndarray], np.ndarray]:
    p = math.exp(-scale[1] / scale[0])

    def cdf(h: np.ndarray) -> np.ndarray:
        hh = np.asarray(h, dtype=np.float64)
        return np.where(hh < 0, 0.0, 1 - 2 * p ** (hh + 1) / (1 + p))

    return cdf


def exact_coverage(
    cdf: Callable[[np.ndarray], np.ndarray], half: Callable[[np.ndarray], np.ndarray], a: int
) -> float:
    """``Σ_z P(Z = z) P(|K| <= h(a + z))`` for the bound noise of ``INTERVAL_EPSILON``."""
    scale = rational_scale(1 / INTERVAL_EPSILON)
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


class Draws:
    """Seeded sources: one per stream, so a row does not depend on the rows before it."""

    def __init__(self, seed: int) -> None:
        self.seed = seed
        self.count = 0

    def __call__(self) -> object:
        self.count += 1
        return get_source(self.seed * 1_000 + self.count)


def _bound(draws: Draws, value: int, eps_i: float, size: int = DRAWS) -> np.ndarray:
    return value + sample_discrete_laplace(draws(), size, rational_scale(1 / eps_i))


def count_release(
    draws: Draws,
    exact: int,
    ladder: np.ndarray,
    gs: int,
    method: str,
    eps: float,
    delta: float,
    size: int = DRAWS,
) -> tuple[np.ndarray, Callable[[np.ndarray], np.ndarray], int]:
    """``size`` releases, the exact ``P(|K| <= h)``, and its ``LEVEL`` quantile."""
    if method == "ladder":
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
    return np.asarray(rel.value), cdf, abs_quantile(cdf, LEVEL, start)


def _row(
    gr: Graph,
    stat: str,
    method: str,
    eps: float,
    cost: float,
    covered: int,
    exact: float,
    h: np.ndarray,
    q95: int,
) -> Row:
    """A count's row: ``DRAWS`` half-widths ``h`` against the noise's own 95% quantile."""
    width = 2 * float(np.median(h))
    return Row(gr.name, stat, method, eps, cost, LEVEL, DRAWS, covered, exact, width, 2 * q95)


def count_rows(
    gr: Graph,
    stat: str,
    exact: int,
    ladder: np.ndarray,
    gs: int,
    bound: int,
    eps: float,
    draws: Draws,
) -> Iterator[Row]:
    """Ladder, smooth (Cauchy and Laplace) and global intervals of one count."""
    for method, delta, label in (
        ("ladder", 0.0, "ladder"),
        ("smooth", 0.0, "smooth (Cauchy)"),
        ("smooth", SMOOTH_DELTA, f"smooth (δ={SMOOTH_DELTA:g})"),
        ("global", 0.0, "global"),
    ):
        values, cdf, q95 = count_release(draws, exact, ladder, gs, method, eps, delta)
        if method == "global":
            low, high = discrete_laplace(0, sensitivity=gs, epsilon=eps, rng=0).confidence_interval(
                LEVEL
            )
            h = np.full(DRAWS, (high - low) // 2)
            exact_cov, cost = float(cdf(h[:1])[0]), 0.0
        else:
            meta = interval_inputs(method, gs, eps, INTERVAL_EPSILON, delta)
            noisy = _bound(draws, bound, INTERVAL_EPSILON)

            def half(x: np.ndarray, meta: dict = meta) -> np.ndarray:
                return steep_halfwidth(meta, LEVEL, x)

            h = half(noisy)
            exact_cov, cost = exact_coverage(cdf, half, bound), INTERVAL_EPSILON
        covered = int(np.sum(np.abs(values - exact) <= h))
        yield _row(gr, stat, label, eps, cost, covered, exact_cov, h, q95)


def star3_rows(gr: Graph, eps: float, draws: Draws) -> Iterator[Row]:
    """3-stars, ladder method: the two-sided (union bound) interval on the largest degree."""
    gs = 2 * math.comb(gr.n - 2, 2)
    values, _, q95 = count_release(draws, gr.stars3, gr.star3_ladder, gs, "ladder", eps, 0.0)
    meta = {**interval_inputs("ladder", gs, eps, INTERVAL_EPSILON), "n": gr.n, "k": 3}
    noisy = _bound(draws, gr.d_max, INTERVAL_EPSILON)

    @cache
    def one(x: int) -> int:
        return star_halfwidth({**meta, "noisy_d_max": x}, 1 - LEVEL)

    def half(x: np.ndarray) -> np.ndarray:
        return np.array([one(int(v)) for v in np.asarray(x).ravel()]).reshape(np.shape(x))

    h = half(noisy)
    covered = int(np.sum(np.abs(values - gr.stars3) <= h))
    # no exact coverage: one ladder per bound value, too slow to sum over the bound's noise
    yield _row(gr, "3-stars", "ladder", eps, INTERVAL_EPSILON, covered, math.nan, h, q95)


def clustering_rows(gr: Graph, eps: float, draws: Draws) -> Iterator[Row]:
    """Global clustering: both parts at ε/2 (and ε_I/2), intervals at sqrt(level) each."""
    truth = 3 * gr.triangles / gr.wedges
    part_level, half_eps, half_i = math.sqrt(LEVEL), eps / 2, INTERVAL_EPSILON / 2
    tri_gs, wedge_gs = gr.n - 2, 2 * (gr.n - 2)
    for method, delta, label in (
        ("ladder", 0.0, "ladder"),
        ("smooth", 0.0, "smooth (Cauchy)"),
        ("global", 0.0, "global"),
    ):
        parts = []
        for exact, ladder, gs, bound in (
            (gr.triangles, gr.tri_ladder, tri_gs, gr.a_max),
            (gr.wedges, gr.wedge_ladder, wedge_gs, int(gr.wedge_ladder[0])),
        ):
            many = DRAWS + ACTUAL
            values, _, _ = count_release(draws, exact, ladder, gs, method, half_eps, delta, many)
            if method == "global":
                rel = discrete_laplace(0, sensitivity=gs, epsilon=half_eps, rng=0)
                low, high = rel.confidence_interval(part_level)
                h = np.full(many, (high - low) // 2)
            else:
                noisy = _bound(draws, bound, half_i, many)
                h = steep_halfwidth(
                    interval_inputs(method, gs, half_eps, half_i, delta), part_level, noisy
                )
            parts.append((values, h))
        (t, ht), (w, hw) = parts
        value = np.minimum(1.0, np.maximum(0, 3 * t) / np.maximum(w, 1))
        low, high = ratio_interval(t - ht, t + ht, w - hw, w + hw)
        inside = (low <= value) & (value <= high)
        assert inside.all(), "a clustering value fell outside its own interval"
        covered = int(np.sum((low[:DRAWS] <= truth) & (truth <= high[:DRAWS])))
        error = value[DRAWS:] - truth
        width = float(np.quantile(error, 0.975) - np.quantile(error, 0.025))
        cost = 0.0 if method == "global" else INTERVAL_EPSILON
        yield Row(
            gr.name,
            "clustering",
            label,
            eps,
            cost,
            LEVEL,
            DRAWS,
            covered,
            math.nan,
            float(np.median(high[:DRAWS] - low[:DRAWS])),
            width,
        )


def public_rows(gr: Graph, eps: float, draws: Draws) -> Iterator[Row]:
    """Edge count and the raw noisy degree vectors: public scales, exact quantiles."""
    for stat, exact, sens in (
        ("edges", np.array([gr.edges]), 1),
        ("sorted degrees (raw)", gr.degrees, 2),
        ("degree bins (raw)", np.bincount(gr.degrees), 4),
    ):
        pick = exact[np.linspace(0, exact.size - 1, min(exact.size, 50)).astype(int)]
        reps = math.ceil(DRAWS / pick.size)
        rel = discrete_laplace(np.tile(pick, reps), sensitivity=sens, epsilon=eps, rng=draws())
        low, high = rel.confidence_interval(LEVEL)
        covered = int(np.sum((low <= np.tile(pick, reps)) & (np.tile(pick, reps) <= high)))
        cdf = dlap_abs_cdf(rational_scale(sens / eps))
        q95 = abs_quantile(cdf, LEVEL, int(sens / eps))
        h = float(high[0] - rel.value[0])
        yield Row(
            gr.name,
            stat,
            "discrete Laplace",
            eps,
            0.0,
            LEVEL,
            pick.size * reps,
            covered,
            float(cdf(np.array([h]))[0]),
            2 * h,
            2 * q95,
        )


def run(
    shared: Path,
    graphs: tuple[str, ...] = tuple(GRAPHS),
    epsilons: tuple[float, ...] = EPSILONS,
    seed: int = 0,
) -> list[Row]:
    rows: list[Row] = []
    for name in graphs:
        gr = prepare(shared, name)
        for eps in epsilons:
            draws = Draws(seed + int(1000 * eps))
            start = time.perf_counter()
            rows += count_rows(
                gr, "triangles", gr.triangles, gr.tri_ladder, gr.n - 2, gr.a_max, eps, draws
            )
            rows += count_rows(
                gr,
                "2-stars",
                gr.wedges,
                gr.wedge_ladder,
                2 * (gr.n - 2),
                int(gr.wedge_ladder[0]),
                eps,
                draws,
            )
            rows += star3_rows(gr, eps, draws)
            rows += clustering_rows(gr, eps, draws)
            rows += public_rows(gr, eps, draws)
            print(f"  {name} ε={eps}: {time.perf_counter() - start:.1f} s", file=sys.stderr)
    return rows


COLUMNS = (
    "graph",
    "statistic",
    "method",
    "ε",
    "interval ε",
    "nominal",
    "coverage (measured)",
    "coverage (exact)",
    "median width ÷ actual 95% error width",
)


def markdown(rows: list[Row]) -> str:
    """One Markdown table; held-out graphs are marked."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "---|" * len(COLUMNS)]
    for r in rows:
        cells = (
            r.graph + (" (held out)" if r.graph in HELD_OUT else ""),
            r.statistic,
            r.method,
            f"{r.epsilon:g}",
            f"{r.cost:g}",
            f"{r.level:.2f}",
            f"{r.coverage:.4f} ({r.covered}/{r.draws})",
            "" if math.isnan(r.exact) else f"{r.exact:.4f}",
            f"{r.ratio:.2f}",
        )
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def report(rows: list[Row]) -> str:
    """The tables of the docs page: graphs used to check the constants, then the held-out ones."""
    tuned = [r for r in rows if r.graph not in HELD_OUT]
    held = [r for r in rows if r.graph in HELD_OUT]
    return (
        "Graphs seen while choosing constants:\n\n"
        + markdown(tuned)
        + "\n\nHeld-out graphs (never used to choose anything):\n\n"
        + markdown(held)
    )


if __name__ == "__main__":
    shared = Path(__file__).resolve().parents[1].parent / "shared" / "datasets"
    print(report(run(shared)))
