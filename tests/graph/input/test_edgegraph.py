"""EdgeGraph construction and input guards."""

from __future__ import annotations

import networkx as nx
import numpy as np
import pytest
import scipy.sparse as sp

from dpatlas.graph.adjacency import EdgeAdjacency
from dpatlas.graph.input.edgegraph import EdgeGraph, as_edge_graph


def _edge_set(g: EdgeGraph) -> set[tuple[int, int]]:
    rows = np.repeat(np.arange(g.n), np.diff(g.indptr))
    return {(int(i), int(j)) for i, j in zip(rows, g.indices, strict=True) if i < j}


def _check_csr(g: EdgeGraph) -> None:
    a = g.to_scipy()
    assert (a != a.T).nnz == 0
    assert a.diagonal().sum() == 0
    for i in range(g.n):
        nb = g.indices[g.indptr[i] : g.indptr[i + 1]]
        assert np.all(np.diff(nb) > 0)


def test_edge_array_merges_directions_and_repeats_and_compacts_ids() -> None:
    g = as_edge_graph(np.array([[10, 20], [20, 10], [20, 30], [10, 20]]))
    assert (g.n, g.m, g.nodes_public) == (3, 2, False)
    assert g.ids.tolist() == [10, 20, 30]
    assert _edge_set(g) == {(0, 1), (1, 2)}
    assert g.degrees.tolist() == [1, 2, 1]
    assert g.indices.dtype == np.int32
    assert g.indptr.dtype == np.int32
    _check_csr(g)


def test_sparse_ids_use_sort_path() -> None:
    g = as_edge_graph([[0, 10**12], [10**12, 5]])
    assert g.ids.tolist() == [0, 5, 10**12]
    assert _edge_set(g) == {(0, 2), (1, 2)}


def test_explicit_n_keeps_isolated_nodes_and_is_public() -> None:
    g = as_edge_graph([(0, 1)], n=4)
    assert (g.n, g.m, g.nodes_public) == (4, 1, True)
    assert g.ids.tolist() == [0, 1, 2, 3]
    relabelled = as_edge_graph([(0, 4)], n=4)  # id 4 >= n: sorted ids to 0, 1 (issue #17)
    assert relabelled.degrees.tolist() == [1, 1, 0, 0]
    assert relabelled.ids.tolist() == [0, 4, 1, 2]
    top = as_edge_graph([(2**63 - 2, 2**63 - 1)], n=3)  # labels of isolated nodes never overflow
    assert top.ids.tolist() == [2**63 - 2, 2**63 - 1, 0]
    with pytest.raises(
        ValueError, match=r"the edges use 3 distinct node ids but n=2: .* \(at least 3\)"
    ):
        as_edge_graph([(0, 4), (4, 9)], n=2)
    with pytest.raises(TypeError, match="n must be a non-negative integer"):
        as_edge_graph([(0, 1)], n=2.0)


def test_explicit_nodes_map_ids_in_user_order() -> None:
    g = as_edge_graph([(30, 10)], nodes=[30, 20, 10])
    assert (g.n, g.nodes_public) == (3, True)
    assert g.ids.tolist() == [30, 20, 10]
    assert _edge_set(g) == {(0, 2)}
    with pytest.raises(
        ValueError, match="node id 40, which is not among the public node ids given as nodes="
    ):
        as_edge_graph([(30, 40)], nodes=[30, 20, 10])
    with pytest.raises(ValueError, match="repeated ids"):
        as_edge_graph([(1, 2)], nodes=[1, 2, 2])
    with pytest.raises(ValueError, match=r"n=4 does not match len\(nodes\)=3"):
        as_edge_graph([(1, 2)], nodes=[1, 2, 3], n=4)
    with pytest.raises(TypeError, match="nodes must be a 1-D array of integer"):
        as_edge_graph([(1, 2)], nodes=[1.0, 2.0])
    # a negative public id: no edge can use it, and write_edgelist wrote "-4 3", which no
    # edge list reader takes back
    with pytest.raises(ValueError, match=r"nodes must be non-negative integer ids.* got -4"):
        as_edge_graph([(1, 2)], nodes=[1, 2, -4])


