"""The graph commands run the API's public checks on --nodes / --node-list before EDGES is read.

``dpatlas degrees EDGES --nodes 4 --max-degree 9`` (or ``kstars --k 30 --nodes 70``) is invalid
on public values alone, yet the command used to read the whole edge list first
(``read_edgelist`` in ``dpatlas.cli.graph.commands.run``) and the API refused afterwards:
nothing was spent, but a large file was parsed for nothing and a malformed one hid the real
mistake. Each command now calls its release's own check (``check_<release>``, the one the API
calls) on the public node count before it opens EDGES. Here EDGES is malformed (reading it
fails: "line 1: not an integer") and ``read_edgelist`` fails the test if it is called at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from dpatlas import Budget

SCALE = "noise scale sensitivity/epsilon is about 2**{}, too large (> 2**50) to sample exactly"

# the checks that depend on the number of nodes n: one case each
N_DEPENDENT = {
    "degree cap above n - 1": (
        "degrees --nodes 4 --max-degree 9",
        "--max-degree must be <= n - 1 = 3 (no node of 4 has a larger degree), got 9",
    ),
    "degree cap above n - 1, n from --node-list": (
        "degrees --node-list {nodes} --max-degree 99",
        "--max-degree must be <= n - 1 = 69 (no node of 70 has a larger degree), got 99",
    ),
    "degree cap negative (checked with the cap on n)": (
        "degrees --nodes 4 --max-degree -1 --method direct",
        "--max-degree must be >= 0, got -1; e.g. --max-degree 100",
    ),
    "k-star k too large for n": (
        "kstars --nodes 70 --k 30",
        "--k 30 is too large for --nodes 70: the global sensitivity 2 C(n-2, k-1) exceeds 2**61",
    ),
    "k-star global scale 2 C(n-2, k-1)/ε": (
        "kstars --nodes 70 --k 2 --method global --epsilon 1e-16",
        SCALE.format(60),
    ),
    "k-star smooth scale 6 GS/ε": (
        "kstars --nodes 700000 --k 2 --method smooth --epsilon 1e-9",
        SCALE.format(52),
    ),
    "triangle global scale (n-2)/ε": (
        "triangles --nodes 70 --method global --epsilon 1e-16",
        SCALE.format(59),
    ),
    "triangle smooth scale 2 (n-2)/ε with δ": (
        "triangles --nodes 1000000 --method smooth --delta 1e-6 --epsilon 2.5e-10",
        SCALE.format(52),
    ),
    "triangle ladder scale 2/ε (drawn only when n >= 3)": (
        "triangles --nodes 3 --method ladder --epsilon 1e-16",
        SCALE.format(54),
    ),
    "clustering global scales of both counts": (
        "clustering --nodes 70 --method global --epsilon 1e-15",
        SCALE.format(56),
    ),
}

# public checks that need no n, which the commands also left to the API after the read
N_INDEPENDENT = {
    "k = 1": ("kstars --nodes 70 --k 1", "--k must be >= 2, got 1"),
    "piecewise k-stars with k = 3": (
        "kstars --nodes 70 --k 3 --method piecewise",
        "--method piecewise needs a ladder that grows by at most 1 per step",
    ),
    "triangle share outside (0, 1)": (
        "clustering --nodes 70 --triangle-share 1.5",
        "--triangle-share must be a number in (0, 1), got 1.5; e.g. 0.5",
    ),
    "edge count scale 1/ε": ("edges --nodes 70 --epsilon 1e-16", SCALE.format(53)),
    "degree scale 2/ε": ("degrees --nodes 70 --epsilon 1e-16", SCALE.format(54)),
    "interval bound scale": ("triangles --nodes 70 --interval-epsilon 1e-16", SCALE.format(53)),
    "epsilon above the largest accepted": (
        "edges --nodes 70 --epsilon 1e300",
        "--epsilon must be at most 1e+06, got 1e+300",
    ),
    "synthesize stage scales": (
        "synthesize --nodes 70 --epsilon 1e-16 --out {out}",
        SCALE.format(56),
    ),
    "a repeated id in --node-list (the node count is the number of ids)": (
        "edges --node-list {dup}",
        "must not contain repeated ids, got 1 more than once; list each id once",
    ),
}


@pytest.fixture
def unread(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A malformed edge list that the command must not read."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("EDGES was read before the public checks")

    monkeypatch.setattr("dpatlas.graph.read_edgelist", refuse)
    edges = tmp_path / "edges.txt"
    edges.write_text("a b\n")  # reading it fails: "line 1: not an integer"
    (tmp_path / "nodes.txt").write_text("".join(f"{i}\n" for i in range(70)))
    (tmp_path / "dup.txt").write_text("0\n1\n1\n2\n")
    return edges


def _refused(cli, edges: Path, command: str, ledger: Path | None = None):
    folder = edges.parent
    words = command.format(nodes=folder / "nodes.txt", dup=folder / "dup.txt", out=folder / "s")
    name, *rest = words.split()
    opts = " ".join(rest) + ("" if ledger is None else f" --ledger {ledger} --dataset d")
    return cli(name, edges, opts=opts)


@pytest.mark.parametrize("case", sorted(N_DEPENDENT))
def test_n_dependent_refusal_comes_before_the_read(cli, unread: Path, case: str) -> None:
    command, message = N_DEPENDENT[case]
    res = _refused(cli, unread, command)
    assert res.code == 2, res.err
    assert message in res.err
    assert "line 1" not in res.err


@pytest.mark.parametrize("case", sorted(N_INDEPENDENT))
def test_other_public_refusals_come_before_the_read(cli, unread: Path, case: str) -> None:
    command, message = N_INDEPENDENT[case]
    res = _refused(cli, unread, command)
    assert res.code == 2, res.err
    assert message in res.err
    assert "line 1" not in res.err


def test_a_refusal_before_the_read_spends_nothing(cli, unread: Path, ledger: Path) -> None:
    res = _refused(cli, unread, N_DEPENDENT["k-star k too large for n"][0], ledger)
    assert res.code == 2, res.err
    history = cli("budget", "history", ledger, "--dataset", "d", "--json")
    assert json.loads(history.out)["history"] == []


def test_an_n_dependent_refusal_names_the_node_list_when_the_count_came_from_it(
    cli, unread: Path
) -> None:
    nodes = unread.parent / "nodes.txt"
    res = _refused(cli, unread, "kstars --node-list {nodes} --k 30")
    assert res.code == 2, res.err
    assert (
        f"--k 30 is too large for --node-list {nodes} (70 ids): the global sensitivity" in res.err
    )
    assert "--nodes" not in res.err


@pytest.mark.parametrize(
    ("command", "per_node"),
    [("edges", 32), ("degrees", 200), ("triangles", 200), ("synthesize", 640)],
)
def test_the_memory_check_runs_for_a_node_list_too(
    cli, unread: Path, ledger: Path, monkeypatch: pytest.MonkeyPatch, command: str, per_node: int
) -> None:
    monkeypatch.setattr("dpatlas.graph.input._convert.physical_memory", lambda: 69 * per_node)
    nodes = unread.parent / "nodes.txt"
    out = " --out {out}" if command == "synthesize" else ""
    res = _refused(cli, unread, f"{command} --node-list {{nodes}}{out}", ledger)
    assert res.code == 2, res.err
    assert (
        f"--node-list {nodes} (70 ids) needs about 0.0 GiB of memory ({per_node} bytes per node "
        f"for dpatlas {command}), more than this machine's 0.0 GiB; check --node-list {nodes} "
        "(70 ids) (the public number of nodes; at most 69 fit)"
    ) in res.err
    assert Budget.open(ledger, dataset="d").history == ()
