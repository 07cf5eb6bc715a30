"""k-star intervals cover at their level, computed exactly over every reachable graph.

For a graph whose bounded statistic is ``a`` (``c_max`` for 2-stars, ``d_max`` for larger
stars) the printed interval is ``value ± h(â)`` cut at 0 (the cut cannot lose a count), so it
holds the count with probability exactly ``Σ_z P(Z = z) P(|K| <= h(a + z))``: ``Z`` the bought
bound's discrete Laplace noise, ``K`` the count's noise, independent. The laws of ``K`` below
are written out from the mechanisms' definitions (the ladder and the piecewise ladder rung by
rung, the discrete Cauchy tail by the digamma function, the discrete Laplace tail in closed
form), not from the interval families they check, and are themselves checked against the
library's pmfs. ``Z`` beyond ``±(60 b + 5)`` is counted as a miss.

Graphs: every graph on 5, 6 and 7 nodes (networkx's atlas, up to isomorphism, which the
statistic and the ladder do not see); graphs reaching every largest degree ``D = 0 .. n - 1``
(two hubs of degree ``D``, whose pair ladder is the worst one given ``D``; a star; a clique
with isolated nodes; random graphs); for 2-stars every ``c_max`` in ``0 .. GS``, as the 2-star
ladder is ``min(GS, c_max + t)`` for every graph. Each check is shown to fail somewhere for the
same half-widths times 0.9.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable

import networkx as nx
import numpy as np
import pytest
from scipy.special import digamma

from dpatlas.core.noise.discrete_cauchy import discrete_cauchy_pmf
from dpatlas.core.noise.discrete_laplace import rational_scale
from dpatlas.core.noise.local.ladder import step_scale
from dpatlas.core.noise.local.ladder_exact import ladder_pmf
from dpatlas.core.noise.local.piecewise_exact import piecewise_pmf
from dpatlas.core.noise.local.piecewise_ladder import floored_widths, piecewise_theta
from dpatlas.core.noise.local.smooth import smooth_beta, smooth_bound, smooth_scale
from dpatlas.graph import clustering_coefficient, kstar_count, triangle_count
from dpatlas.graph._interval import bounded_halfwidth, interval_inputs
from dpatlas.graph.exact.kstar_sensitivity import kstar_ladder, star_global_sensitivity
from dpatlas.graph.input.edgegraph import as_edge_graph

Cdf = Callable[[np.ndarray], np.ndarray]
LEVELS = (0.5, 0.9, 0.95, 0.999)
METHODS = {
    2: ("ladder", "piecewise", "smooth", "smooth-delta"),
    3: ("ladder", "smooth", "smooth-delta"),
}


def methods_of(k: int) -> tuple[str, ...]:
    return METHODS[min(k, 3)]


def ladder_abs_cdf(ladder: Iterable[int], gs: int, eps: float) -> Cdf:
    """``P(|K| <= h)`` of the ladder mechanism: rung ``r >= 1`` holds ``I_{r-1}`` magnitudes of
    weight ``q^r`` per sign (``I = GS`` after the array), the count itself weight 1."""
    t, s = step_scale(eps)
    log_q = -s / t
    sizes = np.asarray(list(ladder), dtype=np.float64)
    rungs = sizes.size
    depth = np.concatenate([[0.0], np.cumsum(sizes)])
    weight = np.concatenate([[0.0], np.cumsum(sizes * np.exp(np.arange(1, rungs + 1) * log_q))])
    tail = gs * math.exp((rungs + 1) * log_q) / -math.expm1(log_q)
    total = 1 + 2 * (weight[-1] + tail)

    def cdf(h: np.ndarray) -> np.ndarray:
        mag = np.maximum(np.floor(np.asarray(h, dtype=np.float64)), 0.0)
        r = np.minimum(np.searchsorted(depth, mag, side="right"), rungs)  # u_{r-1} <= mag
        inside = weight[r - 1] + (mag - depth[r - 1]) * np.exp(r * log_q)
        past = np.maximum(mag - depth[-1], 0.0)
        full = np.floor(past / max(gs, 1))  # whole GS rungs past the array
        far = (
            weight[-1]
            + tail * -np.expm1(full * log_q)
            + (past - full * gs) * np.exp((rungs + 1 + full) * log_q)
        )
        one_sign = np.where(mag >= depth[-1], far, inside)
        out = np.minimum((1 + 2 * one_sign) / total, 1.0)
        return np.where(np.asarray(h) < 0, 0.0, out)

    return cdf


def piecewise_abs_cdf(ladder: Iterable[int], gs: int, eps: float) -> Cdf:
    """``P(|K| <= h)`` of the piecewise ladder: magnitude ``u_t + j`` (``1 <= j <= J_t``) has
    weight ``q^(t + j/J_t)`` per sign, ``J = max(I, floor)``, at the sampler's rate ``θ``."""
    widths, floor = floored_widths(np.asarray(list(ladder), dtype=np.int64), gs, None, eps)
    t, s = piecewise_theta(eps, floor, gs)
    theta = s / t
    w = widths.astype(np.float64)
    rungs = w.size

    def partial(rung: np.ndarray, width: np.ndarray, m: np.ndarray) -> np.ndarray:
        step = theta / width  # Σ_{j=1}^{m} q^{rung + j/width}
        return np.exp(-theta * rung - step) * -np.expm1(-step * m) / -np.expm1(-step)

    mass = partial(np.arange(rungs), w, w)
    depth = np.concatenate([[0.0], np.cumsum(w)])
    weight = np.concatenate([[0.0], np.cumsum(mass)])
    tail = float(partial(np.array(rungs), np.array(float(gs)), np.array(float(gs))))
    tail /= -math.expm1(-theta)
    total = 1 + 2 * (weight[-1] + tail)

    def cdf(h: np.ndarray) -> np.ndarray:
        mag = np.maximum(np.floor(np.asarray(h, dtype=np.float64)), 0.0)
        r = np.minimum(np.searchsorted(depth, mag, side="right"), rungs)  # rung r - 1 partial
        inside = weight[r - 1] + partial(r - 1, w[r - 1], mag - depth[r - 1])
        past = np.maximum(mag - depth[-1], 0.0)  # both branches are evaluated: keep it >= 0
        full = np.floor(past / gs)
        far = weight[-1] + tail * -np.expm1(-theta * full)
        far = far + partial(rungs + full, np.array(float(gs)), past - full * gs)
        one_sign = np.where(mag >= depth[-1], far, inside)
        out = np.minimum((1 + 2 * one_sign) / total, 1.0)
        return np.where(np.asarray(h) < 0, 0.0, out)

    return cdf


