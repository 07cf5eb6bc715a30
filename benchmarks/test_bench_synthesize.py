"""Private synthetic graphs (issue 19): ``synthesize`` against PrivGraph on PrivGraph's metrics.

Three columns per metric: ours (``dpatlas.graph.synthesize``, default split), our run of the
PrivGraph baseline (``benchmarks/privgraph.py``, the published code's method, sparse), and the
reference figures of the authors' code from ``../shared/BENCHMARKS.md`` (mean of 3 seeds there).
Means over ``RUNS`` seeded runs (``SYNTH_RUNS``, default 5) at ε ∈ {0.5, 1, 2, 3.5}; metrics as
in ``benchmarks/synth_metrics.py``. facebook and ca-HepPh were used to tune the method;
email-Enron, ca-GrQc and wiki-Vote were not (held out): their rows are marked (wiki-Vote, never
run by any design before it was added, is the cleanest held-out graph). ``SYNTH_GRAPHS`` (comma
separated) restricts the graphs. The goal (issue 19): better than PrivGraph on >= 6 of the 7
metrics in every cell and never worse by more than 10% on the seventh. ``SYNTH_SEED0`` (default
0) shifts the seeds to ``SYNTH_SEED0 .. SYNTH_SEED0 + RUNS - 1`` for both methods: the designs
were chosen on seeds 0-4, so other seeds show how much of a verdict is the draw (``GOAL_MET`` is
then not asserted).

Generated held-out graphs (run by default, at 5 runs): ``GENERATED`` builds
graphs with planted communities that no design had run on when they were added (two LFR
benchmark graphs and a Holme–Kim graph at seed 19; a second set of three, sparser, at seed 29;
a third at seed 43, a fourth at seed 61, a fifth at seed 71 and a sixth at seed 97, each built
to judge one candidate design, with its rule written before any run; 20-25 minutes for all);
they need no ``../shared`` and only the floor is asserted on them. ``FAMILIES`` (a stress run,
added after the designs, never tuned on): eight networkx graphs of shapes the other graphs lack
(a grid, a tree, a ring lattice, random, regular and bipartite graphs, caves), with the floor
asserted.

A third table (not in the goal) puts each NMI beside the same NMI corrected for chance
(``nmi_adjusted``: 0 for a partition unrelated to the true one, whatever its community sizes)
and the synthetic graph's isolated nodes, which PrivGraph's degree truncation makes and which
each count as a community; then the metrics won and the goal's verdict with the corrected NMI
in place of the raw one, and the goal counts on either NMI.

Your own graphs: ``SYNTH_EDGES`` (comma-separated paths of SNAP-style edge lists, gzipped or
not) runs the same comparison on them, for held-out checks on data this project never saw; the
node set is the ids in each file, relabelled ``0 .. n-1``, self-loops dropped. Only the floor
(3 of 7 per cell) is asserted there; the table and the goal's verdicts are printed.

Speed: seconds per synthetic graph (ours, baseline), and a 10⁶-edge seeded Chung–Lu graph
synthesised in a subprocess whose peak resident memory is read from ``getrusage``.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
import warnings
from collections.abc import Collection
from pathlib import Path
from typing import NamedTuple

import networkx as nx
import numpy as np
import pytest
import scipy.stats
from benchmarks.privgraph import privgraph
from benchmarks.synth_metrics import HIGHER_IS_BETTER, METRICS, graph_stats, score
from benchmarks.test_bench_triangles import read

from dpatlas.graph import EdgeGraph, as_edge_graph, read_edgelist, synthesize

GRAPHS = {  # name: (public n, tuned on it?)
    "facebook": (4_039, True),
    "ca-HepPh": (12_006, True),
    "email-Enron": (36_692, False),
    "ca-GrQc": (5_241, False),
    "wiki-Vote": (7_115, False),  # added after four designs had been run on ca-GrQc
}

Runs = list[dict[str, float]]


class Cell(NamedTuple):
    """One (graph, ε) cell: each method's metrics averaged over the runs, and per run."""

    ours: dict[str, float]
    base: dict[str, float]
    ours_runs: Runs
    base_runs: Runs


