"""``dpatlas triangles``: JSON shape, ledger debits, intervals, warnings and errors."""

from __future__ import annotations

import json

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
    assert data["warnings"] == []
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


def test_smooth_with_delta(cli):
    res = cli("triangles", LESMIS, opts="--nodes 77 --method smooth --delta 1e-6 --json --seed 1")
    assert res.code == 0, res.err
    release = json.loads(res.out)["release"]
    assert release["mechanism"] == "triangle_count/smooth"
    assert release["delta"] == 1e-6


def test_node_count_is_required_before_anything_is_read_or_spent(cli, tmp_path):
    # was a PrivacyLeakWarning, then a release on the nodes seen in the edges (issue #17)
    ledger = tmp_path / "ledger.sqlite"
    res = cli("triangles", LESMIS, "--json", "--seed", 1, "--ledger", ledger, "--dataset", "d")
    assert res.code == 2
    assert "needs the public number of nodes: pass --nodes N" in res.err
    assert len(res.err.strip().splitlines()) == 1, res.err
    assert not ledger.exists()
    missing = cli("triangles", tmp_path / "absent.txt", "--seed", 1)
    assert "--nodes" in missing.err  # refused before the file is even looked for


def test_ids_beyond_the_node_count_are_relabelled(cli, tmp_path):
    edges = tmp_path / "edges.txt"
    edges.write_text("100 200\n200 300\n300 100\n")
    res = cli("triangles", edges, opts="--nodes 10 --method global --json --seed 2")
    assert res.code == 0, res.err
    assert json.loads(res.out)["release"]["metadata"]["n"] == 10


@pytest.mark.parametrize(
    ("content", "extra", "needle"),
    [
        ("0 1\n1 2 3\n", "--nodes 5", "line 2: expected 2 node ids, found 3 field(s)"),
        ("0 1\n1 x\n", "--nodes 5", "line 2: not an integer"),
        ("0 1\n", "--nodes 5 --method ladder --delta 1e-6", "applies only to method='smooth'"),
        ("0 1\n", "--nodes 1", "the edges use 2 distinct node ids but n=1"),
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


def test_the_printed_value_always_lies_in_its_printed_interval(cli):
    """Small graph, small ε: the noisy count is often negative; the report raises value and
    interval to 0 together (a count is never negative), so the value stays inside."""
    seen_negative = False
    for method, extra in (("global", ""), ("ladder", " --interval-epsilon 0.5")):
        for seed in range(12):
            opts = f"--nodes 77 --method {method} --epsilon 0.05 --json --seed {seed}{extra}"
            data = json.loads(cli("triangles", LESMIS, opts=opts).out)
            low, high = data["interval95"]
            assert 0 <= low <= data["value"] <= high
            seen_negative |= data["release"]["value"] < 0
            assert data["interval"]["kind"] == (
                "noise only" if method == "global" else "noise and bound"
            )
    assert seen_negative  # the clamping was exercised
    text = cli("triangles", LESMIS, opts="--nodes 77 --method global --epsilon 0.05 --seed 0").out
    assert "at least 95 times in 100" in text
    assert "free: its noise size is public" in text
