"""Intervals for releases whose noise scale is private: a bought bound and a certified rule.

Setting. A release ``y = f(D) + K`` adds noise whose law depends on the data through one integer
statistic ``a(D)`` in ``[0, top]`` of sensitivity 1 (for triangles ``a_max``, where the ladder
starts). A *noise family* describes the worst noise given a bound, through two vectorised
functions of public values only:

(F1) ``cdf(A, h) <= P(|K| <= h)`` for every dataset with ``a(D) <= A`` and every integer ``h``;
(F2) ``cdf(A, h)`` is non-decreasing in ``h``; ``quantile(A, level)`` is an integer ``h`` with
     ``cdf(A, h) >= level``.

Nothing asks ``cdf`` to fall as ``A`` grows: every step below applies (F1) at the upper end of
a block of ``A``. Families: :class:`~dpatlas.core.noise.local.ladder_exact.SteepLadder` (ladder
releases; (F1) is the steep dominance proved there),
:class:`~dpatlas.core.noise.local.smooth_family.SmoothSteep` (smooth sensitivity) and the k-star families of
:mod:`dpatlas.graph._interval`. A new mechanism whose noise is stochastically bounded through a
statistic plugs in by providing the two functions and ``top``.

The purchase. ``â = a(D) + Z`` with ``Z`` discrete Laplace of scale ``b = 1/ε_I`` is ε_I-DP
(sensitivity 1), so the pair ``(y, â)`` costs ``ε + ε_I`` (sequential composition). The interval
is ``y ± h(â)`` with ``h(x) = H(clip(x + c, 0, top))``: the worst noise quantile at a bound raised
by a margin ``c``. ``H`` is ``quantile(·, 1 - γ_n)`` taken at the grid point at or below its
argument (every integer up to ``600 b + 20 b``, then steps of 0.1%) and made non-decreasing by a
running maximum (a larger ``h`` keeps ``cdf >= 1 - γ_n``). It is computed from ``y``, ``â`` and
public values, so it is post-processing.

Coverage (marginal, over the count noise and the bound's noise, for every dataset). ``K`` and
``Z`` are independent, so for a dataset with statistic ``a``::

    P(f(D) in y ± h(â)) = Σ_z P(Z = z) P(|K| <= h(a + z)) =: C(a),

and (F1) bounds each ``P(|K| <= h)`` below by ``cdf(A, h)`` for any ``A >= a``. A rule
``(c, γ_n)`` is used only when a computed lower bound on ``min_a C(a)`` is at least the level
(:func:`certified_coverage`), evaluated with the very ``H`` the rule uses. Cut
``[0, top]`` into blocks ``[a_lo, a_hi]`` and the integers into blocks ``[z_lo, z_hi]``; for
``a`` and ``z`` in them the monotone ``h`` and (F1) at ``a_hi`` give
``P(|K| <= h(a + z)) >= cdf(a_hi, h(a_lo + z_lo))``. So
``Σ_blocks P(Z in block) cdf(a_hi, h(a_lo + z_lo))`` is at most the coverage of every dataset
whose statistic is in the block; a
block whose bound (less ``1e-9`` for float rounding) is below the level is halved, down to
single values of ``a``, and the rule certifies when every block passes (for large ``a`` a
coarser three-term bound, see :func:`certified_coverage`). Unlike a
union bound (the bound fails with probability ``γ_b``, the noise with ``γ - γ_b``), this counts
what an underestimate ``â < a`` really costs: a slightly narrower interval, rarely a miss, so the
margin ``c`` can be a fraction of the bound's noise scale instead of several times it.

The rule. ``γ_n = NOISE_SHARE · γ`` (``γ = 1 - level``; the 3% kept back pays for the blocks'
pessimism at large ``a``) and ``c`` the smallest integer ``>= 0`` that certifies (coverage grows
with ``c``). When no margin up to ``top`` certifies (tiny graphs, where one unit of the bound is a
large share of it), the rule is the worst case ``h = H(top)`` for every ``â``, valid by (F1)
alone: ``P(|K| <= H(top)) >= cdf(top, H(top)) >= 1 - γ_n``. The constant 0.97 was chosen on
synthetic steep ladders, not on any benchmark graph (``docs/intervals-graphs.md``).
"""

from __future__ import annotations

import math
from collections.abc import Hashable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

import numpy as np

__all__ = [
    "NOISE_SHARE",
    "BoundRule",
    "NoiseFamily",
    "bound_rule",
    "certified_coverage",
    "dlap_cdf",
]

NOISE_SHARE = 0.97
"""Share of ``γ = 1 - level`` the noise quantile may use; the rest is slack for the certificate."""

_ROUNDING = 1e-9
_FINE = 600  # the statistic is scanned in steps of b/4 up to 600 b; beyond, blocks of 0.5%


