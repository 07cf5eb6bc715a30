"""One certificate for a pair of bounded releases: intervals for ``T - ρW`` and ratios ``T/W``.

Setting. Two independent integer releases ``T̂ = T + K_T`` and ``Ŵ = W + K_W``, each of the kind
of :mod:`dpatlas.core.interval`: symmetric noise, and a bought bound ``â = a + Z`` (``Z``
discrete Laplace, sensitivity 1) with a *noise family* ``F`` for which ``F.cdf(A, h)`` is at most
``P(|K| <= h)`` for every dataset with statistic ``a <= A``, non-decreasing in ``h`` ((F1),
(F2) there). A part with a public noise scale has no bound (``Z = 0``, ``top = 0``).

The rule. Each part gets ``h(â) = ⌈τ H(g(â))⌉``, ``g(x) = clip(max(x + m, A₀), 0, top)``,
``H`` its family's quantile at ``level`` (running maximum on the grid of
:mod:`dpatlas.core.interval`), with one multiplier ``τ``, margin ``m`` and floor ``A₀`` for both.
For the clustering coefficient ``C = 3T/W`` the box ``T̂ ± h_T``, ``Ŵ ± h_W`` gives
``[3(T̂ - h_T)/(Ŵ + h_W), 3(T̂ + h_T)/(Ŵ - h_W)]``, which contains ``C`` whenever
``|K_T - ρ K_W| <= h_T + ρ h_W`` at the true ``ρ = T/W`` (multiply out; ``ρ = 0`` when
``W = 0``). It reads the releases, the bounds and public values only: post-processing, no ε of
its own. The interval actually returned (:meth:`PairRule.interval`) gives each block of the
weight ``λ`` its own multiplier ``τ_k <= τ`` (:mod:`dpatlas.core.interval_ratio`, proof there);
steps (i)-(iv) below are the single-``τ`` case, which it reuses.

Coverage, for every pair of datasets and every ``ρ >= 0``. (i) *Signs.* Given the magnitudes and
the bounds, the relative sign of ``K_T`` and ``K_W`` is a fair coin, so with ``A = |K_T|``,
``B = ρ|K_W|``, ``q = h_T + ρh_W``: ``P(cover) = E[½ 1{A + B <= q} + ½ 1{|A - B| <= q}]``
``>= E ψ``, ``ψ = ½ 1{A + B <= q} + ½ 1{A <= q} 1{B <= q}`` (``|A - B| <= max(A, B)``), and
``ψ`` falls in ``A`` and ``B``. (ii) *Shape.* With ``N(a) = max(H(a), 1)``,
``Q(y) = min_a F.cdf(a, ⌊y N(a)⌋)`` (:func:`~dpatlas.core.interval_shape.shape`),
``R = H(g(a + Z))/N(a)`` and ``y = x τ R``: ``⌊x h⌋ >= ⌊y N(a)⌋``, so given ``Z``,
``|K|/h <=_st V/(τR)`` with ``V ~ Q`` (the missing mass of ``Q`` at infinity) independent of
``R``. (iii) *Mixture.* For fixed bounds, with ``λ = h_T/(h_T + ρ h_W)`` and
``M = min(R_T, R_W)``, ``E ψ`` only falls when ``R_T, R_W`` are lowered to ``M`` (``V/(τR)``
grows), and then ``E ψ >= Λ(τM, τM)``, where
``Λ(x, x') = min_λ [½ P(λV_T/x + (1-λ)V_W/x' <= 1) + ½ P(λV_T <= x) P((1-λ)V_W <= x')]`` is
non-decreasing in both (:func:`~dpatlas.core.interval_shape.mixture_table`: blocks of ``λ`` at
their worst ends, exact sums over grid values of ``V``, ``V_T`` pushed up to a coarser grid).
(iv) *Bounds.* ``R_T`` and ``R_W`` are independent, so with a grid ``0 = r_0 < r_1 < ...``::

    coverage >= Σ_i [Λ(τ r_i, τ r_i) - Λ(τ r_{i-1}, τ r_{i-1})] P(R_T >= r_i) P(R_W >= r_i),

where ``R >= r`` iff ``H(A₀) >= r N(a)`` or ``Z >= x*(r N(a)) - a - m`` (``x*(v)`` the least
bound with ``H >= v``), bounded over blocks of ``a`` at their worst ends (:func:`ratio_floor`);
the minimum over pairs of blocks is the certified coverage. ``τ`` is the least multiplier with
``Λ(τ, τ) >= 1 - PAIR_SHARE γ``; ``τ_k`` is ``s`` times the least with
``Λ_k(τ_k, τ_k) >= 1 - PAIR_SHARE γ``, capped at ``τ``, for four factors ``s`` from 1 to
``τ/min τ_k`` (all at ``τ``: the single-``τ`` rule); the certificate takes ``min_k Λ_k(τ_k r,
τ_k r)`` for ``Λ(τr, τr)``. For each floor ``A₀`` in ``FLOORS`` (multiples of the bound's noise
scale) and each ``s``, ``m`` is the least margin that certifies the level, and the triple with
the least worst expected overhead ``max_a E[H(g(a + Z))]/N(a)`` (:func:`overhead`, both parts)
times the mean ``τ_k`` is used: every candidate is certified, and the choice reads public values
only. If no margin up to
``top`` certifies, every bound is raised to ``top`` (``R >= 1``) with ``τ`` from
``Λ(τ, τ) >= level`` (and each ``τ_k`` from ``Λ_k(τ_k, τ_k) >= level``). With public scales
``R = 1``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from dpatlas.core.interval import NoiseFamily, _lookup, dlap_cdf
from dpatlas.core.interval_ratio import block_diagonal, block_multipliers, ratio_set
from dpatlas.core.interval_shape import Part, a_blocks, block_table, multiplier, part_of

__all__ = [
    "FLOORS",
    "PAIR_SHARE",
    "PairRule",
    "PublicLaplace",
    "overhead",
    "pair_rule",
    "ratio_floor",
]

FLOORS = (0, 1, 2, 3, 4)
"""Candidate floors, in units of the bound's noise scale ``b``; the least worst overhead wins."""

