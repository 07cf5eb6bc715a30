"""Measure the intervals of released maps against the truth: coverage and width (issue 15).

:func:`map_intervals` collects, from one released :class:`~dpatlas.spatial.Heatmap` and the
exact sites, every interval the library gives per cell, per measured leaf and per region
(``Heatmap.query`` on rectangles not aligned to the cells), with the true count, the value a
user reads beside it (the estimate) and the raw released value. :class:`Measurement` pools
them over maps and reports coverage and width ÷ the central 95% range of the actual error.

:func:`coverage_floor` is the check of the fast tests: with ``n`` independent intervals each
covering with probability ``>= level``, the number of hits is stochastically at least
``Binomial(n, level)``, so fewer hits than its ``alpha`` quantile (``alpha`` tiny) means the
intervals do not keep their promise. Independence is the caller's job: cells of one leaf share
its noise, regions of one map share units, so tests keep one interval per ``group``
(:meth:`Measurement.one_per_group`); the leaves of one map and the cells of a one-level map are
independent given the map's partition, which is all the bound needs.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from scipy import stats

from dpatlas.spatial import Grid, Heatmap, bin_points, cell_of

__all__ = [
    "Measurement",
    "assert_coverage",
    "coverage_floor",
    "map_intervals",
    "old_even_spread",
    "rectangles",
]


def coverage_floor(n: int, level: float, alpha: float = 1e-6) -> int:
    """Largest ``k`` with ``P(Binomial(n, level) < k) <= alpha``: fewer hits fail the check."""
    return int(stats.binom.ppf(alpha, n, level))


def assert_coverage(hits: int, n: int, level: float, what: str, alpha: float = 1e-6) -> None:
    """Fail when ``hits`` of ``n`` independent ``level`` intervals is too few to be chance."""
    floor = coverage_floor(n, level, alpha)
    assert hits >= floor, (
        f"{what}: {hits} of {n} intervals cover ({hits / n:.4f}), below the {level:g} nominal "
        f"by more than chance (floor {floor} at alpha={alpha:g})"
    )


@dataclass
class Measurement:
    """Intervals of one kind (cell, leaf or region) pooled over maps."""

    low: list[np.ndarray] = field(default_factory=list)
    high: list[np.ndarray] = field(default_factory=list)
    truth: list[np.ndarray] = field(default_factory=list)
    estimate: list[np.ndarray] = field(default_factory=list)
    raw: list[np.ndarray] = field(default_factory=list)
    group: list[np.ndarray] = field(default_factory=list)
    old_low: list[np.ndarray] = field(default_factory=list)
    old_high: list[np.ndarray] = field(default_factory=list)
    spread: list[np.ndarray] = field(default_factory=list)
    maps: int = 0

    def add(self, **parts: np.ndarray) -> None:
        for name, values in parts.items():
            getattr(self, name).append(np.asarray(values, dtype=np.float64))

    def _all(self, name: str) -> np.ndarray:
        parts = getattr(self, name)
        return np.concatenate(parts) if parts else np.empty(0)

    @property
    def n(self) -> int:
        return int(self._all("truth").size)

    def covered(self, old: bool = False) -> np.ndarray:
        """Hits of the intervals (``old=True``: of the pre-issue-15 intervals, for contrast)."""
        truth = self._all("truth")
        low, high = ("old_low", "old_high") if old else ("low", "high")
        return (self._all(low) <= truth) & (truth <= self._all(high))

    def coverage(self) -> float:
        return float(self.covered().mean())

    def width_ratio(self, against: str = "estimate") -> float:
        """Median width ÷ width of the central 95% of ``against - truth`` (pooled)."""
        error = self._all(against) - self._all("truth")
        errors = float(np.quantile(error, 0.975) - np.quantile(error, 0.025))
        width = float(np.median(self._all("high") - self._all("low")))
        return width / errors if errors > 0 else float("inf")

    def spread_cells(self) -> tuple[float, float, float, float]:
        """Occupied cells (true count > 0) whose interval allows for the spread in a leaf:
        their share, and medians of their width, true count and absolute error of the estimate."""
        truth = self._all("truth")
        occupied = truth > 0
        chosen = (self._all("spread") > 0) & occupied
        if not chosen.any():
            return 0.0, 0.0, 0.0, 0.0
        width = self._all("high") - self._all("low")
        error = np.abs(self._all("estimate") - truth)
        return (
            float(chosen.sum() / occupied.sum()),
            float(np.median(width[chosen])),
            float(np.median(truth[chosen])),
            float(np.median(error[chosen])),
        )

    def one_per_group(self, gen: np.random.Generator, old: bool = False) -> np.ndarray:
        """Coverage hits of one interval per group, chosen at random (independent of noise)."""
        group = self._all("group")
        order = gen.permutation(group.size)
        _, first = np.unique(group[order], return_index=True)
        return self.covered(old)[order[first]]


def rectangles(
    grid: Grid, count: int, gen: np.random.Generator, lo: float = 0.02, hi: float = 1.0
) -> np.ndarray:
    """``count`` random rectangles ``(x0, y0, x1, y1)`` inside the grid: sides uniform in
    ``[lo, hi]`` of the extent's, corners anywhere (not aligned to the cells)."""
    x0, y0, x1, y1 = grid.bounds
    w = gen.uniform(lo, hi, count) * (x1 - x0)
    h = gen.uniform(lo, hi, count) * (y1 - y0)
    left = x0 + gen.uniform(0, 1, count) * (x1 - x0 - w)
    bottom = y0 + gen.uniform(0, 1, count) * (y1 - y0 - h)
    return np.c_[left, bottom, left + w, bottom + h]


