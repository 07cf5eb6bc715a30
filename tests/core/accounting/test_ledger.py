"""The persistent SQLite ledger: concurrency, crashes, and files it must refuse."""

from __future__ import annotations

import multiprocessing as mp
import os
import re
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


def _datasets(path: Path) -> list[tuple[str]]:
    with sqlite3.connect(path) as conn:
        return conn.execute("SELECT dataset FROM datasets").fetchall()


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


@pytest.mark.parametrize("typo", ["Nests", "nests ", " NESTS", "Nests  2026"])
def test_a_new_name_that_differs_only_in_case_or_spaces_is_refused(
    tmp_path: Path, typo: str
) -> None:
    path = tmp_path / "ledger.sqlite"
    registered = "nests 2026" if "2026" in typo else "nests"
    Budget.open(path, dataset=registered, epsilon=1.0).spend(0.75, mechanism="heatmap")
    message = f"dataset {typo!r} is not in ledger {path}, but {registered!r} is"
    for epsilon in (None, 1.0):  # looked up or registered afresh: both would lose the 0.75
        with pytest.raises(ValueError, match=re.escape(message)):
            Budget.open(path, dataset=typo, epsilon=epsilon)
    assert [r[0] for r in _datasets(path)] == [registered]
    assert Budget.open(path, dataset="nests-2027", epsilon=1.0).remaining.epsilon == 1.0


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
        sqlite3, "connect", lambda p, **k: real_connect(p.replace("mode=rw", "mode=ro"), **k)
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


_V1_SCHEMA = """
CREATE TABLE datasets (
    dataset TEXT PRIMARY KEY, total_epsilon TEXT NOT NULL, total_delta TEXT NOT NULL,
    accounting TEXT NOT NULL, created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
CREATE TABLE spends (
    id INTEGER PRIMARY KEY AUTOINCREMENT, dataset TEXT NOT NULL REFERENCES datasets(dataset),
    time TEXT NOT NULL, mechanism TEXT NOT NULL, epsilon TEXT NOT NULL, delta TEXT NOT NULL,
    rho TEXT, note TEXT NOT NULL);
CREATE INDEX spends_dataset ON spends(dataset);
INSERT INTO datasets (dataset, total_epsilon, total_delta, accounting) VALUES ('d', '1.0', '0.0', 'basic');
INSERT INTO spends (dataset, time, mechanism, epsilon, delta, rho, note)
    VALUES ('d', '2026-01-01T00:00:00+00:00', 'heatmap/uniform', '0.25', '0.0', NULL, 'old');
PRAGMA user_version = 1;
"""


def _v1_ledger(path: Path) -> Path:
    """A ledger exactly as schema version 1 wrote it, with one spend of 0.25."""
    with sqlite3.connect(path) as conn:
        conn.executescript(_V1_SCHEMA)
    return path


def test_a_version_1_ledger_is_migrated_and_keeps_its_spends(tmp_path: Path) -> None:
    path = _v1_ledger(tmp_path / "old.sqlite")
    budget = Budget.open(path, dataset="d")
    (old,) = budget.history
    assert (old.mechanism, old.epsilon, old.note, old.products) == (
        "heatmap/uniform",
        Decimal("0.25"),
        "old",
        (),
    )
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        assert [r[1] for r in conn.execute("PRAGMA table_info(products)")] == [
            "spend_id",
            "path",
            "time",
        ]
    spend = budget.spend(0.5, mechanism="heatmap/privtree")
    budget.record_products(spend, [tmp_path / "map.gpkg", tmp_path / "map.html"])
    again = Budget.open(path, dataset="d")  # a second open finds version 2: no migration
    assert again.remaining.epsilon == 0.25
    assert [Path(p).name for p in again.history[1].products] == ["map.gpkg", "map.html"]
    assert again.history[1].id == spend.id == 2