Results = dict[tuple[str, float], Cell]


def _lfr(
    mu: float, *, seed: int = 19, tau1: float = 2.5, mean: int = 20, top: int = 500, least: int = 30
) -> nx.Graph:
    return nx.LFR_benchmark_graph(  # built at the first seed tried; ~0.6 s
        5_000, tau1, 1.5, mu, average_degree=mean, max_degree=top, min_community=least, seed=seed
    )


GENERATED = {  # name: builder (n = 5,000 each); held out, never run by a design when added
    "lfr-mu0.1": lambda: _lfr(0.1),
    "lfr-mu0.3": lambda: _lfr(0.3),
    "holme-kim": lambda: nx.powerlaw_cluster_graph(5_000, 10, 0.5, seed=19),
    # added later, written down before any run (a fresh check of the earlier-neighbour pass):
    "lfr-mu0.2-s29": lambda: _lfr(0.2, seed=29),
    "lfr-sparse-s29": lambda: _lfr(0.25, seed=29, tau1=3.0, mean=12, top=200, least=20),
    "holme-kim-sparse-s29": lambda: nx.powerlaw_cluster_graph(5_000, 5, 0.7, seed=29),
    # added later, written down before any run (the judgement of the non-hub partition variant):
    "lfr-mu0.15-s43": lambda: _lfr(0.15, seed=43, tau1=2.2, mean=16, top=300, least=25),
    "lfr-mu0.4-s43": lambda: _lfr(0.4, seed=43, tau1=2.8, mean=24, top=400, least=40),
    "holme-kim-s43": lambda: nx.powerlaw_cluster_graph(5_000, 8, 0.3, seed=43),
    # added later, written down before any run (the judgement of the smoothed deconvolution):
    "lfr-mu0.25-s61": lambda: _lfr(0.25, seed=61, tau1=2.4, mean=14, top=250, least=30),
    "lfr-mu0.35-s61": lambda: _lfr(0.35, seed=61, tau1=2.6, mean=30, top=500, least=50),
    "holme-kim-s61": lambda: nx.powerlaw_cluster_graph(5_000, 6, 0.5, seed=61),
    # added later, written down before any run (the judgement of the hub completion):
    "lfr-mu0.2-s71": lambda: _lfr(0.2, seed=71, tau1=2.5, mean=18, top=350, least=30),
    "lfr-mu0.3-s71": lambda: _lfr(0.3, seed=71, tau1=2.3, mean=22, top=400, least=40),
    "holme-kim-s71": lambda: nx.powerlaw_cluster_graph(5_000, 7, 0.4, seed=71),
    # added later, written down before any run (a second judgement of the hub completion):
    "lfr-mu0.15-s97": lambda: _lfr(0.15, seed=97, tau1=2.2, mean=18, top=300, least=30),
    "lfr-mu0.25-s97": lambda: _lfr(0.25, seed=97, tau1=2.4, mean=20, top=350, least=30),
    "lfr-mu0.35-s97": lambda: _lfr(0.35, seed=97, tau1=2.6, mean=16, top=300, least=25),
    "holme-kim-s97": lambda: nx.powerlaw_cluster_graph(5_000, 6, 0.45, seed=97),
}
FAMILIES = {  # shapes the bench lacks (no triangles, long paths, near-equal degrees, no
    # communities); a stress run, not tuned on, n about 5,000 each
    "grid-70x70": lambda: nx.grid_2d_graph(70, 70),
    "ba-tree": lambda: nx.barabasi_albert_graph(5_000, 1, seed=3),
    "watts-strogatz": lambda: nx.watts_strogatz_graph(5_000, 10, 0.05, seed=3),
    "erdos-renyi": lambda: nx.gnm_random_graph(5_000, 15_000, seed=3),
    "regular-6": lambda: nx.random_regular_graph(6, 5_000, seed=3),
    "ba-m4": lambda: nx.barabasi_albert_graph(5_000, 4, seed=3),
    "caveman": lambda: nx.relaxed_caveman_graph(250, 20, 0.05, seed=3),
    "bipartite": lambda: nx.bipartite.random_graph(2_500, 2_500, 0.003, seed=3),
}
EPSILONS = (0.5, 1.0, 2.0, 3.5)
RUNS = int(os.environ.get("SYNTH_RUNS", "5"))
SEED0 = int(os.environ.get("SYNTH_SEED0", "0"))  # seeds SEED0 .. SEED0 + RUNS - 1
GOAL_MET = {  # cells meeting the goal in the run reported in docs/synthetic-graphs.md (seeds 0-4)
    *(("facebook", e) for e in EPSILONS),
    *(("ca-HepPh", e) for e in EPSILONS),
    *(("email-Enron", e) for e in (0.5, 1.0, 2.0)),
    *(("ca-GrQc", e) for e in EPSILONS),
    *(("wiki-Vote", e) for e in (0.5, 3.5)),
}
REFERENCE = {  # BENCHMARKS.md, PrivGraph (authors' code): nmi, overlap, mae, kl, diam, cc, mod
    ("facebook", 0.5): (0.085, 0.033, 0.0302, 2.12, 0.417, 0.960, 0.724),
    ("facebook", 1.0): (0.174, 0.658, 0.00283, 0.621, 0.333, 0.429, 0.393),
    ("facebook", 2.0): (0.198, 0.725, 0.00526, 0.392, 0.292, 0.504, 0.332),
    ("facebook", 3.5): (0.219, 0.483, 0.00878, 0.290, 0.292, 0.628, 0.284),
    ("ca-HepPh", 0.5): (0.138, 0.253, 0.0257, 1.14, 0.538, 0.976, 0.672),
    ("ca-HepPh", 1.0): (0.171, 0.828, 0.00416, 0.927, 0.487, 0.394, 0.342),
    ("ca-HepPh", 2.0): (0.199, 0.950, 0.00450, 0.591, 0.385, 0.583, 0.286),
    ("ca-HepPh", 3.5): (0.273, 0.897, 0.00303, 0.643, 0.333, 0.426, 0.207),
    ("email-Enron", 0.5): (0.171, 0.018, 0.0180, 0.883, 0.436, 0.926, 0.584),
    ("email-Enron", 1.0): (0.165, 0.056, 0.0190, 0.961, 0.308, 0.966, 0.570),
    ("email-Enron", 2.0): (0.172, 0.685, 0.00423, 0.633, 0.282, 0.501, 0.414),
    ("email-Enron", 3.5): (0.259, 0.766, 0.00183, 0.498, 0.103, 0.152, 0.305),
}


