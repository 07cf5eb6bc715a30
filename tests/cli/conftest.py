"""Fixtures of the CLI tests: the CLI in-process (fast) and as a subprocess (the real thing)."""

from __future__ import annotations

import shlex
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import pytest

from dpatlas.cli import main

DATASETS = Path(__file__).resolve().parents[2] / "datasets"
SNOW = DATASETS / "snow-cholera-deaths-1854.gpkg"
LESMIS = DATASETS / "les-miserables.txt"


class Result(NamedTuple):
    code: int
    out: str
    err: str


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """Run ``dpatlas ARGS OPTS`` in this process (``opts``: a string of options, split as by a
    shell); usage errors (SystemExit) give their code."""

    def run(*args: object, opts: str = "") -> Result:
        try:
            code = main([*map(str, args), *shlex.split(opts)])
        except SystemExit as exc:
            code = int(exc.code or 0)
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


@pytest.fixture
def run_cli() -> Callable[..., Result]:
    """Run ``python -m dpatlas.cli ARGS OPTS`` as a subprocess (stderr is a pipe, not a terminal)."""

    def run(*args: object, opts: str = "", cwd: Path | None = None) -> Result:
        proc = subprocess.run(
            [sys.executable, "-m", "dpatlas.cli", *map(str, args), *shlex.split(opts)],
            capture_output=True,
            text=True,
            cwd=cwd,
            timeout=120,
            check=False,
        )
        return Result(proc.returncode, proc.stdout, proc.stderr)

    return run


@pytest.fixture
def ledger(tmp_path: Path, cli: Callable[..., Result]) -> Path:
    """A ledger with dataset ``d`` of total ε = 1."""
    path = tmp_path / "ledger.sqlite"
    assert cli("budget", "init", path, "--dataset", "d", "--epsilon", "1").code == 0
    return path