PAIR_SHARE = 0.8
"""Share of ``γ`` the multiplier may use; the rest pays for underestimated bounds (the margin).
Chosen on synthetic steep pairs (n = 3,000, ε = 0.05 and 0.5, bounds 30 to 1,000), not on a
benchmark graph."""

_R = np.concatenate([1 - np.geomspace(0.95, 1e-4, 240), [1.0], 1 + np.geomspace(1e-4, 2.0, 60)])


@dataclass(frozen=True)
class PublicLaplace:
    """Discrete Laplace noise of public scale ``b`` as a family without a bound (``top = 0``).

    ``cdf`` is ``1 - 2 p^(h+1)/(1 + p)``, ``p = e^(-1/b')``, at ``b' = b (1 + 2**-30)`` (a lower
    bound that absorbs the rounding of ``b``).

    Examples
    --------
    >>> PublicLaplace(10.0).quantile(np.array([0.0]), 0.95).tolist()
    [30]
    """

    scale: float
    top: int = 0

    def cdf(self, bound: np.ndarray, h: np.ndarray) -> np.ndarray:
        """``P(|K| <= h)`` at least (``bound`` is ignored)."""
        p = math.exp(-1 / (self.scale * (1 + 2.0**-30)))
        hh = np.floor(np.asarray(h, dtype=np.float64)) + 0 * np.asarray(bound)
        with np.errstate(over="ignore", under="ignore"):
            return np.where(hh < 0, 0.0, 1 - 2 * p ** (hh + 1) / (1 + p))

    def quantile(self, bound: np.ndarray, level: float) -> np.ndarray:
        """Smallest integer ``h >= 0`` with ``cdf >= level``."""
        p = math.exp(-1 / (self.scale * (1 + 2.0**-30)))
        h = (
            0
            if p == 0.0
            else max(0, math.ceil(math.log((1 - level) * (1 + p) / 2) / math.log(p)) - 1)
        )
        while self.cdf(np.array(0.0), np.array(h)) < level:
            h += 1
        while h > 0 and self.cdf(np.array(0.0), np.array(h - 1)) >= level:
            h -= 1
        return np.full(np.shape(bound), h, dtype=np.int64)