class NoiseFamily(Hashable, Protocol):
    """The worst noise given a bound ``A`` on the statistic: (F1), (F2) of the module docstring.

    Hashable (e.g. a frozen dataclass of public parameters): rules are cached per family.
    """

    @property
    def top(self) -> int:
        """Largest value the statistic can take."""

    def cdf(self, bound: np.ndarray, h: np.ndarray) -> np.ndarray:
        """Lower bound on ``P(|K| <= h)`` for every dataset whose statistic is ``<= bound``."""

    def quantile(self, bound: np.ndarray, level: float) -> np.ndarray:
        """An integer ``h`` with ``cdf(bound, h) >= level``, non-decreasing in ``bound``."""


@dataclass(frozen=True, eq=False)
class BoundRule:
    """The certified rule ``h(x) = H(clip(x + margin, 0, top))`` (module docstring).

    ``margin`` is None for the worst-case rule ``h = H(top)``; ``grid`` and ``heights`` are
    ``H``: ``heights[i]`` applies to bounds in ``[grid[i], grid[i + 1])``.
    """

    margin: int | None
    noise_level: float
    certified: float
    grid: np.ndarray
    heights: np.ndarray

    def halfwidth(self, noisy: Any) -> np.ndarray:
        """``h(noisy)`` for the noisy bound(s) ``noisy`` (vectorised).

        Examples
        --------
        >>> from dpatlas.core.noise.local.ladder_exact import SteepLadder
        >>> rule = bound_rule(SteepLadder(200, 1.0), 0.9, (2, 1))
        >>> rule.halfwidth([10, 12]).tolist()
        [71, 81]
        """
        x = np.asarray(noisy, dtype=np.float64)
        if self.margin is None:
            return np.broadcast_to(self.heights[-1], x.shape).copy()
        return _lookup(self.grid, self.heights, x + self.margin)


def _lookup(grid: np.ndarray, heights: np.ndarray, bound: np.ndarray) -> np.ndarray:
    return heights[np.searchsorted(grid, np.clip(bound, 0, grid[-1]), side="right") - 1]


def dlap_cdf(z: Any, scale: tuple[int, int]) -> np.ndarray:
    """``P(Z <= z)`` for discrete Laplace ``Z`` of scale ``t/s`` (integer ``z``, vectorised).

    Examples
    --------
    >>> dlap_cdf([-1, 0, 1], (1, 1)).round(4).tolist()
    [0.2689, 0.7311, 0.9011]
    """
    t, s = scale
    zz = np.asarray(z, dtype=np.float64)
    p = math.exp(-s / t)
    with np.errstate(over="ignore", under="ignore"):
        below = np.exp(np.minimum(zz, 0) * s / t) / (1 + p)
        above = 1 - np.exp(-(np.maximum(zz, 0) + 1) * s / t) / (1 + p)
    return np.where(zz < 0, below, above)


def _blocks(start: int, stop: int, width: Any) -> tuple[np.ndarray, np.ndarray]:
    """Consecutive integer blocks ``[lo, hi]`` covering ``start .. stop``; ``width(lo)`` >= 1."""
    edges = [start]
    while edges[-1] <= stop:
        edges.append(edges[-1] + max(1, int(width(edges[-1]))))
    lo = np.array(edges[:-1], dtype=np.float64)
    return lo, np.minimum(np.array(edges[1:], dtype=np.float64) - 1, stop)


def _z_blocks(b: float) -> tuple[np.ndarray, np.ndarray]:
    """Steps of about ``b/12`` on ``[-10b, 5b)``, one block below and one above."""
    step = max(1, int(b / 12))
    edges = np.arange(-math.ceil(10 * b), math.ceil(5 * b) + 1, step, dtype=np.float64)
    return np.concatenate([[-np.inf], edges]), np.concatenate([edges - 1, [np.inf]])


def _bound_grid(top: int, dense: int) -> np.ndarray:
    """Every integer up to ``dense``, then steps of 0.1%: the bounds where ``H`` is evaluated."""
    grid = np.arange(min(top, dense) + 1, dtype=np.float64)
    if top > dense:
        steps = np.arange(1, math.ceil(math.log(top / dense, 1.001)) + 1)
        grid = np.concatenate([grid, np.minimum(np.floor(dense * 1.001**steps), top), [top]])
    return np.unique(grid)