def test_networkx_graph_keeps_labels_and_isolated_nodes() -> None:
    gx = nx.Graph()
    gx.add_nodes_from(["a", "b", "c", "d"])
    gx.add_edges_from([("a", "b"), ("b", "c")])
    g = as_edge_graph(gx)
    assert (g.n, g.m, g.nodes_public) == (4, 2, True)
    assert g.ids == ("a", "b", "c", "d")
    back = g.to_networkx()
    assert set(back.nodes) == {"a", "b", "c", "d"}
    assert {frozenset(e) for e in back.edges} == {frozenset("ab"), frozenset("bc")}


def test_networkx_guards_have_fix_it_messages() -> None:
    with pytest.raises(TypeError, match=r"directed.*G\.to_undirected\(\)"):
        as_edge_graph(nx.DiGraph([(0, 1)]))
    with pytest.raises(TypeError, match=r"multigraph.*nx\.Graph\(G\)"):
        as_edge_graph(nx.MultiGraph([(0, 1), (0, 1)]))
    with pytest.raises(ValueError, match=r"1 self-loop.*selfloop_edges"):
        as_edge_graph(nx.Graph([(0, 1), (1, 1)]))
    with pytest.raises(ValueError, match="n=5 does not match the networkx graph, which has 2"):
        as_edge_graph(nx.Graph([(0, 1)]), n=5)
    with pytest.raises(ValueError, match="nodes= is only for edge arrays"):
        as_edge_graph(nx.Graph([(0, 1)]), nodes=[0, 1])


def test_scipy_matrix_pattern_is_the_edge_set() -> None:
    a = sp.coo_array(([2.5, 2.5, 1.0, 1.0, 0.0], ([0, 1, 1, 2, 0], [1, 0, 2, 1, 2])), shape=(4, 4))
    g = as_edge_graph(a)
    assert (g.n, g.m, g.nodes_public) == (4, 2, True)
    assert _edge_set(g) == {(0, 1), (1, 2)}
    assert as_edge_graph(sp.csr_matrix(a)).m == 2


def test_scipy_guards() -> None:
    with pytest.raises(ValueError, match=r"not symmetric.*A\.maximum"):
        as_edge_graph(sp.csr_array(np.array([[0, 1], [0, 0]])))
    with pytest.raises(ValueError, match=r"diagonal.*A\.setdiag\(0\)"):
        as_edge_graph(sp.csr_array(np.eye(3)))
    with pytest.raises(ValueError, match=r"square, got shape \(2, 3\)"):
        as_edge_graph(sp.csr_array(np.zeros((2, 3))))


def test_edge_array_guards() -> None:
    with pytest.raises(TypeError, match=r"integer array.*got dtype float64.*astype\(np\.int64\)"):
        as_edge_graph(np.array([[0.0, 1.0]]))
    with pytest.raises(TypeError, match="dtype bool"):
        as_edge_graph(np.array([[True, False]]))
    with pytest.raises(ValueError, match=r"shape \(m, 2\), got \(2, 3\).*csr_array"):
        as_edge_graph(np.array([[0, 1, 2], [1, 2, 0]]))
    with pytest.raises(ValueError, match="non-negative integers, got -1"):
        as_edge_graph([(0, -1)])
    with pytest.raises(ValueError, match=r"1 self-loop.*edges\[:, 0\] != edges\[:, 1\]"):
        as_edge_graph([(0, 1), (2, 2)])
    with pytest.raises(TypeError, match=r"graph must be a networkx\.Graph.*got str"):
        as_edge_graph("edges.txt")
    with pytest.raises(TypeError, match="got int"):
        as_edge_graph(5)


@pytest.mark.parametrize("edges", [[], np.zeros((0, 2), dtype=np.int64)])
def test_empty_graphs_are_valid(edges: object) -> None:
    g = as_edge_graph(edges)
    assert (g.n, g.m, g.nodes_public) == (0, 0, False)
    g = as_edge_graph(edges, n=2)
    assert (g.n, g.m, g.degrees.tolist()) == (2, 0, [0, 0])
    assert g.to_scipy().shape == (2, 2)
    assert as_edge_graph(nx.empty_graph(1)).n == 1


