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
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from benchmarks._graph_laws import (
    GRAPHS,
    Draws,
    Graph,
    abs_quantile,
    count_release,
    dlap_abs_cdf,
    exact_coverage,
    gs3,
    prepare,
)

from dpatlas.core.interval_pairs import PublicLaplace, pair_rule
from dpatlas.core.noise.discrete_laplace import (
    discrete_laplace,
    rational_scale,
    sample_discrete_laplace,
)
from dpatlas.graph._interval import bounded_halfwidth, interval_inputs, noise_family

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


def _bound(draws: Draws, value: int, eps_i: float, size: int = DRAWS) -> np.ndarray:
    return value + sample_discrete_laplace(draws(), size, rational_scale(1 / eps_i))


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
    k: int = 2,
) -> Iterator[Row]:
    """Piecewise (``k <= 2``), ladder, smooth (Cauchy, Laplace) and global intervals of a count."""
    for method, delta, label in (
        *((("piecewise", 0.0, "piecewise"),) if k <= 2 else ()),
        ("ladder", 0.0, "ladder"),
        ("smooth", 0.0, "smooth (Cauchy)"),
        ("smooth", SMOOTH_DELTA, f"smooth (δ={SMOOTH_DELTA:g})"),
        ("global", 0.0, "global"),
    ):
        values, cdf, q95 = count_release(draws, exact, ladder, gs, method, eps, delta, DRAWS, LEVEL)
        if method == "global":
            low, high = discrete_laplace(0, sensitivity=gs, epsilon=eps, rng=0).confidence_interval(
                LEVEL
            )
            h = np.full(DRAWS, (high - low) // 2)
            exact_cov, cost = float(cdf(h[:1])[0]), 0.0
        else:
            meta = interval_inputs(method, gs, eps, INTERVAL_EPSILON, delta, n=gr.n, k=k)
            noisy = _bound(draws, bound, INTERVAL_EPSILON)

            def half(x: np.ndarray, meta: dict = meta) -> np.ndarray:
                return bounded_halfwidth(meta, LEVEL, x)

            h = half(noisy)
            exact_cov, cost = exact_coverage(cdf, half, bound, INTERVAL_EPSILON), INTERVAL_EPSILON
        covered = int(np.sum(np.abs(values - exact) <= h))
        yield _row(gr, stat, label, eps, cost, covered, exact_cov, h, q95)


def clustering_rows(gr: Graph, eps: float, draws: Draws) -> Iterator[Row]:
    """Global clustering: both parts at ε/2 (and ε_I/2), the interval of the pair rule."""
    truth = 3 * gr.triangles / gr.wedges
    half_eps, half_i = eps / 2, INTERVAL_EPSILON / 2
    tri_gs, wedge_gs = gr.n - 2, 2 * (gr.n - 2)
    for method, delta, label in (
        ("piecewise", 0.0, "piecewise"),
        ("ladder", 0.0, "ladder"),
        ("smooth", 0.0, "smooth (Cauchy)"),
        ("global", 0.0, "global"),
    ):
        many = DRAWS + ACTUAL
        values, bounds, families = [], [], []
        for exact, ladder, gs, bound in (
            (gr.triangles, gr.tri_ladder, tri_gs, gr.a_max),
            (gr.wedges, gr.wedge_ladder, wedge_gs, int(gr.wedge_ladder[0])),
        ):
            values.append(
                count_release(draws, exact, ladder, gs, method, half_eps, delta, many, LEVEL)[0]
            )
            if method == "global":
                families.append(PublicLaplace(gs / half_eps))
                bounds.append(np.zeros(many))
            else:
                families.append(noise_family(interval_inputs(method, gs, half_eps, half_i, delta)))
                bounds.append(_bound(draws, bound, half_i, many))
        scale = None if method == "global" else rational_scale(1 / half_i)
        t, w = values
        value = np.minimum(1.0, np.maximum(0, 3 * t) / np.maximum(w, 1))
        low, high = pair_rule(*families, LEVEL, scale).interval(t, w, *bounds)
        inside = (low <= value) & (value <= high)
        assert inside.all(), "a clustering value fell outside its own interval"
        covered = int(np.sum((low[:DRAWS] <= truth) & (truth <= high[:DRAWS])))
        error = value[DRAWS:] - truth
        width = float(np.quantile(error, 0.975) - np.quantile(error, 0.025))
        cost = 0.0 if method == "global" else INTERVAL_EPSILON
        median = float(np.median(high[:DRAWS] - low[:DRAWS]))
        yield Row(
            gr.name, "clustering", label, eps, cost, LEVEL, DRAWS, covered, math.nan, median, width
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
            rows += count_rows(
                gr, "3-stars", gr.stars3, gr.star3_ladder, gs3(gr.n), gr.d_max, eps, draws, k=3
            )
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
