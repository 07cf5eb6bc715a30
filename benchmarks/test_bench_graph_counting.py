"""Speed of the graph adapter's exact computation (issue 3, part 1).

* email-Enron: read + common-neighbour stats + triangles + ladder, against networkx
  ``sum(nx.triangles(G).values()) // 3`` timed in the same run.
* A seeded Chung–Lu graph with 10^7 edges, processed in a child process whose peak RSS is read
  with ``resource.getrusage`` (generation happens in another child, so it is not counted).
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import networkx as nx
import pytest

from dpatlas.graph.exact.counting import common_neighbour_stats, triangle_count_exact
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder
from dpatlas.graph.input.edgegraph import EdgeGraph
from dpatlas.graph.input.io import read_edgelist

ENRON_TRIANGLES = 727_044


def _best(fn: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    best, out = float("inf"), None
    for _ in range(repeat):
        start = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - start)
    return best, out


def _pipeline(path: Path) -> dict[str, float]:
    t0 = time.perf_counter()
    g = read_edgelist(path)
    t1 = time.perf_counter()
    stats = common_neighbour_stats(g)
    t2 = time.perf_counter()
    assert triangle_count_exact(g) == stats.triangles == ENRON_TRIANGLES
    t3 = time.perf_counter()
    assert sensitivity_ladder(stats)[-1] == g.n - 2
    t4 = time.perf_counter()
    return {"read": t1 - t0, "stats": t2 - t1, "triangles": t3 - t2, "ladder": t4 - t3}


def _chain(g: EdgeGraph) -> None:
    """stats + triangles + ladder on a copy of ``g`` with an empty cache."""
    fresh = replace(g)
    stats = common_neighbour_stats(fresh)
    assert triangle_count_exact(fresh) == ENRON_TRIANGLES
    sensitivity_ladder(stats)


@pytest.mark.bench
def test_enron_pipeline_against_networkx(shared_datasets: Path) -> None:
    path = shared_datasets / "graphs" / "email-Enron.txt.gz"
    g = read_edgelist(path)
    gx = g.to_networkx()
    runs, t_nx, chain, cold_triangles = [], float("inf"), float("inf"), float("inf")
    for _ in range(3):  # interleaved, so that both sides see the same machine load
        runs += [_pipeline(path), _pipeline(path)]
        chain = min(chain, _best(lambda: _chain(g), 2)[0])
        t, count = _best(lambda: triangle_count_exact(replace(g)), 2)
        cold_triangles = min(cold_triangles, t)
        t, nx_count = _best(lambda: sum(nx.triangles(gx).values()) // 3, 1)
        t_nx = min(t_nx, t)
        assert count == nx_count == ENRON_TRIANGLES
    best = {k: min(r[k] for r in runs) for k in runs[0]}
    total = min(sum(r.values()) for r in runs)
    after_read = min(r["stats"] + r["triangles"] + r["ladder"] for r in runs)
    rows = [
        ("read_edgelist", best["read"]),
        ("common_neighbour_stats (incl. triangles)", best["stats"]),
        ("triangle_count_exact (cached by stats)", best["triangles"]),
        ("sensitivity_ladder", best["ladder"]),
        ("stats + triangles + ladder, just after read", after_read),
        ("end to end (read + all)", total),
        ("stats + triangles + ladder (fresh cache)", chain),
        ("triangle_count_exact alone (fresh cache)", cold_triangles),
        ("networkx triangles", t_nx),
    ]
    print("\nemail-Enron (183,831 edges): best of 6 (networkx: best of 3), interleaved")
    print(f"{'step':<46}{'seconds':>10}{'networkx / this':>18}")
    for name, sec in rows:
        print(f"{name:<46}{sec:>10.4f}{t_nx / max(sec, 1e-9):>18.1f}")
    print("BENCHMARKS.md anchors: full (A@A)*A 0.94 s, tril SpGEMM ~0.05 s, pruned a_max 0.07 s")
    assert total <= 1.0
    assert t_nx / chain >= 20
    assert t_nx / cold_triangles >= 20


CHILD_GENERATE = """
import sys, numpy as np
from dpatlas.graph._testgraphs import chung_lu_edges
np.save(sys.argv[1], chung_lu_edges(1_000_000, 10_000_000, exponent=2.5, offset=100.0, seed=7))
"""

CHILD_PROCESS = """
import json, resource, sys, time, numpy as np
from dpatlas.graph.input.edgegraph import as_edge_graph
from dpatlas.graph.exact.counting import common_neighbour_stats, triangle_count_exact
from dpatlas.graph.input.edgegraph import EdgeGraph
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder
edges = np.load(sys.argv[1])
t = [time.perf_counter()]
g = as_edge_graph(edges, n=1_000_000); t.append(time.perf_counter())
tri = triangle_count_exact(g); t.append(time.perf_counter())
stats = common_neighbour_stats(g); t.append(time.perf_counter())
ladder = sensitivity_ladder(stats); t.append(time.perf_counter())
print(json.dumps({"steps": [b - a for a, b in zip(t, t[1:])], "m": g.m, "d_max": stats.d_max,
                  "a_max": stats.a_max, "c_max": stats.c_max, "triangles": tri,
                  "ladder": int(ladder.size),
                  "rss_gib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20}))
"""


@pytest.mark.bench
def test_ten_million_edges_in_a_minute_within_8_gib(tmp_path: Path) -> None:
    edges = tmp_path / "edges.npy"
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", CHILD_GENERATE, str(edges)], check=True, timeout=900)
    generate = time.perf_counter() - start
    done = subprocess.run(
        [sys.executable, "-c", CHILD_PROCESS, str(edges)],
        check=True,
        timeout=900,
        capture_output=True,
        text=True,
    )
    res = json.loads(done.stdout)
    build, tri, stats, ladder = res["steps"]
    total = build + tri + stats + ladder
    print(
        f"\nChung-Lu n=10^6, m={res['m']:,}, d_max={res['d_max']}, a_max={res['a_max']}, "
        f"c_max={res['c_max']}, triangles={res['triangles']:,}, ladder length {res['ladder']}"
    )
    print(f"{'step':<36}{'seconds':>10}{'share of 60 s':>16}")
    for name, sec in [
        ("generate (not counted)", generate),
        ("as_edge_graph", build),
        ("triangle_count_exact", tri),
        ("common_neighbour_stats", stats),
        ("sensitivity_ladder", ladder),
        ("total", total),
    ]:
        print(f"{name:<36}{sec:>10.2f}{sec / 60:>16.2f}")
    print(f"peak RSS {res['rss_gib']:.2f} GiB (limit 8 GiB)")
    assert res["m"] == 10_000_000
    assert total <= 60
    assert res["rss_gib"] <= 8
