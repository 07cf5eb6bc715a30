"""A persistent privacy-budget ledger in SQLite, safe across processes and crashes.

One file can hold the budgets of several datasets. Table ``datasets`` fixes each dataset's
total at first registration; table ``spends`` has one row per debit (time, dataset, mechanism,
ε, δ, ρ, note), amounts stored as exact decimal text; table ``products`` lists the files a
release produced (post-processing, recorded after the files are written; no privacy cost).
A spend reads the dataset's rows, checks the total and inserts the new row inside one
``BEGIN IMMEDIATE`` transaction: SQLite then holds the write lock from the read to the commit,
so two processes can never both pass the check on the same remaining budget, and a process
killed before ``COMMIT`` leaves no row (the rollback journal undoes it on the next open).
``synchronous=FULL`` makes a committed spend durable.

Schema versions (``PRAGMA user_version``): 1 had ``datasets`` and ``spends``; 2 adds
``products``. A ledger of an older version is migrated when it is opened, inside the same
``BEGIN IMMEDIATE`` transaction that checks it (SQLite's DDL is transactional: a crash
mid-migration leaves version 1 intact, and two processes cannot both migrate); migrations only
add tables, so no spend is rewritten. A ledger of a newer version is refused, not guessed at.

Use it through :meth:`dpatlas.core.accounting.budget.Budget.open`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from decimal import Decimal
from pathlib import Path

from dpatlas.core.accounting.records import Spend, dec
from dpatlas.core.validation import check_delta, check_epsilon
from dpatlas.errors import LedgerError

__all__ = ["SQLiteStore"]

SCHEMA_VERSION = 2
_SCHEMA_V1 = """
CREATE TABLE IF NOT EXISTS datasets (
    dataset TEXT PRIMARY KEY, total_epsilon TEXT NOT NULL, total_delta TEXT NOT NULL,
    accounting TEXT NOT NULL, created TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now')));
CREATE TABLE IF NOT EXISTS spends (
    id INTEGER PRIMARY KEY AUTOINCREMENT, dataset TEXT NOT NULL REFERENCES datasets(dataset),
    time TEXT NOT NULL, mechanism TEXT NOT NULL, epsilon TEXT NOT NULL, delta TEXT NOT NULL,
    rho TEXT, note TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS spends_dataset ON spends(dataset);
"""
_MIGRATIONS = {
    2: """
CREATE TABLE products (
    spend_id INTEGER NOT NULL REFERENCES spends(id), path TEXT NOT NULL, time TEXT NOT NULL);
CREATE INDEX products_spend ON products(spend_id);
""",
}
"""The statements that take a ledger from version ``v - 1`` to version ``v``."""
_V1_COLUMNS = {
    "datasets": ["dataset", "total_epsilon", "total_delta", "accounting", "created"],
    "spends": ["id", "dataset", "time", "mechanism", "epsilon", "delta", "rho", "note"],
}
_COLUMNS = {1: _V1_COLUMNS, 2: {**_V1_COLUMNS, "products": ["spend_id", "path", "time"]}}
"""The tables and columns of each schema version."""


def _run(conn: sqlite3.Connection, script: str) -> None:
    for statement in filter(str.strip, script.split(";")):
        conn.execute(statement)


def _folded(name: str) -> str:
    """``name`` without case and with runs of spaces as one: "Nests " and "nests" fold alike."""
    return " ".join(name.split()).casefold()


class SQLiteStore:
    """The rows of one dataset's budget in a ledger file (see the module docstring)."""

    def __init__(self, path: Path, dataset: str) -> None:
        self.path = path
        self.dataset = dataset
        self._opened = False

    @property
    def name(self) -> str:
        """The budget these rows make, in words: ``dataset 'd' in /path/ledger.sqlite``."""
        return f"dataset {self.dataset!r} in {self.path}"

    @contextmanager
    def _tx(self, immediate: bool = True) -> Iterator[sqlite3.Connection]:
        # once registered, the file must exist: a ledger deleted or moved while open is not
        # silently recreated empty (its history, the spends so far, would be lost)
        mode = "rw" if self._opened else "rwc"
        try:
            conn = sqlite3.connect(
                f"{self.path.resolve().as_uri()}?mode={mode}",
                uri=True,
                timeout=60.0,
                isolation_level=None,
            )
        except sqlite3.Error as exc:
            if self._opened and not self.path.exists():
                raise LedgerError(
                    f"ledger {self.path} is gone (deleted or moved while open); nothing was "
                    "spent. Its history went with it: restore the file rather than starting "
                    "a new ledger for the same data"
                ) from exc
            if not self.path.parent.is_dir():
                raise LedgerError(
                    f"cannot open ledger {self.path}: folder {self.path.parent} does not exist; "
                    "create it first"
                ) from exc
            raise LedgerError(f"cannot open ledger {self.path}: {exc}") from exc
        try:
            conn.execute("PRAGMA synchronous=FULL")
            conn.execute("BEGIN IMMEDIATE" if immediate else "BEGIN")
            try:
                yield conn
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            conn.execute("COMMIT")
        except sqlite3.Error as exc:
            raise LedgerError(
                f"ledger {self.path} cannot be used ({exc}); check that it is a dpatlas ledger, "
                "writable, and not held by another program"
            ) from exc
        finally:
            conn.close()

    @classmethod
    def register(
        cls,
        path: Path,
        dataset: str,
        epsilon: float | None,
        delta: float | None,
        accounting: str | None,
    ) -> tuple[SQLiteStore, tuple[Decimal, Decimal, str]]:
        """Open the ledger, create or check its schema, and register or look up ``dataset``.

        ``delta`` and ``accounting`` left out (None) are 0 and ``"basic"`` for a new dataset,
        the registered ones for a known one.
        """
        if not isinstance(dataset, str) or not dataset:
            raise ValueError(f"dataset must be a non-empty string naming the data, got {dataset!r}")
        if path.is_dir():
            raise LedgerError(
                f"ledger path {path} is a directory; give a file path such as {path / 'ledger.sqlite'}"
            )
        # absolute now: a notebook that changes directory (%cd) keeps its ledger, rather
        # than debiting (or "losing") a same-named file of the new folder
        store = cls(path.absolute(), dataset)
        with store._tx() as conn:
            store._opened = True
            store._check_schema(conn)
            row = conn.execute(
                "SELECT total_epsilon, total_delta, accounting FROM datasets WHERE dataset = ?",
                (dataset,),
            ).fetchone()
            if row is None:
                names = [r[0] for r in conn.execute("SELECT dataset FROM datasets")]
                alike = [n for n in names if _folded(n) == _folded(dataset)]
                if alike:  # a typo would register a fresh total for the same data
                    raise ValueError(
                        f"dataset {dataset!r} is not in ledger {path}, but {alike[0]!r} is (the "
                        f"names differ only in case or spaces); open {alike[0]!r} to debit that "
                        "data, or name other data so that it differs by more"
                    )
                if epsilon is None:
                    raise ValueError(
                        f"dataset {dataset!r} is not in ledger {path}; pass epsilon= to register it"
                    )
                new = (dec(check_epsilon(epsilon)), dec(check_delta(delta or 0.0)))
                kind = accounting or "basic"
                conn.execute(
                    "INSERT INTO datasets (dataset, total_epsilon, total_delta, accounting) VALUES (?, ?, ?, ?)",
                    (dataset, str(new[0]), str(new[1]), kind),
                )
                return store, (*new, kind)
        total = (Decimal(row[0]), Decimal(row[1]), str(row[2]))
        if epsilon is not None:  # a total stated again: left out means 0 and "basic"
            wanted = (dec(check_delta(delta or 0.0)), accounting or "basic")
        else:  # left out means the registered ones
            wanted = (
                total[1] if delta is None else dec(check_delta(delta)),
                total[2] if accounting is None else accounting,
            )
        if epsilon is not None and (dec(epsilon), *wanted) != total:
            raise ValueError(
                f"dataset {dataset!r} was registered in {path} with epsilon={total[0]}, "
                f"delta={total[1]}, accounting={total[2]!r}; a total is fixed at registration. "
                "Pass epsilon=None to use it, or register the data under a new dataset name"
            )
        if wanted != total[1:]:
            raise ValueError(
                f"dataset {dataset!r} was registered in {path} with delta={float(total[1])!r}, "
                f"accounting={total[2]!r}; got delta={float(wanted[0])!r}, "
                f"accounting={wanted[1]!r}. Leave them out to use the registered ones"
            )
        return store, total

    @staticmethod
    def _check_schema(conn: sqlite3.Connection) -> None:
        """Create a new ledger, migrate an older one, or refuse a file that is not a ledger."""
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        if version == 0 and not tables:
            _run(conn, _SCHEMA_V1)
            version = 1
        elif version > SCHEMA_VERSION and "datasets" not in tables:
            raise LedgerError(
                f"file is not a dpatlas ledger (no 'datasets' table; user_version={version}: "
                "a GeoPackage or another SQLite file?); open the right file, or start a new "
                "ledger at another path"
            )
        elif version > SCHEMA_VERSION:
            raise LedgerError(
                f"ledger schema version {version} was written by a newer dpatlas (this one reads "
                f"versions 1 to {SCHEMA_VERSION}); upgrade dpatlas to use this ledger"
            )
        for table, columns in _COLUMNS.get(version, _V1_COLUMNS).items():
            found = [r[1] for r in conn.execute(f"PRAGMA table_info({table})")]
            if version not in _COLUMNS or found != columns:
                raise LedgerError(
                    "file is not a dpatlas ledger of schema version "
                    f"1 to {SCHEMA_VERSION} (user_version={version}, table {table!r} has columns "
                    f"{found}); open the right file, or start a new ledger at another path"
                )
        for step in range(version + 1, SCHEMA_VERSION + 1):
            _run(conn, _MIGRATIONS[step])
        if version != SCHEMA_VERSION:
            conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")

    def _read(self, conn: sqlite3.Connection) -> list[Spend]:
        rows = conn.execute(
            "SELECT id, epsilon, delta, rho, mechanism, note, time FROM spends WHERE dataset = ? "
            "ORDER BY id",
            (self.dataset,),
        ).fetchall()
        files: dict[int, list[str]] = {}
        for spend_id, path in conn.execute(
            "SELECT spend_id, path FROM products WHERE spend_id IN "
            "(SELECT id FROM spends WHERE dataset = ?) ORDER BY rowid",
            (self.dataset,),
        ):
            files.setdefault(spend_id, []).append(path)
        return [
            Spend(
                Decimal(e),
                Decimal(d),
                None if r is None else Decimal(r),
                m,
                n,
                t,
                i,
                tuple(files.get(i, ())),
            )
            for i, e, d, r, m, n, t in rows
        ]

    def rows(self) -> list[Spend]:
        """All spends of the dataset, oldest first."""
        with self._tx(immediate=False) as conn:
            return self._read(conn)

    def append_if(self, spend: Spend, admit: Callable[[Sequence[Spend]], None]) -> int:
        """Insert ``spend`` if ``admit(rows + [spend])`` does not raise, in one transaction;
        return its row id."""
        with self._tx() as conn:
            admit([*self._read(conn), spend])
            cursor = conn.execute(
                "INSERT INTO spends (dataset, time, mechanism, epsilon, delta, rho, note) VALUES (?, ?, ?, ?, ?, ?, ?)",
                (
                    self.dataset,
                    spend.time,
                    spend.mechanism,
                    str(spend.epsilon),
                    str(spend.delta),
                    None if spend.rho is None else str(spend.rho),
                    spend.note,
                ),
            )
            return int(cursor.lastrowid or 0)

    def add_products(self, spend_id: int, paths: Sequence[str], time: str) -> None:
        """Record the files that the release of spend ``spend_id`` produced."""
        with self._tx() as conn:
            found = conn.execute(
                "SELECT 1 FROM spends WHERE id = ? AND dataset = ?", (spend_id, self.dataset)
            ).fetchone()
            if found is None:
                raise ValueError(
                    f"spend {spend_id} is not a spend of dataset {self.dataset!r} in {self.path}"
                )
            conn.executemany(
                "INSERT INTO products (spend_id, path, time) VALUES (?, ?, ?)",
                [(spend_id, path, time) for path in paths],
            )