def test_edge_graph_passthrough_and_confirming_n() -> None:
    g = as_edge_graph([(5, 6)])
    assert as_edge_graph(g) is g
    confirmed = as_edge_graph(g, n=2)
    assert confirmed.nodes_public
    assert confirmed.n == 2
    assert np.shares_memory(confirmed.indices, g.indices)
    with pytest.raises(ValueError, match="the edges use 2 distinct node ids but n=1"):
        as_edge_graph(g, n=1)
    with pytest.raises(ValueError, match="n=3 does not match the EdgeGraph, which has 2 nodes"):
        as_edge_graph(confirmed, n=3)  # a public node set is not changed


def test_arrays_are_read_only_and_constructor_checks_shapes() -> None:
    g = as_edge_graph([(0, 1), (1, 2)])
    with pytest.raises(ValueError, match="read-only"):
        g.indices[0] = 2
    with pytest.raises(ValueError, match="inconsistent CSR"):
        EdgeGraph(n=3, indptr=np.array([0, 1]), indices=np.array([1]), ids=np.arange(3))
    with pytest.raises(ValueError, match="one entry per node"):
        EdgeGraph(n=1, indptr=np.array([0, 0]), indices=np.array([]), ids=np.arange(2))


def test_round_trip_random_graphs_through_every_input_kind() -> None:
    for seed in range(5):
        gx = nx.gnp_random_graph(40, 0.1, seed=seed)
        for source in (gx, nx.to_scipy_sparse_array(gx), np.array(list(gx.edges()))):
            kw = {"n": 40} if isinstance(source, np.ndarray) else {}
            g = as_edge_graph(source, **kw)
            _check_csr(g)
            assert nx.utils.graphs_equal(g.to_networkx(), gx)
            assert (g.to_scipy() != nx.to_scipy_sparse_array(gx, dtype=np.int32)).nnz == 0


def test_edge_adjacency() -> None:
    adj = EdgeAdjacency()
    assert adj == EdgeAdjacency()
    assert [adj.triangle_global_sensitivity(n) for n in (0, 1, 2, 3, 100)] == [0, 0, 0, 1, 98]
    with pytest.raises(ValueError, match="n must be >= 0"):
        adj.triangle_global_sensitivity(-1)
    with pytest.raises(TypeError, match="n must be an integer"):
        adj.triangle_global_sensitivity(3.0)


def test_public_n_larger_than_the_nodes_seen_in_an_edge_list_adds_isolated_nodes() -> None:
    seen = as_edge_graph(np.array([[10, 20], [20, 30]]))
    assert (seen.n, seen.nodes_public) == (3, False)
    g = as_edge_graph(seen, n=5)
    assert (g.n, g.m, g.nodes_public) == (5, 2, True)
    assert g.degrees.tolist() == [1, 2, 1, 0, 0]
    assert g.ids.tolist() == [10, 20, 30, 0, 1]
    with pytest.raises(ValueError, match="the edges use 3 distinct node ids but n=2"):
        as_edge_graph(seen, n=2)


def test_an_edge_list_read_without_a_node_set_takes_nodes(tmp_path) -> None:
    """``nodes=`` with a graph read without one was refused as "an EdgeGraph brings its own node
    set", which it does not; found by a hand fuzz. Now it is mapped onto the public ids."""
    from dpatlas.graph import read_edgelist, triangle_count

    path = tmp_path / "g.txt"
    path.write_text("3 7\n7 12\n12 3\n")
    g = read_edgelist(path)
    mapped = as_edge_graph(g, nodes=[20, 3, 7, 12])
    direct = read_edgelist(path, nodes=[20, 3, 7, 12])
    assert mapped.nodes_public
    assert mapped.ids_public
    assert mapped.ids.tolist() == direct.ids.tolist() == [20, 3, 7, 12]
    assert mapped.degrees.tolist() == direct.degrees.tolist() == [0, 2, 2, 2]
    assert triangle_count(g, nodes=[3, 7, 12, 20], epsilon=1.0, rng=0).metadata["n"] == 4
    with pytest.raises(ValueError, match="node id 12, which is not among the public node ids"):
        as_edge_graph(g, nodes=[3, 7])
    with pytest.raises(ValueError, match=r"this EdgeGraph .* brings its own node set"):
        as_edge_graph(direct, nodes=[20, 3, 7, 12])
