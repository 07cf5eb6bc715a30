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
