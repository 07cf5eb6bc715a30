"""Private triangle counts (issues 3, 21): accuracy against BENCHMARKS.md, speed against networkx.

Accuracy is the *exact* median of ``|output - T| / T`` of each mechanism's output distribution
(noiseless and fast): ladder from the exact rung probabilities, piecewise from its exact pmf
(:mod:`dpatlas.core.noise.local.piecewise_exact`), smooth + Cauchy and global from the discrete
distributions sampled, smooth + Laplace at δ = 1e-6. The LS column is a floor that is NOT
private (median of Laplace(a_max/ε), ``a_max ln 2 / ε``), shown as in BENCHMARKS.md. n is the
public node count of ../shared/datasets/README.md.

Held out (issue 21): the piecewise ladder's floor factor and noise shape were chosen on
synthetic ladders ``min(a + t, GS)``; the five shared graphs were looked at while choosing,
the graphs of ``HELD_OUT`` (small real graphs and seeded synthetic ones) were not.
"""

from __future__ import annotations

import math
import time
import warnings
from dataclasses import replace
from pathlib import Path

import networkx as nx
import numpy as np
import pytest

import dpatlas as dpa
from dpatlas.core.noise.discrete_cauchy import discrete_cauchy_pmf
from dpatlas.core.noise.local.ladder import ladder_mechanism
from dpatlas.core.noise.local.ladder_exact import ladder_probabilities
from dpatlas.core.noise.local.piecewise_exact import piecewise_quantile
from dpatlas.core.noise.local.piecewise_ladder import piecewise_ladder_mechanism
from dpatlas.core.noise.local.smooth import smooth_beta, smooth_scale
from dpatlas.graph._testgraphs import chung_lu_edges
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder, smooth_sensitivity

GRAPHS = {  # file, public n
    "ca-GrQc": ("ca-GrQc.txt", 5_241),
    "email-Enron": ("email-Enron.txt.gz", 36_692),
    "facebook": ("facebook_combined.txt.gz", 4_039),
    "wiki-Vote": ("wiki-Vote.txt.gz", 7_115),
    "ca-HepPh": ("ca-HepPh.txt.gz", 12_006),
}
EPSILONS = (0.1, 0.5, 1.0, 2.0)
LADDER_REF = {  # BENCHMARKS.md, ladder column (ε = 0.1, 0.5, 1, 2)
    "ca-GrQc": (2.48e-2, 3.79e-3, 1.88e-3, 9.95e-4),
    "email-Enron": (8.52e-3, 1.63e-3, 8.39e-4, 4.57e-4),
    "facebook": (2.75e-3, 5.15e-4, 2.64e-4, 1.44e-4),
    "wiki-Vote": (1.34e-2, 2.60e-3, 1.34e-3, 7.30e-4),
    "ca-HepPh": (1.97e-3, 3.78e-4, 1.95e-4, 1.06e-4),
}
OTHER_REF = {  # (global, smooth+Cauchy, smooth+Laplace δ=1e-6, LS not DP) at ε = 0.1 and 1
    ("ca-GrQc", 1.0): (7.53e-2, 7.58e-3, 1.75e-3, 8.8e-4),
    ("email-Enron", 1.0): (3.50e-2, 3.47e-3, 8.01e-4, 4.0e-4),
    ("facebook", 1.0): (1.74e-3, 1.09e-3, 2.52e-4, 1.3e-4),
    ("wiki-Vote", 1.0): (8.10e-3, 5.54e-3, 1.28e-3, 6.4e-4),
    ("ca-HepPh", 1.0): (2.48e-3, 8.04e-4, 1.86e-4, 9.3e-5),
    ("ca-GrQc", 0.1): (0.753, 7.58e-2, 2.64e-2, 8.8e-3),
    ("email-Enron", 0.1): (0.350, 3.47e-2, 8.01e-3, 4.0e-3),
    ("facebook", 0.1): (1.74e-2, 1.09e-2, 2.52e-3, 1.3e-3),
    ("wiki-Vote", 0.1): (8.10e-2, 5.54e-2, 1.28e-2, 6.4e-3),
    ("ca-HepPh", 0.1): (2.48e-2, 8.04e-3, 1.86e-3, 9.3e-4),
}