def _cell_truth(hm: Heatmap, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    return bin_points(hm.grid, x, y)[hm.grid.released].astype(np.float64)


def _kept(hm: Heatmap, x: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The sites the map counts: those in released cells (binned as the map bins them)."""
    flat = cell_of(hm.grid, x, y)
    keep = flat >= 0
    keep[keep] = hm.grid.released.ravel()[flat[keep]]
    return x[keep], y[keep]


def map_intervals(
    hm: Heatmap,
    x: np.ndarray,
    y: np.ndarray,
    boxes: np.ndarray,
    *,
    level: float,
    index: int,
    out: dict[str, Measurement],
) -> None:
    """Add this map's cell, leaf and region intervals (and truths) to ``out``."""
    from shapely.geometry import box

    m = hm.measured
    truth = _cell_truth(hm, x, y)
    low, high = hm.confidence_interval(level)
    spread = m.n_cells[m.of_cell] > 1  # the interval allows for the spread inside a leaf
    old_low, old_high = old_even_spread(hm, level)
    raw = np.asarray(hm.release.value, dtype=np.float64)
    out.setdefault("cell", Measurement()).add(
        low=low,
        high=high,
        truth=truth,
        estimate=hm.estimate,
        raw=raw,
        group=index * 10**7 + m.of_cell,
        old_low=old_low,
        old_high=old_high,
        spread=spread,
    )
    out["cell"].maps += 1
    if m.unit == "leaf":
        leaf_low, leaf_high = hm.confidence_interval(level, unit="leaf")
        out.setdefault("leaf", Measurement()).add(
            low=leaf_low,
            high=leaf_high,
            truth=np.bincount(m.of_cell, weights=truth, minlength=m.size),
            estimate=np.bincount(m.of_cell, weights=hm.estimate, minlength=m.size),
            raw=m.raw,
            group=index * 10**7 + np.arange(m.size),
            old_low=leaf_low,
            old_high=leaf_high,
        )
        out["leaf"].maps += 1
    kx, ky = _kept(hm, x, y)
    answers = [hm.query(box(*b), level=level) for b in boxes]
    inside = (
        (kx[None, :] >= boxes[:, :1])
        & (kx[None, :] < boxes[:, 2:3])
        & (ky[None, :] >= boxes[:, 1:2])
        & (ky[None, :] < boxes[:, 3:4])
    )
    estimates = np.array([a.estimate for a in answers])
    z = stats.norm.ppf((1 + level) / 2)  # the pre-issue-15 region interval: normal, noise only
    half = z * np.sqrt([a.variance for a in answers])
    out.setdefault("region", Measurement()).add(
        low=np.array([a.ci_low for a in answers]),
        high=np.array([a.ci_high for a in answers]),
        truth=inside.sum(axis=1),
        estimate=estimates,
        raw=estimates,
        group=np.full(len(boxes), index),
        old_low=np.maximum(estimates - half, 0),
        old_high=estimates + half,
    )
    out["region"].maps += 1


def old_even_spread(hm: Heatmap, level: float) -> tuple[np.ndarray, np.ndarray]:
    """The per-cell interval dpatlas printed before issue 15 (WRONG for multi-level maps).

    A leaf's interval shared evenly among its cells: it covers the leaf's average per cell,
    not the cell. Kept here only to show that the coverage check catches it.
    """
    m = hm.measured
    low, high = m.intervals(level)
    per = m.n_cells[m.of_cell]
    return low[m.of_cell] / per, high[m.of_cell] / per
