"""Ladders that dominate every k-star ladder of a graph whose largest degree is at most ``D``.

Public facts only (``n``, ``k``, a bound ``D``): these ladders size the interval of a k-star
release (``k >= 3``) from a bought noisy ``d_max`` (:mod:`dpatlas.core.interval`). Notation of
:mod:`dpatlas.graph.exact.kstar_sensitivity`: ``g(x) = C(x, k-1)``, ``c = n - 2``,
``GS = 2 g(c)``, ``G(x) = C(x, k) = Σ_{i<x} g(i)``, and ``LS⁽ᵗ⁾ = max_{i != j} V_t(e_i, e_j)``.

(K1) *One pair.* For ``x >= y`` the maximum of the convex ``g(x + a) + g(y + b)`` over
``a + b <= t``, ``x + a <= c``, ``y + b <= c`` is at a vertex, and convexity picks the one that
fills the larger coordinate first: ``V_t(x, y) = g(min(c, x + t)) + g(min(c, y + (t - (c - x))⁺))``
(for ``t <= c - x`` because ``g(x + t) - g(x) >= g(y + t) - g(y)``; beyond, the two vertices
differ by ``g(c) - g(x)`` against ``g(y + t) - g(y + t - (c - x))``, increments of ``g`` over
the same length ending at ``c >= y + t``). So ``V(x, y)`` lists ``g(m₁) + g(m₂)`` along the path
from ``(x, y)`` that raises ``m₁`` to ``c``, then ``m₂``.

(K2) *The class.* Every ``e_i = d_i - x_ij`` is at most ``D' = min(D, c)``. For ``y <= x <= D'``
the path of ``V(x, y)`` passes through ``(D', y)``: ``V(x, y)`` is ``V(D', y)`` with smaller
rungs inserted in front, so by (a), (c) of :mod:`dpatlas.core.noise.local.ladder_dominance` a
sorted ladder ``J`` that depth-dominates every ``V(D', y)``, ``y <= D'``, dominates the whole
k-star ladder, and its noise is stochastically above the release's.

(K3) *Points.* By the criterion of :mod:`dpatlas.core.noise.local.ladder_dominance`, ``J`` dominates
``V(D', y)`` iff ``F_J(V_t) <= u_t`` for every ``t``, where ``F_J(v) = Σ_{J_j < v} J_j`` and
``u_t = Σ_{i<t} V_i``. For ``t <= c - D'`` the point ``(V_t, u_t)`` is
``(g(D' + t) + Y, G(D' + t) - G(D') + t Y)`` with ``Y = g(y) in [0, g(D')]``; for larger ``t``,
``u_t >= G(c) - G(D')``. Letting ``Y`` be any real in ``[0, g(D')]`` only adds points, so it
suffices that ``F_J(v) <= cap(v)`` for every ``v <= GS``, with ``cap(v)`` the least depth of a
point of size ``>= v``, capped by ``G(c) - G(D')`` (no point is larger than ``GS``). For a fixed
``t`` the least depth is at the least ``Y``; over ``t``,
``φ_t(v) = G(D' + t) - G(D') + t (v - g(D' + t))`` has
``φ_{t+1} - φ_t = v - (t + 1)(g(D' + t + 1) - g(D' + t))``, non-increasing in ``t``, so the
minimum over the ``t`` with ``g(D' + t) < v <= g(D' + t) + g(D')`` is at the end points
``t_min(v)`` and ``t₁(v) - 1``; ``t₁(v)``, the first ``t`` with ``g(D' + t) >= v``, adds
``G(D' + t₁) - G(D')`` (``Y = 0``). :func:`point_depth` is this minimum.

(K4) *The ladder.* ``F_J`` is constant on ``(J_{j-1}, J_j]`` and ``cap`` does not decrease, so
``F_J <= cap`` iff ``u_j(J) <= cap(J_{j-1} + 1)`` for every ``j >= 1`` (``j = T`` for the
``GS`` rungs after ``T`` explicit ones, by truncation (d)). :func:`star_envelope` builds ``J``
greedily (each rung the least size keeping the inequality) and then *checks* every inequality
with a relative margin of ``1e-9`` (depths are float64 from exact integers; rounding is below
``1e-11`` relative); a row that fails is replaced by ``GS`` throughout, which dominates every
ladder. The check, not the greedy, is what the interval rests on.
"""