HELD_OUT = {  # name -> graph builder; never looked at while choosing the piecewise design
    "karate": lambda: dpa.graph.as_edge_graph(nx.karate_club_graph()),
    "les-miserables": lambda: dpa.graph.read_edgelist(
        Path(__file__).resolve().parents[1] / "datasets" / "les-miserables.txt", n=77
    ),
    "florentine": lambda: dpa.graph.as_edge_graph(
        nx.convert_node_labels_to_integers(nx.florentine_families_graph())
    ),
    "powerlaw-cluster": lambda: dpa.graph.as_edge_graph(
        nx.powerlaw_cluster_graph(2_000, 5, 0.3, seed=3)
    ),
    "chung-lu": lambda: dpa.graph.as_edge_graph(
        chung_lu_edges(100_000, 500_000, seed=21), n=100_000
    ),
}


def read(shared: Path, name: str) -> dpa.graph.EdgeGraph:
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*self-loop", category=UserWarning)
        return dpa.graph.read_edgelist(shared / "graphs" / GRAPHS[name][0])


def ladder_median(ladder: np.ndarray, eps: float, gs: int) -> int:
    """Smallest h with P(|noise| <= h) >= 1/2, from the exact rung probabilities."""
    p = ladder_probabilities(ladder, eps, 4000, global_sensitivity=gs)
    rung = int(np.searchsorted(np.cumsum(p), 0.5))
    if rung == 0:
        return 0
    sizes = np.append(ladder, np.full(rung, gs))
    before = float(p[:rung].sum())
    return int(sizes[: rung - 1].sum()) + math.ceil((0.5 - before) / p[rung] * sizes[rung - 1])


def dlap_median(t: int, s: int) -> int:
    """Smallest h with P(|K| <= h) = 1 - 2 p^(h+1) / (1 + p) >= 1/2, K discrete Laplace(t/s)."""
    p = math.exp(-s / t)
    h = max(0, math.ceil(math.log((1 + p) / 4) / math.log(p)) - 1)
    while 2 * p ** (h + 1) / (1 + p) > 0.5:
        h += 1
    return h


def cauchy_median(t: int, s: int) -> int:
    b = t / s
    k = np.arange(0, math.ceil(3 * b) + 2)
    mass = discrete_cauchy_pmf(k, (t, s)) * np.where(k == 0, 1, 2)
    return int(np.searchsorted(np.cumsum(mass), 0.5))


def medians(g: dpa.graph.EdgeGraph, n: int, eps: float) -> dict[str, float]:
    stats = common_neighbour_stats(g)
    t, gs = stats.triangles, n - 2
    b_smooth = smooth_beta(eps, 1e-6)
    cauchy = smooth_scale(smooth_sensitivity(stats, eps / 6), eps)
    laplace = smooth_scale(smooth_sensitivity(stats, b_smooth), eps, 1e-6)
    glob = dpa.core.discrete_laplace(0, sensitivity=gs, epsilon=eps, rng=0).scale
    return {
        "ladder": ladder_median(sensitivity_ladder(stats), eps, gs) / t,
        "global": dlap_median(*glob.as_integer_ratio()) / t,
        "cauchy": cauchy_median(*cauchy) / t,
        "laplace": dlap_median(*laplace) / t,
        "ls (not DP)": stats.a_max / eps * math.log(2) / t,
    }


