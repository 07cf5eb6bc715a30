"""``dpatlas edges | degrees | kstars | clustering | triangles``: JSON, ledger, intervals, errors."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from dpatlas import Budget

from .conftest import LESMIS


def test_default_release_debits_ledger_and_is_reproducible_only_with_a_seed(run_cli, cli, ledger):
    args = ["triangles", LESMIS, "--ledger", ledger]
    opts = "--nodes 77 --epsilon 0.4 --dataset d --json --seed 11"
    first = run_cli(*args, opts=opts)
    assert first.code == 0, first.err
    data = json.loads(first.out)
    assert isinstance(data["value"], int)
    assert data["interval95"] is None  # the piecewise noise scale is private
    assert data["release"]["mechanism"] == "triangle_count/piecewise"
    assert data["release"]["epsilon"] == 0.4
    assert data["release"]["seeded"] is True
    assert data["release"]["metadata"]["n"] == 77
    assert data["budget"]["remaining"]["epsilon"] == 0.6
    assert "warnings" not in data
    assert "NOT secret" in first.err
    assert "steps" not in first.err  # not a terminal: no progress bar
    second = cli(*args, opts=opts)
    assert json.loads(second.out)["value"] == data["value"]
    history = Budget.open(ledger, dataset="d").history
    assert [(float(s.epsilon), s.mechanism) for s in history] == [
        (0.4, "triangle_count/piecewise")
    ] * 2

    refused = run_cli(*args, opts=opts)  # 0.2 left
    assert refused.code == 1
    assert json.loads(refused.out)["remaining_epsilon"] == pytest.approx(0.2)
    assert "refused: privacy budget exceeded" in refused.err
    assert len(Budget.open(ledger, dataset="d").history) == 2


def test_global_has_a_free_interval_and_the_default_buys_one(cli, ledger):
    res = cli("triangles", LESMIS, opts="--nodes 77 --method global --epsilon 0.5 --json --seed 3")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    low, high = data["interval95"]
    assert low <= max(data["value"], 0) <= high
    # discrete Laplace of scale (n - 2)/ε = 150: P(|Z| <= h) >= 0.95 first at h = 449
    assert high - data["value"] == 449
    buy = "--nodes 77 --epsilon 0.4 --interval-epsilon 0.1 --seed 3"
    bought = cli("triangles", LESMIS, "--ledger", ledger, opts=buy + " --dataset d --json")
    assert bought.code == 0, bought.err
    data = json.loads(bought.out)
    assert data["interval95"][0] <= data["value"] <= data["interval95"][1]
    assert data["release"]["epsilon"] == 0.5
    assert data["budget"]["spent"]["epsilon"] == 0.5
    assert "(of which 0.1 for the interval)" in cli("triangles", LESMIS, opts=buy).out
    clustering = cli("clustering", LESMIS, opts=buy)  # its two parts bought 0.05 each
    assert "epsilon        0.5   delta 0   (of which 0.1 for the interval)" in clustering.out


def test_smooth_with_delta(cli):
    res = cli("triangles", LESMIS, opts="--nodes 77 --method smooth --delta 1e-6 --json --seed 1")
    assert res.code == 0, res.err
    release = json.loads(res.out)["release"]
    assert release["mechanism"] == "triangle_count/smooth"
    assert release["delta"] == 1e-6


@pytest.mark.parametrize("command", ["edges", "degrees", "kstars", "clustering", "triangles"])
def test_the_node_set_is_required_before_anything_is_read_or_spent(cli, tmp_path, command):
    # was a PrivacyLeakWarning, then a release on the nodes seen in the edges (issue #17)
    ledger = tmp_path / "ledger.sqlite"
    k = ["--k", 2] if command == "kstars" else []
    res = cli(command, LESMIS, *k, "--json", "--ledger", ledger, "--dataset", "d")
    assert res.code == 2
    assert f"dpatlas {command} needs the public number of nodes: pass --nodes N" in res.err
    assert "or --node-list FILE" in res.err
    assert len(res.err.strip().splitlines()) == 1, res.err
    assert not ledger.exists()
    missing = cli(command, tmp_path / "absent.txt", *k)
    assert "--nodes" in missing.err  # refused before the file is even looked for


def test_ids_beyond_the_node_count_are_relabelled(cli, tmp_path):
    edges = tmp_path / "edges.txt"
    edges.write_text("100 200\n200 300\n300 100\n")
    res = cli("triangles", edges, opts="--nodes 10 --method global --json --seed 2")
    assert res.code == 0, res.err
    assert json.loads(res.out)["release"]["metadata"]["n"] == 10
    assert "warnings" not in json.loads(res.out)


@pytest.mark.parametrize(
    ("content", "extra", "needle"),
    [
        ("0 1\n1 2 3\n", "--nodes 5", "line 2: expected 2 node ids, found 3 field(s)"),
        ("0 1\n1 x\n", "--nodes 5", "line 2: not an integer"),
        ("0 1\n", "--nodes 5 --method ladder --delta 1e-6", "--delta applies only to --method"),
        ("0 1\n", "--nodes 1", "the edges use 2 distinct node ids but --nodes 1"),
        ("0 1\n", "--nodes 1", "pass the public number of nodes as --nodes N (at least 2)"),
        ("0 1\n", "--epsilon nan", "expected a finite number > 0"),
    ],
)
def test_bad_input_exits_2(cli, tmp_path, content, extra, needle):
    edges = tmp_path / "edges.txt"
    edges.write_text(content)
    res = cli("triangles", edges, opts=extra)
    assert res.code == 2
    assert needle in res.err
    assert len(res.err.strip().splitlines()) == 1, res.err
    assert "Traceback" not in res.err


def test_missing_file_and_missing_ledger(cli, tmp_path):
    res = cli("triangles", tmp_path / "none.txt", "--nodes", 5)
    assert res.code == 2
    assert "EDGES file not found" in res.err
    res = cli(
        "triangles", LESMIS, "--nodes", 77, "--ledger", tmp_path / "l.sqlite", "--dataset", "d"
    )
    assert res.code == 2
    assert "budget init" in res.err


SHARED = Path(__file__).resolve().parents[3] / "shared" / "datasets" / "graphs"


@pytest.mark.parametrize(
    ("command", "extra", "mechanism", "value_type"),
    [
        ("edges", "", "edge_count", int),
        ("degrees", "--max-degree 40", "degree_histogram/sorted", list),
        ("degrees", "--method direct", "degree_histogram/direct", list),
        ("kstars", "--k 3 --interval-epsilon 0.1", "kstar_count/ladder", int),
        ("clustering", "--method global", "clustering_coefficient/global", float),
        ("clustering", "--triangle-share 0.3", "clustering_coefficient/piecewise", float),
        ("triangles", "--method smooth", "triangle_count/smooth", int),
        ("triangles", "--relaxed", "triangle_count/piecewise", int),
        ("triangles", "--method ladder", "triangle_count/ladder", int),
        ("kstars", "--k 2 --method piecewise --interval-epsilon 0.1", "kstar_count/piecewise", int),
    ],
)
def test_every_graph_release_has_a_command(cli, ledger, command, extra, mechanism, value_type):
    opts = f"--nodes 77 --epsilon 0.5 --seed 2 --ledger {ledger} --dataset d --json {extra}"
    res = cli(command, LESMIS, opts=opts)
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["command"] == command
    assert data["release"]["mechanism"] == mechanism
    assert isinstance(data["value"], value_type)
    assert isinstance(data["release"]["epsilon"], float)  # numbers as numbers
    spent = 0.6 if "interval-epsilon" in extra else 0.5
    assert data["budget"]["spent"]["epsilon"] == pytest.approx(spent)
    (spend,) = Budget.open(ledger, dataset="d").history
    assert (float(spend.epsilon), spend.mechanism) == (spent, mechanism)
    if command == "degrees":
        assert sum(data["value"]) == 77  # post-processed to the public node count
        # the "interval" describes the noisy sorted degrees, so they are exported with it
        assert data["interval"]["covers"].startswith("release.raw")
        assert len(data["raw"]) == len(data["raw_interval95"]) == 77
        assert all(
            lo <= v <= hi for v, (lo, hi) in zip(data["raw"], data["raw_interval95"], strict=True)
        )
        assert "degree bins    0 .." in cli(command, LESMIS, opts="--nodes 77 --seed 2").out
    if command in ("edges", "kstars") or "global" in extra:
        low, high = data["interval95"]
        assert low <= data["value"] <= high


def test_the_printed_value_always_lies_in_its_printed_interval(cli):
    """Small graph, small ε: the noisy count is often negative; the report raises value and
    interval to 0 together (a count is never negative), so the value stays inside, in the
    JSON and in the text."""
    seen_negative = False
    for method, extra in (("global", ""), ("ladder", " --interval-epsilon 0.5")):
        for seed in range(12):
            opts = f"--nodes 77 --method {method} --epsilon 0.05 --seed {seed}{extra}"
            data = json.loads(cli("triangles", LESMIS, opts=opts + " --json").out)
            low, high = data["interval95"]
            assert 0 <= low <= data["value"] <= high
            seen_negative |= data["release"]["value"] < 0
            assert data["interval"]["kind"] == (
                "noise only" if method == "global" else "noise and bound"
            )
            text = cli("triangles", LESMIS, opts=opts).out
            printed = int(text.split("private value")[1].split()[0])
            shown = text.split("95% interval")[1].split("\n")[0].strip(" []").split(", ")
            assert int(shown[0]) <= printed <= int(shown[1])
    assert seen_negative  # the clamping was exercised
    text = cli("triangles", LESMIS, opts="--nodes 77 --method global --epsilon 0.05 --seed 0").out
    assert "at least 95 times in 100" in text
    assert "free: its noise size is public" in text
    clustering = cli("clustering", LESMIS, opts="--nodes 77 --method global --seed 0").out
    assert "contain the true coefficient at least 95 times in 100" in clustering


@pytest.mark.parametrize(
    ("command", "extra", "needle"),
    [
        (
            "triangles",
            "--delta 1e-6",
            "--delta applies only to --method smooth; the piecewise method",
        ),
        ("clustering", "--method global --delta 1e-6", "--delta applies only to --method smooth"),
        ("kstars", "--k 2 --method global --interval-epsilon 0.1", "drop --interval-epsilon"),
        ("triangles", "--nodes 0", "--nodes must be a whole number >= 1, got 0"),
        ("triangles", "--method global --relaxed", "--relaxed applies only to --method piecewise"),
        ("triangles", "--node-list nowhere.txt", "--node-list file not found: nowhere.txt"),
        ("kstars", "", "the following arguments are required: --k"),
        ("kstars", "--k 3 --method piecewise", "--method piecewise needs a ladder"),
        ("edges", "--method ladder", "unrecognized arguments: --method ladder"),
    ],
)
def test_usage_errors_come_before_the_ledger(cli, ledger, command, extra, needle):
    nodes = "" if "--node" in extra else "--nodes 77"
    res = cli(command, LESMIS, opts=f"{extra} {nodes} --ledger {ledger} --dataset d --epsilon 0.5")
    assert res.code == 2, res.err
    assert needle in res.err
    assert Budget.open(ledger, dataset="d").history == ()


def test_node_list_names_the_public_nodes(cli, tmp_path):
    edges = tmp_path / "edges.txt"
    edges.write_text("100 205\n205 307\n307 100\n")
    nodes = tmp_path / "nodes.txt"
    nodes.write_text("# public ids\n100\n205\n307\n999\n")
    res = cli("triangles", edges, opts=f"--node-list {nodes} --method global --json --seed 1")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["release"]["metadata"]["n"] == 4  # 999 is an isolated public node
    assert "warnings" not in data
    missing = tmp_path / "few.txt"
    missing.write_text("100\n205\n")
    res = cli("triangles", edges, opts=f"--node-list {missing}")
    assert res.code == 2
    assert (
        "node id 307, which is not among the public node ids given as --node-list FILE" in res.err
    )
    empty = tmp_path / "empty.txt"
    empty.write_text("# no ids yet\n")
    res = cli("triangles", edges, opts=f"--node-list {empty}")
    assert res.code == 2
    assert res.err.strip().endswith("lists no node id; give one integer id per line")
    assert "loadtxt" not in res.err


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("100\n205\n4.0\n", "one integer node id per line; line 3 is '4.0'"),  # was "row 2"
        ("100 205\n307 999\n", "one integer node id per line; line 1 is '100 205'"),  # was "1-D"
        ("# ids\nnode\n100\n", "one integer node id per line; line 2 is 'node'"),
        ("100\n\u00b2\n", "one integer node id per line; line 2 is '\u00b2'"),  # was "too large"
        ("100\n\u0663\n", "one integer node id per line; line 2 is '\u0663'"),
    ],
)
def test_node_list_errors_name_the_line(cli, tmp_path, text, needle):
    edges = tmp_path / "edges.txt"
    edges.write_text("100 205\n")
    nodes = tmp_path / "nodes.txt"
    nodes.write_text(text)
    res = cli("edges", edges, opts=f"--node-list {nodes}")
    assert res.code == 2
    assert needle in res.err
    assert len(res.err.strip().splitlines()) == 1


def test_a_negative_id_in_the_node_list_is_refused_before_the_edge_list_is_read(
    cli, ledger, tmp_path
):
    edges = tmp_path / "edges.txt"
    edges.write_text("not an edge list\n")
    nodes = tmp_path / "nodes.txt"
    nodes.write_text("0\n-4\n1\n")
    res = cli("edges", edges, opts=f"--node-list {nodes} --ledger {ledger} --dataset d")
    assert res.code == 2  # before: the edge list was read first, and its error came out
    assert f"--node-list {nodes} must hold node ids >= 0, as the edge list's are, got -4" in res.err
    assert len(res.err.strip().splitlines()) == 1


def test_a_konect_file_is_not_told_to_pass_a_flag_the_command_lacks(cli, tmp_path):
    edges = tmp_path / "out.konect"
    edges.write_text("% sym unweighted\n1 2\n2 3\n")
    res = cli("edges", edges, opts="--nodes 4")
    assert res.code == 2
    assert res.err.rstrip().endswith("make it a '#' comment (sed 's/^%/#/' in.txt > out.txt)")
    assert "comments" not in res.err  # before: "or pass comments='%'", and no --comments exists


def test_node_list_with_a_byte_order_mark(cli, tmp_path):
    edges = tmp_path / "edges.txt"
    edges.write_text("100 205\n")
    nodes = tmp_path / "nodes.txt"
    nodes.write_bytes(b"\xef\xbb\xbf100\r\n205\r\n307\r\n")  # Excel's "CSV UTF-8"
    res = cli("edges", edges, opts=f"--node-list {nodes} --json --seed 1")
    assert res.code == 0, res.err
    assert json.loads(res.out)["release"]["metadata"]["n"] == 3


@pytest.mark.shared
@pytest.mark.skipif(not SHARED.is_dir(), reason="../shared/datasets is absent")
def test_a_snap_file_as_a_subprocess_with_the_real_node_count(run_cli, cli, tmp_path):
    enron = SHARED / "email-Enron.txt.gz"  # ids 0 .. 36691
    ledger = tmp_path / "ledger.sqlite"
    assert cli("budget", "init", ledger, "--dataset", "enron", "--epsilon", "2").code == 0
    base = f"--nodes 36692 --epsilon 0.5 --ledger {ledger} --dataset enron --json"
    for command, run in (("triangles", run_cli), ("clustering", cli), ("edges", cli)):
        res = run(command, enron, opts=base)
        assert res.code == 0, res.err
        data = json.loads(res.out)
        assert data["release"]["metadata"]["n"] == 36692
        assert "warnings" not in data
    refused = run_cli("kstars", enron, opts=base + " --k 2 --interval-epsilon 0.1")
    assert refused.code == 1  # 1.5 spent, 0.6 asked
    assert json.loads(refused.out)["remaining_epsilon"] == pytest.approx(0.5)
    grqc = SHARED / "ca-GrQc.txt"  # ids up to 26196 on 5,242 nodes (SNAP's header): relabelled
    res = run_cli("triangles", grqc, opts="--nodes 5242 --epsilon 1 --interval-epsilon 0.1 --json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["release"]["metadata"]["n"] == 5242
    low, high = data["interval95"]
    assert low <= data["value"] <= high
    assert abs(data["value"] - 48_260) < 0.05 * 48_260  # SNAP's count; the ladder is this close
    degrees = json.loads(cli("degrees", grqc, opts="--nodes 5242 --json").out)
    assert sum(degrees["value"]) == 5242  # one node without an edge (it had only a self-loop)
    few = cli("triangles", grqc, opts="--nodes 5000")
    assert few.code == 2
    assert "the edges use 5241 distinct node ids but --nodes 5000" in few.err


def test_a_zcdp_ledger_refuses_before_the_file_is_read_and_in_the_users_epsilon(cli, tmp_path):
    ledger = tmp_path / "z.sqlite"
    opts = "--dataset z --epsilon 1 --delta 1e-6 --accounting zcdp"
    assert cli("budget", "init", ledger, opts=opts).code == 0
    bad = tmp_path / "comma.txt"
    bad.write_text("0,1\n1,2\n")  # unreadable: a refusal must come before the parse error
    res = cli("edges", bad, "--ledger", ledger, opts="--dataset z --nodes 4 --epsilon 50")
    assert res.code == 1, res.err
    assert "requested epsilon=50 (rho=1250), which under zCDP accounting takes" in res.err
    # clustering debits two releases (ρ = ε²/4 at an even share): what fits is what is checked
    rho_fits = cli(
        "clustering",
        LESMIS,
        "--ledger",
        ledger,
        opts="--dataset z --nodes 77 --epsilon 0.25 --seed 1",
    )
    assert rho_fits.code == 0, rho_fits.err
    history = Budget.open(ledger, dataset="z").history
    assert [(s.mechanism, float(s.rho)) for s in history] == [
        ("clustering_coefficient/piecewise", pytest.approx(0.25**2 / 4))
    ]


def test_a_delta_release_on_a_zcdp_ledger_is_refused_in_the_shells_words(cli, tmp_path):
    ledger = tmp_path / "z.sqlite"
    opts = "--dataset z --epsilon 1 --delta 1e-6 --accounting zcdp"
    assert cli("budget", "init", ledger, opts=opts).code == 0
    opts = "--dataset z --nodes 77 --method smooth --delta 1e-8"
    res = cli("triangles", LESMIS, "--ledger", ledger, opts=opts)
    assert res.code == 2
    assert "has no zCDP cost" in res.err
    assert res.err.strip().endswith(  # was: "... pass rho= to Budget.spend, or use a Budget ..."
        "release with --delta 0 (pure ε, charged ε²/2), or use a dataset registered with "
        "`dpatlas budget init ... --accounting basic`"
    )
    assert Budget.open(ledger, dataset="z").history == ()


def test_a_refusal_for_delta_gives_the_advice_in_the_shells_words(cli, ledger):
    opts = "--dataset d --nodes 77 --method smooth --delta 1e-6 --epsilon 0.5 --json"
    res = cli("triangles", LESMIS, "--ledger", ledger, opts=opts)  # the ledger has δ = 0
    assert res.code == 1
    assert "requested epsilon=0.5, delta=1e-06; remaining epsilon=1, delta=0" in res.err
    assert "release with a smaller delta (--delta 0 for a pure-ε release)" in res.err  # was delta=0
    assert "(--delta 0 for a pure-ε release)" in json.loads(res.out)["error"]


@pytest.mark.parametrize("command", ["triangles", "synthesize"])
def test_too_many_nodes_are_refused_before_the_file_is_read(cli, tmp_path, command):
    edges = tmp_path / "edges.txt"
    edges.write_text("0,1\n")  # unreadable: the --nodes refusal must come first
    extra = f" --out {tmp_path / 's.txt'}" if command == "synthesize" else ""
    res = cli(command, edges, opts=f"--nodes 3000000000{extra}")
    assert res.code == 2
    assert "--nodes must be below 2**31 (node ids are held in int32 CSR arrays)" in res.err


@pytest.mark.parametrize(
    ("command", "extra", "needle"),
    [
        ("triangles", "", "--epsilon 1e-12 is too small for smooth sensitivity with --delta 0"),
        ("kstars", " --k 3 --delta 1e-6", "--epsilon 1e-12 is too small for smooth sensitivity"),
        (
            "clustering",
            "",
            "--epsilon 1e-12 is too small for the clustering coefficient's smooth sensitivity "
            "with --delta 0",
        ),
    ],
)
def test_an_epsilon_too_small_for_smooth_is_refused_before_the_file_is_read(
    cli, ledger, tmp_path, command, extra, needle
):
    edges = tmp_path / "edges.txt"
    edges.write_text("0,1\n")  # unreadable: the ε refusal must come first
    opts = f"--nodes 4 --epsilon 1e-12 --method smooth --ledger {ledger}{extra}"
    res = cli(command, edges, opts=opts)
    assert res.code == 2, res.err
    assert needle in res.err
    assert "line 1" not in res.err


@pytest.mark.parametrize(
    ("command", "nodes", "need"),
    [
        ("edges", 2 * 10**9, "59.6 GiB of memory (32 bytes per node for dpatlas edges)"),
        ("degrees", 10**8, "18.6 GiB of memory (200 bytes per node for dpatlas degrees)"),
        ("kstars", 10**8, "18.6 GiB of memory (200 bytes per node for dpatlas kstars)"),
        ("clustering", 10**8, "20.9 GiB of memory (224 bytes per node for dpatlas clustering)"),
        ("triangles", 10**8, "18.6 GiB of memory (200 bytes per node for dpatlas triangles)"),
        ("synthesize", 10**8, "59.6 GiB of memory (640 bytes per node for dpatlas synthesize)"),
    ],
)
def test_more_nodes_than_memory_holds_are_refused_before_the_file_is_read(
    cli, tmp_path, monkeypatch, command, nodes, need
):
    """A mistyped --nodes below 2**31 was read, then exhausted memory; found by a hand fuzz."""
    monkeypatch.setattr("dpatlas.graph.input._convert.physical_memory", lambda: 4 * 2**30)
    edges = tmp_path / "edges.txt"
    edges.write_text("0,1\n")  # unreadable: the --nodes refusal must come first
    extra = f" --out {tmp_path / 's.txt'}" if command == "synthesize" else ""
    extra += " --k 2" if command == "kstars" else ""
    res = cli(command, edges, opts=f"--nodes {nodes}{extra}")
    assert res.code == 2
    assert f"--nodes {nodes} needs about {need}, more than this machine's 4.0 GiB; " in res.err
    assert "check --nodes N (the public number of nodes; at most " in res.err
    assert len(res.err.strip().splitlines()) == 1, res.err


def test_ten_million_nodes_pass_the_memory_guard_of_a_4_gib_machine(cli, tmp_path, monkeypatch):
    """The guard refuses no realistic graph: 10**7 nodes reach the file (which is refused)."""
    monkeypatch.setattr("dpatlas.graph.input._convert.physical_memory", lambda: 4 * 2**30)
    edges = tmp_path / "edges.txt"
    edges.write_text("0,1\n")
    for command in ("degrees", "triangles", "clustering"):
        res = cli(command, edges, opts="--nodes 10000000")
        assert res.code == 2
        assert "edges.txt" in res.err, res.err
        assert "memory" not in res.err, res.err
    res = cli("degrees", edges, opts="--nodes 10000000 --json")  # its per-node JSON does not fit
    assert "--nodes 10000000 needs about 6.1 GiB of memory (650 bytes per node" in res.err


def test_a_repeated_node_id_and_a_directory_as_edges_are_named(cli, tmp_path):
    (tmp_path / "nodes.txt").write_text("0\n1\n1\n2\n")
    res = cli("edges", LESMIS, "--node-list", tmp_path / "nodes.txt")
    assert res.code == 2
    assert "repeated ids, got 1 more than once; list each id once" in res.err
    for command, out in (("edges", ""), ("synthesize", f" --out {tmp_path / 's.txt'}")):
        res = cli(command, tmp_path, opts=f"--nodes 3{out}")
        assert res.code == 2
        assert f"EDGES {tmp_path} is a directory; give the edge list file" in res.err


def test_a_warning_about_the_private_file_stays_out_of_the_json_result(cli, tmp_path):
    """The JSON on stdout is what gets published; a warning counts something of the private
    file without noise (here its self-loops), so it goes to stderr only."""
    edges = tmp_path / "edges.txt"
    edges.write_text("0 1\n1 1\n2 2\n2 1\n")
    res = cli("edges", edges, opts="--nodes 3 --json --seed 1")
    assert res.code == 0, res.err
    assert "self-loop" not in res.out
    assert "warnings" not in json.loads(res.out)
    assert "warning: UserWarning: edges.txt: dropped 2 self-loop(s)" in res.err


def test_closed_stdout_pipe_is_no_traceback_and_no_false_refusal(tmp_path):
    """`dpatlas ... --json | head -1`: the release is made (and debited), so the exit code is 0
    (it was 1, "refused, nothing spent", with a BrokenPipeError traceback); warnings still
    reach stderr."""
    edges = tmp_path / "edges.txt"
    edges.write_text("0 1\n1 1\n")
    with subprocess.Popen(
        [sys.executable, "-m", "dpatlas.cli", "edges", edges, "--nodes", "3", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as proc:
        assert proc.stdout is not None
        assert proc.stderr is not None
        proc.stdout.close()  # before the command writes: its first write meets a closed pipe
        err = proc.stderr.read()
        assert proc.wait(timeout=120) == 0, err
    assert "Traceback" not in err
    assert "dropped 1 self-loop(s)" in err
