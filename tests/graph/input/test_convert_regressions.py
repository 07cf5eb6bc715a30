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


FOUR_GIB = 4 * 2**30


@pytest.fixture
def four_gib(monkeypatch: pytest.MonkeyPatch) -> None:
    """This machine, as far as the memory guard sees, has 4 GiB of physical memory."""
    monkeypatch.setattr("dpatlas.graph.input._convert.physical_memory", lambda: FOUR_GIB)


def test_an_n_whose_graph_exceeds_memory_is_refused_before_the_file_is_read(tmp_path, four_gib):
    """A mistyped n below 2**31 was read and then ran out of memory building the graph (n int64
    ids and more per node); found by a hand fuzz. 2·10**8 nodes need about 6 GiB."""
    missing = tmp_path / "not-yet-written.txt"
    with pytest.raises(ValueError, match=r"^n=200000000 needs about 6\.0 GiB of memory \(32 by"):
        read_edgelist(missing, n=200_000_000)
    with pytest.raises(ValueError, match=r"check n= \(the public number of nodes; at most 134,"):
        as_edge_graph(np.array([[0, 1]]), n=200_000_000)


def test_an_n_whose_graph_fits_is_not_refused(four_gib):
    assert as_edge_graph(np.array([[0, 1]]), n=10**7).n == 10**7  # 0.3 GiB