@pytest.mark.bench
def test_accuracy_against_reference(shared_datasets: Path) -> None:
    print("\nexact median relative error |output - T| / T (ours vs BENCHMARKS.md)")
    print(
        f"{'graph':<12}{'ε':>5}  "
        + "".join(
            f"{m:>24}"
            for m in ("ladder", "global", "smooth+Cauchy", "smooth+Lap δ=1e-6", "LS floor (not DP)")
        )
    )
    off = []
    for name, (_, n) in GRAPHS.items():
        g = read(shared_datasets, name)
        assert g.n == n
        for i, eps in enumerate(EPSILONS):
            ours = medians(g, n, eps)
            refs = [LADDER_REF[name][i], *OTHER_REF.get((name, eps), (math.nan,) * 4)]
            cells = [
                f"{ours[k]:.3g} / {r:.3g} = {ours[k] / r:.3f}"
                for k, r in zip(
                    ("ladder", "global", "cauchy", "laplace", "ls (not DP)"), refs, strict=True
                )
            ]
            print(f"{name:<12}{eps:>5}  " + "".join(f"{c:>24}" for c in cells))
            off.append((name, eps, ours["ladder"] / LADDER_REF[name][i]))
    bad = [row for row in off if not 0.9 <= row[2] <= 1.1]
    assert not bad, f"ladder outside 10% of the reference: {bad}"


@pytest.mark.bench
def test_ladder_sampled_median_matches_exact(shared_datasets: Path) -> None:
    g = read(shared_datasets, "email-Enron")
    stats = common_neighbour_stats(g)
    lad = sensitivity_ladder(stats)
    draws = ladder_mechanism(
        0, lad, epsilon=1.0, global_sensitivity=g.n - 2, rng=2026, size=20_001
    ).value
    sampled, exact = float(np.median(np.abs(draws))), ladder_median(lad, 1.0, g.n - 2)
    print(f"\nemail-Enron ε=1: sampled median |noise| {sampled:.0f} (20,001 draws), exact {exact}")
    assert abs(sampled - exact) <= 0.05 * exact


def _timed(fn):
    start = time.perf_counter()
    out = fn()
    return time.perf_counter() - start, out


