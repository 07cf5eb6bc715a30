"""The ladder's rung sampler: both proposal paths exact, and memory that never depends on the ladder.

Issue #17 leftover: the old sampler sized one array by the inverse of its acceptance rate, a
function of the private ladder, and raised MemoryError after the debit at huge ε (the 10-star
ladder of a 316-leaf star steps from 1 to 1.5e17 at once). The sampler now draws fixed-size
batches; the block path it takes when that rate is poor must still be exact.
"""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
from tests.helpers.distributions import assert_distribution, assert_rejected

from dpatlas.core.noise._sampling.inversion import build_inversion
from dpatlas.core.noise._sampling.rungs import BATCH, _Blocks, _one_block_rate, steps_of
from dpatlas.core.noise.local.ladder import ladder_mechanism, sample_ladder_rungs, step_scale
from dpatlas.core.noise.local.ladder_exact import ladder_probabilities
from dpatlas.core.rng import get_source
from dpatlas.graph import kstar_count

N = 200_000
JUMPS = [  # (ladder, GS, ε): a large early step, where one geometric block accepts < 1/64
    ([1, 10**6], 10**6, 5.0),
    ([0, 3, 40_000, 40_000], 50_000, 4.0),
    ([2] * 70 + [10**9], 10**9, 1.0),  # the step beyond the 64 singleton blocks
]


def rung_pmf(ladder: list[int], gs: int, eps: float):
    def pmf(k: np.ndarray) -> np.ndarray:
        p = ladder_probabilities(ladder, eps, max(int(k.max()), 0), global_sensitivity=gs)
        return np.where(k >= 0, p[np.clip(k, 0, None)], 0.0)

    return pmf


@pytest.mark.parametrize(("ladder", "gs", "eps"), JUMPS)
def test_block_path_is_taken_and_exact(ladder: list[int], gs: int, eps: float) -> None:
    rate = _one_block_rate(steps_of(np.array(ladder), gs), step_scale(eps))
    assert rate < 1 / 64  # so the block sampler runs
    rungs = sample_ladder_rungs(get_source(3), ladder, eps, N, global_sensitivity=gs)
    assert_distribution(rungs, pmf=rung_pmf(ladder, gs, eps))
    # and the same test rejects the law of a 30% different ε
    assert_rejected(rungs, pmf=rung_pmf(ladder, gs, eps * 1.3))


@pytest.mark.parametrize(("ladder", "gs"), [(lad, gs) for lad, gs, _ in JUMPS])
@pytest.mark.parametrize("eps", [0.01, 1.0, 5.0, 100.0, 1e4])
def test_fixed_point_floors_are_the_thresholds_floors(
    ladder: list[int], gs: int, eps: float
) -> None:
    # the block table is first settled in 256-bit fixed point (seconds of 2**-(kλ)-sized
    # fractions at ε = 10**6 otherwise); it must be the table the exact bounds give
    blocks = _Blocks(steps_of(np.array(ladder), gs), step_scale(eps))
    count = blocks.inversion.floors.size
    slow = build_inversion(blocks._threshold, count)
    assert blocks.inversion.floors.tolist() == slow.floors.tolist()
    assert [blocks._first_floor(j) for j in range(count)] == slow.floors.tolist()


def test_a_huge_epsilon_on_a_jumping_ladder_needs_bounded_memory() -> None:
    # the old sampler asked for ~1/rate = 1.5e17 proposals here: MemoryError after the debit
    star = np.array([(0, leaf) for leaf in range(1, 317)])
    tracemalloc.start()
    try:
        rel = kstar_count(star, 10, n=317, epsilon=1000.0, rng=0)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert rel.value > 0
    assert peak < 64 * BATCH * 8  # a few batches of int64 words, whatever the ladder


def test_memory_does_not_grow_with_the_number_of_rejections() -> None:
    tracemalloc.start()
    try:
        ladder_mechanism(0, [1, 10**15], epsilon=60.0, global_sensitivity=10**15, rng=1, size=10)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * BATCH * 8
