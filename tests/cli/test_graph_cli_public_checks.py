"""The graph commands read the edge list before the API checks its n-dependent public parameters.

``dpatlas degrees EDGES --nodes 4 --max-degree 9`` (or ``kstars --k 30 --nodes 70``) is invalid
on public values alone, yet the command reads the whole edge list first (``read_edgelist`` in
``dpatlas.cli.graph.commands.run``) and the API refuses afterwards; nothing is spent, but a
large file is parsed for nothing and a malformed one hides the real mistake. The API itself
now refuses before the read (tests/graph/test_public_checks_before_read.py).
"""

from __future__ import annotations

from pathlib import Path

import pytest


@pytest.mark.xfail(
    strict=True,
    reason="the CLI reads the edge list before the API's n-dependent checks (max_degree, k, "
    "global-sensitivity scale); it should run them on --nodes / --node-list first",
)
@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["degrees", "--nodes", "4", "--max-degree", "9"], "max-degree must be <= n - 1"),
        (["kstars", "--nodes", "70", "--k", "30"], "--k 30 is too large for --nodes 70"),
    ],
)
def test_public_refusal_comes_before_the_read(cli, tmp_path: Path, args, message) -> None:
    edges = tmp_path / "edges.txt"
    edges.write_text("a b\n")  # reading it fails: "line 1: not an integer"
    res = cli(args[0], edges, *args[1:], opts="--epsilon 1")
    assert res.code != 0
    assert message in res.err