@pytest.mark.bench
def test_ladder_release_speed_against_networkx(shared_datasets: Path) -> None:
    """Interleaved rounds (ours, networkx) so that machine load hits both alike; best of each."""
    t_read, g = _timed(lambda: read(shared_datasets, "email-Enron"))
    gx = g.to_networkx()
    ours, stats_only, theirs = [], [], []
    for _ in range(5):
        ours.append(_timed(lambda: dpa.graph.triangle_count(replace(g), epsilon=1.0, n=36_692))[0])
        stats_only.append(_timed(lambda: common_neighbour_stats(replace(g)))[0])
        t_nx, count = _timed(lambda: sum(nx.triangles(gx).values()) // 3)
        theirs.append(t_nx)
        assert count == 727_044
    stats = common_neighbour_stats(g)
    lad = sensitivity_ladder(stats)
    mech, rel = _timed(
        lambda: ladder_mechanism(stats.triangles, lad, epsilon=1.0, global_sensitivity=36_690)
    )
    best, best_nx = min(ours), min(theirs)
    print(f"\nemail-Enron: read_edgelist {t_read:.3f} s (not in the release time)")
    print(
        f"  default (piecewise) release end to end (fresh graph, secure rng): best {best:.3f} s, "
        f"all {np.round(ours, 3).tolist()}"
    )
    print(
        f"    of which common_neighbour_stats: best {min(stats_only):.3f} s; ladder mechanism alone {mech:.4f} s"
    )
    print(f"  read + release: {t_read + best:.3f} s")
    print(
        f"  networkx sum(nx.triangles(G).values()) // 3: best {best_nx:.3f} s, all {np.round(theirs, 3).tolist()}"
    )
    print(f"  networkx / ours (best vs best): {best_nx / best:.1f}x (target >= 20x)")
    assert rel.mechanism == "ladder"
    assert best <= 1.0
    assert best_nx / best >= 20


def piecewise_rows(g: dpa.graph.EdgeGraph) -> list[tuple[float, float, float, float]]:
    """``(ε, floor, ladder / floor, piecewise / floor)`` with exact medians, floor = a_max ln 2/ε."""
    stats = common_neighbour_stats(g)
    lad, gs = sensitivity_ladder(stats), g.n - 2
    rows = []
    for eps in EPSILONS:
        floor = stats.a_max * math.log(2) / eps
        ours = piecewise_quantile(0.5, lad, eps, global_sensitivity=gs)
        rows.append(
            (eps, floor / stats.triangles, ladder_median(lad, eps, gs) / floor, ours / floor)
        )
    return rows


@pytest.mark.bench
def test_piecewise_against_ladder_and_floor(shared_datasets: Path) -> None:
    """Issue 21: median relative error ÷ the not-private floor, exact, ladder vs piecewise."""
    print("\nexact median |output - T| / T divided by the NOT private floor a_max ln 2 / (ε T)")
    print(
        "| graph | ε | floor (not DP) | ladder ÷ floor | piecewise ÷ floor | piecewise ÷ ladder |"
    )
    print("|---|---|---|---|---|---|")
    shared, held = [], []
    for group, names in ((shared, GRAPHS), (held, HELD_OUT)):
        for name in names:
            g = read(shared_datasets, name) if group is shared else HELD_OUT[name]()
            for eps, floor, lad, ours in piecewise_rows(g):
                label = name if group is shared else f"{name} (held out)"
                print(
                    f"| {label} | {eps:g} | {floor:.3g} | {lad:.2f} | {ours:.2f} | {ours / lad:.2f} |"
                )
                group.append((name, eps, lad, ours))
    worst = max(ours for *_, ours in shared)
    print(
        f"shared graphs: piecewise ≤ {worst:.2f}× the floor (goal 1.6×); ladder "
        f"{min(r[2] for r in shared):.2f}–{max(r[2] for r in shared):.2f}×"
    )
    assert worst <= 1.6
    assert all(ours < lad for *_, lad, ours in shared + held)  # better everywhere, held out too


@pytest.mark.bench
def test_piecewise_sampled_median_matches_exact_and_speed_against_ladder(
    shared_datasets: Path,
) -> None:
    """Interleaved rounds (ladder, piecewise) on email-Enron's ladder: the mechanisms alone and
    end to end (fresh graph, secure rng); ratios measured in one run."""
    g = read(shared_datasets, "email-Enron")
    stats = common_neighbour_stats(g)
    lad, gs = sensitivity_ladder(stats), g.n - 2
    draws = piecewise_ladder_mechanism(
        0, lad, epsilon=1.0, global_sensitivity=gs, rng=7, size=20_001
    )
    sampled = float(np.median(np.abs(draws.value)))
    exact = piecewise_quantile(0.5, lad, 1.0, global_sensitivity=gs)
    print(
        f"\nemail-Enron ε=1 piecewise: sampled median |noise| {sampled:.0f} (20,001 draws), exact {exact}"
    )
    assert abs(sampled - exact) <= 0.05 * exact
    mech = {"ladder": [], "piecewise": []}
    full = {"ladder": [], "piecewise": []}
    for _ in range(7):
        for method, fn in (("ladder", ladder_mechanism), ("piecewise", piecewise_ladder_mechanism)):
            mech[method].append(
                _timed(lambda fn=fn: fn(stats.triangles, lad, epsilon=1.0, global_sensitivity=gs))[
                    0
                ]
            )
            full[method].append(
                _timed(
                    lambda m=method: dpa.graph.triangle_count(
                        replace(g), epsilon=1.0, n=36_692, method=m
                    )
                )[0]
            )
    for label, times in (("mechanism alone", mech), ("release end to end", full)):
        lad_t, ours_t = min(times["ladder"]), min(times["piecewise"])
        print(
            f"  {label}: ladder {lad_t:.4f} s, piecewise {ours_t:.4f} s, piecewise / ladder {ours_t / lad_t:.2f}"
        )
    assert min(full["piecewise"]) <= 1.3 * min(full["ladder"])  # the ladder's speed, same run