def smooth_abs_cdf(ladder: Iterable[int], gs: int, eps: float, delta: float) -> Cdf:
    """``P(|K| <= h)`` of the smooth release: discrete Cauchy (δ = 0) or Laplace at the scale
    the release draws (:func:`smooth_scale` of :func:`smooth_bound` of the ladder)."""
    bound = smooth_bound(list(ladder), smooth_beta(eps, delta), global_sensitivity=gs)
    scale = smooth_scale(bound, eps, delta)
    if scale is None:
        return lambda h: np.where(np.asarray(h) >= 0, 1.0, 0.0)
    b = scale[0] / scale[1]
    if delta > 0:
        p = math.exp(-scale[1] / scale[0])

        def laplace(h: np.ndarray) -> np.ndarray:
            mag = np.floor(np.asarray(h, dtype=np.float64))
            return np.where(mag < 0, 0.0, 1 - 2 * p ** (np.maximum(mag, 0) + 1) / (1 + p))

        return laplace
    norm = math.pi * b / math.tanh(math.pi * b)

    def cauchy(h: np.ndarray) -> np.ndarray:
        # Σ_{k >= m} 1/(1 + (k/b)²) = b Im ψ(m + ib)
        mag = np.floor(np.asarray(h, dtype=np.float64))
        tail = b * digamma(np.maximum(mag, 0) + 1 + 1j * b).imag / norm
        return np.where(mag < 0, 0.0, 1 - 2 * tail)

    return cauchy


def law(method: str, ladder: Iterable[int], gs: int, eps: float) -> Cdf:
    if method == "ladder":
        return ladder_abs_cdf(ladder, gs, eps)
    if method == "piecewise":
        return piecewise_abs_cdf(ladder, gs, eps)
    return smooth_abs_cdf(ladder, gs, eps, 1e-6 if method == "smooth-delta" else 0.0)


