"""``dpatlas demo``: see dpatlas work on the embedded public data in one command."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from dpatlas.cli._common import SEED_NOTE, Output, add_command, add_seed
from dpatlas.cli.progress import show_progress

__all__ = ["add_parser"]

_EPILOG = """\
examples:
  dpatlas demo                      writes demo-output/
  dpatlas demo --out /tmp/demo --seed 1

Writes a private heatmap of Snow's 1854 cholera deaths (PNG with ε and mechanism in
the caption, and a GeoPackage), a private triangle count of the Les Misérables graph
(text and JSON), and a budget ledger (SQLite), then prints the budget spent. The
demo data is public, so the exact answers are shown beside the private ones.
"""


def add_parser(sub: Any, parents: list[argparse.ArgumentParser]) -> None:
    """Register ``demo``."""
    p = add_command(
        sub,
        "demo",
        help="run the demo on the embedded public data",
        description="Private heatmap and triangle count of the embedded public data.",
        parents=parents,
        epilog=_EPILOG,
    )
    p.add_argument("--out", type=Path, default=Path("demo-output"), help="output folder")
    p.add_argument("--data", type=Path, help="folder with the demo data (default: datasets/)")
    add_seed(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace, out: Output) -> int:
    """Run ``dpatlas demo``."""
    import matplotlib

    from dpatlas.demo import run_demo

    matplotlib.use("Agg")
    result = run_demo(
        args.out,
        data_dir=args.data,
        rng=args.seed,
        progress=show_progress(args.quiet),
        echo=out.line,
    )
    out.payload.update(
        {
            "command": "demo",
            "out": str(result.out_dir),
            "files": {name: str(path) for name, path in sorted(result.files.items())},
            "ledger": str(result.ledger),
            "spent_epsilon": result.spent,
            "refused": result.refused,
        }
    )
    if args.seed is not None:
        out.note(SEED_NOTE)
    return 0
