"""When one ladder's noise is stochastically below another's: depth dominance, and exact tails of
explicit dominating ladders (:class:`LadderTable`).

These functions read ladders; their results are diagnostics unless the ladders are public (as
the dominating ladders of the interval families are: built from public values and bounds). The
law is the sampler's (:mod:`dpatlas.core.noise.local.ladder`, ``q = e^{-ε'/2}`` at its rational
``ε'``).

Depth dominance (what makes one-sided, tight intervals possible). Write ``X_L`` for ``|noise|``
under a ladder ``L``: rung ``r >= 1`` holds the magnitudes ``u_{r-1} < k <= u_r``
(``u_r = L_0 + ... + L_{r-1}``), each with weight ``q^r`` per sign; 0 has weight 1. For a
magnitude ``k >= 1`` let ``σ_L(k)`` be the size of the rung holding it.

*Theorem.* Let ``J`` have positive, non-decreasing rung sizes and ``I`` be any ladder (empty
rungs allowed) with ``σ_I(k) <= σ_J(k)`` for every ``k >= 1`` ("rung size no larger at every
depth"). Then ``X_I <=_st X_J``: ``P(X_I > h) <= P(X_J > h)`` for every ``h``.

Proof. Count the zero as ``w(0) = 1/2`` and magnitude ``k`` as ``w_L(k) = q^{r_L(k)}`` (one
sign), so ``P(X_L > h) = Σ_{k>h} w_L / Σ_k w_L``, and let ``ρ = w_I / w_J = q^D`` with
``D = r_I - r_J``. Cross-multiplying, ``P(X_I > h) <= P(X_J > h)`` iff
``Σ_{i<=h<j} w_J(i) w_J(j) (ρ(j) - ρ(i)) <= 0``: the ``w_J``-average of ``ρ`` beyond ``h`` is at
most its average up to ``h``. Cut the magnitudes into blocks ``B_0 = {0}`` and ``B_r`` = rung
``r`` of ``J``, on which ``w_J`` is constant. (i) Inside a block ``ρ`` does not increase
(``r_J`` is constant, ``r_I`` does not decrease). (ii) The block averages ``ρ̄_r`` do not
increase. Given both, for ``h + 1`` in ``B_r`` the head is the blocks before ``r`` (averages
``>= ρ̄_r``) and a first segment of ``B_r`` (average ``>= ρ̄_r`` by (i)); the tail is the rest of
``B_r`` and the later blocks (averages ``<= ρ̄_r``); so the head's average is at least the
tail's. Proof of (ii). A rung of ``I`` meeting ``B_r`` has size ``<= s = |B_r|``, so the one
holding the first magnitude of ``B_r`` ends inside ``B_r``: every block holds an *end* of ``I``
(the last magnitude of a rung), hence ``D >= 0`` and ``ρ̄_0 = 1 >= ρ̄_1``. Number ``B_r`` as
``1..s`` and ``B_{r+1}`` as ``s+1..s+s'`` (``s' >= s``), let ``N(k)`` count the ends of ``I`` in
``[1, k)``, ``m >= 1`` of them in ``B_r``, the last at ``f``; then ``ρ = q^{d+N}`` on ``B_r``
and ``q^{d-1+N}`` on ``B_{r+1}`` for some ``d``. If ``f = s``: ``N <= m - 1`` on ``B_r`` and
``N >= m`` on ``B_{r+1}``, so ``ρ̄_{r+1} <= q^{d-1+m} <= ρ̄_r``. Otherwise the rung of ``I``
holding ``s`` starts at ``f + 1`` with size ``a <= s`` and ends at ``g = f + a``, so
``δ = g - s <= f``. On ``B_{r+1}``, ``N = m`` at its first ``δ`` magnitudes and ``N >= m + 1``
after: ``ρ̄_{r+1} <= q^{d-1+m} (q + δ(1 - q)/s') <= q^{d-1+m} (q + δ(1 - q)/s)``. On ``B_r``,
``N <= m - 1`` on ``1..f`` and ``N = m`` after: ``ρ̄_r >= q^{d-1+m} (q + f(1 - q)/s)``. As
``δ <= f``, ``ρ̄_{r+1} <= ρ̄_r``.

*Criterion.* For such ``J``, ``σ_I <= σ_J`` everywhere iff for every ``t``
``Σ_{j : J_j < I_t} J_j <= u_t(I)``: ``J`` reaches a rung of size ``>= I_t`` no deeper than ``I``
does (``σ_J`` does not decrease with depth, so rung ``t + 1`` of ``I`` only needs
``I_t <= σ_J(u_t(I) + 1)``). :func:`depth_dominates` checks it. Consequences:

(a) *Insertion*: inserting a rung into a ladder (keeping it non-decreasing) gives a ladder
    dominated by the original; in particular inserting zeros in front.
(b) *Steep dominance*: with ``J(A)_t = min(GS, A + t)``, every ladder ``I <= GS`` with
    ``I_0 <= A`` and steps ``I_{t+1} - I_t`` in ``{0, 1}`` is ``J(A)`` with rungs inserted (the
    values below ``A`` and the repeats), so ``X_I <=_st X_{J(A)}``, and ``J(A) <=_st J(A + 1)``.
    The triangle ladders ``LS(t)`` and ``U(t)`` start at ``a_max`` with steps in ``{0, 1}`` and
    the 2-star ladder is ``J(c_max)``: :class:`~dpatlas.core.noise.local.ladder_exact.SteepLadder`.
(c) *Maxima*: if ``I¹`` and ``I²`` are dominated by ``J`` in this sense, so is their pointwise
    maximum (its rung ``t`` is one of theirs, and its depths are larger).
(d) *Truncation*: setting every rung from index ``T`` on to ``GS`` gives a dominating ladder.
(e) *Pointwise*: ``σ_I <= σ_J`` implies ``I_t <= J_t`` for every ``t`` (each rung of ``J``
    holds an end of ``I``, so ``u_t(I) <= u_t(J) < u_{t+1}(J)``, and the criterion fails if
    ``I_t > J_t``), so the smooth bound of ``I`` is at most ``J``'s.
Pointwise smaller is not enough the other way: lowering the first rung of ``J(1)`` from 1 to 0
makes the tail heavier (a test pins it). :class:`LadderTable` gives the exact tail of explicit
dominating ladders (the k-star family of :mod:`dpatlas.graph.exact.kstar_envelope`).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from dpatlas.core.noise.local.ladder import check_ladder
from dpatlas.core.noise.local.ladder_exact import _log_q, _steps

__all__ = ["LadderTable", "depth_dominates"]


def depth_dominates(upper: Any, lower: Any, *, global_sensitivity: int) -> bool:
    """True when ``σ_lower <= σ_upper`` at every depth (the criterion of the module docstring).

    Both ladders are followed by ``global_sensitivity``; ``upper`` needs positive sizes. Then
    ``|noise|`` under ``lower`` is stochastically below ``|noise|`` under ``upper``. Exact
    (Python integers).

    Examples
    --------
    >>> depth_dominates([3, 5], [1, 2, 4], global_sensitivity=5)  # 3 split, 4 inserted
    True
    >>> depth_dominates([1, 2], [0, 2], global_sensitivity=2)  # pointwise smaller, heavier tail
    False
    """
    up, gs = check_ladder(upper, global_sensitivity)
    low, _ = check_ladder(lower, global_sensitivity)
    if up.size and up[0] == 0:
        raise ValueError("upper must have positive rung sizes")
    sizes = [int(x) for x in up] + [gs]
    depth = 0
    for size in [int(x) for x in low] + [gs]:
        reached = sum(x for x in sizes if x < size)  # the last entry, gs, is never below size
        if reached > depth:
            return False
        depth += size
    return True


class LadderTable:
    """Explicit ladders, one per row, each followed by ``GS``: exact law of ``|noise|``, vectorised.

    ``sizes`` is an ``(m, T)`` integer array of non-decreasing rows in ``[1, GS]``; row ``i``
    is the ladder ``sizes[i, 0], ..., sizes[i, T - 1], GS, GS, ...`` under the ladder mechanism
    at ``epsilon`` (the sampler's ``q``, :func:`~dpatlas.core.noise.local.ladder.step_scale`). Depths
    and weights are kept in float64; :meth:`cdf` is lowered by ``1e-12`` to absorb rounding.

    Examples
    --------
    >>> table = LadderTable(np.array([[5 + t for t in range(95)] + [100] * 5]), 100, 1.0)
    >>> table.cdf(np.array([0]), np.array([20])).round(4).tolist()
    [0.7155]
    >>> table.quantile(np.array([0]), 0.95).tolist()
    [62]
    """

    def __init__(self, sizes: np.ndarray, global_sensitivity: int, epsilon: float) -> None:
        lad = np.asarray(sizes, dtype=np.int64)
        if lad.ndim != 2 or lad.shape[1] == 0 or lad.min() < 1 or lad.max() > global_sensitivity:
            raise ValueError("sizes must be an (m, T) array of rung sizes in [1, GS], T >= 1")
        if np.any(np.diff(lad, axis=1) < 0):
            raise ValueError("every row of sizes must be non-decreasing")
        self.gs, self.rungs = int(global_sensitivity), lad.shape[1]
        self.log_q = _log_q(epsilon)
        zero = np.zeros((lad.shape[0], 1))
        self.depth = np.concatenate([zero, np.cumsum(lad, axis=1, dtype=np.float64)], axis=1)
        weights = lad * np.exp(np.arange(1, self.rungs + 1) * self.log_q)
        self.weight = np.concatenate([zero, np.cumsum(weights, axis=1)], axis=1)  # W_r, one sign
        self.tail = self.gs * math.exp((self.rungs + 1) * self.log_q) / -math.expm1(self.log_q)
        self.total = 1 + 2 * (self.weight[:, -1] + self.tail)

    def _rung(self, rows: np.ndarray, h: np.ndarray) -> np.ndarray:
        """Smallest ``r`` in ``1..T`` with ``u_r >= h`` (``T`` when ``h`` is beyond ``u_T``)."""
        lo, hi = np.ones(h.shape, dtype=np.int64), np.full(h.shape, self.rungs, dtype=np.int64)
        while (lo < hi).any():
            mid = (lo + hi) // 2
            deep = self.depth[rows, mid] >= h
            lo, hi = np.where(deep, lo, mid + 1), np.where(deep, mid, hi)
        return lo

    def cdf(self, rows: Any, h: Any) -> np.ndarray:
        """``P(|noise| <= h)`` under ladder ``rows`` (broadcast with ``h``), less ``1e-12``."""
        r_in, h_in = np.broadcast_arrays(np.asarray(rows, dtype=np.int64), np.asarray(h))
        rows_, mag = r_in.ravel(), np.floor(h_in.ravel().astype(np.float64))
        rung = self._rung(rows_, np.maximum(mag, 1.0))
        start = self.depth[rows_, rung - 1]
        inside = self.weight[rows_, rung - 1] + (mag - start) * np.exp(rung * self.log_q)
        end = self.depth[rows_, -1]
        beyond = np.maximum(np.ceil((mag - end) / self.gs), 1.0)  # GS rungs past the table
        far_start = end + (beyond - 1) * self.gs
        far = (
            self.weight[rows_, -1]
            + self.tail * -np.expm1((beyond - 1) * self.log_q)
            + (mag - far_start) * np.exp((self.rungs + beyond) * self.log_q)
        )
        one_sign = np.where(mag > end, far, inside)
        out = np.where(mag >= 1, (1 + 2 * one_sign) / self.total[rows_], 1 / self.total[rows_])
        out = np.clip(np.where(mag < 0, 0.0, out - 1e-12), 0.0, 1.0)
        return out.reshape(h_in.shape)

    def quantile(self, rows: Any, level: float) -> np.ndarray:
        """Smallest integer ``h >= 0`` with ``cdf(rows, h) >= level`` (vectorised over ``rows``)."""
        rows_ = np.asarray(rows, dtype=np.int64)
        need = (float(level) * self.total[rows_] - 1) / 2  # weight beyond 0, one sign
        lo = np.zeros(rows_.shape, dtype=np.int64)
        hi = np.full(rows_.shape, self.rungs, dtype=np.int64)
        while (lo < hi).any():
            mid = (lo + hi) // 2
            enough = self.weight[rows_, mid] >= need
            lo, hi = np.where(enough, lo, mid + 1), np.where(enough, mid, hi)
        inside = self.weight[rows_, -1] >= need
        r = np.maximum(lo, 1)
        h_in = self.depth[rows_, r - 1] + _steps(
            need - self.weight[rows_, r - 1], np.exp(r * self.log_q)
        )
        # past the table: the first j with W_T + tail (1 - q^j) >= need, then the offset in it
        excess = np.maximum(need - self.weight[rows_, -1], 0.0)
        short = _steps(excess, np.full(excess.shape, self.tail), ceil=False)
        j = np.maximum(np.ceil(np.log1p(-np.minimum(short, 1 - 1e-16)) / self.log_q), 1.0)
        before = self.weight[rows_, -1] + self.tail * -np.expm1((j - 1) * self.log_q)
        h_far = (
            self.depth[rows_, -1]
            + (j - 1) * self.gs
            + _steps(need - before, np.exp((self.rungs + j) * self.log_q))
        )
        h = np.where(need <= 0, 0.0, np.where(inside, h_in, h_far))
        for _ in range(3):  # settle float rounding against the cdf itself
            h = np.where(self.cdf(rows_, h) < level, h + 1, h)
            lower = np.maximum(h - 1, 0)
            h = np.where((h > 0) & (self.cdf(rows_, lower) >= level), lower, h)
        return h.astype(np.int64)
