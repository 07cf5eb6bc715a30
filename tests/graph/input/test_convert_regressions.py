"""Bugs the fuzzers found in reading graphs (the node count n), now fixed: a regression test each."""

from __future__ import annotations

import numpy as np
import pytest

from dpatlas.graph import as_edge_graph, read_edgelist


def test_as_edge_graph_huge_n_is_a_value_error():
    with pytest.raises(ValueError, match="n"):
        as_edge_graph(np.zeros((0, 2), dtype=np.int64), n=2**40)


def test_read_edgelist_huge_n_is_a_value_error(tmp_path):
    path = tmp_path / "e.txt"
    path.write_text("0 1\n")
    with pytest.raises(ValueError, match="n"):
        read_edgelist(path, n=2**40)


def test_nodes_as_an_empty_list_or_a_set():
    """``nodes=[]`` was refused as "got float64 (0,)" and ``nodes={0, 1, 2}`` as "got object ()";
    found by a hand fuzz."""
    empty = as_edge_graph(np.zeros((0, 2), dtype=np.int64), nodes=[])
    assert (empty.n, empty.m) == (0, 0)
    g = as_edge_graph([(2, 0)], nodes={2, 0, 1})
    assert g.ids.tolist() == [0, 1, 2]
    assert g.degrees.tolist() == [1, 0, 1]
