"""Exact privacy of ``triangle_count(method="piecewise")`` on small neighbouring graphs.

The release is ``T + noise`` with the exact pmf of :mod:`dpatlas.core.noise.local.piecewise_exact`
on the graph's own ladder (exact ``LS⁽ᵗ⁾`` or the relaxed ``U(t)``) and the default floor, as
``triangle_count`` builds it. For every pair below the largest ``|ln P_G(y) - ln P_G'(y)|``
over a window of outputs that holds all but ``e^-60`` of both distributions is at most ε:
the audit pairs, random pairs on 4–9 nodes, and (in ``test_triangles.py``) all 1024 graphs
on 5 nodes with their 10 neighbours each. The same check catches the mechanism with the
normalizer's share of ε forgotten (rate ``θ = ε``), so it can fail.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from tests.privacy._graphs import PAIRS

from dpatlas.core.noise.local import piecewise_exact
from dpatlas.core.noise.local.piecewise_exact import piecewise_pmf
from dpatlas.core.noise.local.piecewise_ladder import default_floor
from dpatlas.graph.exact.counting import common_neighbour_stats
from dpatlas.graph.exact.triangle_sensitivity import sensitivity_ladder
from dpatlas.graph.input.edgegraph import as_edge_graph

EPSILONS = (0.1, 0.5, 1.0, 2.0)


def random_pairs(count: int, seed: int) -> list[tuple[list, list, int]]:
    """Random graphs on 4–9 nodes (edge density 0.1–0.9) and one random flip of each."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        n = int(rng.integers(4, 10))
        slots = list(itertools.combinations(range(n), 2))
        edges = [e for e in slots if rng.uniform() < rng.uniform(0.1, 0.9)]
        flip = slots[int(rng.integers(len(slots)))]
        other = [e for e in edges if e != flip] if flip in edges else [*edges, flip]
        out.append((edges, other, n))
    return out


def worst_loss(edges: list, other: list, n: int, eps: float, relaxed: bool) -> float:
    """``max_y |ln P_G(y) - ln P_G'(y)|`` of the two releases, exactly, over the window."""
    logs, gs = [], n - 2
    theta_low = eps / 2  # the rate is never below ε/2 (tests/core/test_piecewise_ladder.py)
    reach = 3 * math.comb(n, 3) + math.ceil(60 / theta_low + 2) * gs
    ys = np.arange(-reach, reach + 1)
    for e in (edges, other):
        stats = common_neighbour_stats(
            as_edge_graph(np.array(e, dtype=np.int64).reshape(-1, 2), n=n)
        )
        ladder = sensitivity_ladder(stats, relaxed=relaxed)
        logs.append(
            piecewise_pmf(ys - stats.triangles, ladder, eps, global_sensitivity=gs, log=True)
        )
    return float(np.abs(logs[0] - logs[1]).max())


@pytest.mark.parametrize("relaxed", [False, True])
@pytest.mark.parametrize("eps", EPSILONS)
def test_audit_pairs_are_eps_dp_exactly(eps: float, relaxed: bool) -> None:
    for edges, other, n in PAIRS.values():
        assert worst_loss(edges, other, n, eps, relaxed) <= eps * (1 + 1e-9)


@pytest.mark.parametrize("relaxed", [False, True])
@pytest.mark.parametrize("eps", EPSILONS)
def test_random_small_pairs_are_eps_dp_exactly(eps: float, relaxed: bool) -> None:
    losses = [worst_loss(*pair, eps, relaxed) for pair in random_pairs(150, seed=int(10 * eps))]
    assert max(losses) <= eps * (1 + 1e-9)
    assert max(losses) > 0.6 * eps  # the check sees pairs that use most of the budget


def test_the_check_catches_twice_the_claimed_epsilon(monkeypatch) -> None:
    """The rate of 2ε released as ε (a 2× violation): some pair exceeds 1.5 ε."""
    rate = piecewise_exact.piecewise_theta
    monkeypatch.setattr(piecewise_exact, "piecewise_theta", lambda e, k, gs: rate(2 * e, k, gs))
    pairs = [*PAIRS.values(), *random_pairs(150, seed=10)]
    assert max(worst_loss(*pair, 1.0, False) for pair in pairs) > 1.5


def test_the_check_catches_a_mechanism_that_forgets_the_normalizer(monkeypatch) -> None:
    """Rate θ = ε (the whole budget on the lengths, none for ``Z``): some pair exceeds ε (by
    little on graphs this small, whose ladders reach ``GS`` in a few rungs; far beyond the
    ``1e-12`` of float error)."""
    monkeypatch.setattr(piecewise_exact, "piecewise_theta", lambda e, k, gs: (1, 2))
    pairs = [*PAIRS.values(), *random_pairs(150, seed=10)]
    assert max(worst_loss(*pair, 2.0, False) for pair in pairs) > 2.0 * (1 + 1e-4)


def test_default_floor_is_public() -> None:
    """The floor depends on ε only (4/ε rounded up), never on the graph."""
    assert [default_floor(e) for e in EPSILONS] == [40, 8, 4, 2]