def ratio_floor(
    part: Part, top: int, margin: int, scale: tuple[int, int] | None, floor: int = 0
) -> np.ndarray:
    """``P(R >= r)`` at least, per block of ``a`` (rows: integers to 255, then 1%) and ``r``.

    ``R >= r`` iff ``H(floor) >= r N(a)`` or ``Z >= x*(r N(a)) - a - m``; over a block, ``N(hi)``
    and ``lo`` give the worst case. Without a bound (``scale`` None) ``R = 1``.
    """
    if scale is None:
        return (_R <= 1.0)[None, :].astype(np.float64)
    lo, hi = a_blocks(top, 255, 1.01)
    need_h = _R[None, :] * np.maximum(_lookup(part.grid, part.heights, hi), 1.0)[:, None]
    first = np.searchsorted(part.heights, need_h, side="left")
    size = part.grid.size
    reach = np.where(first < size, part.grid[np.minimum(first, size - 1)], np.inf)
    need = np.where(reach <= 0, -np.inf, reach - lo[:, None])
    floored = _lookup(part.grid, part.heights, np.array([float(floor)]))[0] >= need_h
    return 1.0 - dlap_cdf(np.where(floored, -np.inf, need) - margin - 1, scale)


def overhead(part: Part, top: int, margin: int, floor: int, scale: tuple[int, int]) -> float:
    """``max_a E_Z[H(max(a + Z + m, floor))] / N(a)``: the worst expected width over the noise's."""
    a, _ = a_blocks(top, 255, 1.01)
    b = scale[0] / scale[1]
    z = np.arange(-math.ceil(40 * b), math.ceil(40 * b) + 1)
    weight = dlap_cdf(z, scale) - dlap_cdf(z - 1, scale)
    bound = np.clip(np.maximum(a[:, None] + z[None, :] + margin, floor), 0, top)
    norm = np.maximum(_lookup(part.grid, part.heights, a), 1.0)
    return float(((_lookup(part.grid, part.heights, bound) @ weight) / norm).max())