def _nx(edges: np.ndarray, n: int) -> nx.Graph:
    g = nx.Graph()
    g.add_nodes_from(range(n))
    g.add_edges_from(edges.tolist())
    return g


def _edges(g) -> np.ndarray:  # type: ignore[no-untyped-def]
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    keep = rows < g.indices
    return np.column_stack([rows[keep], g.indices[keep]])


def _shortfall(k: str, a: float, b: float) -> float | None:
    """None when ours (``a``) beats PrivGraph (``b``) on metric ``k``, else how far behind
    (relative to ``b``; 0 when ``b`` is 0)."""
    if (a > b) if k in HIGHER_IS_BETTER else (a < b):
        return None
    if not b:
        return 0.0
    return (b - a) / b if k in HIGHER_IS_BETTER else (a - b) / b


def verdict(ours: dict[str, float], theirs: dict[str, float]) -> tuple[int, float]:
    """Metrics won, and the worst relative shortfall on a lost one (0 when all are won)."""
    behind = [_shortfall(k, ours[k], theirs[k]) for k in METRICS]
    lost = [s for s in behind if s is not None]
    return len(METRICS) - len(lost), max(lost, default=0.0)


def _met(wins: int, worst: float) -> bool:
    """The issue's goal: >= 6 of 7 metrics won, and within 10% on the seventh."""
    return wins >= 7 or (wins == 6 and worst <= 0.10)


