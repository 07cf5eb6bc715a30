"""Graph intervals (issue 15): coverage and width on the shared graphs at ε = 0.1, 0.5, 1.

Prints the tables of docs/intervals-graphs.md (held-out graphs apart) and checks that every
interval covers at its level (measured: binomial at α = 1e-6 over 4,000 draws; exact where the
release's law is known: at least the level), and that the count intervals (triangles, 2-stars,
3-stars, edges, raw degrees) are at most twice the width of the central 95% of the actual error.
The clustering ratio's intervals are valid but miss that goal once (ca-GrQc, piecewise, ε = 1:
2.08); their present width is pinned so that a regression shows.
"""

from __future__ import annotations

import pytest
from benchmarks.intervals_graphs import Row, report, run
from scipy import stats

pytestmark = pytest.mark.bench


@pytest.fixture(scope="module")
def rows(shared_datasets) -> list[Row]:
    measured = run(shared_datasets)
    print("\nGraph intervals: 95% nominal, interval_epsilon = 0.1 (ladder and smooth)\n")
    print(report(measured))
    return measured


def test_every_interval_covers_at_its_level(rows: list[Row]) -> None:
    for r in rows:
        assert stats.binom.cdf(r.covered, r.draws, r.level) > 1e-6, r
        assert r.exact != r.exact or r.exact >= r.level - 1e-9, r  # NaN: no exact law


def test_count_intervals_are_within_twice_the_actual_error(rows: list[Row]) -> None:
    counts = [r for r in rows if r.statistic != "clustering"]
    worst = max(counts, key=lambda r: r.ratio)
    print(f"\nworst count interval: {worst.ratio:.2f} x ({worst})")
    assert worst.ratio <= 2.0


def test_clustering_widths_do_not_regress(rows: list[Row]) -> None:
    clustering = [r for r in rows if r.statistic == "clustering"]
    worst = max(clustering, key=lambda r: r.ratio)
    print(f"worst clustering interval: {worst.ratio:.2f} x ({worst})")
    assert worst.ratio <= 2.2
    assert sum(r.ratio > 2.0 for r in clustering) <= 1
