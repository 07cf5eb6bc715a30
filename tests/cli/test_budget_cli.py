"""``dpatlas budget`` and the CLI's exit codes, one-line errors and help texts."""

from __future__ import annotations

import json

import pytest

from dpatlas import Budget
from dpatlas.cli import build_parser


def test_init_then_show_json(cli, ledger):
    res = cli("budget", "show", ledger, "--dataset", "d", "--json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert data["dataset"] == "d"
    assert data["total"] == {"epsilon": 1.0, "delta": 0.0}
    assert data["spent"] == {"epsilon": 0.0, "delta": 0.0}
    assert data["remaining"] == {"epsilon": 1.0, "delta": 0.0}
    assert data["spends"] == 0
    assert data["accounting"] == "basic"


def test_history_lists_spends_and_remaining(cli, ledger):
    budget = Budget.open(ledger, dataset="d")
    budget.spend(0.25, mechanism="heatmap/uniform", note="first map")
    budget.spend(0.5, mechanism="triangle_count/ladder")
    res = cli("budget", "history", ledger, "--dataset", "d", "--json")
    assert res.code == 0, res.err
    data = json.loads(res.out)
    assert [r["mechanism"] for r in data["history"]] == ["heatmap/uniform", "triangle_count/ladder"]
    assert [r["epsilon"] for r in data["history"]] == [0.25, 0.5]
    assert data["history"][0]["note"] == "first map"
    assert data["remaining"]["epsilon"] == 0.25
    text = cli("budget", "history", ledger, "--dataset", "d").out
    assert "2 release(s)" in text
    assert "remaining: epsilon=0.25" in text


def test_init_zcdp_needs_delta(cli, tmp_path):
    path = tmp_path / "z.sqlite"
    res = cli("budget", "init", path, opts="--dataset d --epsilon 1 --accounting zcdp")
    assert res.code == 2
    assert "delta > 0" in res.err
    ok = cli(
        "budget",
        "init",
        path,
        opts="--dataset d --epsilon 1 --delta 1e-6 --accounting zcdp --json",
    )
    assert ok.code == 0, ok.err
    assert json.loads(ok.out)["accounting"] == "zcdp"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["show", "{missing}", "--dataset", "d"], "budget init {missing} --dataset d"),
        (["show", "{ledger}", "--dataset", "other"], "budget init {ledger} --dataset other"),
        (["init", "{ledger}", "--dataset", "d", "--epsilon", "2"], "already registered"),
        (
            ["init", "{ledger}", "--dataset", "e", "--epsilon", "1", "--delta", "2"],
            "delta must be in [0, 1), got 2.0",
        ),
        (["init", "{ledger}", "--dataset", "e", "--epsilon", "-1"], "expected a finite number > 0"),
        (["show", "{ledger}"], "required: --dataset"),
        (["frobnicate"], "invalid choice"),
    ],
)
def test_usage_errors_are_one_line_with_exit_code_2(cli, ledger, tmp_path, args, needle):
    fill = {"ledger": ledger, "missing": tmp_path / "missing.sqlite"}
    res = (
        cli("budget", *[a.format(**fill) for a in args]) if args[0] != "frobnicate" else cli(*args)
    )
    assert res.code == 2
    assert needle.format(**fill) in res.err
    assert len(res.err.strip().splitlines()) == 1, res.err
    assert "Traceback" not in res.err
    assert not (tmp_path / "missing.sqlite").exists()


def test_corrupt_ledger_is_refused_with_exit_code_1(cli, tmp_path):
    bad = tmp_path / "bad.sqlite"
    bad.write_bytes(b"this is not a database" * 100)
    res = cli("budget", "show", bad, "--dataset", "d", "--json")
    assert res.code == 1
    assert json.loads(res.out)["error_type"] == "LedgerError"
    assert res.err.startswith("dpatlas budget show: refused: ")
    assert len(res.err.strip().splitlines()) == 1


def _commands(parser):
    sub = next(a for a in parser._actions if a.__class__.__name__ == "_SubParsersAction")
    for name, child in sub.choices.items():
        nested = [a for a in child._actions if a.__class__.__name__ == "_SubParsersAction"]
        if nested:
            for action in nested[0].choices:
                yield [name, action]
        else:
            yield [name]


def test_every_command_has_help_with_an_example(cli):
    commands = list(_commands(build_parser()))
    names = ["demo", "edges", "degrees", "kstars", "clustering", "triangles", "synthesize"]
    names += ["heatmap", "export"]
    assert commands == [[n] for n in names] + [["budget", a] for a in ("init", "show", "history")]
    for command in commands:
        res = cli(*command, "--help")
        assert res.code == 0
        assert "examples:" in res.out, command
        assert f"dpatlas {command[0]} " in res.out.split("examples:")[1], command