def undecided(ours: Runs, base: Runs, level: float = 0.95) -> list[str]:
    """The metrics on which the runs do not decide who is better.

    Runs ``i`` of both methods share a seed; a metric is undecided when the two-sided Student-t
    interval at ``level`` of the mean per-run difference (ours − PrivGraph) holds 0, or when a
    run has no value (NaN). The level is per metric (no correction for testing seven). With one
    run, all seven are undecided.
    """
    if len(ours) != len(base):
        raise ValueError(
            f"ours and base need one run per seed each, got {len(ours)} and {len(base)}"
        )
    if len(ours) < 2:
        return list(METRICS)
    t = float(scipy.stats.t.ppf((1 + level) / 2, len(ours) - 1))
    out = []
    for k in METRICS:
        d = np.array([a[k] - b[k] for a, b in zip(ours, base, strict=True)])
        if np.isnan(d).any() or abs(d.mean()) <= t * d.std(ddof=1) / np.sqrt(d.size):
            out.append(k)
    return out


def settled(ours: dict[str, float], base: dict[str, float], open_metrics: Collection[str]) -> bool:
    """Whether the goal's verdict on the means holds whichever way ``open_metrics`` fall.

    Best case: every open metric won. Worst case: every open metric lost, by its mean's
    shortfall when its mean is behind, by a hair when its mean is ahead. The other metrics keep
    the verdicts and shortfalls of their means. Decided: both cases give the means' verdict.
    """
    behind = {k: _shortfall(k, ours[k], base[k]) for k in METRICS}
    fixed = [s for k, s in behind.items() if k not in open_metrics and s is not None]
    lost = fixed + [behind[k] or 0.0 for k in open_metrics]
    best = _met(len(METRICS) - len(fixed), max(fixed, default=0.0))
    worst = _met(len(METRICS) - len(lost), max(lost, default=0.0))
    return best == worst == _met(*verdict(ours, base))


def _mean(rows: Runs) -> dict[str, float]:
    return {k: float(np.mean([r[k] for r in rows])) for k in rows[0]}


def run_cell(g, n: int, true_stats, eps: float) -> Cell:  # type: ignore[no-untyped-def]
    edges = _edges(g)
    ours, base = [], []
    for seed in range(SEED0, SEED0 + RUNS):
        start = time.perf_counter()
        rel = synthesize(edges, n=n, epsilon=eps, rng=seed)
        took = time.perf_counter() - start
        ours.append({**score(true_stats, graph_stats(rel.value)), "sec": took})
        start = time.perf_counter()
        e = privgraph(g, eps, np.random.default_rng(seed))
        took = time.perf_counter() - start
        base.append({**score(true_stats, graph_stats(_nx(e, n))), "sec": took})
    return Cell(_mean(ours), _mean(base), ours, base)


def _fmt(x: float) -> str:
    return "-" if np.isnan(x) else f"{x:.3g}"  # nan: no reference figure for the cell


def generated(name: str) -> EdgeGraph:
    """The generated graph ``name`` (of ``GENERATED`` or ``FAMILIES``): simple, undirected,
    nodes ``0 .. n-1`` (n public)."""
    g = {**GENERATED, **FAMILIES}[name]()
    g.remove_edges_from(list(nx.selfloop_edges(g)))
    return as_edge_graph(nx.convert_node_labels_to_integers(g))


def _chosen(table: Collection[str]) -> list[str]:
    known = [*GRAPHS, *GENERATED, *FAMILIES]
    names = os.environ.get("SYNTH_GRAPHS", ",".join(known)).split(",")
    unknown = set(names) - set(known)
    if unknown:
        raise ValueError(f"SYNTH_GRAPHS names unknown graphs {sorted(unknown)}; known: {known}")
    chosen = [name for name in names if name in table]
    if not chosen:
        pytest.skip(f"none of SYNTH_GRAPHS={names} is in {list(table)}")
    return chosen


def _cells(g: EdgeGraph, name: str) -> Results:
    true_stats = graph_stats(_nx(_edges(g), g.n))
    return {(name, eps): run_cell(g, g.n, true_stats, eps) for eps in EPSILONS}


