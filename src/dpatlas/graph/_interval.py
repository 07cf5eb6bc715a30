"""Intervals of graph counts released with a data-dependent noise scale and a bought bound (internal).

Shared by :mod:`dpatlas.graph.triangles` (bound on ``a_max``), :mod:`dpatlas.graph.kstars`
(``c_max`` for 2-stars, ``d_max`` for larger stars) and, through them,
:mod:`dpatlas.graph.clustering`. The release metadata holds ``noisy_<bound>``: the statistic
plus discrete Laplace noise of scale ``1/interval_epsilon`` (the statistic has edge sensitivity
1, so this costs ``interval_epsilon``), and the public facts the interval needs.

Triangles and 2-stars (:func:`steep_halfwidth`): the ladder (``LS(t)``, ``U(t)``, or the 2-star
ladder ``min(GS, c_max + t)``) starts at the bounded statistic and climbs by 0 or 1 per step, so
its release noise is stochastically below the steep ladder's from any upper bound
(:mod:`dpatlas.core.noise.ladder_exact`; for the piecewise ladder, whose widths are raised to
its public floor, :class:`~dpatlas.core.noise.piecewise_exact.SteepPiecewise`); smooth noise
grows with the steep ladder's smooth bound (:class:`~dpatlas.core.noise.smooth.SmoothSteep`).
:mod:`dpatlas.core.interval` turns the noisy bound into a half-width whose coverage, over the
count noise and the bound noise together, is certified to be at least the level for every graph.

Larger stars (:func:`two_sided_halfwidth`): their ladder climbs faster than one per step, so the
steep family does not apply. With ``h`` the ``γ/4`` one-sided quantile of the bound noise,
``noisy + h`` bounds the statistic from above and ``noisy - h`` from below, each failing with
probability ``<= γ/4``; every ladder of the count then lies between the ladders built from those
two values, and a tail bound valid for all of them takes the remaining ``γ/2`` (ladder) or
``3γ/4`` (smooth): a union bound, valid but wider.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import Any

import numpy as np

from dpatlas.core.interval import NoiseFamily, bound_rule
from dpatlas.core.noise.discrete_laplace import rational_scale, upper_tail_bound
from dpatlas.core.noise.ladder_exact import SteepLadder, ladder_halfwidth
from dpatlas.core.noise.piecewise_exact import SteepPiecewise
from dpatlas.core.noise.piecewise_ladder import default_floor
from dpatlas.core.noise.smooth import SmoothSteep, smooth_bound, smooth_halfwidth
from dpatlas.core.release import Release

__all__ = [
    "BoundedRelease",
    "check_level",
    "interval_inputs",
    "interval_note",
    "steep_halfwidth",
    "two_sided_halfwidth",
]


def check_level(level: Any) -> float:
    """``level`` as a float in (0, 1), or the ValueError every interval raises."""
    if isinstance(level, bool) or not (isinstance(level, (int, float)) and 0.0 < level < 1.0):
        raise ValueError(f"level must be in (0, 1), got {level!r}; e.g. 0.95 for a 95% interval")
    return float(level)


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


def steep_family(meta: Any) -> NoiseFamily:
    """The noise family of a ladder / smooth release on a steep-dominated ladder (public facts)."""
    gs, eps = int(meta["global_sensitivity"]), float(meta["count_epsilon"])
    if meta["method"] == "smooth":
        return SmoothSteep(gs, eps, float(meta["delta"]))
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
) -> dict[str, Any]:
    """The public facts :func:`steep_halfwidth` reads from a release's metadata.

    ``floor`` is the piecewise release's public floor (default ``⌈4/ε⌉`` capped at ``GS``, as
    the release uses it).

    Examples
    --------
    >>> steep_halfwidth(interval_inputs("ladder", 32, 1.0, 0.5), 0.9, 7).tolist()
    58
    """
    if floor is None:
        floor = min(default_floor(epsilon), global_sensitivity)
    return {
        "method": method,
        "global_sensitivity": global_sensitivity,
        "count_epsilon": epsilon,
        "interval_epsilon": interval_epsilon,
        "delta": delta,
        "floor": floor,
    }


def steep_halfwidth(meta: Any, level: float, noisy: Any) -> np.ndarray:
    """Half-widths ``h(noisy)`` of the certified rule at ``level`` (vectorised over ``noisy``)."""
    scale = rational_scale(1 / float(meta["interval_epsilon"]))
    return bound_rule(steep_family(meta), level, scale).halfwidth(noisy)


class BoundedRelease(Release, ABC):
    """A release whose ladder / smooth interval needs a bought noisy bound (``metadata["interval"]``)."""

    def confidence_interval(self, level: float = 0.95) -> tuple[Any, Any]:
        """Interval containing the exact count with probability ``>= level``.

        ``metadata["interval"]`` says what it covers and how (count's module docstring).
        """
        meta = self.metadata
        if meta.get("constant"):
            return self.value, self.value
        if "bound" not in meta.get("interval", {}):
            return super().confidence_interval(level)
        h = self._halfwidth(check_level(level))
        return self.value - h, self.value + h

    @abstractmethod
    def _halfwidth(self, level: float) -> int:
        """Noise half-width: the interval is ``value ± h``."""


def two_sided_halfwidth(
    meta: Any,
    gamma: float,
    bound: str,
    upper: Callable[[int], np.ndarray],
    lower: Callable[[int], np.ndarray],
) -> int:
    """Half-width failing with probability ``<= γ``; ``upper`` / ``lower`` build the ladders."""
    gs, eps = meta["global_sensitivity"], meta["count_epsilon"]
    t, s = rational_scale(1 / float(meta["interval_epsilon"]))
    h = upper_tail_bound(t / s, gamma / 4)
    noisy = meta[f"noisy_{bound}"]
    high = upper(noisy + h)
    if meta["method"] == "smooth":
        scale_bound = smooth_bound(high, meta["beta"], global_sensitivity=gs)
        return smooth_halfwidth(scale_bound, eps, meta["delta"], 1.0 - 3 * gamma / 4)
    return ladder_halfwidth(high, lower(noisy - h), eps, 1.0 - gamma / 2, global_sensitivity=gs)
