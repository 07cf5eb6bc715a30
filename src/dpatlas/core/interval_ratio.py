"""A multiplier per mixture weight ``λ`` for the pair certificate, and the ratio interval it gives.

Setting and notation of :mod:`dpatlas.core.interval_pairs`: heights ``G_T = H(g(â_T))`` and
``G_W = H(g(â_W))`` at the noisy bounds, ``R = G/N(a)``, ``V ~ Q`` per part, ``M = min(R_T, R_W)``.
There, one multiplier ``τ`` serves every ``ρ``, so it pays for the worst ``λ`` (one part alone);
for ``λ`` near ``1/2`` the two noises partly cancel and a smaller multiplier covers as well.

The rule. Cut ``[0, 1]`` into the blocks ``B_k`` of ``λ`` (``LAMBDA_EDGES``) and give each its
multiplier ``τ_k``. For ``ρ >= 0`` let ``λ(ρ) = G_T/(G_T + ρG_W)`` (every block when
``G_T + ρG_W = 0``), computed from the bounds and public values only. The interval for
``C = 3ρ`` is the hull of the released value and of::

    S = {c = 3ρ in [0, 1] : |T̂ - ρŴ| <= τ_k (G_T + ρ G_W) for some k with λ(ρ) in B_k};

within a block both conditions are linear in ``ρ`` (``λ(ρ) in B_k`` reads
``ρ lo_k G_W <= (1 - lo_k) G_T`` and ``ρ hi_k G_W >= (1 - hi_k) G_T``), so each block is one
closed-form interval (:func:`ratio_set`). Post-processing: released counts, bought bounds and
public values only, no ε of its own.

Coverage. Fix the bounds and the true ``ρ`` (``ρ = 0`` when ``W = 0``; then ``T = 0``), and a
block ``k`` with ``λ = λ(ρ)`` in it; ``T̂ - ρŴ = K_T - ρK_W``, so ``C`` is in ``S`` when
``|K_T - ρK_W| <= q' = τ_k (G_T + ρG_W)``. If ``M < r_0`` nothing is claimed (step (iv) gives
such bounds no weight). Otherwise ``G_T, G_W > 0`` and, as in (i), ``P(cover) >= E ψ`` with
``A = |K_T|``, ``B = ρ|K_W|``, ``q'`` for ``q``; ``A/q' = λ U_T`` and ``B/q' = (1 - λ) U_W`` with
``U = |K|/(τ_k G)``. As in (ii), ``P(|K| <= x τ_k G) >= F.cdf(a, ⌊x τ_k R N(a)⌋) >=
Q(x τ_k R)``: ``U <=_st V/(τ_k R)``, and ``ψ`` falls in ``U_T, U_W``, so as in (iii)
``P(cover | bounds) >= Λ_k(τ_k M, τ_k M)`` (``Λ`` with its minimum over ``B_k`` only:
:func:`~dpatlas.core.interval_shape.block_table`). Here ``λ`` is exact: it is the ``λ`` of the
event with ``q'``, ceilings play no part. ``Λ_k`` is non-decreasing, so for ``M`` in
``[r_i, r_{i+1})``: ``P(cover | bounds) >= min_k Λ_k(τ_k r_i, τ_k r_i) >= D'(r_i)``, ``D'`` that
minimum made non-decreasing from above (:func:`block_diagonal`), whatever block the bounds
select. Step (iv) with ``D'`` for ``Λ(τ r, τ r)`` then bounds the coverage, marginal over the
bounds, for every pair of datasets; :func:`~dpatlas.core.interval_pairs.pair_rule` computes this
bound and uses a rule only when it is at least the level. With public scales ``R = 1`` and the
coverage is at least ``min_k Λ_k(τ_k, τ_k)``.

Each ``τ_k`` is ``s`` times the least multiplier with ``Λ_k(τ_k, τ_k) >= target``
(:func:`block_multipliers`), capped at the single ``τ`` (``τ_k = τ`` for all ``k`` is the
single-multiplier rule); the factor ``s >= 1`` pays for underestimated bounds, where the
sharper middle blocks lose coverage faster than the extreme ones.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from dpatlas.core.interval_shape import LAMBDA_EDGES, block_table

__all__ = ["block_diagonal", "block_multipliers", "ratio_set"]

_X = np.geomspace(0.05, 20.0, 1200)  # 0.5% steps: where the per-block floor is tabulated


def block_multipliers(q_t: np.ndarray, q_w: np.ndarray, target: float) -> np.ndarray:
    """Per block of ``λ``, a multiplier ``τ_k`` with ``Λ_k(τ_k, τ_k) >= target`` (to 0.5%).

    The least grid value of ``_X`` whose floor, made non-decreasing from above, reaches
    ``target``, checked at ``τ_k`` itself; ``inf`` for a block that no grid value lifts there
    (callers cap ``τ_k`` at the single ``τ``, which always covers: ``Λ_k >= Λ``).

    Examples
    --------
    >>> from dpatlas.core.interval_shape import _Y
    >>> q = 1 - np.exp(-_Y * 3.0)
    >>> taus = block_multipliers(q, q, 0.95)
    >>> bool(taus[0] > 1.0 > taus[taus.size // 2]), bool(abs(taus[0] - taus[-1]) < 1e-9)
    (True, True)
    """
    grid = np.broadcast_to(_X[:, None], (_X.size, LAMBDA_EDGES.size - 1))
    table = np.minimum.accumulate(block_table(q_t, q_w, grid, grid)[::-1], axis=0)[::-1]
    reached = table[-1] >= target
    taus = np.where(reached, _X[np.argmax(table >= target, axis=0)], np.inf)
    at = np.where(reached, taus, 1.0)[None, :]
    if not (block_table(q_t, q_w, at, at)[0] >= target)[reached].all():
        raise RuntimeError("a per-block multiplier does not reach its target")
    return taus


def block_diagonal(q_t: np.ndarray, q_w: np.ndarray, taus: np.ndarray, r: np.ndarray) -> np.ndarray:
    """``D'(r) = min_k Λ_k(τ_k r, τ_k r)`` at each ``r`` (sorted), made non-decreasing from above.

    Examples
    --------
    >>> from dpatlas.core.interval_shape import _LAMBDAS, _Y
    >>> q = 1 - np.exp(-_Y * 3.0)
    >>> d = block_diagonal(q, q, np.ones(_LAMBDAS), np.array([0.5, 1.0, 2.0]))
    >>> bool((np.diff(d) >= 0).all()), round(float(d[1]), 2)
    (True, 0.95)
    """
    x = np.asarray(r, float)[:, None] * np.asarray(taus, float)[None, :]
    raw = block_table(q_t, q_w, x, x).min(axis=1)
    return np.minimum.accumulate(raw[::-1])[::-1]


def _solve(alpha: np.ndarray, beta: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``{ρ : αρ >= β}`` as ``[lo, hi]`` (empty: ``lo > hi``)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        cut = beta / alpha
    lo = np.where(alpha > 0, cut, np.where((alpha == 0) & (beta > 0), np.inf, -np.inf))
    hi = np.where(alpha < 0, cut, np.where((alpha == 0) & (beta > 0), -np.inf, np.inf))
    return lo, hi


def ratio_set(
    t: Any, w: Any, g_t: Any, g_w: Any, taus: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """The interval for ``C = 3T/W`` of the module docstring (vectorised over releases).

    ``t``, ``w``: the released counts; ``g_t``, ``g_w``: the heights at the noisy bounds (before
    any multiplier); ``taus``: one multiplier per block of ``λ``. The hull of ``S`` and of the
    released value ``min(1, max(0, 3t)/max(w, 1))``, inside ``[0, 1]``.

    Examples
    --------
    >>> from dpatlas.core.interval_shape import _LAMBDAS
    >>> low, high = ratio_set([100, 100], [1000, 1000], [10, 10], [40, 40], np.ones(_LAMBDAS))
    >>> low.round(4).tolist(), high.round(4).tolist()
    ([0.2596, 0.2596], [0.3438, 0.3438])
    """
    t, w, g_t, g_w = (np.asarray(x, dtype=np.float64)[..., None] for x in (t, w, g_t, g_w))
    a, b = taus * g_t, taus * g_w
    lo_k, hi_k = LAMBDA_EDGES[:-1], LAMBDA_EDGES[1:]
    low, high = np.zeros(np.broadcast(t, w, a, b).shape), np.full(1, 1 / 3)
    for alpha, beta in (
        (w + b, t - a),  # T̂ - ρŴ <= q'
        (b - w, -(t + a)),  # ρŴ - T̂ <= q'
        (-lo_k * g_w, -(1 - lo_k) * g_t),  # λ(ρ) >= lo_k
        (hi_k * g_w, (1 - hi_k) * g_t),  # λ(ρ) <= hi_k
    ):
        lo, hi = _solve(alpha, beta)
        low, high = np.maximum(low, lo), np.minimum(high, hi)
    some = low <= high
    value = np.minimum(1.0, np.maximum(0.0, 3 * t[..., 0]) / np.maximum(w[..., 0], 1.0)) / 3
    first = np.where(some, low, np.inf).min(axis=-1)
    last = np.where(some, high, -np.inf).max(axis=-1)
    return 3 * np.minimum(first, value), 3 * np.maximum(last, value)
