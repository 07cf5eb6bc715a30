"""Intervals of graph counts released with a data-dependent noise scale and a bought bound (internal).

Shared by :mod:`dpatlas.graph.triangles` (bound on ``a_max``), :mod:`dpatlas.graph.kstars`
(``c_max`` for 2-stars, ``d_max`` for larger stars) and, through them,
:mod:`dpatlas.graph.clustering`. The release metadata holds ``noisy_<bound>``: the statistic
plus discrete Laplace noise of scale ``1/interval_epsilon`` (the statistic has edge sensitivity
1, so this costs ``interval_epsilon``), and the public facts the interval needs.
:mod:`dpatlas.core.interval` turns the noisy bound into a half-width whose coverage, over the
count noise and the bound noise together, is certified to be at least the level for every
graph; it needs a *noise family*: the worst noise given a bound on the statistic.

Triangles and 2-stars (:func:`noise_family`): the ladder (``LS(t)``, ``U(t)``, or the 2-star
ladder ``min(GS, c_max + t)``) starts at the bounded statistic and climbs by 0 or 1 per step, so
its release noise is stochastically below the steep ladder's from any upper bound
(:mod:`dpatlas.core.noise.local.ladder_exact`; for the piecewise ladder, whose widths are raised to
its public floor, :class:`~dpatlas.core.noise.local.piecewise_steep.SteepPiecewise`); smooth noise
grows with the steep ladder's smooth bound (:class:`~dpatlas.core.noise.local.smooth_family.SmoothSteep`).
:mod:`dpatlas.core.interval` turns the noisy bound into a half-width whose coverage, over the
count noise and the bound noise together, is certified to be at least the level for every graph.

Larger stars (:class:`StarLadders`, :class:`SmoothStars`): their ladder climbs faster than one
per step; :mod:`dpatlas.graph.exact.kstar_envelope` builds, for every bound ``D`` on ``d_max``,
a ladder that depth-dominates the k-star ladder of every graph with ``d_max <= D`` (checked
rung by rung), and the pair ladder ``V(D, D)`` bounds the smooth sensitivity.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from dpatlas.core.accounting.cost import exact_epsilon
from dpatlas.core.interval import NoiseFamily, bound_rule
from dpatlas.core.noise.discrete_laplace import rational_scale
from dpatlas.core.noise.local.ladder import step_scale
from dpatlas.core.noise.local.ladder_dominance import LadderTable
from dpatlas.core.noise.local.ladder_exact import SteepLadder
from dpatlas.core.noise.local.piecewise_ladder import default_floor
from dpatlas.core.noise.local.piecewise_steep import SteepPiecewise
from dpatlas.core.noise.local.smooth import smooth_beta
from dpatlas.core.noise.local.smooth_family import SmoothFamily, SmoothSteep
from dpatlas.core.release import Release
from dpatlas.core.validation import check_level
from dpatlas.graph.exact.kstar_envelope import star_envelope, star_smooth_bounds

__all__ = [
    "BoundedRelease",
    "CountRelease",
    "SmoothStars",
    "StarLadders",
    "bounded_halfwidth",
    "check_level",
    "interval_inputs",
    "interval_note",
]


def interval_note(covers: str, kind: str, cost: float = 0.0, bound: str | None = None) -> dict:
    """The metadata that says what ``confidence_interval(level)`` of a graph release means.

    ``kind`` is ``"noise only"`` (public noise scale: the interval is the noise quantile),
    ``"noise and bound"`` (private scale bounded by a bought noisy ``bound``; coverage is over
    both noises) or ``"none"`` (no interval: the scale is private and no bound was bought).

    Examples
    --------
    >>> interval_note("the exact edge count", "noise only")["coverage"]
    'at least the level, for every graph: the exact noise quantile at the public scale'
    """
    coverage = {
        "noise only": "at least the level, for every graph: the exact noise quantile at the "
        "public scale",
        "noise and bound": "at least the level, for every graph, over the noise of the count "
        "and the noise of the bought bound together (marginal, not conditional on the bound)",
        "none": "no interval: the noise scale depends on the graph; buy one with interval_epsilon",
    }[kind]
    note: dict[str, Any] = {"covers": covers, "kind": kind, "coverage": coverage}
    if kind != "none":
        note["cost_epsilon"] = cost
    if bound is not None:
        note["bound"] = bound
    return note


DENSE = 1024
"""Bounds on ``d_max`` up to here get their own dominating ladder; beyond, every 0.3%."""
_STEP = 1.003
_TAIL = 1e-6  # weight of the GS rungs after the explicit ones is below this (Z >= 1)


def _star_grid(c: int) -> np.ndarray:
    """Every integer up to ``DENSE``, then steps of 0.3% up to ``c`` (the bounds ``D'`` used)."""
    grid = np.arange(min(c, DENSE) + 1, dtype=np.int64)
    if c > DENSE:
        steps = np.arange(1, math.ceil(math.log(c / DENSE, _STEP)) + 1)
        grid = np.concatenate([grid, np.ceil(DENSE * _STEP**steps).astype(np.int64), [c]])
    return np.unique(np.minimum(grid, c))


@lru_cache(maxsize=8)
def _star_table(n: int, k: int, epsilon: float) -> tuple[np.ndarray, LadderTable]:
    """The grid of bounds and its dominating ladders (:func:`star_envelope`), as a table."""
    c = n - 2
    gs = 2 * math.comb(c, k - 1)
    t, s = step_scale(epsilon)
    rungs = max(8, math.ceil((math.log(2 * gs / -math.expm1(-s / t)) - math.log(_TAIL)) * t / s))
    grid = _star_grid(c)
    return grid, LadderTable(star_envelope(n, k, grid, rungs), gs, epsilon)


@dataclass(frozen=True)
class StarLadders:
    """Ladder releases of k-star counts (``k >= 3``) on ``n`` nodes, bounded through ``d_max``.

    ``cdf(A, h)`` is the exact ``P(|noise| <= h)`` under the dominating ladder of the first grid
    bound ``>= min(floor(A), n - 2)`` (:func:`~dpatlas.graph.exact.kstar_envelope.star_envelope`,
    a larger bound dominates a larger class), so it is a lower bound for every graph with
    ``d_max <= A``: (F1) of :mod:`dpatlas.core.interval`.

    Examples
    --------
    >>> fam = StarLadders(100, 3, 1.0)
    >>> fam.top, fam.quantile(np.array([5, 20]), 0.9).tolist()
    (99, [402, 2291])
    """

    n: int
    k: int
    epsilon: float

    @property
    def top(self) -> int:
        """Largest value of ``d_max`` on ``n`` nodes."""
        return max(self.n - 1, 0)

    def _rows(self, bound: Any) -> tuple[np.ndarray, LadderTable]:
        grid, table = _star_table(self.n, self.k, self.epsilon)
        d = np.clip(np.floor(np.asarray(bound, dtype=np.float64)), 0, grid[-1])
        return np.searchsorted(grid, d, side="left"), table

    def cdf(self, bound: np.ndarray, h: np.ndarray) -> np.ndarray:
        """``P(|noise| <= h)`` under the dominating ladder of ``bound``."""
        rows, table = self._rows(bound)
        return table.cdf(rows, h)

    def quantile(self, bound: np.ndarray, level: float) -> np.ndarray:
        """Smallest ``h`` with ``cdf(bound, h) >= level``."""
        rows, table = self._rows(bound)
        return table.quantile(rows, level)


@lru_cache(maxsize=8)
def _star_smooth(n: int, k: int, beta: float) -> np.ndarray:
    return star_smooth_bounds(n, k, beta)


@dataclass(frozen=True)
class SmoothStars(SmoothFamily):
    """Smooth releases of k-star counts (``k >= 3``) on ``n`` nodes, bounded through ``d_max``.

    ``S(A)`` is the smooth bound of the pair ladder ``V(D', D')``, ``D' = min(floor(A), n - 2)``,
    pointwise above every k-star ladder with ``d_max <= A``
    (:func:`~dpatlas.graph.exact.kstar_envelope.star_smooth_bounds`).

    Examples
    --------
    >>> fam = SmoothStars(100, 3, 1.0, 0.0)
    >>> fam.top, fam.quantile(np.array([5, 20]), 0.9).tolist()
    (99, [906, 14396])
    """

    n: int
    k: int
    epsilon: float
    delta: float

    @property
    def top(self) -> int:
        """Largest value of ``d_max`` on ``n`` nodes."""
        return max(self.n - 1, 0)

    def smooth(self, bound: np.ndarray) -> np.ndarray:
        """``max_t e^{-βt} V_t(D', D')``."""
        table = _star_smooth(self.n, self.k, smooth_beta(self.epsilon, self.delta))
        d = np.clip(np.floor(np.asarray(bound, dtype=np.float64)), 0, table.size - 1)
        return table[d.astype(np.int64)]


def noise_family(meta: Any) -> NoiseFamily:
    """The noise family of a ladder / smooth release (public facts in ``meta``)."""
    gs, eps = int(meta["global_sensitivity"]), float(meta["count_epsilon"])
    k = int(meta.get("k", 2))
    if meta["method"] == "smooth":
        if k >= 3:
            return SmoothStars(int(meta["n"]), k, eps, float(meta["delta"]))
        return SmoothSteep(gs, eps, float(meta["delta"]))
    if k >= 3:
        return StarLadders(int(meta["n"]), k, eps)
    if meta["method"] == "piecewise":
        return SteepPiecewise(gs, eps, int(meta["floor"]))
    return SteepLadder(gs, eps)


def interval_inputs(
    method: str,
    global_sensitivity: int,
    epsilon: float,
    interval_epsilon: float,
    delta: float = 0.0,
    floor: int | None = None,
    *,
    n: int | None = None,
    k: int = 2,
) -> dict[str, Any]:
    """The public facts :func:`bounded_halfwidth` reads from a release's metadata.

    ``k`` (with ``n``) only for k-stars with ``k >= 3``. ``floor`` is the piecewise release's
    public floor (default ``⌈4/ε⌉`` capped at ``GS``, as the release uses it).

    Examples
    --------
    >>> bounded_halfwidth(interval_inputs("ladder", 32, 1.0, 0.5), 0.9, 7).tolist()
    58
    """
    if floor is None:
        floor = min(default_floor(epsilon), global_sensitivity)
    meta = {
        "method": method,
        "global_sensitivity": global_sensitivity,
        "count_epsilon": epsilon,
        "interval_epsilon": interval_epsilon,
        "delta": delta,
        "floor": floor,
        "k": k,
    }
    if n is not None:
        meta["n"] = n
    return meta


def bounded_halfwidth(meta: Any, level: float, noisy: Any) -> np.ndarray:
    """Half-widths ``h(noisy)`` of the certified rule at ``level`` (vectorised over ``noisy``)."""
    scale = rational_scale(1 / exact_epsilon(meta["interval_epsilon"]))
    return bound_rule(noise_family(meta), level, scale).halfwidth(noisy)


class CountRelease(Release):
    """A released count: its interval is cut at 0 (``[max(low, 0), max(high, 0)]``).

    A count is never negative, so the intersection with ``[0, ∞)`` contains the count whenever
    the uncut interval does (coverage cannot drop), and a small graph's interval does not read
    ``[-83, 155]``. The point estimate ``value`` is the unbiased noisy count and may still be
    negative.
    """

    def confidence_interval(self, level: float = 0.95) -> tuple[Any, Any]:
        """Interval containing the exact count with probability ``>= level``, cut at 0."""
        low, high = self._uncut(level)
        return max(low, 0), max(high, 0)

    def _uncut(self, level: float) -> tuple[Any, Any]:
        return super().confidence_interval(level)


class BoundedRelease(CountRelease, ABC):
    """A count whose ladder / smooth interval needs a bought noisy bound (``metadata["interval"]``).

    ``confidence_interval(level)`` contains the exact count with probability ``>= level``;
    ``metadata["interval"]`` says what it covers and how (count's module docstring). It is cut
    at 0 like every :class:`CountRelease`.
    """

    def confidence_interval(self, level: float = 0.95) -> tuple[Any, Any]:
        """Interval containing the exact count with probability ``>= level``, cut at 0."""
        if self.metadata.get("constant"):
            check_level(level)  # refused like every other interval's
            return self.value, self.value
        return super().confidence_interval(level)

    def _uncut(self, level: float) -> tuple[Any, Any]:
        if "bound" not in self.metadata.get("interval", {}):
            return super()._uncut(level)
        h = self._halfwidth(check_level(level))
        return self.value - h, self.value + h

    @abstractmethod
    def _halfwidth(self, level: float) -> int:
        """Noise half-width: the interval is ``value ± h``."""
