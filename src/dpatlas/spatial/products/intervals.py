"""Intervals of a released map that keep their promise: per measured unit, per cell, per region.

An interval printed or exported by dpatlas covers the true count with at least its stated
probability, for every method, whatever the data: it is computed from the *raw* release (never
the post-processed estimate) and public quantities only, so it is post-processing.

The contract with release methods
---------------------------------
A method makes its map's intervals possible by saying what its noisy values measure. Either

* **cells** (no ``metadata["hierarchy"]``): ``release.value[i] = count(cell i) + Z_i`` for
  every released cell, the ``Z_i`` independent, of the registered symmetric noise law
  ``release.noise`` with public scale ``release.scale``; or
* **leaves** of a tree: ``metadata["hierarchy"]`` is a released
  :class:`~dpatlas.spatial.tree.hierarchy.Hierarchy` whose leaves tile the grid, and
  ``metadata["leaf_noise"] = {"noise": law, "scale": b}`` (``b`` one number, or one per node):
  every leaf holding a released cell has ``noisy = count(leaf) + Z_leaf``, the ``Z_leaf``
  independent, of that symmetric law and scale, **and independent of the tree's shape** —
  drawn with fresh randomness once the partition is fixed. A leaf without released cells is 0
  for every dataset. A method that refines its partition by looking at noisy counts (say,
  cells measured again inside dense leaves) must make the re-measured units the leaves;
  measurements of inner nodes may feed estimates, never intervals.

:func:`~dpatlas.spatial.methods._tree_release.tree_release` writes the second form. Any method that keeps
the contract gets valid intervals here without a change. The independence matters: which
units a cell or a region falls in depends on the tree, and an interval computed given the
tree covers with probability ``>= level`` for every tree only if the units' noise does not
depend on it.

The constructions (``α = 1 - level``; ``c(·)`` true counts, ``y`` raw measurements)
-------------------------------------------------------------------------------------
* **A measured unit** (cell of a one-level map, leaf of a tree): ``y ± h``, ``h`` the smallest
  with ``P(|Z| <= h) >= level`` — noise only, exact for discrete Laplace, clipped at 0.
* **A cell inside a leaf of several cells**: nothing released says how the leaf's sites spread
  over its cells, so the cell gets ``[0, y_leaf + q]``, ``q`` the one-sided ``level`` quantile:
  ``c(cell) <= c(leaf) <= y_leaf + q`` with probability ``>= level`` ("noise and spread").
* **A region** ``R``: the measured units it holds wholly (``F``) and those it cuts (``P``) give
  ``c(F) <= c(R) <= c(F ∪ P)``. With ``L = y(F) - q₁`` (``q₁`` the ``1 - α₁`` quantile of the
  summed noise of ``F``) and ``U = y(F ∪ P) + q₂`` (the ``1 - α₂`` quantile of the noise of
  ``F ∪ P``), ``P(L <= c(F)) >= 1 - α₁`` and ``P(c(F ∪ P) <= U) >= 1 - α₂``, so by the union
  bound ``P(L <= c(R) <= U) >= 1 - α₁ - α₂ = level``. When ``P`` is empty the two events are the
  two tails of one sum and the interval is the exact equal-tailed one; when ``F`` is empty,
  ``L = 0`` and ``α₂ = α``. ``α₁`` is chosen from public quantities only (the split of ``α``
  giving the narrowest interval for these units). Sums use :class:`._noise_sums.NoiseSum`.

What is counted
---------------
The true count is that of the sites the map counts: those in released cells and, when an
``individual_column`` bounded contributions, only the sites kept (at most ``k`` per
individual, chosen at random). An individual's sites beyond ``k`` are in no count, so no
interval covers them; every sentence that states an interval says so (:func:`kept_sites`).

What is shown beside an estimate
--------------------------------
A map's estimate (posterior medians, a projection, least squares) may fall outside the raw
interval: a posterior median of 4 beside a raw 15 and [9, 21]. Where an interval is shown
beside an estimate (exports' ``ciNN_*`` columns, so files and web-map tooltips; region
queries) :func:`containing` widens it to hold ``max(estimate, 0)``: a superset, so it covers
at least as often. ``Heatmap.confidence_interval`` keeps the interval above.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from dpatlas.core.release import Release, noise_model
from dpatlas.core.validation import check_level
from dpatlas.spatial.grid import Grid
from dpatlas.spatial.methods._tree_release import tree_of
from dpatlas.spatial.products._noise_sums import NoiseSum, one_sided
from dpatlas.spatial.tree.estimates import leaf_of_cell

__all__ = [
    "Interval",
    "Measured",
    "cell_intervals",
    "check_level",
    "containing",
    "kept_sites",
    "region_interval",
]

NOISE_ONLY = "noise"
NOISE_AND_SPREAD = "noise and spread"
_SPLITS = np.arange(1, 20) / 20


def kept_sites(release: Release) -> str:
    """Whose sites the true counts are, in words, or ``""`` when every site is counted.

    When an ``individual_column`` bounded contributions, the counts (and so every interval)
    are of the sites kept, at most ``k`` per individual: an individual's other sites are
    counted nowhere.

    Examples
    --------
    >>> rel = Release(0, 1.0, 0.0, "heatmap/uniform", 2.0, 2.0, "discrete_laplace", False,
    ...               metadata={"contributions_bounded": True, "max_sites_per_individual": 2})
    >>> print(kept_sites(rel))
    of the sites kept, at most 2 per individual (chosen at random): an individual's other sites
    are in no count and no range
    """
    meta = release.metadata
    # files written before the key existed: an individual column was recorded by name
    bounded = meta.get("contributions_bounded", meta.get("individual_column") is not None)
    if not bounded:
        return ""
    k = int(release.metadata["max_sites_per_individual"])
    return (
        f"of the sites kept, at most {k} per individual (chosen at random): an individual's "
        "other sites are in no count and no range"
    )


def containing(
    low: np.ndarray, high: np.ndarray, estimate: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """``[low, high]`` widened to contain ``max(estimate, 0)`` (a superset: coverage cannot drop).

    Examples
    --------
    >>> low, high = containing(np.array([9.0, 0.0]), np.array([21.0, 3.0]), np.array([4.0, -3.0]))
    >>> low.tolist(), high.tolist()
    ([4.0, 0.0], [21.0, 3.0])
    """
    shown = np.maximum(np.asarray(estimate, dtype=np.float64), 0.0)
    return np.minimum(low, shown), np.maximum(high, shown)


@dataclass(frozen=True, eq=False)
class Measured:
    """What a release measured (see the module docstring): units, raw values, noise, cells.

    Attributes
    ----------
    unit : str
        ``"cell"`` (one-level release) or ``"leaf"`` (leaves of a released tree).
    raw : numpy.ndarray
        The raw noisy count of each unit (released values).
    noise : str
        The registered noise law of every unit.
    scale : numpy.ndarray
        The public noise scale of each unit.
    of_cell : numpy.ndarray
        For each released cell (row-major over ``grid.released``), the index of its unit.
    n_cells : numpy.ndarray
        Released cells in each unit.
    node : numpy.ndarray or None
        For leaves, their node index in the release's hierarchy.
    """

    unit: str
    raw: np.ndarray
    noise: str
    scale: np.ndarray
    of_cell: np.ndarray
    n_cells: np.ndarray
    node: np.ndarray | None = None

    @classmethod
    def of(cls, release: Release, grid: Grid) -> Measured:
        """Read the contract from a release of a map on ``grid``.

        Examples
        --------
        >>> import numpy as np, dpatlas.spatial as sp
        >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
        >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
        >>> m = Measured.of(hm.release, g)
        >>> m.unit, m.noise, m.scale.tolist(), m.n_cells.tolist()
        ('cell', 'discrete_laplace', [1.0, 1.0], [1, 1])
        """
        h = tree_of(release)
        if h is None:
            if release.noise is None or release.scale is None:
                raise ValueError(
                    f"release {release.mechanism!r} does not say what its values measure (no "
                    "noise law and public scale per cell, no leaf_noise): no valid interval"
                )
            raw = np.asarray(release.value, dtype=np.float64)
            ones = np.ones(raw.size, dtype=np.int64)
            scale = np.full(raw.size, float(release.scale))
            return cls("cell", raw, release.noise, scale, np.arange(raw.size), ones)
        spec = release.metadata.get("leaf_noise")
        if not isinstance(spec, dict) or "noise" not in spec or "scale" not in spec:
            raise ValueError(
                f"release {release.mechanism!r} has a tree but no metadata['leaf_noise'] "
                "{'noise': law, 'scale': b} for its leaves: no valid interval"
            )
        leaves = np.flatnonzero(h.is_leaf & (h.n_released > 0))
        scales = np.broadcast_to(np.asarray(spec["scale"], dtype=np.float64), (h.size,))
        index = np.full(h.size, -1, dtype=np.int64)
        index[leaves] = np.arange(leaves.size)
        of_cell = index[leaf_of_cell(h, grid.shape)[grid.released]]
        return cls(
            "leaf",
            h.noisy[leaves].astype(np.float64),
            str(spec["noise"]),
            scales[leaves].copy(),
            of_cell,
            h.n_released[leaves].astype(np.int64),
            leaves,
        )

    @property
    def size(self) -> int:
        """Number of measured units."""
        return int(self.raw.size)

    def per_scale(self, fn: Callable[[float], float]) -> np.ndarray:
        """``fn(scale)`` for each unit, computed once per distinct scale."""
        if self.size and self.scale.min() == self.scale.max():  # the usual case: one scale
            return np.full(self.size, fn(float(self.scale[0])))
        values, inverse = np.unique(self.scale, return_inverse=True)
        return np.array([fn(float(b)) for b in values], dtype=np.float64)[inverse.ravel()]

    def halfwidth(self, level: float) -> np.ndarray:
        """Noise-only half-width of each unit: smallest ``h`` with ``P(|Z| <= h) >= level``."""
        model = noise_model(self.noise)
        return self.per_scale(lambda b: model.halfwidth(b, level))

    def intervals(self, level: float = 0.95) -> tuple[np.ndarray, np.ndarray]:
        """Per unit: ``raw ± halfwidth``, clipped at 0 (noise only; covers each unit's count).

        Examples
        --------
        >>> m = Measured("leaf", np.array([10.0, -2.0]), "discrete_laplace", np.full(2, 2.0),
        ...              np.array([0, 0, 1]), np.array([2, 1]))
        >>> [a.tolist() for a in m.intervals(0.95)]
        [[4.0, 0.0], [16.0, 4.0]]
        """
        h = self.halfwidth(check_level(level))
        return np.maximum(self.raw - h, 0.0), np.maximum(self.raw + h, 0.0)


class CellIntervals(NamedTuple):
    """Per released cell: the interval's ends and whether it includes the spread in a leaf."""

    low: np.ndarray
    high: np.ndarray
    spread: np.ndarray


def cell_intervals(measured: Measured, level: float = 0.95) -> CellIntervals:
    """Per released cell, an interval of its true count with probability ``>= level`` each.

    A cell measured on its own (one-level maps; leaves of one released cell) gets its noise-only
    interval; a cell in a leaf of several cells gets ``[0, y_leaf + q]`` (``spread`` True).

    Examples
    --------
    >>> m = Measured("leaf", np.array([10.0, -2.0]), "discrete_laplace", np.full(2, 2.0),
    ...              np.array([0, 0, 1]), np.array([2, 1]))
    >>> low, high, spread = cell_intervals(m, 0.95)
    >>> low.tolist(), high.tolist(), spread.tolist()
    ([0.0, 0.0, 0.0], [15.0, 15.0, 4.0], [True, True, False])
    """
    level = check_level(level)
    low, high = measured.intervals(level)
    if measured.unit == "cell":  # every cell measured on its own
        return CellIntervals(low, high, np.zeros(measured.size, dtype=bool))
    q = measured.per_scale(lambda b: one_sided(measured.noise, b, level))
    upper = np.maximum(measured.raw + q, 0.0)
    unit = measured.of_cell
    spread = measured.n_cells[unit] > 1
    return CellIntervals(
        np.where(spread, 0.0, low[unit]), np.where(spread, upper[unit], high[unit]), spread
    )


class Interval(NamedTuple):
    """A region's interval: its ends, how the noise sums were bounded, and what it covers."""

    low: float
    high: float
    method: str
    covers: str


def region_interval(
    measured: Measured, whole: np.ndarray, cut: np.ndarray, level: float = 0.95
) -> Interval:
    """Interval of ``c(R)`` from the units ``whole``-ly inside ``R`` and those ``cut`` by it.

    See the module docstring for the construction and its proof.

    Examples
    --------
    >>> m = Measured("cell", np.array([10.0, 4.0]), "discrete_laplace", np.full(2, 2.0),
    ...              np.arange(2), np.ones(2, dtype=np.int64))
    >>> region_interval(m, np.array([0, 1]), np.array([], dtype=int))
    Interval(low=6.0, high=22.0, method='exact', covers='noise')
    >>> region_interval(m, np.array([0]), np.array([1]))
    Interval(low=3.0, high=21.0, method='exact', covers='noise and spread')
    >>> region_interval(m, np.array([], dtype=int), np.array([0, 1]))
    Interval(low=0.0, high=20.0, method='exact', covers='noise and spread')
    """
    level = check_level(level)
    alpha = 1 - level
    inner = NoiseSum(measured.noise, measured.scale[whole])
    outer = NoiseSum(measured.noise, measured.scale[np.r_[whole, cut].astype(np.int64)])
    y_in = float(measured.raw[whole].sum())
    y_out = y_in + float(measured.raw[cut].sum())
    if len(cut) == 0:
        q = inner.upper(1 - alpha / 2)
        return Interval(max(y_in - q, 0.0), max(y_in + q, 0.0), inner.method, NOISE_ONLY)
    method = outer.method if inner.method == "exact" else inner.method
    if len(whole) == 0:
        return Interval(0.0, max(y_out + outer.upper(level), 0.0), method, NOISE_AND_SPREAD)
    widths = [inner.upper(1 - s * alpha) + outer.upper(1 - (1 - s) * alpha) for s in _SPLITS]
    s = float(_SPLITS[int(np.argmin(widths))])
    low, high = y_in - inner.upper(1 - s * alpha), y_out + outer.upper(1 - (1 - s) * alpha)
    return Interval(max(low, 0.0), max(high, 0.0), method, NOISE_AND_SPREAD)
