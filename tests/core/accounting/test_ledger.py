"""The persistent SQLite ledger: concurrency, crashes, and files it must refuse."""

from __future__ import annotations

import multiprocessing as mp
import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from decimal import Decimal
from pathlib import Path

import pytest

from dpatlas.core.accounting.budget import Budget
from dpatlas.errors import BudgetExceededError, LedgerError


def _spender(args: tuple[str, int]) -> int:
    path, tries = args
    budget = Budget.open(path, dataset="shared")
    ok = 0
    for _ in range(tries):
        try:
            budget.spend(0.01, mechanism="count")
            ok += 1
        except BudgetExceededError:
            pass
    return ok


def _rows(path: Path) -> list[tuple[str, str]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT dataset, epsilon FROM spends ORDER BY id").fetchall()


def test_eight_processes_never_overspend_together(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    Budget.open(path, dataset="shared", epsilon=1.0)
    with mp.get_context("spawn").Pool(8) as pool:
        successes = pool.map(_spender, [(str(path), 50)] * 8)
    assert sum(successes) == 100
    rows = _rows(path)
    assert len(rows) == 100
    assert sum(Decimal(e) for _, e in rows) == Decimal("1.00")
    assert Budget.open(path, dataset="shared").remaining.epsilon == 0.0


def test_total_is_fixed_at_registration(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    Budget.open(path, dataset="nests", epsilon=1.0).spend(0.25, mechanism="heatmap", note="v1")
    with pytest.raises(ValueError, match=r"registered .* with epsilon=1\.0.*fixed at registration"):
        Budget.open(path, dataset="nests", epsilon=2.0)
    reopened = Budget.open(path, dataset="nests")
    assert reopened.total.epsilon == 1.0
    assert reopened.remaining.epsilon == 0.75
    (spend,) = reopened.history
    assert (spend.mechanism, spend.note, spend.epsilon) == ("heatmap", "v1", Decimal("0.25"))
    with pytest.raises(ValueError, match=r"not in ledger .* pass epsilon= to register it"):
        Budget.open(path, dataset="other")
    other = Budget.open(path, dataset="other", epsilon=0.5)
    assert other.remaining.epsilon == 0.5
    assert reopened.remaining.epsilon == 0.75


_CRASH = textwrap.dedent(
    """
    import os, signal, sys
    from dpatlas.core.accounting import ledger
    from dpatlas.core.accounting.budget import Budget
    path, point = sys.argv[1], sys.argv[2]
    budget = Budget.open(path, dataset="d")
    budget.spend(0.1, mechanism="before")
    print("released 1", flush=True)
    original_read = ledger.SQLiteStore._read
    def die(*args):
        os.kill(os.getpid(), signal.SIGKILL)
    if point == "read":
        ledger.SQLiteStore._read = lambda self, conn: die()
    elif point == "insert":
        def read_then_die_on_insert(self, conn):
            rows = original_read(self, conn)
            conn.set_trace_callback(lambda sql: sql.startswith("COMMIT") and die())
            return rows
        ledger.SQLiteStore._read = read_then_die_on_insert
    budget.spend(0.1, mechanism="killed")
    print("released 2", flush=True)
    """
)


@pytest.mark.parametrize("point", ["read", "insert"])
def test_a_process_killed_inside_a_spend_leaves_a_consistent_ledger(
    tmp_path: Path, point: str
) -> None:
    path = tmp_path / "ledger.sqlite"
    Budget.open(path, dataset="d", epsilon=1.0)
    proc = subprocess.run(
        [sys.executable, "-c", _CRASH, str(path), point], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == -signal.SIGKILL
    assert proc.stdout.splitlines() == ["released 1"]
    budget = Budget.open(path, dataset="d")
    assert [s.mechanism for s in budget.history] == ["before"]
    budget.spend(0.9, mechanism="after")  # the lock was released and the rest is intact
    assert budget.remaining.epsilon == 0.0


def test_not_a_ledger_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "junk.sqlite"
    junk.write_bytes(os.urandom(4096))
    with pytest.raises(LedgerError, match="cannot be used"):
        Budget.open(junk, dataset="d", epsilon=1.0)


def test_wrong_schema_is_refused(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE spends (x INTEGER)")
    with pytest.raises(LedgerError, match="not a dpatlas ledger of schema version 1"):
        Budget.open(other, dataset="d", epsilon=1.0)


def test_read_only_ledger_is_refused_on_spend(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / "ledger.sqlite"
    budget = Budget.open(path, dataset="d", epsilon=1.0)
    real_connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite3, "connect", lambda p, **k: real_connect(f"file:{p}?mode=ro", uri=True, **k)
    )
    with pytest.raises(LedgerError, match=r"readonly database.*writable"):
        budget.spend(0.1, mechanism="x")
    monkeypatch.undo()
    assert budget.history == ()


def test_locked_ledger_gives_a_clear_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "ledger.sqlite"
    budget = Budget.open(path, dataset="d", epsilon=1.0)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN EXCLUSIVE")
    real_connect = sqlite3.connect
    monkeypatch.setattr(
        sqlite3, "connect", lambda *a, **k: real_connect(*a, **{**k, "timeout": 0.05})
    )
    try:
        with pytest.raises(LedgerError, match=r"database is locked.*not held by another program"):
            budget.spend(0.1, mechanism="x")
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    monkeypatch.undo()
    assert budget.history == ()


def test_directory_path_is_refused(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match="is a directory"):
        Budget.open(tmp_path, dataset="d", epsilon=1.0)


def test_empty_dataset_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="dataset must be a non-empty string"):
        Budget.open(tmp_path / "l.sqlite", dataset="", epsilon=1.0)


def test_invalid_total_is_refused_before_anything_is_written(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    with pytest.raises(ValueError, match="needs delta > 0"):
        Budget.open(path, dataset="d", epsilon=1.0, accounting="zcdp")
    with pytest.raises(ValueError, match="epsilon must be a finite number > 0"):
        Budget.open(path, dataset="d", epsilon=-1.0)
    budget = Budget.open(path, dataset="d", epsilon=1.0, delta=1e-6, accounting="zcdp")
    assert budget.accounting == "zcdp"