def interval_meta(method: str, n: int, k: int, eps: float, eps_i: float) -> dict:
    """The public facts ``kstar_count`` records for its interval (checked below)."""
    delta = 1e-6 if method == "smooth-delta" else 0.0
    name = "smooth" if method.startswith("smooth") else method
    return interval_inputs(name, star_global_sensitivity(n, k), eps, eps_i, delta, n=n, k=k)


def bound_noise(eps_i: float) -> tuple[np.ndarray, np.ndarray]:
    """Values and probabilities of the bought bound's discrete Laplace noise, ``±(60 b + 5)``."""
    t, s = rational_scale(1 / eps_i)
    p = math.exp(-s / t)
    z = np.arange(-math.ceil(60 * t / s) - 5, math.ceil(60 * t / s) + 6)
    return z, (1 - p) / (1 + p) * p ** np.abs(z)


def exact_coverage(
    cdf: Cdf, meta: dict, level: float, stat: int, eps_i: float, factor: float = 1.0
) -> float:
    """``Σ_z P(Z = z) P(|K| <= h(a + z))`` with the library's half-widths times ``factor``."""
    z, weight = bound_noise(eps_i)
    h = np.floor(factor * bounded_halfwidth(meta, level, stat + z))
    return float(weight @ cdf(h))


def ladders(graphs: Iterable[nx.Graph | np.ndarray], n: int, k: int) -> list[tuple[tuple, int]]:
    """Distinct ``(ladder, statistic)`` of the graphs on ``n`` nodes (NOT private)."""
    seen: dict[tuple[tuple, int], None] = {}
    for graph in graphs:
        g = as_edge_graph(graph, n=None if isinstance(graph, nx.Graph) else n)
        ladder = kstar_ladder(g, k)
        stat = int(ladder[0]) if k == 2 else int(np.max(g.degrees, initial=0))
        seen.setdefault((tuple(ladder.tolist()), stat), None)
    return list(seen)


def atlas(n: int) -> list[nx.Graph]:
    """Every graph on ``n <= 7`` nodes, up to isomorphism."""
    return [g for g in nx.graph_atlas_g() if g.number_of_nodes() == n]


def every_degree(n: int, seed: int = 0, degrees: Iterable[int] | None = None) -> list[np.ndarray]:
    """Graphs on ``n`` nodes reaching every largest degree ``D = 0 .. n - 1`` (or ``degrees``;
    cliques only up to 200 nodes)."""
    out = []
    for d in range(n) if degrees is None else degrees:
        leaves = range(2, 2 + min(d, n - 2))
        hubs = [(h, j) for h in (0, 1) for j in leaves] + ([(0, 1)] if d == n - 1 else [])
        out.append(hubs)  # two hubs of degree D: the pair ladder V(D, D), the worst given D
        out.append([(0, j) for j in range(1, d + 1)])  # a star
        if d < 200:
            out.append([(i, j) for i in range(d + 1) for j in range(i + 1, d + 1)])  # K_{D+1}
    rng = np.random.default_rng(seed)
    for p in (0.03, 0.1, 0.3, 0.6, 0.9):
        out.append(list(nx.gnp_random_graph(n, p, seed=int(rng.integers(2**31))).edges()))
    return [np.array(e, dtype=np.int64).reshape(-1, 2) for e in out]


def sweep(
    cases: Iterable[tuple[int, int, list[tuple[tuple, int]]]],
    epsilons: Iterable[float],
    interval_epsilons: Iterable[float],
    levels: Iterable[float] = LEVELS,
    methods: tuple[str, ...] | None = None,
) -> dict[tuple[int, str], tuple[int, float, int]]:
    """Per ``(k, method)``: settings checked, worst ``coverage - level``, and how many
    settings the half-widths times 0.9 leave below the level."""
    out: dict[tuple[int, str], tuple[int, float, int]] = {}
    for n, k, found in cases:
        gs = star_global_sensitivity(n, k)
        assert gs > 0  # GS = 0 is a constant release, printed as (0, 0) without a bound
        for method in methods or methods_of(k):
            for eps in epsilons:
                laws = [(law(method, ladder, gs, eps), stat) for ladder, stat in found]
                for eps_i in interval_epsilons:
                    meta = interval_meta(method, n, k, eps, eps_i)
                    for level in levels:
                        for cdf, stat in laws:
                            margin = exact_coverage(cdf, meta, level, stat, eps_i) - level
                            assert math.isfinite(margin), (n, k, method, eps, eps_i, level, stat)
                            narrow = exact_coverage(cdf, meta, level, stat, eps_i, 0.9) < level
                            count, worst, caught = out.get((k, method), (0, math.inf, 0))
                            out[k, method] = (count + 1, min(worst, margin), caught + narrow)
    return out


