"""End-to-end audits of ``dpatlas.graph.triangle_count`` (one release per call, ``budget=None``).

With 300 runs the largest bound an audit can show is ~3, enough to catch an exact or
near-exact output on one side (the local-sensitivity mistake); the statistical strength is in
``test_graph.py``, which audits the same composition with 200,000 batched runs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from tests.privacy._graphs import METHODS, PAIRS

from dpatlas.audit import AuditResult, audit
from dpatlas.graph.triangles import triangle_count


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
