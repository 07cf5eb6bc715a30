"""Fuzz the graph adapter: edge arrays, networkx graphs, adjacency matrices and edge-list files."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sps
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz._harness import BAD_NUMBERS, WEIRD_OBJECTS, finite_values, run, twin

from dpatlas import Budget
from dpatlas.graph import as_edge_graph, read_edgelist, sensitivity_report, triangle_count
from dpatlas.graph.triangles import METHODS, TriangleRelease

small_ids = st.integers(0, 7)
huge_ids = st.sampled_from([0, 1, 2, 2**31, 2**40, 2**62, 2**63 - 1, -1, -(2**63)])
edge_lists = st.lists(st.tuples(st.one_of(small_ids, huge_ids), st.one_of(small_ids, huge_ids)))


@st.composite
def graphs(draw):
    edges = draw(edge_lists.map(lambda es: es[:12]))
    kind = draw(
        st.sampled_from(
            [
                "array",
                "list",
                "nx",
                "di",
                "multi",
                "complete",
                "dense",
                "sparse",
                "floats",
                "weird",
                "empty",
                "one",
            ]
        )
    )
    if kind == "array":
        return np.array(edges, dtype=np.int64).reshape(-1, 2)
    if kind == "list":
        return edges
    if kind == "nx":
        return nx.Graph(edges)
    if kind == "di":
        return nx.DiGraph(edges)
    if kind == "multi":
        return nx.MultiGraph(edges + edges[:1])
    if kind == "complete":
        return nx.complete_graph(draw(st.integers(0, 9)))
    if kind in ("dense", "sparse"):
        a = np.array(draw(st.lists(st.integers(0, 2), min_size=16, max_size=16))).reshape(4, 4)
        a = np.maximum(a, a.T) if draw(st.booleans()) else a
        return sps.csr_array(a) if kind == "sparse" else a
    if kind == "floats":
        return np.array(draw(st.lists(st.floats(allow_nan=True), min_size=2, max_size=8))[:2] * 2)
    if kind == "empty":
        return np.zeros((0, 2), dtype=np.int64)
    if kind == "one":
        g = nx.Graph()
        g.add_node(0)
        return g
    return draw(st.sampled_from([*WEIRD_OBJECTS, [(0, 1, 2)], "0 1\n1 2"]))


ns = st.one_of(st.none(), st.integers(-1, 12), st.sampled_from([2**40, True, 3.0, "3"]))
eps = st.one_of(st.floats(0.01, 10), st.sampled_from([*BAD_NUMBERS, 1e-300, 1e300, None]))
GRAPH_NAMES = (
    "graph",
    "edges",
    "n",
    "nodes",
    "node",
    "self-loop",
    "directed",
    "multigraph",
    "adjacency",
    "epsilon",
    "delta",
    "method",
    "interval_epsilon",
    "relaxed",
)


@twin(given(graph=graphs(), n=ns))
def _edge_graph_body(graph, n):
    g = run(lambda: as_edge_graph(graph, n=n), names=GRAPH_NAMES)
    if g is not None:
        assert g.n >= 0
        report = run(lambda: sensitivity_report(g), names=GRAPH_NAMES)
        if report is not None:
            assert report.n == g.n if hasattr(report, "n") else True


test_as_edge_graph_and_report, test_as_edge_graph_and_report_slow = _edge_graph_body


@twin(
    given(
        graph=graphs(),
        n=ns,
        epsilon=eps,
        delta=st.sampled_from([0.0, 1e-6, 0.5, 1.0, -1.0, float("nan")]),
        method=st.sampled_from([*METHODS, "exact", None]),
        interval_epsilon=st.one_of(st.none(), eps),
        relaxed=st.sampled_from([False, True, 0]),
        rng=st.integers(0, 2**32),
    )
)
def _triangles_body(graph, n, epsilon, delta, method, interval_epsilon, relaxed, rng):
    budget = Budget(1e6, 0.9)
    before = len(budget.history)
    rel = run(
        lambda: triangle_count(
            graph,
            epsilon=epsilon,
            delta=delta,
            method=method,
            budget=budget,
            rng=rng,
            n=n,
            relaxed=relaxed,
            interval_epsilon=interval_epsilon,
        ),
        budget=budget,
        names=GRAPH_NAMES,
    )
    if rel is None:
        return
    assert isinstance(rel, TriangleRelease)
    release = getattr(rel, "release", rel)
    finite_values(release.value)
    assert len(budget.history) > before
    assert release.seeded is True


test_triangle_count, test_triangle_count_slow = _triangles_body

lines = st.lists(
    st.one_of(
        st.tuples(st.one_of(small_ids, huge_ids), st.one_of(small_ids, huge_ids)).map(
            lambda e: f"{e[0]} {e[1]}"
        ),
        st.sampled_from(
            [
                "",
                "# comment",
                "1",
                "1 2 3",
                "a b",
                "1.5 2",
                "1\t2",
                "  3   4  ",
                "1 2 # tail",
                "nan 1",
                "99999999999999999999999 1",
            ]
        ),
    ),
    max_size=8,
)


@twin(given(text=lines, n=ns, comments=st.sampled_from(["#", None, "%", ""])))
def _read_body(tmp_path_factory, text, n, comments):
    path = tmp_path_factory.mktemp("edges") / "edges.txt"
    path.write_text("\n".join(text) + "\n")
    g = run(
        lambda: read_edgelist(path, n=n, comments=comments),
        names=(*GRAPH_NAMES, "line", str(path), "comments"),
    )
    if g is not None:
        assert g.n >= 0


test_read_edgelist, test_read_edgelist_slow = _read_body


@st.composite
def valid_graphs(draw):
    n = draw(st.integers(0, 14))
    kind = draw(st.sampled_from(["random", "complete", "empty", "star", "huge_ids"]))
    if kind == "complete" or n < 2:
        edges = list(nx.complete_graph(n).edges)
    elif kind == "empty":
        edges = []
    elif kind == "star":
        edges = [(0, i) for i in range(1, n)]
    else:
        pairs = [(u, v) for u in range(n) for v in range(u + 1, n)]
        edges = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=len(pairs)))
    arr = np.array(edges, dtype=np.int64).reshape(-1, 2)
    if kind == "huge_ids":
        ids = np.array([2**62 + 7 * i for i in range(n)], dtype=np.int64)
        return ids[arr], n, ids
    return arr, n, None


@twin(
    given(
        graph=valid_graphs(),
        epsilon=st.floats(0.01, 20),
        delta=st.floats(1e-9, 0.1),
        interval=st.booleans(),
        rng=st.integers(0, 2**32),
    )
)
def _valid_triangles_body(method, graph, epsilon, delta, interval, rng):
    edges, n, nodes = graph
    budget = Budget(100.0, 0.5)
    rel = run(
        lambda: triangle_count(
            as_edge_graph(edges, n=n, nodes=nodes) if nodes is not None else edges,
            epsilon=epsilon,
            delta=delta if method == "smooth" else 0.0,
            method=method,
            budget=budget,
            rng=rng,
            n=None if nodes is not None else n,
            interval_epsilon=0.5 if interval and method != "global" else None,
        ),
        budget=budget,
        names=GRAPH_NAMES,
    )
    assert rel is not None, "a valid graph was refused"
    finite_values(rel.value)
    assert len(budget.history) >= 1
    if method == "global" or interval:
        low, high = rel.confidence_interval(0.9)
        assert np.isfinite(low)
        assert np.isfinite(high)
        assert low <= high


each_method = pytest.mark.parametrize("method", METHODS)
test_triangle_count_valid = each_method(_valid_triangles_body[0])
test_triangle_count_valid_slow = each_method(_valid_triangles_body[1])
