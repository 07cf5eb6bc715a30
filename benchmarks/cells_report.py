"""Report the per-cell harness: Markdown tables and the docs page (``--docs``).

``python -m benchmarks.cells_report`` prints the tables; ``--docs`` also rewrites the block
between the markers of ``docs/cells.md``. ``CELLS_REPS`` and ``CELLS_SEED`` as in
:mod:`benchmarks.cells`.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable
from pathlib import Path

from benchmarks.cell_shapes import DENSE, HELD_OUT
from benchmarks.cells import (
    DEFAULT_REPS,
    LABELS,
    METHODS,
    CellScore,
    baseline,
    by_setting,
    dpbench_grid,
    run,
)

DOCS = Path(__file__).resolve().parents[1] / "docs" / "cells.md"
BEGIN, END = "<!-- cells:begin -->", "<!-- cells:end -->"
DPBENCH = ("Gowalla", "Beijing-E", "SF-cabs-E", "Twitter")


def table(scores: list[CellScore], methods: Iterable[str] = METHODS) -> str:
    """Per setting and method: cell L1 / N as a ratio to the better uniform map, recall, MRE."""
    groups = by_setting(scores)
    methods = [m for m in methods if all(m in s for s in groups.values())]
    head = " | ".join(LABELS[m] for m in methods)
    lines = [
        "| shape | N | ε | better uniform L1 / N | " + head + " |",
        "|---|---|---|---:|" + "---:|" * len(methods),
    ]
    for (shape, n, eps), setting in groups.items():
        l1, _ = baseline(setting)
        cells = [
            f"{setting[m].cell_l1 / l1:.2f} · {setting[m].recall:.2f} · {setting[m].mre:.3g}"
            for m in methods
        ]
        lines.append(f"| {shape} | {n:.0e} | {eps:g} | {l1:.4f} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def grid_table(scores: list[CellScore]) -> str:
    """Per-cell L1 / N and hotspot recall on the DPBench grid, by method."""
    groups = by_setting(scores)
    methods = [m for m in ("uniform+nn", "default", "regions") if m in next(iter(groups.values()))]
    lines = [
        "| shape | N | ε | N·ε per cell | " + " | ".join(LABELS[m] for m in methods) + " |",
        "|---|---|---|---:|" + "---:|" * len(methods),
    ]
    for (shape, n, eps), setting in groups.items():
        cells = [f"{setting[m].cell_l1:.3g} · {setting[m].recall:.2f}" for m in methods]
        density = n * eps / 256**2
        lines.append(f"| {shape} | {n:.0e} | {eps:g} | {density:.3g} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def summary(scores: list[CellScore], method: str = "default") -> dict[str, float]:
    """The issue's targets for ``method``: settings above 1.05×, at or below 0.9×, and so on."""
    ratios, misses = [], 0
    for setting in by_setting(scores).values():
        l1, recall = baseline(setting)
        ratios.append(setting[method].cell_l1 / l1)
        misses += setting[method].recall < recall - 0.05
    return {
        "settings": len(ratios),
        "above_1.05": sum(r > 1.05 for r in ratios),
        "at_most_0.9": sum(r <= 0.9 for r in ratios),
        "worst": max(ratios),
        "best": min(ratios),
        "recall_misses": misses,
    }


def summary_line(scores: list[CellScore], method: str = "default") -> str:
    s = summary(scores, method)
    return (
        f"{LABELS[method]}: per-cell L1 {s['best']:.2f}–{s['worst']:.2f}× the better uniform map; "
        f"> 1.05× in {s['above_1.05']} of {s['settings']} settings, ≤ 0.9× in "
        f"{s['at_most_0.9']}; hotspot recall below uniform's − 0.05 in {s['recall_misses']}"
    )


def collect(directory: Path, reps: int, seed: int) -> dict[str, list[CellScore]]:
    """The three tables: DPBench shapes, dense tuning shapes, held-out shapes."""
    light = ("uniform", "uniform+nn", "default", "regions")
    return {
        "dpbench": run(directory, shapes=DPBENCH, reps=reps, seed=seed),
        "dense": run(directory, shapes=DENSE, reps=reps, seed=seed, methods=light),
        "held_out": run(directory, shapes=HELD_OUT, reps=reps, seed=seed, methods=light),
    }


def render(results: dict[str, list[CellScore]], reps: int, seed: int) -> str:
    titles = {
        "dpbench": "DPBench shapes on 64 × 64 cells (tuning)",
        "dense": "Dense surfaces (tuning)",
        "held_out": "Held-out shapes (no choice was made on them)",
    }
    parts = [
        f"Each entry: per-cell L1 ÷ the better of uniform and uniform + nonnegative() · hotspot "
        f"recall · range-query MRE; {reps} repetitions, seed {seed}.",
    ]
    for key, scores in results.items():
        lines = [f"- {summary_line(scores, m)}" for m in ("default", "regions")]
        parts += [f"**{titles[key]}.**\n\n" + "\n".join(lines), table(scores)]
    return "\n\n".join(parts) + "\n"


def main(argv: list[str]) -> None:
    from conftest import SHARED_DATASETS

    reps = int(os.environ.get("CELLS_REPS", str(DEFAULT_REPS)))
    seed = int(os.environ.get("CELLS_SEED", "0"))
    block = render(collect(SHARED_DATASETS, reps, seed), reps, seed)
    if "--docs" in argv:
        block += (
            "\n**On the DPBench grid** (256 × 256 cells, N = 10⁴ and 10⁶; per-cell L1 / N · hotspot "
            "recall; 2 repetitions):\n\n"
            + grid_table(dpbench_grid(SHARED_DATASETS, seed=seed))
            + "\n"
        )
    print(block)
    if "--docs" in argv:
        text = DOCS.read_text(encoding="utf-8")
        start, stop = text.index(BEGIN) + len(BEGIN), text.index(END)
        DOCS.write_text(text[:start] + "\n\n" + block + "\n" + text[stop:], encoding="utf-8")
        print(f"rewrote {DOCS}")


if __name__ == "__main__":
    main(sys.argv[1:])
