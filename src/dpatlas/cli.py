"""The ``dpatlas`` command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from dpatlas.core import Budget, discrete_laplace
from dpatlas.errors import BudgetExceededError


def _demo(_: argparse.Namespace) -> int:
    budget = Budget(1.0)
    counts = {"nests in cell A": 12, "nests in cell B": 3, "nests in cell C": 0}
    print("Private counts (discrete Laplace, sensitivity 1, epsilon 0.5 for the whole table):")
    rel = discrete_laplace(list(counts.values()), sensitivity=1, epsilon=0.5, budget=budget)
    low, high = rel.confidence_interval(0.95)
    for name, value, lo, hi in zip(counts, rel.value, low, high, strict=True):
        print(f"  {name}: {value:4d}   95% interval [{lo}, {hi}]")
    print(f"Budget left: epsilon={budget.remaining.epsilon}")
    try:
        discrete_laplace(sum(counts.values()), sensitivity=1, epsilon=0.75, budget=budget)
    except BudgetExceededError as err:
        print(f"A further release of epsilon=0.75 is refused: {err}")
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``dpatlas`` console script."""
    parser = argparse.ArgumentParser(prog="dpatlas", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("demo", help="run the demo").set_defaults(func=_demo)
    args = parser.parse_args(argv)
    return int(args.func(args))


if __name__ == "__main__":
    sys.exit(main())
