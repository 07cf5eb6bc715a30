"""SIGKILL at random SQL statements inside spends: the ledger stays consistent and complete.

A child process spends 0.01 at a time and prints "released" after each spend returns (a
release is only handed out after its spend is committed). A trace callback kills the child
with SIGKILL at the N-th SQL statement it executes, N drawn at random, so kills land before,
inside and after the spend transactions. Afterwards the ledger must open, its rows must sum
exactly, and every release the child reported must have its row (a row may exist for a spend
whose release was not reported yet: the kill came between COMMIT and the print).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path

import numpy as np
import pytest

from dpatlas.core.accounting.budget import Budget

_CHILD = textwrap.dedent(
    """
    import os, signal, sqlite3, sys
    from dpatlas.core.accounting.budget import Budget
    path, kill_at = sys.argv[1], int(sys.argv[2])
    count = [0]
    def trace(sql):
        count[0] += 1
        if count[0] == kill_at:
            os.kill(os.getpid(), signal.SIGKILL)
    real_connect = sqlite3.connect
    def connect(*args, **kwargs):
        conn = real_connect(*args, **kwargs)
        conn.set_trace_callback(trace)
        return conn
    sqlite3.connect = connect
    budget = Budget.open(path, dataset="d")
    for _ in range(20):
        budget.spend(0.01, mechanism="count")
        print("released", flush=True)
    """
)


def _trial(path: Path, kill_at: int) -> bool:
    before = len(Budget.open(path, dataset="d").history)
    proc = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path), str(kill_at)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode in (0, -signal.SIGKILL), proc.stderr
    released = len(proc.stdout.splitlines())
    budget = Budget.open(path, dataset="d")
    rows = budget.history
    assert released <= len(rows) - before <= released + 1
    assert sum((r.epsilon for r in rows), Decimal(0)) == Decimal("0.01") * len(rows)
    return proc.returncode == -signal.SIGKILL


def _run(tmp_path: Path, trials: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    path = tmp_path / "ledger.sqlite"
    Budget.open(path, dataset="d", epsilon=100.0)
    killed = [_trial(path, int(kill_at)) for kill_at in rng.integers(1, 120, size=trials)]
    assert sum(killed) >= trials // 2


def test_random_kills_leave_the_ledger_consistent(tmp_path: Path) -> None:
    _run(tmp_path, trials=6, seed=1)


@pytest.mark.slow
def test_fifty_random_kills_leave_the_ledger_consistent(tmp_path: Path) -> None:
    _run(tmp_path, trials=60, seed=2)
