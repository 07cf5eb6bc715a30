"""``dpatlas synthesize``: the edge list written, JSON shape, ledger debits and refusals."""

from __future__ import annotations

import json

import networkx as nx
import pytest

from dpatlas import Budget

from .conftest import LESMIS


def test_writes_a_synthetic_edge_list_and_debits_the_ledger(run_cli, cli, ledger, tmp_path):
    out, com = tmp_path / "synthetic.txt", tmp_path / "communities.txt"
    args = ["synthesize", LESMIS, "--ledger", ledger]
    opts = f"--nodes 77 --epsilon 0.6 --out {out} --communities {com} --dataset d --json --seed 4"
    res = run_cli(*args, opts=opts)
    assert res.code == 0, res.err
    data = json.loads(res.out)
    release = data["release"]
    assert release["mechanism"] == "synthesize"
    assert release["epsilon"] == 0.6
    assert release["seeded"] is True
    assert "NOT secret" in res.err
    assert release["value"]["nodes"] == 77
    assert sum(release["metadata"]["split"].values()) == pytest.approx(0.6)
    assert data["budget"]["remaining"]["epsilon"] == pytest.approx(0.4)
    assert "warnings" not in data
    lines = out.read_text().splitlines()
    assert lines[0] == "# dpatlas synthetic graph: edge-DP, epsilon=0.6, nodes=77"
    g = nx.read_edgelist(out, nodetype=int)
    assert g.number_of_edges() == release["value"]["edges"]
    assert all(0 <= u < 77 for u in g.nodes)
    assert data["communities"] == str(com)
    rows = [line.split() for line in com.read_text().splitlines()]
    assert rows[0][:6] == ["#", "dpatlas", "synthetic", "graph", "communities:", "edge-DP,"]
    assert [int(u) for u, _ in rows[1:]] == list(range(77))
    assert len({c for _, c in rows[1:]}) == release["metadata"]["communities"]
    again = cli(*args, opts=opts.replace("0.6", "0.3").replace(str(out), str(tmp_path / "b.txt")))
    assert again.code == 0, again.err
    refused = run_cli(*args, opts=opts)  # 0.1 left
    assert refused.code == 1
    assert "refused: privacy budget exceeded" in refused.err
    history = Budget.open(ledger, dataset="d").history
    assert [(float(s.epsilon), s.mechanism) for s in history] == [
        (0.6, "synthesize"),
        (0.3, "synthesize"),
    ]


def test_the_ledger_records_the_files_written(cli, ledger, tmp_path):
    """`budget history` lists each release "with its files": synthesize's were missing."""
    out, com = tmp_path / "synthetic.txt", tmp_path / "communities.txt"
    opts = f"--nodes 77 --epsilon 0.5 --out {out} --communities {com} --dataset d --seed 1"
    assert cli("synthesize", LESMIS, "--ledger", ledger, opts=opts).code == 0
    (spend,) = Budget.open(ledger, dataset="d").history
    assert list(spend.products) == [str(out.resolve()), str(com.resolve())]
    res = cli("budget", "history", ledger, "--dataset", "d")
    assert f"wrote {out.resolve()}" in res.out


def test_text_output_and_seed_reproducibility(cli, tmp_path):
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    com = tmp_path / "c.txt"
    opts = f"--nodes 77 --epsilon 2 --out {a} --communities {com} --seed 9"
    first = cli("synthesize", LESMIS, opts=opts)
    assert first.code == 0, first.err
    assert f"written to {com}" in first.out
    assert "Synthetic graph of les-miserables.txt written to" in first.out
    assert "split          degrees 0.6, partition 0.9, blocks 0.3, triangles 0.2" in first.out
    assert "no --ledger given" in first.err
    assert cli("synthesize", LESMIS, opts=f"--nodes 77 --epsilon 2 --out {b} --seed 9").code == 0
    assert a.read_text() == b.read_text()


