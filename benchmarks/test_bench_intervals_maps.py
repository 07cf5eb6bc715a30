"""Intervals of maps (issue 15): coverage and width for every method and unit, on DPBench
shapes and real points; the table of docs/intervals-maps.md.

Checks: every (data, method, unit) row holds >= 2,000 intervals; one interval per
independent group (a cell of a one-level map, a leaf, one cell per leaf, one region per map)
covers at least as often as ``Binomial(n, 0.95)`` allows at 1e-6; measured units (cells of
the uniform map, leaves) are tight: median width <= 2 × the central 95% range of the raw
release's error. ``INTERVALS_SEEDS`` sets the DPBench seeds (default 5).
"""

from __future__ import annotations

import os

import numpy as np
import pytest
from benchmarks.intervals_maps import LEVEL, METHODS, SOURCES, run, spread_table, table
from tests.helpers.coverage import Measurement, assert_coverage

pytestmark = pytest.mark.bench


@pytest.fixture(scope="module")
def results(shared_datasets) -> dict[tuple[str, str, str], Measurement]:
    seeds = int(os.environ.get("INTERVALS_SEEDS", "5"))
    out = run(shared_datasets, seeds=seeds)
    print(f"\nIntervals of maps at {LEVEL:.0%}, DPBench seeds {seeds}:")
    print(table(out))
    print("\nOccupied cells of multi-level maps whose interval allows for the spread in a leaf:")
    print(spread_table(out))
    return out


def test_every_interval_covers_at_its_level(results):
    gen = np.random.default_rng(0)
    for source in SOURCES:
        for method in METHODS:
            units = ("cell", "region") + (() if method == "uniform" else ("leaf",))
            for unit in units:
                m = results[(source, method, unit)]
                assert m.n >= 2_000, (source, method, unit)
                hits = m.one_per_group(gen)
                assert_coverage(int(hits.sum()), hits.size, LEVEL, f"{source} {method} {unit}")


def test_measured_units_are_within_twice_the_error_range(results):
    for source in SOURCES:
        assert results[(source, "uniform", "cell")].width_ratio("raw") <= 2.0
        for method in METHODS[1:]:
            assert results[(source, method, "leaf")].width_ratio("raw") <= 2.0
