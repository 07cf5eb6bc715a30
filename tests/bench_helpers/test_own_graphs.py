"""``SYNTH_EDGES``: the synthetic-graph bench reads the user's own edge lists."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest
from benchmarks.test_bench_synthesize import _edges, own_graphs


def test_own_graphs_relabels_ids_and_drops_self_loops(tmp_path: Path) -> None:
    a = tmp_path / "a.txt"
    a.write_text("# from to\n10 30\n30 10\n30 30\n20 10\n")
    b = tmp_path / "b.txt.gz"
    with gzip.open(b, "wt") as f:
        f.write("0\t1\n1\t2\n")
    graphs = own_graphs(f"{a}, {b}")
    assert list(graphs) == ["a.txt", "b.txt.gz"]
    assert graphs["a.txt"].n == 3
    assert sorted(map(tuple, _edges(graphs["a.txt"]).tolist())) == [(0, 1), (0, 2)]
    assert graphs["b.txt.gz"].n == 3
    assert len(_edges(graphs["b.txt.gz"])) == 2


def test_own_graphs_refuses_no_file_and_two_files_of_one_name(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="SYNTH_EDGES names no file, got ' , '"):
        own_graphs(" , ")
    (tmp_path / "x").mkdir()
    for d in (tmp_path, tmp_path / "x"):
        (d / "g.txt").write_text("0 1\n")
    with pytest.raises(ValueError, match=r"two files of one name, got \['g.txt', 'g.txt'\]"):
        own_graphs(f"{tmp_path / 'g.txt'},{tmp_path / 'x' / 'g.txt'}")


def test_own_graphs_names_a_missing_file(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError, match="edge list not found"):
        own_graphs(str(tmp_path / "missing.txt"))