from __future__ import annotations

import math
from functools import lru_cache
from typing import Any

import numpy as np

from dpatlas.core.noise.local.smooth import SMALLEST
from dpatlas.graph.exact.kstar_sensitivity import star_gain

__all__ = ["point_depth", "star_envelope", "star_smooth_bounds"]

_MARGIN = 1e-9


@lru_cache(maxsize=16)
def _tables(n: int, k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``g`` (int64), ``g`` and ``G`` (float64 from exact integers) for ``x = 0 .. c``."""
    gain = star_gain(n, k)
    exact, acc = [0], 0
    for x in gain.tolist():
        acc += x
        exact.append(acc)
    return gain, gain.astype(np.float64), np.array([float(v) for v in exact[:-1]])


def point_depth(v: np.ndarray, bound: np.ndarray, n: int, k: int) -> np.ndarray:
    """``cap(v)`` of (K3): the least depth of a class point of size ``>= v`` (vectorised).

    ``bound`` is ``D'`` (``0 <= D' <= c``), ``v`` integer sizes; ``inf`` for ``v > GS``.

    Examples
    --------
    >>> point_depth(np.array([39]), np.array([5]), 100, 3).tolist()  # V(5, 3) reaches 39 at 86
    [86.0]
    """
    gain, _, big = _tables(n, k)
    c = gain.size - 1
    v, d = np.broadcast_arrays(np.asarray(v, dtype=np.int64), np.asarray(bound, dtype=np.int64))
    g_d = gain[d]
    out = big[c] - big[d]
    t1 = np.searchsorted(gain, v, side="left") - d  # first t with g(D' + t) >= v
    reach = d + t1 <= c
    out = np.where(reach, np.minimum(out, big[np.minimum(d + t1, c)] - big[d]), out)
    t_min = np.maximum(np.searchsorted(gain, v - g_d, side="left") - d, 0)
    for t in (t_min, t1 - 1):
        x = np.clip(d + t, 0, c)
        inside = (t >= 0) & (d + t <= c) & (gain[x] < v) & (v <= gain[x] + g_d)
        depth = big[x] - big[d] + t * (v - gain[x]).astype(np.float64)
        out = np.where(inside, np.minimum(out, depth), out)
    out = np.where(v <= 2 * g_d, 0.0, out)
    return np.where(v > 2 * gain[c], np.inf, out)


def _greedy(bounds: np.ndarray, n: int, k: int, rungs: int) -> np.ndarray:
    """Each rung the least size ``s`` with ``(F + s)(1 + margin) <= cap(s + 1)`` (K4), by pieces.

    On a piece of sizes where ``t_min`` and ``t₁`` are fixed, ``cap`` is the minimum of a
    constant (``Y = 0``) and lines of slope ``t``, so the feasible sizes form an interval:
    scan pieces upwards from the previous rung until one is not empty.
    """
    gain, g, big = _tables(n, k)
    c = gain.size - 1
    gs = 2 * int(gain[c])
    d = np.asarray(bounds, dtype=np.int64)
    g_d = gain[d]
    far = big[c] - big[d]
    out = np.zeros((d.size, rungs), dtype=np.int64)
    used = np.zeros(d.size)
    prev = np.maximum(2 * g_d, 1)
    for j in range(rungs):
        s = prev.copy()
        todo = np.arange(d.size)
        while todo.size:
            dd, f, size = d[todo], used[todo], s[todo]
            v = size + 1
            t1 = np.searchsorted(gain, v, side="left") - dd
            t_min = np.maximum(np.searchsorted(gain, v - g_d[todo], side="left") - dd, 0)
            x1, xm = np.minimum(dd + t1, c), np.minimum(dd + t_min, c)
            end = np.minimum(
                np.where(dd + t1 <= c, gain[x1], gs),
                np.where(dd + t_min <= c, gain[xm] + g_d[todo], gs),
            )  # largest v of the piece
            cap = np.minimum(np.where(dd + t1 <= c, big[x1] - big[dd], np.inf), far[todo])
            high = np.minimum(end - 1, np.floor(cap / (1 + _MARGIN) - f))
            low = size.astype(np.float64)
            for t in (t_min, t1 - 1):
                x = np.clip(dd + t, 0, c)
                live = (t >= 0) & (dd + t <= c) & (gain[x] < v) & (v <= gain[x] + g_d[todo])
                # (F + s)(1 + margin) <= G(D'+t) - G(D') + t (s + 1 - g(D'+t)), solved for s
                base = big[x] - big[dd] + t * (1.0 - g[x])
                slope = np.where(t >= 2, t - 1 - _MARGIN, 1.0)
                need = np.where(t >= 2, np.ceil((f * (1 + _MARGIN) - base) / slope), np.inf)
                low = np.maximum(low, np.where(live, need, -np.inf))
            found = low <= high
            done = found | (end >= gs) | (np.floor(far[todo] / (1 + _MARGIN) - f) < size)
            pick = np.where(found, low, gs).astype(np.int64)
            out[todo[done], j] = np.minimum(pick[done], gs)
            s[todo[~done]] = end[~done]  # next piece starts at v = end + 1
            todo = todo[~done]
        used += out[:, j]
        prev = out[:, j]
    return out


def _verified(ladders: np.ndarray, bounds: np.ndarray, n: int, k: int) -> np.ndarray:
    """True for rows with ``u_j (1 + 1e-10) <= cap(J_{j-1} + 1)`` for ``j = 1 .. T`` (K4)."""
    depth = np.cumsum(ladders, axis=1, dtype=np.float64)
    cap = point_depth(ladders + 1, bounds[:, None], n, k)
    return np.all(depth * (1 + _MARGIN / 10) <= cap, axis=1)


def star_envelope(n: int, k: int, bounds: np.ndarray, rungs: int) -> np.ndarray:
    """``(len(bounds), rungs)`` sorted ladders ``J(D)``, each followed by ``GS`` (module docstring).

    ``J(D)`` depth-dominates the k-star ladder of every graph on ``n`` nodes with largest degree
    ``<= D`` (``D >= 0``), checked row by row; a row that fails the check is ``GS``.

    Examples
    --------
    >>> star_envelope(100, 3, np.array([5, 81]), 4).tolist()
    [[25, 31, 41, 52], [6561, 6643, 6726, 6810]]
    """
    c = max(n - 2, 0)
    d = np.minimum(np.maximum(np.asarray(bounds, dtype=np.int64), 0), c)
    gs = 2 * math.comb(c, k - 1)
    ladders = _greedy(d, n, k, rungs)
    ok = _verified(ladders, d, n, k)
    return np.where(ok[:, None], ladders, gs)


def star_smooth_bounds(n: int, k: int, beta: float) -> np.ndarray:
    """``max_t e^{-βt} V_t(D', D')`` for ``D' = 0 .. c``: at least the smooth bound of every k-star
    ladder with ``d_max <= D'`` (``V(D', D')`` is pointwise above it, ``V`` growing in both).

    Examples
    --------
    >>> star_smooth_bounds(10, 3, 0.5).round(3).tolist()
    [0.821, 1.353, 2.575, 6.0, 12.0, 20.0, 30.0, 42.0, 56.0]
    """
    gain, g, _ = _tables(n, k)
    c = gain.size - 1
    best = np.zeros(c + 1)
    live = np.arange(c + 1)  # bounds whose maximum may still grow: e^{-βt} GS > best
    t = 0
    while live.size:
        first = np.minimum(c, live + t)
        second = np.minimum(c, live + np.maximum(0, t - (c - live)))
        best[live] = np.maximum(best[live], _weighted(g[first] + g[second], beta, t))
        t += 1
        live = live[_weighted(2 * g[c], beta, t) > best[live]]
    # a release's bound is at least SMALLEST when GS > 0 (smooth_bound): so is every entry
    return np.maximum(best, SMALLEST) if g[c] > 0 else best


def _weighted(values: Any, beta: float, t: int) -> Any:
    """``e^{-βt} values``: the product while ``e^{-βt}`` is a normal float, else ``exp`` of the
    log score, as the release's :func:`~dpatlas.core.noise.local.smooth.smooth_peak` does (a
    subnormal factor has few significant bits)."""
    factor = math.exp(-beta * t)
    if factor >= SMALLEST:
        return factor * values
    with np.errstate(divide="ignore"):
        return np.exp(np.log(values) - beta * t)
