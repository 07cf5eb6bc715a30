"""Meta-tests: the auditor must catch deliberately broken mechanisms.

Each broken mechanism is written here with numpy noise, as the mistake it stands for. The
largest bound 100,000 test runs can show is ~9.7 (1.0 vs 0.0 in the event), so claims are
chosen with 5 × ε within reach. For the Laplace whose scale is 3 × too small, the true loss is
exactly 3 × the claim and a valid lower bound cannot exceed it, so there the bar is 2.5 ×.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from dpatlas.audit import audit
from dpatlas.core.noise.local import ladder as core_ladder

SAMPLES = 200_000


def test_laplace_with_a_third_of_the_scale_is_caught() -> None:
    # claim ε = 0.5 for a counting query but draw noise at scale 1/(3 × 0.5): true ε = 1.5
    def count(c: int, *, size: int, rng: np.random.Generator) -> np.ndarray:
        return c + rng.laplace(scale=1 / (3 * 0.5), size=size)

    result = audit(count, 0, 1, epsilon=0.5, samples=SAMPLES, rng=11)
    assert not result.passed
    assert 2.5 * 0.5 <= result.epsilon_lb <= 1.5


def _triangles_and_local_sensitivity(edges: list[tuple[int, int]], n: int) -> tuple[int, int]:
    """Brute force: triangle count and LS = max over all vertex pairs of common neighbours."""
    adj: dict[int, set[int]] = {v: set() for v in range(n)}
    for u, v in edges:
        adj[u].add(v)
        adj[v].add(u)
    triangles = sum(
        b in adj[a] and c in adj[a] and c in adj[b] for a, b, c in combinations(range(n), 3)
    )
    local = max(len(adj[i] & adj[j]) for i, j in combinations(range(n), 2))
    return triangles, local


def test_triangle_count_with_noise_from_local_sensitivity_is_caught() -> None:
    # T + Lap(LS/ε) is not DP: two disjoint edges have LS = 0 (exact output), their neighbour
    # the path 0-1-2-3 has LS = 1 (0 and 2 share 1), so {o = 0} has probability 1 vs 0
    def broken(edges: list[tuple[int, int]], *, size: int, rng: np.random.Generator) -> np.ndarray:
        triangles, local = _triangles_and_local_sensitivity(edges, n=4)
        return triangles + rng.laplace(scale=local / 1.0, size=size)

    assert _triangles_and_local_sensitivity([(0, 1), (2, 3)], 4) == (0, 0)
    assert _triangles_and_local_sensitivity([(0, 1), (1, 2), (2, 3)], 4) == (0, 1)
    result = audit(
        broken, [(0, 1), (2, 3)], [(0, 1), (1, 2), (2, 3)], epsilon=1.0, samples=SAMPLES, rng=12
    )
    assert not result.passed
    assert result.epsilon_lb >= 5 * 1.0
    assert result.p == 1.0
    assert result.q == 0.0


def test_heatmap_with_extent_from_the_data_is_caught() -> None:
    # a 4 × 4 grid over the bounding box of the sites, Laplace(1/ε) per cell: adding one far
    # site stretches every cell, so the 20 clustered sites fall in one cell instead of many
    def broken(sites: np.ndarray, *, size: int, rng: np.random.Generator) -> np.ndarray:
        (x0, y0), (x1, y1) = sites.min(axis=0), sites.max(axis=0)
        counts, _, _ = np.histogram2d(sites[:, 0], sites[:, 1], bins=4, range=[[x0, x1], [y0, y1]])
        return counts.ravel() + rng.laplace(scale=1 / 1.0, size=(size, 16))

    cluster = np.random.default_rng(0).random((20, 2))
    result = audit(
        broken, cluster, np.vstack([cluster, [10.0, 10.0]]), epsilon=1.0, samples=SAMPLES, rng=13
    )
    assert not result.passed
    assert result.epsilon_lb >= 5 * 1.0


def test_ladder_sampler_that_forgets_the_rung_start_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The ladder mechanism places rung t's outputs at u_{t-1} + 1 + U, U uniform on
    # [0, I_{t-1}). Forgetting u_{t-1} (the public-implementation bug) piles every rung onto
    # [1, I_{t-1}], so no output is ever further than GS from T. K2,4 (T = 0) and K2,4 plus
    # the hub-hub edge (T = 4) have constant ladders I_t = GS = n - 2 = 4: the outputs 5..8
    # occur only on the second graph.
    def no_start(lad: np.ndarray, gs: int, r: np.ndarray) -> np.ndarray:
        return np.zeros(np.shape(r), dtype=np.int64)

    def ladder(triangles: int, *, size: int, rng: np.random.Generator) -> np.ndarray:
        return core_ladder.ladder_mechanism(
            triangles, [4], epsilon=1.0, global_sensitivity=4, size=size, rng=rng
        ).value

    assert audit(ladder, 0, 4, epsilon=1.0, samples=SAMPLES, rng=14).passed
    monkeypatch.setattr(core_ladder, "_starts", no_start)
    broken = ladder
    assert np.abs(broken(0, size=10_000, rng=np.random.default_rng(0))).max() == 4
    result = audit(broken, 0, 4, epsilon=1.0, samples=SAMPLES, rng=14)
    assert not result.passed
    assert result.epsilon_lb >= 5 * 1.0