def test_a_failed_migration_leaves_version_1_intact(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from dpatlas.core.accounting import ledger

    path = _v1_ledger(tmp_path / "old.sqlite")
    broken = {2: ledger._MIGRATIONS[2] + "; CREATE TABLE spends (x INTEGER)"}  # fails midway
    monkeypatch.setattr(ledger, "_MIGRATIONS", broken)
    with pytest.raises(LedgerError, match="cannot be used"):
        Budget.open(path, dataset="d")
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == 1
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "products" not in tables  # the products table of the failed step was rolled back
    monkeypatch.undo()
    assert Budget.open(path, dataset="d").remaining.epsilon == 0.75


def test_a_ledger_of_a_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "new.sqlite"
    Budget.open(path, dataset="d", epsilon=1.0)
    with sqlite3.connect(path) as conn:
        conn.execute("PRAGMA user_version = 3")
    with pytest.raises(LedgerError, match=r"written by a newer dpatlas .* upgrade dpatlas"):
        Budget.open(path, dataset="d")


def test_a_geopackage_or_foreign_sqlite_file_is_not_a_newer_ledger(tmp_path: Path) -> None:
    path = tmp_path / "map.gpkg"
    with sqlite3.connect(path) as conn:  # a GeoPackage 1.4 sets user_version 10400
        conn.execute("CREATE TABLE gpkg_contents (table_name TEXT)")
        conn.execute("PRAGMA user_version = 10400")
    with pytest.raises(LedgerError, match=r"file is not a dpatlas ledger \(no 'datasets' table"):
        Budget.open(path, dataset="d")


def test_a_ledger_in_a_missing_folder_names_the_folder(tmp_path: Path) -> None:
    with pytest.raises(LedgerError, match=r"folder .*nowhere does not exist; create it first"):
        Budget.open(tmp_path / "nowhere" / "l.sqlite", dataset="d", epsilon=1.0)


def test_products_are_kept_per_spend_and_process(tmp_path: Path) -> None:
    path = tmp_path / "ledger.sqlite"
    mine = Budget.open(path, dataset="d", epsilon=1.0)
    other = Budget.open(path, dataset="d")
    first = mine.spend(0.1, mechanism="a")
    other.spend(0.1, mechanism="b")  # another writer between my spend and my files
    mine.record_products(first, ["a.gpkg"])
    assert [s.mechanism for s in mine.made_here] == ["a"]
    assert [(s.mechanism, len(s.products)) for s in Budget.open(path, dataset="d").history] == [
        ("a", 1),
        ("b", 0),
    ]
    stranger = Budget.open(path, dataset="e", epsilon=1.0)
    with pytest.raises(ValueError, match="is not a spend of dataset 'e'"):
        stranger.record_products(first, ["x.png"])


def test_a_ledger_deleted_while_open_is_not_recreated_empty(tmp_path):
    # was "cannot be used (no such table: spends)", leaving a new empty file behind
    path = tmp_path / "a ledger #1.sqlite"
    budget = Budget.open(path, dataset="nests", epsilon=1.0)
    budget.spend(0.25, mechanism="x")
    path.unlink()
    with pytest.raises(LedgerError, match=r"is gone \(deleted or moved while open\); nothing"):
        budget.spend(0.25, mechanism="x")
    assert not path.exists()


def test_a_relative_ledger_path_stays_the_same_file_after_a_chdir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A notebook that opens "ledger.sqlite" and then changes directory (``%cd``) keeps
    debiting the ledger it opened: before, spends went to a same-named file of the new
    folder (the first ledger lost them, so a later session could overspend), or were refused
    as "gone (deleted or moved while open)"."""
    first, other = tmp_path / "project", tmp_path / "elsewhere"
    first.mkdir()
    other.mkdir()
    monkeypatch.chdir(other)
    Budget.open("ledger.sqlite", dataset="other data", epsilon=9.0)
    monkeypatch.chdir(first)
    budget = Budget.open("ledger.sqlite", dataset="nests", epsilon=1.0)
    budget.spend(0.5, mechanism="count")
    monkeypatch.chdir(other)
    budget.spend(0.5, mechanism="count")
    with pytest.raises(BudgetExceededError):
        budget.spend(0.5, mechanism="count")
    assert Budget.open(first / "ledger.sqlite", dataset="nests").remaining.epsilon == 0.0
    assert _rows(other / "ledger.sqlite") == []
    monkeypatch.chdir(tmp_path)
    moved = Budget.open("project/ledger.sqlite", dataset="nests")
    monkeypatch.chdir(first)
    assert moved.remaining.epsilon == 0.0  # not "gone": the same file, read from elsewhere


def test_reopening_with_another_accounting_or_delta_is_refused_not_ignored(tmp_path: Path) -> None:
    """``epsilon=None`` reads the registered total; an accounting or delta given beside it
    that differs from the registered one was silently ignored (asked for zCDP, got basic)."""
    path = tmp_path / "ledger.sqlite"
    Budget.open(path, dataset="nests", epsilon=1.0)
    with pytest.raises(ValueError, match=r"registered .* with delta=0\.0, accounting='basic'; "):
        Budget.open(path, dataset="nests", delta=1e-6, accounting="zcdp")
    with pytest.raises(ValueError, match=r"got delta=0\.0, accounting='zcpd'"):
        Budget.open(path, dataset="nests", accounting="zcpd")
    assert Budget.open(path, dataset="nests", accounting="basic").accounting == "basic"
    Budget.open(path, dataset="gauss", epsilon=1.0, delta=1e-6, accounting="zcdp")
    same = Budget.open(path, dataset="gauss", delta=1e-6, accounting="zcdp")
    assert (same.accounting, same.total.delta) == ("zcdp", 1e-6)
    # "basic" and delta=0 were the defaults, so given explicitly they were taken silently
    with pytest.raises(ValueError, match=r"accounting='zcdp'; got delta=1e-06, accounting='basic'"):
        Budget.open(path, dataset="gauss", accounting="basic")
    with pytest.raises(ValueError, match=r"got delta=0\.0, accounting='zcdp'"):
        Budget.open(path, dataset="gauss", delta=0.0)


def test_two_budgets_of_one_ledger_say_which_dataset_they_are(tmp_path: Path) -> None:
    """Both showed as Budget(epsilon=1.0, ...) in a notebook: nothing told them apart."""
    path = tmp_path / "ledger.sqlite"
    nests = Budget.open(path, dataset="nests", epsilon=1.0)
    roads = Budget.open(path, dataset="roads", epsilon=1.0)
    assert repr(nests).startswith(f"Budget(dataset 'nests' in {path}: epsilon=1.0, ")
    assert repr(roads).startswith(f"Budget(dataset 'roads' in {path}: epsilon=1.0, ")