def test_node_list_names_the_nodes_and_ids_off_the_edges_are_refused(cli, ledger, tmp_path):
    edges, nodes, out = tmp_path / "g.txt", tmp_path / "nodes.txt", tmp_path / "s.txt"
    edges.write_text("10 20\n20 30\n30 10\n30 40\n50 60\n")
    res = cli("synthesize", edges, "--ledger", ledger, opts=f"--dataset d --nodes 7 --out {out}")
    assert res.code == 2
    assert "node ids were read off the edges (--nodes 7, largest id 60)" in res.err
    assert "give the public node ids as --node-list FILE" in res.err
    assert not out.exists()
    assert Budget.open(ledger, dataset="d").history == ()
    nodes.write_text("# public ids\n" + "".join(f"{i}\n" for i in (10, 20, 30, 40, 50, 60, 70)))
    res = cli("synthesize", edges, opts=f"--node-list {nodes} --out {out} --seed 1")
    assert res.code == 0, res.err
    g = nx.read_edgelist(out, nodetype=int)
    assert set(g.nodes) <= {10, 20, 30, 40, 50, 60, 70}
    assert "nodes=7" in out.read_text().splitlines()[0]
    res = cli("synthesize", edges, opts=f"--nodes 7 --node-list {nodes} --out {out}")
    assert res.code == 2
    assert "not allowed with argument" in res.err
    res = cli("synthesize", edges, opts=f"--nodes 0 --out {out}")
    assert res.code == 2
    assert "--nodes must be a whole number >= 1, got 0" in res.err


def test_outputs_that_would_destroy_an_input_are_refused_before_spending(cli, ledger, tmp_path):
    edges = tmp_path / "mine.txt"
    edges.write_text("0 1\n1 2\n2 0\n")
    (tmp_path / "dir").mkdir()
    run = ["synthesize", edges, "--ledger", ledger]
    for opts, needle in (
        (f"--out {ledger}", f"--out {ledger} is the --ledger file: writing it would destroy it"),
        (f"--out {edges}", "is the EDGES file: writing it would destroy it"),
        (f"--out {tmp_path / 's.txt'} --communities {edges}", "--communities"),
        (f"--out {tmp_path / 'dir'}", "is a directory; give a file inside it"),
        (f"--out {edges / 's.txt'}", "mine.txt is a file, not a folder"),
    ):
        res = cli(*run, opts=f"--dataset d --nodes 3 {opts}")
        assert res.code == 2, opts
        assert needle in res.err
    assert edges.read_text() == "0 1\n1 2\n2 0\n"
    assert Budget.open(ledger, dataset="d").history == ()
    assert not (tmp_path / "s.txt").exists()


def test_refusals_name_the_fix(cli, tmp_path):
    out = tmp_path / "s.txt"
    res = cli("synthesize", LESMIS, opts=f"--epsilon 1 --out {out}")
    assert res.code == 2
    assert "--nodes N (ids 0..N-1) or --node-list FILE is required" in res.err
    res = cli("synthesize", tmp_path / "missing.txt", opts=f"--nodes 5 --out {out}")
    assert res.code == 2
    assert "EDGES file not found" in res.err
    res = cli("synthesize", LESMIS, opts=f"--nodes 77 --out {tmp_path / 'no' / 'x.txt'}")
    assert res.code == 2
    assert "--out directory not found" in res.err
    res = cli("synthesize", LESMIS, opts=f"--nodes 77 --out {out} --communities {out}")
    assert res.code == 2
    assert "--communities and --out are the same file" in res.err
    bad = tmp_path / "no" / "c.txt"
    res = cli("synthesize", LESMIS, opts=f"--nodes 77 --out {out} --communities {bad}")
    assert res.code == 2
    assert "--communities directory not found" in res.err
    res = cli("synthesize", LESMIS, opts="--nodes 77")
    assert res.code == 2
    assert "--out" in res.err
    assert not out.exists()


def test_a_zcdp_ledger_checks_the_cost_synthesize_debits(cli, tmp_path):
    """Four stages composed take less ρ than one release at ε: the command's check before the
    file is read must accept what the release fits (it refused ε = 0.25 here: ρ = ε²/2)."""
    from dpatlas.graph.synthesis.synthetic import synthesis_cost

    ledger = tmp_path / "z.sqlite"
    opts = "--dataset z --epsilon 1 --delta 1e-6 --accounting zcdp"
    assert cli("budget", "init", ledger, opts=opts).code == 0
    out = tmp_path / "s.txt"
    res = cli(
        "synthesize",
        LESMIS,
        "--ledger",
        ledger,
        opts=f"--dataset z --nodes 77 --epsilon 0.25 --out {out} --seed 1",
    )
    assert res.code == 0, res.err
    history = Budget.open(ledger, dataset="z").history
    assert [(s.mechanism, float(s.rho)) for s in history] == [
        ("synthesize", pytest.approx(float(synthesis_cost(0.25).rho)))
    ]
    assert float(synthesis_cost(0.25).rho) < 0.25**2 / 2