@dataclass(frozen=True)
class PairRule:
    """``h(â) = ⌈τ H(clip(max(â + margin, floor), 0, top))⌉`` per part (margin None: at top).

    ``multipliers`` holds one ``τ_k <= τ`` per block of ``λ``
    (:mod:`dpatlas.core.interval_ratio`); ``certified`` is the coverage bound of the interval of
    :meth:`interval`, which the box of :meth:`halfwidths` (every ``τ_k`` raised to ``τ``) meets too.
    """

    multiplier: float
    margin: int | None
    certified: float
    parts: tuple[Part, Part]
    tops: tuple[int, int]
    floor: int = 0
    multipliers: tuple[float, ...] = ()

    def heights(self, noisy_t: Any, noisy_w: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(G_T, G_W) = H(g(â))`` at the noisy bounds, before the multiplier (vectorised)."""
        out = []
        for part, top, noisy in zip(self.parts, self.tops, (noisy_t, noisy_w), strict=True):
            x = np.asarray(noisy, dtype=np.float64)
            at_top = np.full(x.shape, float(top))
            bound = at_top if self.margin is None else np.maximum(x + self.margin, self.floor)
            out.append(_lookup(part.grid, part.heights, bound))
        return out[0], out[1]

    def halfwidths(self, noisy_t: Any, noisy_w: Any) -> tuple[np.ndarray, np.ndarray]:
        """``(h_T, h_W)`` at the noisy bounds (vectorised; ignored for public scales)."""
        g_t, g_w = self.heights(noisy_t, noisy_w)
        return np.ceil(self.multiplier * g_t), np.ceil(self.multiplier * g_w)

    def interval(
        self, noisy_t: Any, noisy_w: Any, bound_t: Any, bound_w: Any
    ) -> tuple[np.ndarray, np.ndarray]:
        """The interval for ``C = 3T/W`` from the released counts and the noisy bounds.

        Post-processing (:func:`~dpatlas.core.interval_ratio.ratio_set`; vectorised).

        Examples
        --------
        >>> rule = pair_rule(PublicLaplace(40.0), PublicLaplace(90.0), 0.95, None)
        >>> low, high = rule.interval([1000], [12000], 0, 0)
        >>> bool(low[0] < 0.25 < high[0]), bool(high[0] - low[0] < 0.075)
        (True, True)
        """
        g_t, g_w = self.heights(bound_t, bound_w)
        return ratio_set(noisy_t, noisy_w, g_t, g_w, np.array(self.multipliers))


@lru_cache(maxsize=64)
def pair_rule(
    first: NoiseFamily, second: NoiseFamily, level: float, scale: tuple[int, int] | None
) -> PairRule:
    """One multiplier, margin and floor for both parts, certified at ``level`` (module docstring).

    ``scale`` is the ``(t, s)`` of both bounds' discrete Laplace noise, or None when both noise
    scales are public (no bound: ``R = 1``).

    Examples
    --------
    >>> from dpatlas.core.noise.local.ladder_exact import SteepLadder
    >>> rule = pair_rule(SteepLadder(300, 1.0), SteepLadder(600, 1.0), 0.9, (10, 1))
    >>> rule.margin, rule.floor, rule.certified >= 0.9
    (11, 10, True)
    >>> [int(h[0]) for h in rule.halfwidths([20], [40])]
    [190, 299]
    """
    b = 1.0 if scale is None else scale[0] / scale[1]
    parts = (part_of(first, float(level), b), part_of(second, float(level), b))
    tops = (int(first.top), int(second.top))
    q_t, q_w = parts[0].q, parts[1].q
    if scale is None:
        return _at_least_one(parts, tops, float(level), 0)
    target = 1.0 - PAIR_SHARE * (1.0 - float(level))
    tau = multiplier(q_t, q_w, target)
    base = np.minimum(block_multipliers(q_t, q_w, target), tau)
    choices = [np.minimum(tau, s * base) for s in np.geomspace(1.0, tau / base.min(), 4)]
    steps = [np.diff(np.concatenate([[0.0], block_diagonal(q_t, q_w, t, _R)])) for t in choices]

    floors: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}

    def cover(margin: int, floor: int, choice: int) -> float:
        if (margin, floor) not in floors:
            floors[margin, floor] = (
                ratio_floor(parts[0], tops[0], margin, scale, floor),
                ratio_floor(parts[1], tops[1], margin, scale, floor),
            )
        p, q = floors[margin, floor]
        return float(((p * steps[choice]) @ q.T).min())

    def least_margin(floor: int, choice: int, good: int | None) -> int | None:
        """The least certifying margin; ``good`` (certified at a lower floor or a smaller
        factor ``s``: both only raise the certificate) bounds it."""
        bad = -1
        if good is None:
            bad, good = 0, max(1, round(b))
            if cover(0, floor, choice) >= level:
                return 0
            while cover(good, floor, choice) < level:
                if good >= max(tops):
                    return None
                bad, good = good, min(2 * good, max(tops))
        while good - bad > 1:  # a higher floor only raises R: the margin can only fall
            mid = (bad + good) // 2
            bad, good = (bad, mid) if cover(mid, floor, choice) >= level else (mid, good)
        return good

    best: tuple[float, int, int, int] | None = None
    margins: list[int | None] = [None] * len(choices)
    height: dict[tuple[int, int], float] = {}
    for floor in sorted({min(round(k * b), min(tops)) for k in FLOORS}):
        here: tuple[float, int, int, int] | None = None
        for choice, taus in enumerate(choices):
            near = (margins[choice], margins[choice - 1] if choice else None)
            hints = [h for h in near if h is not None]
            m = margins[choice] = least_margin(floor, choice, min(hints, default=None))
            if m is None:
                continue
            if (m, floor) not in height:
                pairs = zip(parts, tops, strict=True)
                height[m, floor] = max(overhead(pt, top, m, floor, scale) for pt, top in pairs)
            cost = height[m, floor] * float(taus.mean())  # expected width, averaged over λ
            here = min(here or (cost, m, floor, choice), (cost, m, floor, choice))
        if here is None:
            continue
        if best is not None and here[0] >= best[0]:
            break  # the expected width stopped falling
        best = here
    if best is None:  # the worst case: every bound at top, so R >= 1
        return _at_least_one(parts, tops, float(level), None)
    _, margin, floor, choice = best
    certified = cover(margin, floor, choice)
    if certified < level:  # the hints above rest on monotonicity: checked, not assumed
        raise RuntimeError(f"the pair rule certifies {certified} < {level}")
    rule = (tau, margin, certified, parts, tops, floor)
    return PairRule(*rule, tuple(float(t) for t in choices[choice]))


def _at_least_one(
    parts: tuple[Part, Part], tops: tuple[int, int], level: float, margin: int | None
) -> PairRule:
    """A rule for ``R >= 1`` (public scales, or every bound at top): ``min_k Λ_k(τ_k, τ_k)``."""
    q_t, q_w = parts[0].q, parts[1].q
    tau = multiplier(q_t, q_w, level)
    taus = np.minimum(block_multipliers(q_t, q_w, level), tau)
    certified = float(block_table(q_t, q_w, taus[None, :], taus[None, :]).min())
    return PairRule(tau, margin, certified, parts, tops, 0, tuple(float(t) for t in taus))