def report(results: Results) -> list[tuple[str, float, str, int, float]]:
    """Print the table and the verdicts; return the failures (goal lost where met, or floor)."""
    print(
        f"\nsynthetic graphs, mean of {RUNS} runs: ours / PrivGraph (our run) / PrivGraph (BENCHMARKS.md)"
    )
    wide = max([22, *(len(name) + 11 for name, _ in results)])  # room for " (held out)"
    print(
        f"{'graph':<{wide}} {'eps':>4} "
        + " ".join(f"{k:>24}" for k in (*METRICS, "tri_rel", "sec"))
    )
    for (name, eps), (ours, base, *_) in results.items():
        ref = dict(zip(METRICS, REFERENCE.get((name, eps), (float("nan"),) * 7), strict=True))
        label = name + ("" if GRAPHS.get(name, (0, False))[1] else " (held out)")
        cells = [f"{_fmt(ours[k])}/{_fmt(base[k])}/{_fmt(ref[k])}" for k in METRICS]
        cells += [
            f"{_fmt(ours['tri_rel'])}/{_fmt(base['tri_rel'])}/-",
            f"{ours['sec']:.1f}/{base['sec']:.1f}/-",
        ]
        print(f"{label:<{wide}} {eps:>4} " + " ".join(f"{c:>24}" for c in cells))
    print(
        "\nwins of 7 (worst shortfall on a lost metric): vs our PrivGraph run | vs BENCHMARKS.md;"
        "\nthen the metrics the runs leave undecided (95% paired t-interval of the difference holds"
        " 0)\nand whether the goal's verdict holds whichever way they fall (decided)"
    )
    failures = []
    met_raw = {}
    decided = {True: 0, False: 0}
    held = RUNS >= 5 and SEED0 == 0  # fewer runs are too noisy to hold; other seeds untuned
    for (name, eps), (ours, base, ours_runs, base_runs) in results.items():
        w_base, s_base = verdict(ours, base)
        line = f"{name:<{wide - 11}} {eps:>4}  {w_base}/7 ({s_base:.0%})"
        if (name, eps) in REFERENCE:
            ref = dict(zip(METRICS, REFERENCE[name, eps], strict=True))
            w_ref, s_ref = verdict(ours, ref)
            line += f" | {w_ref}/7 ({s_ref:.0%})"
        met = met_raw[name, eps] = _met(w_base, s_base)
        open_metrics = undecided(ours_runs, base_runs)
        sure = settled(ours, base, open_metrics)
        decided[met] += sure
        print(
            line
            + ("   goal met" if met else "   goal NOT met")
            + f" ({'decided' if sure else 'undecided'}; open: {', '.join(open_metrics) or '-'})"
        )
        if (name, eps) in GOAL_MET and not met and held:
            failures.append((name, eps, "goal no longer met", w_base, s_base))
        elif w_base < 3:
            failures.append((name, eps, "below the floor of 3 of 7", w_base, s_base))
    print(
        "\ncommunities beyond chance (not in the goal): ours / PrivGraph (our run); wins of 7 "
        "and the goal with nmi_adj in place of nmi"
    )
    print(f"{'graph':<{wide - 11}} {'eps':>4} {'nmi':>18} {'nmi_adj':>18} {'isolated':>18}  wins")
    met_adj = 0
    for (name, eps), (ours, base, *_) in results.items():
        cells = [f"{_fmt(ours[k])}/{_fmt(base[k])}" for k in ("nmi", "nmi_adj", "isolated")]
        w_adj, s_adj = verdict({**ours, "nmi": ours["nmi_adj"]}, {**base, "nmi": base["nmi_adj"]})
        met = _met(w_adj, s_adj)
        met_adj += met
        print(
            f"{name:<{wide - 11}} {eps:>4} "
            + " ".join(f"{c:>18}" for c in cells)
            + f"  {w_adj}/7 ({s_adj:.0%}){'   goal met' if met else ''}"
        )
    print(
        f"goal met in {sum(met_raw.values())} of {len(results)} cells on the NMI, "
        f"in {met_adj} on the NMI corrected for chance; decided by the {RUNS} runs: "
        f"{decided[True]} met, {decided[False]} not met"
    )
    return failures