def check(result: dict[tuple[int, str], tuple[int, float, int]]) -> None:
    for (k, method), (count, worst, caught) in result.items():
        assert worst >= 0, (k, method, count, worst)  # every setting covers
        assert caught > 0, (k, method, count)  # and the check catches a 0.9 × narrower one


def test_exact_laws_match_the_mechanisms_pmfs() -> None:
    """The laws above (the helpers) against the library's exact pmfs, summed."""
    k = np.arange(40_000)

    def summed(pmf: np.ndarray) -> np.ndarray:
        return np.cumsum(np.where(k == 0, pmf, 2 * pmf))

    for ladder, gs, eps in [([0, 1, 2, 3], 5, 1.0), ([3, 3, 7, 7], 9, 0.3), ([0], 4, 2.0)]:
        want = summed(ladder_pmf(k, ladder, eps, global_sensitivity=gs))
        assert np.abs(ladder_abs_cdf(ladder, gs, eps)(k) - want).max() < 1e-12
    for ladder, gs, eps in [
        ([0, 1, 2, 3], 4, 1.0),
        ([3, 4, 5, 6], 7, 0.3),
        (range(2, 31), 30, 0.1),
    ]:
        want = summed(piecewise_pmf(k, list(ladder), eps, global_sensitivity=gs))
        assert np.abs(piecewise_abs_cdf(ladder, gs, eps)(k) - want).max() < 1e-12
    for ladder, gs, eps in [([0, 1, 2, 3], 5, 1.0), ([3, 4, 5, 6], 9, 0.3)]:
        scale = smooth_scale(smooth_bound(ladder, smooth_beta(eps), global_sensitivity=gs), eps)
        big = np.arange(2_000_000)
        want = np.cumsum(np.where(big == 0, 1.0, 2.0) * discrete_cauchy_pmf(big, scale))
        got = smooth_abs_cdf(ladder, gs, eps, 0.0)(big[::997])
        assert np.abs(got - want[::997]).max() < 1e-12
        scale = smooth_scale(
            smooth_bound(ladder, smooth_beta(eps, 1e-6), global_sensitivity=gs), eps, 1e-6
        )
        p = math.exp(-scale[1] / scale[0])
        want = summed((1 - p) / (1 + p) * p ** k.astype(np.float64))
        assert np.abs(smooth_abs_cdf(ladder, gs, eps, 1e-6)(k) - want).max() < 1e-12


@pytest.mark.parametrize("k", [2, 3, 4])
def test_every_graph_on_up_to_7_nodes_covers(k: int) -> None:
    cases = [(n, k, ladders(atlas(n), n, k)) for n in (5, 6, 7)]
    check(sweep(cases, (0.1, 1.0, 7.0), (0.1, 2.0)))


@pytest.mark.parametrize("k", [3, 4])
def test_every_largest_degree_covers(k: int) -> None:
    cases = [(n, k, ladders(every_degree(n), n, k)) for n in (12, 20)]
    check(sweep(cases, (0.1, 0.5, 2.0), (0.1, 1.0)))


def test_every_2star_ladder_covers() -> None:
    """Every 2-star ladder on ``n`` nodes is ``min(GS, c + t)`` for some ``c`` in ``0 .. GS``."""
    cases = []
    for n in (8, 30):
        gs = star_global_sensitivity(n, 2)
        cases.append((n, 2, [(tuple(range(c, gs + 1)), c) for c in range(gs + 1)]))
    check(sweep(cases, (0.1, 1.0, 7.0), (0.1, 1.0)))


