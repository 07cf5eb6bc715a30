"""Fitting the generator to the released triangle count (graph/synthesis/_fit.py)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pytest

from dpatlas.graph.synthesis import _fit
from dpatlas.graph.synthesis._fit import fit_capped, fit_triangles


@pytest.mark.parametrize("target", [5.0, 10.0, 30.0, 95.0, 100.0, 150.0, 400.0])
def test_fit_capped_takes_the_smallest_cap_reaching_the_target(
    monkeypatch: pytest.MonkeyPatch, target: float
) -> None:
    caps = [1.25, 1.5, 2.0, 3.0, 5.0, None]
    at_one = dict(zip(caps, [10.0, 30.0, 60.0, 100.0, 140.0, 200.0], strict=True))
    drawn: list[tuple[float, float | None]] = []

    def make(scale: float, cap: float | None) -> np.ndarray:
        drawn.append((scale, cap))
        return np.array([at_one[cap] * scale**3])

    monkeypatch.setattr(_fit, "_triangles", lambda keys, n: float(keys[0]))
    keys, scale, cap = fit_capped(target, make, 3, caps)
    reach = [c for c in caps if at_one[c] >= 0.99 * target]
    assert cap == (reach[0] if reach else None)
    assert scale < 1.0 or keys[0] >= 0.99 * target or cap is None
    assert sum(s == 1.0 for s, _ in drawn) <= 4  # bisection, the chosen graph reused


def _fit_on(curve: Callable[[float], float], target: float) -> tuple[float, float, int]:
    """Run :func:`fit_triangles` on a noise-free triangle curve ``T(scale)``; the count found,
    the scale and the number of graphs drawn."""
    drawn: list[float] = []

    def make(scale: float) -> np.ndarray:
        drawn.append(scale)
        return np.array([curve(scale)])

    keys, scale = fit_triangles(target, make, 3)
    return float(keys[0]), scale, len(drawn)


@pytest.mark.parametrize("power", [3.0, 1.5, 0.6])
@pytest.mark.parametrize("share", [0.9, 0.5, 0.1])
def test_fit_triangles_brackets_the_target_when_the_cube_law_fails(
    monkeypatch: pytest.MonkeyPatch, power: float, share: float
) -> None:
    monkeypatch.setattr(_fit, "_triangles", lambda keys, n: float(keys[0]))
    top = 1000.0
    found, scale, draws = _fit_on(lambda s: 50.0 + (top - 50.0) * s**power, share * top)
    assert abs(found - share * top) <= 0.01 * share * top, (found, scale, draws)
    assert draws <= 10


def test_fit_triangles_stops_at_full_density_when_it_has_too_few(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(_fit, "_triangles", lambda keys, n: float(keys[0]))
    assert _fit_on(lambda s: 400.0 * s**3, 500.0) == (400.0, 1.0, 1)


def test_fit_triangles_below_one_triangle_ends_without_nan(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_fit, "_triangles", lambda keys, n: float(keys[0]))
    drawn: list[float] = []

    def make(scale: float) -> np.ndarray:
        drawn.append(scale)
        return np.array([float(scale > 0.5)])

    keys, _ = fit_triangles(0.4, make, 3)
    assert keys[0] in (0.0, 1.0)
    assert all(0.0 < s <= 1.0 for s in drawn), drawn
    assert len(drawn) == 10
