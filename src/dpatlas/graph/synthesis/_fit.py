"""Fit the generator to the released triangle count (internal; post-processing of released values).

:func:`fit_triangles` fits the block density ``scale``; :func:`fit_capped` also picks the cap on
the affinity blocks (:data:`~dpatlas.graph.synthesis._bter.BLOCK_CAPS`): the released block
counts and the released triangle count can disagree, and the smallest cap with which the
blocks still make the released triangles reconciles the two.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

from dpatlas.graph.exact.counting import triangle_count_exact
from dpatlas.graph.input.edgegraph import as_edge_graph

__all__ = ["fit_capped", "fit_triangles"]


def _triangles(keys: np.ndarray, n: int) -> float:
    return float(triangle_count_exact(as_edge_graph(np.column_stack([keys // n, keys % n]), n=n)))


def fit_triangles(
    target: float,
    make: Callable[[float], np.ndarray],
    n: int,
    *,
    rounds: int = 10,
    tol: float = 0.01,
    first: tuple[np.ndarray, float] | None = None,
) -> tuple[np.ndarray, float]:
    """Fit the block density ``scale`` in (0, 1] so that ``make(scale)`` (edge keys) has about
    ``target`` triangles; returns the closest graph drawn and its scale. ``first``: the graph
    at ``scale = 1`` and its triangle count, if already drawn.

    One graph at ``scale = 1``: if it has too few triangles, nothing denser exists. Below it,
    block triangles grow about like ``scale³`` and the other edges add a few that barely depend
    on it, so the steps work on ``x = scale³``. Until a graph falls below the target, each step
    is a secant through the last two graphs (from one graph, ``T ∝ x``), going down at most to
    ``x / 8``. Under a cap on the blocks ``T(x)`` is concave, not linear, and the secant stops
    short or overshoots; so once graphs on both sides are known, the target is bracketed and
    each step interpolates between the last graph above it and the last below on a power law
    ``T = c xᵖ`` (a line in logs), kept inside the middle 80% of the bracket; the new graph
    replaces the end on its side, so the bracket shrinks by at least 10% a step even when the
    random draws are not monotone in ``x`` (regula falsi with a safeguard). Stops within
    ``tol`` of the target or after ``rounds`` graphs.
    """
    tried: list[tuple[float, float, np.ndarray]] = []  # (scale, triangles, keys)
    above: tuple[float, float] | None = None  # (log x, log triangles), the last graph above
    below: tuple[float, float] | None = None  # and the last below the target
    goal = np.log(max(target, 1.0))
    scale = 1.0
    for r in range(rounds):
        if r == 0 and first is not None:
            keys, tri = first
        else:
            keys = make(scale)
            tri = _triangles(keys, n)
        tried.append((scale, tri, keys))
        if abs(tri - target) <= tol * max(target, 1.0) or (scale >= 1.0 and tri <= target):
            break
        point = (3 * np.log(scale), np.log(max(tri, 1.0)))
        if tri > target:  # the new graph replaces the bracket's end on its side
            above = point
        else:
            below = point
        x = scale**3 * target / max(tri, 1.0)  # T ∝ x from one graph
        if above is not None and below is not None:
            (u0, v0), (u1, v1) = below, above
            lo, hi = sorted((u0, u1))
            step = u0 + (goal - v0) * (u1 - u0) / (v1 - v0) if v1 > v0 else (u0 + u1) / 2
            x = float(np.exp(np.clip(step, lo + 0.1 * (hi - lo), hi - 0.1 * (hi - lo))))
        elif len(tried) > 1:
            (s0, t0, _), (s1, t1, _) = tried[-2], tried[-1]
            slope = (t1 - t0) / (s1**3 - s0**3) if s1 != s0 else 0.0
            if slope > 0:
                x = max(s1**3 + (target - t1) / slope, s1**3 / 8)
        scale = float(np.clip(x, 1e-9, 1.0) ** (1 / 3))
    best = min(tried, key=lambda item: abs(item[1] - target))
    return best[2], best[0]


def fit_capped(
    target: float,
    make: Callable[[float, float | None], np.ndarray],
    n: int,
    caps: Sequence[float | None],
    *,
    tol: float = 0.01,
) -> tuple[np.ndarray, float, float | None]:
    """The smallest of ``caps`` (increasing, ``None`` last: no cap) whose blocks at full density
    (``scale = 1``) reach ``target`` triangles (within ``tol``), then :func:`fit_triangles` with
    it; if none does, the last cap. Returns the graph, its scale and the cap. ``make(scale, cap)``
    draws the edge keys. Bisection: the triangles grow with the cap, so about ``log2`` of the
    number of caps graphs are drawn at ``scale = 1``, each reused by the fit if it is chosen.
    """
    lo, hi, found = 0, len(caps) - 1, {}
    while lo < hi:  # caps[hi] is chosen unless a smaller one reaches
        mid = (lo + hi) // 2
        keys = make(1.0, caps[mid])
        found[mid] = (keys, _triangles(keys, n))
        if found[mid][1] >= (1.0 - tol) * target:
            hi = mid
        else:
            lo = mid + 1
    cap = caps[hi]
    keys, scale = fit_triangles(target, lambda s: make(s, cap), n, tol=tol, first=found.get(hi))
    return keys, scale, cap
