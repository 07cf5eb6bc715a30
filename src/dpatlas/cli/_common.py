"""What every ``dpatlas`` command shares: options, the ledger, output as text or JSON."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys
import tempfile
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, NamedTuple

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.release import Release
from dpatlas.errors import LedgerError

__all__ = [
    "SEED_NOTE",
    "Debit",
    "Output",
    "UsageError",
    "add_command",
    "add_seed",
    "budget_summary",
    "check_output_path",
    "debit_left",
    "node_list_words",
    "open_ledger",
    "output_options",
    "positive_float",
    "release_budget",
    "release_options",
    "shell_words",
    "to_json",
]

SEED_NOTE = (
    "seeded run: the noise is reproducible from the seed and therefore NOT secret; "
    "use --seed for tests and teaching only, never for data you publish"
)


class UsageError(ValueError):
    """The command cannot run as given (exit code 2); the message says how to fix it."""


_METAVARS = {
    "--nodes": "N",
    "--node-list": "FILE",
    "--points-crs": "CRS",
    "--x": "COL",
    "--y": "COL",
}
_PHRASES = (
    (re.compile(r"pass (\w+)=None to (use|register) it"), r"\2 it"),
    (re.compile(r"header=None"), "--no-header"),
    (re.compile(r"the public number of nodes as n\b"), "the public number of nodes as --nodes N"),
    (re.compile(r"pass dropna=True"), "pass --drop-missing"),
    (re.compile(r"dropna=True"), "--drop-missing"),
    (re.compile(r"more than max_cells=([\d,]+)"), r"more than the limit of \1 cells"),
    (  # the command line has no --max-cells
        re.compile(r"a larger cell_size, a smaller study area, or raise max_cells"),
        "a larger --cell-size or a smaller study area",
    ),
    (re.compile(r"pass np\.unique\(nodes\)"), "list each id once"),
    (re.compile(r" or pass comments='%'"), ""),  # the command line has no --comments
    (  # nor --thousands
        re.compile(r"thousands=',' if it separates thousands"),
        "delete the commas if they separate thousands",
    ),
    (  # a (ε, δ) release on a zCDP ledger: the shell has no Gaussian mechanism, rho= or Budget
        re.compile(r" or with the Gaussian mechanism .*, or use a Budget with accounting='basic'"),
        ", or use a dataset registered with `dpatlas budget init ... --accounting basic`",
    ),
    (
        re.compile(r"(?:re-?project [^`;]*)?with `to_crs\(\)`"),
        "re-project the file (e.g. `ogr2ogr -t_srs EPSG:XXXX out.gpkg in.gpkg`)",
    ),
    (re.compile(r"`\.?set_crs\([^)]*\)`"), "a CRS set on the file (e.g. `ogr2ogr -a_srs`)"),
    (
        re.compile(
            r"repair (?:it|the rows) with (?:shapely\.make_valid\(polygon\)|\S+make_valid\(\))"
        ),
        "repair it (e.g. `ogr2ogr -makevalid`)",
    ),
    (
        re.compile(r"e\.g\. `\.centroid` for polygons or `\.explode\(\)` when"),
        "e.g. their centroids for polygons, `ogr2ogr -explodecollections` when",
    ),
    (re.compile(r" \(`sites\[[^`]*\]`\)"), ""),
    (
        re.compile(r"use (edge_count|degree_histogram|kstar_count|triangle_count)\b"),
        r"use `dpatlas \1`",
    ),
    (re.compile(r"`dpatlas edge_count`"), "`dpatlas edges`"),
)


def shell_words(message: str, keywords: Mapping[str, str]) -> str:
    """``message`` with the API's keywords (``n=``, ``crs=``) replaced by the command's flags.

    ``keywords`` maps a keyword to its flag; ``name='x'`` becomes ``--flag x`` (``x`` quoted
    for a shell by ``shlex.quote``), a keyword with no value (``pass nodes=``) becomes
    ``--flag METAVAR``. A flag given with its value (a phrase such as ``--node-list ids.txt
    (77 ids)``, from :func:`node_list_words`) replaces the keyword and its value whole.

    Examples
    --------
    >>> words = {"n": "--nodes", "nodes": "--node-list"}
    >>> shell_words("edges contain node id 68745 but n=9877; pass the ids as nodes=", words)
    'edges contain node id 68745 but --nodes 9877; pass the ids as --node-list FILE'
    >>> shell_words("delta=1e-06 applies only to method='smooth'", {"delta": "--delta",
    ...             "method": "--method"})
    '--delta 1e-06 applies only to --method smooth'
    >>> shell_words("the header is one column holding ';'; pass sep=';'", {"sep": "--sep"})
    "the header is one column holding ';'; pass --sep ';'"
    >>> shell_words("epsilon=1e-14 is too small; use epsilon >= 4.2e-12", {"epsilon": "--epsilon"})
    '--epsilon 1e-14 is too small; use --epsilon >= 4.2e-12'
    >>> shell_words("k=40 is too large for n=77; check n=", {"n": "--node-list ids.txt (77 ids)"})
    'k=40 is too large for --node-list ids.txt (77 ids); check --node-list ids.txt (77 ids)'
    """
    for pattern, replacement in _PHRASES:
        message = pattern.sub(replacement, message)
    for keyword, flag in sorted(keywords.items(), key=lambda kv: -len(kv[0])):
        name = re.escape(keyword)
        if " " in flag:  # the flag with its value: the keyword and any value go whole
            message = re.sub(rf"(?<![\w.-]){name}=(?:(['\"]).*?\1|[^\s,;:)]*)", flag, message)
            message = re.sub(rf"(?<![\w.`'-]){name}(?= must\b| >= )", flag, message)
            continue
        message = re.sub(
            rf"(?<![\w.-]){name}=(['\"])(.*?)\1", partial(_flag_and_value, flag), message
        )
        message = re.sub(rf"(?<![\w.-]){name}=(?=[^\s,;)])", f"{flag} ", message)
        metavar = _METAVARS.get(flag, "VALUE")
        message = re.sub(rf"(?<![\w.-]){name}=", f"{flag} {metavar}", message)
        message = re.sub(rf"(?<![\w.`'-]){name}(?= must\b| >= )", flag, message)
    return message


def node_list_words(path: Path, count: int) -> str:
    """How the shell names a node count taken from ``--node-list``: the flag, the file and the
    count (for :func:`shell_words`, in place of ``--nodes N``).

    Examples
    --------
    >>> node_list_words(Path("my ids.txt"), 77)
    "--node-list 'my ids.txt' (77 ids)"
    """
    return f"--node-list {shlex.quote(str(path))} ({count} ids)"


def _flag_and_value(flag: str, match: re.Match[str]) -> str:
    return f"{flag} {shlex.quote(match[2])}"


def to_json(value: Any) -> Any:
    """``json.dumps`` default: numpy numbers and arrays as JSON numbers and lists, paths as text."""
    from decimal import Decimal

    import numpy as np

    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, Decimal):
        return float(value)
    return str(value)


def positive_float(text: str) -> float:
    """argparse type: a finite number > 0 (ε and the like)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number > 0, got {text!r}") from None
    if not (value > 0 and value != float("inf")):
        raise argparse.ArgumentTypeError(f"expected a finite number > 0, got {text!r}")
    return value


