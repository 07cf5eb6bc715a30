"""The synthetic-graph bench's verdicts: which metrics the runs decide, and whether a cell's is."""

from __future__ import annotations

import pytest
from benchmarks.synth_metrics import METRICS
from benchmarks.test_bench_synthesize import settled, undecided, verdict

BASE = {"nmi": 0.2, "evc_overlap": 0.5, "evc_mae": 0.01, "deg_kl": 1.0, "diam_rel": 0.3,
        "cc_rel": 0.4, "mod_rel": 0.3}  # fmt: skip


def _runs(shifts: list[float]) -> tuple[list[dict[str, float]], list[dict[str, float]]]:
    """PrivGraph's runs at ``BASE``; ours shifted by ``shifts[i]`` (same on every metric)."""
    return [{k: v + s for k, v in BASE.items()} for s in shifts], [dict(BASE) for _ in shifts]


def test_a_steady_difference_is_decided_and_a_wavering_one_is_not() -> None:
    assert undecided(*_runs([0.10, 0.11, 0.09, 0.10, 0.10])) == []
    assert undecided(*_runs([0.10, -0.08, 0.05, -0.09, 0.03])) == list(METRICS)


def test_the_interval_is_students_t_not_normal() -> None:
    # mean 2, standard error 1: outside a normal 95% interval (1.96), inside Student's t with
    # one degree of freedom (12.7)
    assert undecided(*_runs([1.0, 3.0])) == list(METRICS)


def test_a_run_without_a_value_leaves_its_metric_undecided() -> None:
    ours, base = _runs([0.10, 0.11, 0.09, 0.10, 0.10])
    ours[2]["diam_rel"] = float("nan")
    assert undecided(ours, base) == ["diam_rel"]


def test_one_run_decides_nothing_and_unpaired_runs_are_refused() -> None:
    assert undecided(*_runs([0.5])) == list(METRICS)
    ours, base = _runs([0.1, 0.2])
    with pytest.raises(ValueError, match="one run per seed each, got 2 and 1"):
        undecided(ours, base[:1])


def _ours(**worse_by: float) -> dict[str, float]:
    """Ours 10% better than ``BASE`` everywhere, except ``worse_by`` (relative shortfalls)."""
    out = {k: v * (1.1 if k in ("nmi", "evc_overlap") else 0.9) for k, v in BASE.items()}
    for k, s in worse_by.items():
        out[k] = BASE[k] * (1 - s if k in ("nmi", "evc_overlap") else 1 + s)
    return out


@pytest.mark.parametrize(
    ("worse_by", "open_metrics", "expected"),
    [
        ({}, [], True),  # met, nothing open
        ({}, ["nmi"], True),  # six decided wins, nmi ahead on its mean: met either way
        ({"nmi": 0.3}, ["nmi"], False),  # not met on the means (30% behind), met if nmi is won
        ({}, ["nmi", "diam_rel"], False),  # met on the means, lost if both fall behind
        ({"nmi": 0.3, "diam_rel": 0.2}, [], True),  # two decided losses: not met either way
        ({"diam_rel": 0.2}, [], True),  # one loss beyond 10%: not met either way
        ({"diam_rel": 0.05}, ["nmi"], False),  # met (within 10%) unless nmi falls behind too
        ({"diam_rel": 0.05}, [], True),  # one loss within 10%, decided: met
        ({"nmi": 0.3, "diam_rel": 0.2}, ["nmi"], True),  # diam's loss alone sinks the cell
    ],
)
def test_a_cell_is_settled_when_no_fall_of_its_open_metrics_flips_the_goal(
    worse_by: dict[str, float], open_metrics: list[str], expected: bool
) -> None:
    ours = _ours(**worse_by)
    assert verdict(ours, BASE)[0] == 7 - len(worse_by)
    assert settled(ours, BASE, open_metrics) is expected