@pytest.mark.slow
@pytest.mark.parametrize(("n", "k"), [(65, 3), (200, 3), (1100, 3), (60, 4), (100, 4)])
def test_large_global_sensitivity_covers(n: int, k: int) -> None:
    """GS from 3,906 (3-stars on 65 nodes) to 1.2 million (3-stars on 1,100 nodes, bounds past
    ``DENSE`` on the 0.3% grid: 100 largest degrees) and 304,192 (4-stars on 100 nodes)."""
    degrees = None if n <= 200 else np.unique(np.r_[0:40, np.geomspace(40, n - 1, 60).astype(int)])
    check(
        sweep(
            [(n, k, ladders(every_degree(n, degrees=degrees), n, k))], (0.1, 1.0, 7.0), (0.1, 1.0)
        )
    )


@pytest.mark.slow
@pytest.mark.parametrize("gs", [4000, 20000])
def test_large_global_sensitivity_2stars_cover(gs: int) -> None:
    """Every ``c_max`` for GS = 4,000; for GS = 20,000 every one up to 200, then 300 more."""
    n = gs // 2 + 2
    values = range(gs + 1) if gs <= 4000 else np.unique(np.r_[0:200, np.geomspace(200, gs, 300)])
    found = [(tuple(range(int(c), gs + 1)), int(c)) for c in values]
    check(sweep([(n, 2, found)], (0.1, 1.0, 7.0), (0.1, 1.0)))


@pytest.mark.parametrize(
    ("k", "method", "delta"),
    [
        (2, "piecewise", 0.0),
        (2, "smooth", 1e-6),
        (3, "smooth", 0.0),
        (4, "ladder", 0.0),
        (4, "smooth", 1e-6),
    ],
)
def test_the_release_prints_the_interval_checked_here(k: int, method: str, delta: float) -> None:
    """``kstar_count`` records the facts :func:`interval_meta` builds and prints ``value ± h``
    (cut at 0) with the half-width checked above: the exact checks are of the product."""
    g = nx.gnp_random_graph(25, 0.2, seed=3)
    for seed in range(3):
        rel = kstar_count(
            g, k, epsilon=0.5, delta=delta, method=method, interval_epsilon=0.2, rng=seed
        )
        kind = "smooth-delta" if delta else method
        want = interval_meta(kind, 25, k, 0.5, 0.2)
        used = {"method", "global_sensitivity", "count_epsilon", "interval_epsilon", "k", "n"}
        used |= {"delta"} if method == "smooth" else {"floor"} if method == "piecewise" else set()
        assert {key: rel.metadata[key] for key in used} == {key: want[key] for key in used}
        stat = "c_max" if k == 2 else "d_max"
        h = int(bounded_halfwidth(want, 0.9, rel.metadata[f"noisy_{stat}"]))
        assert rel.confidence_interval(0.9) == (max(rel.value - h, 0), max(rel.value + h, 0))


@pytest.mark.parametrize("eps", [300.0, 1e5])
def test_ladder_intervals_at_a_huge_epsilon_cover_without_a_warning(eps: float) -> None:
    """From ε = 300 (k-stars, k >= 3) or 1,500 (triangles, 2-stars; clustering 1e5) the weights
    ``q^r`` of far rungs underflow to 0, and the ladder families' quantiles divided by them:
    every ladder interval raised a RuntimeWarning (an error under ``-W error``). The intervals
    are exact there ([v, v]: P(K = 0) is 1 to within e^-150) and cover."""
    g = nx.karate_club_graph()
    kw = {"epsilon": eps, "method": "ladder", "interval_epsilon": 0.1, "rng": 1}
    for rel in (triangle_count(g, **kw), kstar_count(g, 2, **kw), kstar_count(g, 3, **kw)):
        for level in LEVELS:
            assert rel.confidence_interval(level) == (rel.value, rel.value)
    ratio = clustering_coefficient(g, **kw)
    assert ratio.confidence_interval(0.9) == (ratio.value, ratio.value)
    cases = [(6, k, ladders(atlas(6), 6, k)) for k in (2, 3)]
    result = sweep(cases, (eps,), (0.1,), methods=("ladder",))
    assert all(worst >= 0 for _, worst, _ in result.values()), result