class _Certifier:
    """The parts of :func:`certified_coverage` that do not depend on the margin, computed once."""

    def __init__(self, family: NoiseFamily, noise_level: float, scale: tuple[int, int]) -> None:
        self.family, self.noise_level, self.scale = family, noise_level, scale
        top, self.b = family.top, scale[0] / scale[1]
        self.fine = min(top, math.ceil(_FINE * self.b))
        self.grid = _bound_grid(top, self.fine + math.ceil(20 * self.b))
        self.heights = np.maximum.accumulate(family.quantile(self.grid, noise_level))
        z_lo, z_hi = _z_blocks(self.b)
        self.z_lo, self.weight = z_lo, dlap_cdf(z_hi, scale) - dlap_cdf(z_lo - 1, scale)
        p = math.exp(-1 / self.b)
        self.reach = math.ceil(self.b * math.log(400 / ((1 - noise_level) * (1 + p))))

    def rule(self, margin: int | None, certified: float) -> BoundRule:
        return BoundRule(margin, self.noise_level, certified, self.grid, self.heights)

    def bounds(self, margin: int, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
        """A lower bound on ``C(a)`` for every ``a`` in each block ``[lo, hi]`` (less rounding)."""
        h = self.rule(margin, 0.0).halfwidth
        out = np.empty(lo.size)
        near = lo <= self.fine
        if near.any():
            rows = lo[near][:, None] + self.z_lo[None, :]
            out[near] = self.family.cdf(hi[near][:, None], h(rows)) @ self.weight
        if not near.all():
            reach = max(self.reach - margin, 0)  # P(Z < -margin - reach) <= γ/400
            below = dlap_cdf(np.array([-margin - 1, -margin - reach - 1]), self.scale)
            inside, short = 1 - float(below[0]), float(below[0] - below[1])
            head = self.family.cdf(hi[~near], h(lo[~near] - margin))
            coarse = self.family.cdf(hi[~near], h(lo[~near] - reach - margin))
            out[~near] = inside * head + short * coarse
        return out - _ROUNDING

    def coverage(self, margin: int, target: float | None = None) -> float:
        """The certified coverage of ``margin`` (see :func:`certified_coverage`)."""
        b, top = self.b, self.family.top
        fine = _blocks(0, self.fine, lambda lo: b / 4 if target is None else b)
        far = _blocks(self.fine + 1, top, lambda lo: 0.005 * lo) if self.fine < top else None
        lo = fine[0] if far is None else np.concatenate([fine[0], far[0]])
        hi = fine[1] if far is None else np.concatenate([fine[1], far[1]])
        worst = math.inf
        while lo.size:
            values = self.bounds(margin, lo, hi)
            bad = values < (-math.inf if target is None else target)
            if (bad & (lo == hi)).any():  # an exact value of the statistic fails
                return float(values[bad & (lo == hi)].min())
            worst = min(worst, float(values[~bad].min())) if (~bad).any() else worst
            mid = np.floor((lo[bad] + hi[bad]) / 2)
            lo, hi = np.concatenate([lo[bad], mid + 1]), np.concatenate([mid, hi[bad]])
        return worst


def certified_coverage(
    family: NoiseFamily,
    margin: int,
    noise_level: float,
    scale: tuple[int, int],
    target: float | None = None,
) -> float:
    """A lower bound on the coverage of the rule ``(margin, noise_level)`` for every dataset.

    ``scale`` is the exact ``(t, s)`` of the bound's discrete Laplace noise. Up to ``600 b`` the
    statistic is scanned in blocks (of ``b/4``; with a ``target``, of ``b``, halved while a
    block's bound is below the target, down to single values) against blocks of ``b/12`` of the
    bound's noise (module docstring). Beyond, blocks of 0.5% with a coarser three-term bound:
    ``cdf(a_hi, h(a_lo - c))`` for ``z >= -c``, ``cdf(a_hi, h(a_lo - j - c))`` for
    ``-c - j <= z < -c``, and 0 below (``j`` leaves ``P(Z < -c - j)`` under ``γ/400``). With a
    ``target`` the result is below it only if some single value of the statistic fails.

    Examples
    --------
    >>> from dpatlas.core.noise.local.ladder_exact import SteepLadder
    >>> fam = SteepLadder(200, 1.0)
    >>> certified_coverage(fam, 0, 0.903, (2, 1)) < 0.9 <= certified_coverage(fam, 2, 0.903, (2, 1))
    True
    """
    return _Certifier(family, noise_level, scale).coverage(margin, target)


@lru_cache(maxsize=512)
def bound_rule(family: NoiseFamily, level: float, scale: tuple[int, int]) -> BoundRule:
    """The rule of the module docstring for ``level``: ``γ_n = 0.97 γ``, the least margin.

    Examples
    --------
    >>> from dpatlas.core.noise.local.ladder_exact import SteepLadder
    >>> rule = bound_rule(SteepLadder(200, 1.0), 0.9, (2, 1))
    >>> rule.margin, round(rule.noise_level, 3), rule.certified >= 0.9
    (1, 0.903, True)
    """
    noise_level = 1.0 - NOISE_SHARE * (1.0 - float(level))
    certifier = _Certifier(family, noise_level, scale)

    def coverage(margin: int) -> float:
        return certifier.coverage(margin, level)

    covers = {0: coverage(0)}
    if covers[0] >= level:
        return certifier.rule(0, covers[0])
    bad, good = 0, max(1, round(scale[0] / scale[1]))
    while covers.setdefault(good, coverage(good)) < level:
        if good >= family.top:  # no margin certifies: the worst case, valid by (F1)
            return certifier.rule(None, noise_level)
        bad, good = good, min(2 * good, family.top)
    while good - bad > 1:
        mid = (bad + good) // 2
        covers[mid] = coverage(mid)
        bad, good = (bad, mid) if covers[mid] >= level else (mid, good)
    return certifier.rule(good, covers[good])