@pytest.mark.bench
def test_synthetic_graphs_against_privgraph(shared_datasets: Path) -> None:
    results: Results = {}
    for name in _chosen(GRAPHS):
        g = read(shared_datasets, name)
        assert g.n == GRAPHS[name][0]
        results.update(_cells(g, name))
    # the goal is asserted where it was met when the docs' table was made; elsewhere a floor
    assert not (failures := report(results)), failures


@pytest.mark.bench
def test_generated_graphs_against_privgraph() -> None:
    results: Results = {}
    for name in _chosen(GENERATED):
        results.update(_cells(generated(name), name))
    assert not (failures := report(results)), failures  # the floor only: none is in GOAL_MET


@pytest.mark.bench
def test_graph_families_against_privgraph() -> None:
    results: Results = {}
    for name in _chosen(FAMILIES):
        results.update(_cells(generated(name), name))
    assert not (failures := report(results)), failures  # the floor only


def own_graphs(spec: str) -> dict[str, EdgeGraph]:
    """The edge lists named by ``spec`` (``SYNTH_EDGES``: comma-separated paths), keyed by
    file name; node ids relabelled ``0 .. n-1`` in increasing order, self-loops dropped."""
    paths = [Path(p.strip()) for p in spec.split(",") if p.strip()]
    if not paths:
        raise ValueError(f"SYNTH_EDGES names no file, got {spec!r}; give comma-separated paths")
    names = [p.name for p in paths]
    if len(set(names)) < len(names):
        raise ValueError(f"SYNTH_EDGES names two files of one name, got {names}; rename one")
    graphs = {}
    for path in paths:
        with warnings.catch_warnings():
            warnings.filterwarnings("ignore", message=".*self-loop", category=UserWarning)
            g = read_edgelist(path)
        graphs[path.name] = g
    return graphs


@pytest.mark.bench
def test_your_graphs_against_privgraph() -> None:
    spec = os.environ.get("SYNTH_EDGES", "")
    if not spec:
        pytest.skip("SYNTH_EDGES is not set: give comma-separated paths of edge lists to compare")
    results: Results = {}
    for name, g in own_graphs(spec).items():
        results.update(_cells(g, name))
    assert not (failures := report(results)), failures  # the floor only: none is in GOAL_MET


@pytest.mark.bench
def test_synthesize_speed_and_memory_on_a_million_edges() -> None:
    code = (
        "import resource, time\n"
        "from dpatlas.graph._testgraphs import chung_lu_edges\n"
        "from dpatlas.graph import synthesize\n"
        "e = chung_lu_edges(200_000, 1_000_000, seed=19)\n"
        "synthesize(e[:1000], n=200_000, epsilon=1.0, rng=0)\n"  # compile the kernels first
        "t = time.perf_counter()\n"
        "rel = synthesize(e, n=200_000, epsilon=1.0, rng=1)\n"
        "took = time.perf_counter() - t\n"
        "peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20\n"
        "print(took, peak, rel.value.number_of_edges())\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=900
    )
    took, peak, m = proc.stdout.split()
    print(
        f"\n10^6-edge Chung-Lu graph (n = 200,000): {float(took):.1f} s, peak RSS {float(peak):.2f} GiB, {m} edges"
    )
    assert float(took) <= 120.0
    assert float(peak) <= 4.0


@pytest.mark.bench
def test_enron_speed_against_the_baseline(shared_datasets: Path) -> None:
    g = read(shared_datasets, "email-Enron")
    edges = _edges(g)
    synthesize(edges[:1000], n=g.n, epsilon=1.0, rng=0)
    start = time.perf_counter()
    synthesize(edges, n=g.n, epsilon=1.0, rng=1)
    ours = time.perf_counter() - start
    start = time.perf_counter()
    privgraph(g, 1.0, np.random.default_rng(1))
    base = time.perf_counter() - start
    print(
        f"\nemail-Enron, one synthetic graph: ours {ours:.1f} s, sparse PrivGraph {base:.1f} s ({base / ours:.1f}x)"
    )
    assert ours <= 10.0