def add_command(
    sub: Any,
    name: str,
    *,
    help: str,
    description: str,
    epilog: str,
    parents: Sequence[argparse.ArgumentParser] = (),
) -> argparse.ArgumentParser:
    """A sub-command whose ``--help`` ends with its examples (``epilog``, kept as written)."""
    return sub.add_parser(
        name,
        help=help,
        description=description,
        epilog=epilog,
        parents=list(parents),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )


def output_options() -> argparse.ArgumentParser:
    """Parent parser: ``--json`` and ``--quiet``."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("output")
    group.add_argument("--json", action="store_true", help="print one JSON object on stdout")
    group.add_argument(
        "--quiet", action="store_true", help="no progress bars and no notes on stderr"
    )
    return parent


def release_options() -> argparse.ArgumentParser:
    """Parent parser: ``--ledger``, ``--dataset`` and ``--seed`` for commands that release."""
    parent = argparse.ArgumentParser(add_help=False)
    group = parent.add_argument_group("privacy budget")
    group.add_argument(
        "--ledger",
        type=Path,
        metavar="LEDGER",
        help="SQLite budget ledger to debit before noise is drawn (create it with "
        "`dpatlas budget init`); an overspend is refused with exit code 1",
    )
    group.add_argument("--dataset", help="name of the data's budget in the ledger")
    add_seed(group)
    return parent


def check_input_file(flag: str, path: Path, what: str) -> None:
    """Refuse an input ``path`` that is a directory or missing, naming ``flag`` and ``what``.

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> check_input_file("EDGES", d, "the edge list file")
    Traceback (most recent call last):
    ...
    dpatlas.cli._common.UsageError: EDGES ... is a directory; give the edge list file
    >>> check_input_file("EDGES", d / "missing.txt", "the edge list file")
    Traceback (most recent call last):
    ...
    dpatlas.cli._common.UsageError: EDGES file not found: ...missing.txt; check the path
    """
    if path.is_dir():
        raise UsageError(f"{flag} {path} is a directory; give {what}")
    if not path.is_file():
        raise UsageError(f"{flag} file not found: {path}; check the path")


def check_output_path(flag: str, path: Path, inputs: Mapping[str, Path | None]) -> None:
    """Refuse an output ``path`` that cannot be written, before anything is read or spent.

    Every writer of the command line writes its file beside ``path`` and swaps it in whole
    (:func:`~dpatlas.core.files.written_whole`), so that a failed write never leaves half a
    file over a good one; the folder must therefore be writable, also when ``path`` exists.
    A directory, a path under an existing *file* (no folder can be made there), a folder in
    which no file can be created (read-only, no permission: tried with an empty temporary file,
    deleted at once), an existing file that is read-only, or one of the command's ``inputs``
    (``{"EDGES": path, "--ledger": path}``: writing would destroy the data or the budget's
    history) is a usage error naming ``flag``. Missing folders are fine: the writers create
    them (the nearest existing one is tried).

    Examples
    --------
    >>> import tempfile
    >>> d = Path(tempfile.mkdtemp())
    >>> (d / "edges.txt").write_text("0 1")
    3
    >>> check_output_path("--out", d / "new" / "s.txt", {"EDGES": d / "edges.txt"})
    >>> check_output_path("--out", d / "edges.txt", {"EDGES": d / "edges.txt"})
    Traceback (most recent call last):
    ...
    dpatlas.cli._common.UsageError: --out ... is the EDGES file: writing it would destroy it; choose another name
    >>> check_output_path("--out", d / "edges.txt" / "s.txt", {})
    Traceback (most recent call last):
    ...
    dpatlas.cli._common.UsageError: --out ...s.txt cannot be written: ...edges.txt is a file, not a folder
    """
    if path.is_dir():
        raise UsageError(f"{flag} {path} is a directory; give a file inside it")
    for name, source in inputs.items():
        if source is not None and path.resolve() == source.resolve():
            raise UsageError(
                f"{flag} {path} is the {name} file: writing it would destroy it; choose another name"
            )
    # the file a link points to is the one replaced, in its own folder
    folder = Path(os.path.realpath(path)).parent if path.is_symlink() else path.parent
    while not folder.exists() and folder != folder.parent:
        folder = folder.parent
    if not folder.is_dir():
        raise UsageError(f"{flag} {path} cannot be written: {folder} is a file, not a folder")
    try:
        handle, probe = tempfile.mkstemp(prefix=".dpatlas-write-check-", dir=folder)
    except OSError as exc:
        raise UsageError(
            f"{flag} {path} cannot be written: cannot create a file in {folder} "
            f"({exc.strerror}); the file is written beside it and swapped in whole, so the "
            "folder must be writable: choose a folder you can write to"
        ) from None
    os.close(handle)
    os.unlink(probe)
    if path.is_file() and not os.access(path, os.W_OK):
        raise UsageError(
            f"{flag} {path} cannot be written: the file exists and is read-only; choose another "
            "name, or make it writable"
        )


def add_seed(parser: Any) -> None:
    """The ``--seed`` option, which says what a seed gives away."""
    parser.add_argument(
        "--seed",
        type=int,
        help="seed the noise: reproducible, NOT secret; for tests and teaching only",
    )


def open_ledger(path: Path, dataset: str | None) -> Budget:
    """Open the budget of ``dataset`` in an existing ledger, or say how to create it."""
    if not dataset:
        raise UsageError(f"--dataset NAME is required with ledger {path}")
    if not path.is_file():
        raise UsageError(
            f"ledger not found: {path}; create it with "
            f"`dpatlas budget init {path} --dataset {dataset} --epsilon E`"
        )
    try:
        return Budget.open(path, dataset=dataset)
    except ValueError as exc:
        if "is not in ledger" in str(exc):
            raise UsageError(
                f"dataset {dataset!r} is not in ledger {path}; register it with "
                f"`dpatlas budget init {path} --dataset {dataset} --epsilon E`"
            ) from None
        raise


def release_budget(args: argparse.Namespace, out: Output) -> Budget | None:
    """The ledger budget a release debits, or None (with a note) when no ledger was given.

    ``out`` keeps it, so that a failure after the debit says that the debit stays
    (:func:`debit_left`).
    """
    if args.ledger is None:
        if args.dataset is not None:
            raise UsageError("--dataset needs --ledger LEDGER (the file holding the budget)")
        out.note(
            "no --ledger given: this release is not recorded in any budget; use "
            "--ledger FILE --dataset NAME so that repeated releases are counted and refused"
        )
        return None
    budget = open_ledger(args.ledger, args.dataset)
    out.debits.append(Debit(budget, args.ledger, args.dataset))
    return budget


def debit_left(out: Output) -> str | None:
    """What a command that failed after its debit spent and wrote, or None if it spent nothing.

    For every ledger budget the command debits (``out.debits``), what its spends cost together
    (:attr:`~dpatlas.core.accounting.budget.Budget.spent_here`: all of them, summed as the
    budget sums them, not only the last).

    The debit is not undone (the noise may have been drawn, and an undo would let a crash
    between the draw and the write buy a second draw for free); the files written so far
    (``out.files``) that no spend of the command lists yet are recorded beside each spend of
    the budget, where that still works.

    Examples
    --------
    >>> import tempfile
    >>> from dpatlas.core import discrete_laplace
    >>> ledger = Path(tempfile.mkdtemp()) / "ledger.sqlite"
    >>> out = Output(debits=[Debit(Budget.open(ledger, dataset="d", epsilon=1.0), ledger, "d")])
    >>> debit_left(out) is None
    True
    >>> for eps in (0.5, 0.25):
    ...     _ = discrete_laplace(3, sensitivity=1, epsilon=eps, budget=out.debits[0].budget)
    >>> out.files.append(Path("map.gpkg"))
    >>> said = debit_left(out).split("; ")
    >>> said[0].endswith("(epsilon=0.75, delta=0)"), said[-1]
    (True, 'written: map.gpkg')
    """
    debited = [debit for debit in out.debits if debit.budget.made_here]
    if not debited:
        return None
    written = ", ".join(map(str, out.files)) or "no file"
    listed = {p for debit in debited for s in _rows(debit.budget) for p in s.products}
    missing = [p for p in out.files if str(p.resolve()) not in listed]
    parts, unrecorded = [], []
    for debit in debited:
        budget = debit.budget
        try:
            for spend in budget.made_here if missing else ():
                budget.record_products(spend, missing)
        except (LedgerError, ValueError) as exc:
            unrecorded.append(str(exc))
        spent = budget.spent_here
        parts.append(
            f"dataset {debit.dataset!r} in {debit.ledger} (epsilon={spent.epsilon:g}, "
            f"delta={spent.delta:g})"
        )
    spends = sum(len(debit.budget.made_here) for debit in debited)
    made = (
        "the release was made and stays"
        if spends == 1
        else f"the {spends} releases were made and stay"
    )
    if unrecorded:
        written += f" (not recorded in the ledger: {'; '.join(dict.fromkeys(unrecorded))})"
    return (
        f"{made} debited from {' and '.join(parts)}; releasing again costs as much again; "
        f"written: {written}"
    )


def _rows(budget: Budget) -> list[Any]:
    """The ledger rows of the spends made through ``budget`` (with the files they list), or
    none when the ledger cannot be read."""
    ids = {spend.id for spend in budget.made_here}
    try:
        return [row for row in budget.history if row.id in ids]
    except (LedgerError, ValueError):
        return []


def budget_summary(budget: Budget) -> dict[str, Any]:
    """Total, spent and remaining of a budget, JSON-ready.

    Examples
    --------
    >>> from dpatlas.core import discrete_laplace
    >>> b = Budget(1.0)
    >>> _ = discrete_laplace(3, sensitivity=1, epsilon=0.25, budget=b)
    >>> budget_summary(b)["remaining"]
    {'epsilon': 0.75, 'delta': 0.0}
    """
    return {
        "accounting": budget.accounting,
        "total": budget.total._asdict(),
        "spent": budget.spent._asdict(),
        "remaining": budget.remaining._asdict(),
        "spends": len(budget.history),
    }


class Debit(NamedTuple):
    """A ledger budget a command debits: the budget, its ledger file and dataset name."""

    budget: Budget
    ledger: Path
    dataset: str


@dataclass
class Output:
    """Collects a command's text lines, notes and JSON payload, and prints them once."""

    json: bool = False
    quiet: bool = False
    lines: list[str] = field(default_factory=list)
    payload: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    debits: list[Debit] = field(default_factory=list)
    """The ledger budgets the command debits (:func:`release_budget` adds its one)."""
    files: list[Path] = field(default_factory=list)
    """The files the command has written so far."""

    def line(self, text: str = "") -> None:
        """A line of the human-readable result (stdout, unless ``--json``)."""
        self.lines.append(text)

    def note(self, text: str) -> None:
        """A remark about how the result was made (stderr, unless ``--quiet``; in JSON)."""
        self.notes.append(text)

    def budget_left(self, dataset: str | None, budget: Budget | None) -> None:
        """A line saying what is left of the dataset's budget (none without a ledger)."""
        if budget is not None:
            left = budget.remaining
            self.line(
                f"  budget of {dataset!r} left: epsilon={left.epsilon:g}, delta={left.delta:g}"
            )

    def seeded(self, release: Release) -> None:
        """Say loudly that a seeded release is not secret."""
        if release.seeded:
            self.note(SEED_NOTE)

    def emit(self, *, result: bool = True) -> None:
        """Print the result (JSON, or text lines) on stdout, then warnings and notes on stderr.

        Warnings are printed even under ``--quiet``, and never into the JSON result: they
        describe the private input (e.g. the number of self-loops dropped from an edge list),
        read without noise, so they are for the person who holds the data, not for a result
        that gets published.
        """
        if result and self.json:
            payload = {**self.payload, "notes": self.notes}
            print(json.dumps(payload, indent=2, default=to_json))
        elif result:
            for text in self.lines:
                print(text)
        for text in self.warnings:
            print(f"warning: {text}", file=sys.stderr)
        if result and not self.quiet:
            for text in self.notes:
                print(f"note: {text}", file=sys.stderr)
