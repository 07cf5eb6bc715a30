"""Per-cell accuracy and hotspots (issue 16): the default map against the uniform grid.

Targets, on the DPBench shapes at 64 × 64 cells (N = 10⁴, 10⁵; ε = 0.1, 1): the default's
per-cell L1 ≤ 1.05× the better of uniform and uniform + nonnegative() in every setting and
≤ 0.9× in at least half; its hotspot recall ≥ uniform's − 0.05 in every setting. The same
per-cell and recall bounds are checked on the dense tuning surfaces and on the held-out
shapes (docs/cells.md). ``CELLS_REPS`` / ``CELLS_SEED`` as in :mod:`benchmarks.cells`.
"""

from __future__ import annotations

import os

import pytest
from benchmarks.cells import DEFAULT_REPS, CellScore
from benchmarks.cells_report import collect, summary, summary_line, table

pytestmark = pytest.mark.bench


@pytest.fixture(scope="module")
def results(shared_datasets) -> dict[str, list[CellScore]]:
    reps = int(os.environ.get("CELLS_REPS", str(DEFAULT_REPS)))
    seed = int(os.environ.get("CELLS_SEED", "0"))
    found = collect(shared_datasets, reps, seed)
    print(
        f"\nPer-cell L1 / better uniform · hotspot recall · MRE ({reps} repetitions, seed {seed})"
    )
    for key, scores in found.items():
        print(f"\n{key}: {summary_line(scores)}\n         {summary_line(scores, 'regions')}")
        print(table(scores))
    return found


@pytest.mark.parametrize("key", ["dpbench", "dense", "held_out"])
def test_default_is_never_worse_per_cell_than_the_uniform_grid_and_finds_its_hotspots(results, key):
    s = summary(results[key])
    assert s["above_1.05"] == 0, s
    assert s["recall_misses"] == 0, s


def test_default_is_ten_percent_better_per_cell_in_half_the_dpbench_settings(results):
    s = summary(results["dpbench"])
    assert s["at_most_0.9"] >= s["settings"] / 2, s
