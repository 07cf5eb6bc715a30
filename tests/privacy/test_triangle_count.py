"""End-to-end audits of ``dpatlas.graph.triangle_count`` (one release per call, ``budget=None``).

With 300 runs the largest bound an audit can show is ~3, enough to catch an exact or
near-exact output on one side (the local-sensitivity mistake); the statistical strength is in
``test_graph.py``, which audits the same composition with 200,000 batched runs.

Power against a 2× violation, end to end (piecewise, K₂,₄ ± the hub edge, n = 6): at ε = 1 the
floor ``⌈4/ε⌉ = 4`` equals ``GS = 4``, so the release is ``T`` plus discrete Laplace noise of
scale 4 and its privacy loss on this pair is exactly 1 (``T`` moves from 0 to 4). Claimed as
ε = 0.5 that is a 2× violation. Its best event ``{o >= 4}`` has probabilities 0.21 vs 0.56;
with ``n`` test runs (half the runs) the 99% Clopper–Pearson bounds give an expected
``ε_lb`` of 0.35 at 300 runs, 0.67 at 1,200 and 0.82 at 4,000
(:func:`test_the_power_of_4000_runs_against_a_2x_violation_is_computed`; 40 seeded audits
caught it 15%, 93% and 100% of the time at 300, 1,200 and 2,000 runs). So the slow tier runs
4,000 (:func:`test_piecewise_end_to_end_catches_twice_the_claimed_epsilon`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from tests.privacy._graphs import METHODS, PAIRS

from dpatlas.audit import AuditResult, audit
from dpatlas.audit.bounds import epsilon_lower_bound
from dpatlas.core.noise.local.piecewise_exact import piecewise_pmf
from dpatlas.graph.triangles import triangle_count

POWER_RUNS = 4_000


def end_to_end(method: str, n: int, **kw: Any) -> Callable[..., int]:
    def release(edges: list, *, rng: np.random.Generator) -> int:
        return triangle_count(np.array(edges), epsilon=1.0, method=method, n=n, rng=rng, **kw).value

    return release


def _audit(pair: str, method: str, kw: dict, samples: int, seed: int) -> AuditResult:
    d, d_prime, n = PAIRS[pair]
    release = end_to_end(method, n, **kw)
    delta = kw.get("delta", 0.0)
    return audit(release, d, d_prime, epsilon=1.0, delta=delta, samples=samples, rng=seed)


@pytest.mark.parametrize(("method", "kw"), METHODS)
def test_triangle_count_end_to_end_passes(method: str, kw: dict) -> None:
    assert _audit("two edges vs path", method, kw, samples=300, seed=62).passed


@pytest.mark.slow
@pytest.mark.parametrize("pair", PAIRS)
@pytest.mark.parametrize(("method", "kw"), METHODS)
def test_triangle_count_end_to_end_passes_with_more_runs(pair: str, method: str, kw: dict) -> None:
    assert _audit(pair, method, kw, samples=4_000, seed=63).passed


def test_the_power_of_4000_runs_against_a_2x_violation_is_computed() -> None:
    """Expected ``ε_lb`` of the event ``{o >= 4}`` from its exact probabilities (module doc)."""
    ks = np.arange(-400, 401)
    pmf = piecewise_pmf(ks, [4], 1.0, global_sensitivity=4)  # both graphs: I = (4) = GS
    p, q = pmf[ks >= 4].sum(), pmf[ks >= 0].sum()  # T = 0 (K2,4) and T = 4 (with hub edge)
    assert (round(p, 2), round(q, 2)) == (0.21, 0.56)
    expected = {}
    for runs in (300, 1_200, POWER_RUNS):
        n = runs // 2
        expected[runs] = epsilon_lower_bound(round(n * p), round(n * q), n, confidence=0.99)[0]
    assert expected[300] < 0.5 < 0.6 < expected[1_200] < expected[POWER_RUNS]
    assert expected[POWER_RUNS] > 0.75


@pytest.mark.slow
def test_piecewise_end_to_end_catches_twice_the_claimed_epsilon() -> None:
    d, d_prime, n = PAIRS["K2,4 +- hub edge"]
    release = end_to_end("piecewise", n)  # ε = 1 inside: loss exactly 1 on this pair
    caught = audit(release, d, d_prime, epsilon=0.5, samples=POWER_RUNS, rng=64)
    assert not caught.passed
    assert audit(release, d, d_prime, epsilon=1.0, samples=POWER_RUNS, rng=65).passed
