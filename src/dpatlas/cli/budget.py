"""``dpatlas budget init|show|history``: the persistent privacy budget of a dataset."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dpatlas.cli._common import (
    Output,
    UsageError,
    add_command,
    budget_summary,
    open_ledger,
    positive_float,
)
from dpatlas.core.accounting.budget import Budget

__all__ = ["add_parser"]

_EPILOG = """\
examples:
  dpatlas budget init ledger.sqlite --dataset nests-2026 --epsilon 1
  dpatlas heatmap nests.gpkg ... --ledger ledger.sqlite --dataset nests-2026
  dpatlas budget show ledger.sqlite --dataset nests-2026
  dpatlas budget history ledger.sqlite --dataset nests-2026 --json

A dataset's total is fixed when it is registered; every release made with
--ledger/--dataset is debited before its noise is drawn, and a release that does
not fit is refused (exit code 1) and spends nothing.
"""


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register ``budget`` and its three actions."""
    budget = add_command(
        sub,
        "budget",
        help="create and inspect a privacy-budget ledger",
        description="Create and inspect the persistent privacy budget of a dataset.",
        epilog=_EPILOG,
    )
    actions = budget.add_subparsers(dest="action", required=True, metavar="ACTION")
    for name, func, text in (
        ("init", _init, "register a dataset's total budget (creates the ledger file)"),
        ("show", _show, "total, spent and remaining budget of a dataset"),
        ("history", _history, "every spend of a dataset, oldest first, with its files"),
    ):
        p = add_command(
            actions,
            name,
            help=text,
            description=text[0].upper() + text[1:] + ".",
            parents=parents,
            epilog=_EPILOG,
        )
        p.add_argument("ledger", metavar="LEDGER", type=Path, help="ledger file (SQLite)")
        p.set_defaults(func=func)
        p.add_argument("--dataset", required=True, help="name of the data's budget")
        if name == "init":
            p.add_argument("--epsilon", type=positive_float, required=True, help="total ε")
            p.add_argument("--delta", type=float, default=0.0, help="total δ (default 0)")
            p.add_argument(
                "--accounting",
                choices=("basic", "zcdp"),
                default="basic",
                help="how spends add up: sequential composition or zCDP (needs --delta > 0)",
            )


def _describe(budget: Budget, out: Output, ledger: str, dataset: str) -> None:
    summary = budget_summary(budget)
    out.payload.update({"ledger": ledger, "dataset": dataset, **summary})
    total, spent, left = budget.total, budget.spent, budget.remaining
    out.line(f"dataset {dataset!r} in {ledger} ({budget.accounting} accounting)")
    out.line(f"  total      epsilon={total.epsilon:<10g} delta={total.delta:g}")
    out.line(f"  spent      epsilon={spent.epsilon:<10g} delta={spent.delta:g}")
    out.line(f"  remaining  epsilon={left.epsilon:<10g} delta={left.delta:g}")
    out.line(f"  releases   {summary['spends']}")


def _init(args: argparse.Namespace, out: Output) -> int:
    path = args.ledger
    if path.is_dir():
        raise UsageError(
            f"ledger path {path} is a directory; give a file such as {path}/ledger.sqlite"
        )
    if not path.parent.is_dir():
        raise UsageError(f"ledger folder {path.parent} does not exist; create it first")
    if args.accounting == "zcdp" and args.delta == 0:
        raise UsageError(
            "--accounting zcdp needs --delta > 0 (e.g. 1e-6): zCDP implies (ε, δ)-DP only for δ > 0"
        )
    try:
        budget = Budget.open(
            path,
            dataset=args.dataset,
            epsilon=args.epsilon,
            delta=args.delta,
            accounting=args.accounting,
        )
    except ValueError as exc:
        if "was registered" not in str(exc):
            raise
        raise UsageError(
            f"dataset {args.dataset!r} is already registered in {path} with another total, "
            "which is fixed at registration; see it with "
            f"`dpatlas budget show {path} --dataset {args.dataset}`, or register new data under "
            "a new --dataset name"
        ) from None
    _describe(budget, out, str(path), args.dataset)
    return 0


def _show(args: argparse.Namespace, out: Output) -> int:
    _describe(open_ledger(args.ledger, args.dataset), out, str(args.ledger), args.dataset)
    return 0


def _history(args: argparse.Namespace, out: Output) -> int:
    budget = open_ledger(args.ledger, args.dataset)
    rows: list[dict[str, Any]] = [
        {
            "time": s.time,
            "mechanism": s.mechanism,
            "epsilon": float(s.epsilon),
            "delta": float(s.delta),
            "rho": None if s.rho is None else float(s.rho),
            "note": s.note,
            "products": list(s.products),
        }
        for s in budget.history
    ]
    out.payload.update(
        {
            "ledger": str(args.ledger),
            "dataset": args.dataset,
            "history": rows,
            **budget_summary(budget),
        }
    )
    out.line(f"{len(rows)} release(s) of dataset {args.dataset!r} in {args.ledger}:")
    for r in rows:
        out.line(
            f"  {r['time']}  epsilon={r['epsilon']:<8g} delta={r['delta']:<8g} {r['mechanism']}"
        )
        if r["note"]:
            out.line(f"      {r['note']}")
        for path in r["products"]:
            out.line(f"      wrote {path}")
    left = budget.remaining
    out.line(f"remaining: epsilon={left.epsilon:g}, delta={left.delta:g}")
    return 0
