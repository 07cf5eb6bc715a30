"""The result of a private heatmap: the release, the grid, and derived (post-processed) layers."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from dpatlas.core.release import Release
from dpatlas.spatial.grid import Grid
from dpatlas.spatial.methods._tree_release import tree_of
from dpatlas.spatial.products.intervals import Measured, cell_intervals, check_level
from dpatlas.spatial.tree.hierarchy import Hierarchy

__all__ = ["Heatmap"]

_EXPORTED_COLUMNS = ("row", "col", "leaf", "count", "raw", "ci_covers", "geometry")
"""Columns of the exported cells (:meth:`Heatmap.to_geodataframe`) besides the interval's
``ciNN_low`` / ``ciNN_high``: flags, exported beside them, may not take these names."""


def _check_flag_name(name: Any) -> None:
    if not isinstance(name, str):
        raise TypeError(f"flag names must be strings, got {name!r}")
    if name in _EXPORTED_COLUMNS or re.fullmatch(r"ci.*_(low|high)", name):
        columns = ", ".join((*_EXPORTED_COLUMNS, "ciNN_low", "ciNN_high"))
        raise ValueError(
            f"flag name {name!r} is the name of a column of the exported cells ({columns}); "
            f"rename it, e.g. {name + '_flag'!r}"
        )


def _frozen(values: Any) -> np.ndarray:
    if isinstance(values, np.ndarray) and not values.flags.writeable:
        return values
    array = np.array(values)
    array.flags.writeable = False
    return array


@dataclass(frozen=True, eq=False)
class Heatmap:
    """A private heatmap: raw noisy counts (never changed), the release and the public grid.

    Every array over cells is 1-D, one entry per released cell in row-major order over
    ``grid.released`` (row 0 north); :attr:`counts` and :attr:`raw` give the 2-D view.
    Post-processing (:meth:`nonnegative`, :meth:`suppress`, :meth:`query`, exports) reads only
    the release and its public noise scale and returns new objects.

    Attributes
    ----------
    grid : Grid
        The public grid.
    release : Release
        The private release; ``release.value`` holds the raw noisy counts (read-only).
    estimate : numpy.ndarray
        The current estimate per released cell (the raw counts until post-processed).
    flags : Mapping[str, numpy.ndarray]
        Boolean flags per released cell (e.g. ``"suppressed"``), decided on noisy counts only.
        Exports write each as a column beside ``row``, ``col``, ``count``, ``raw``, the interval
        and ``ci_covers``, so a flag may not take one of those names.
    steps : tuple of str
        The post-processing steps applied, in order.
    """

    grid: Grid
    release: Release
    estimate: np.ndarray = field(default=None, repr=False)  # type: ignore[arg-type]
    flags: Mapping[str, np.ndarray] = field(default_factory=dict, repr=False)
    steps: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        raw = np.asarray(self.release.value)
        if raw.shape != (self.grid.n_released,):
            raise ValueError(
                f"release.value must hold one count per released cell ({self.grid.n_released}), "
                f"got shape {raw.shape}"
            )
        if raw.flags.writeable:
            object.__setattr__(
                self, "release", dataclasses.replace(self.release, value=_frozen(raw))
            )
        estimate = self.release.value if self.estimate is None else self.estimate
        object.__setattr__(self, "estimate", _frozen(estimate))
        for name in self.flags:
            _check_flag_name(name)
        object.__setattr__(self, "flags", {k: _frozen(v) for k, v in self.flags.items()})
        for name, values in {"estimate": self.estimate, **self.flags}.items():
            if values.shape != raw.shape:
                raise ValueError(f"{name} must have shape {raw.shape}, got {values.shape}")

    def as_grid(self, values: np.ndarray) -> np.ma.MaskedArray:
        """2-D view of a per-released-cell array, masked where cells are not released."""
        values = np.asarray(values)
        full = np.zeros(self.grid.shape, dtype=values.dtype)
        full[self.grid.released] = values
        return np.ma.MaskedArray(full, mask=~self.grid.released)

    @property
    def raw(self) -> np.ma.MaskedArray:
        """2-D raw noisy counts, masked where cells are not released."""
        return self.as_grid(self.release.value)

    @property
    def counts(self) -> np.ma.MaskedArray:
        """2-D current estimate, masked where cells are not released."""
        return self.as_grid(self.estimate)

    @property
    def mask(self) -> np.ndarray:
        """``ny × nx`` booleans, True for released cells (the grid's public mask)."""
        return self.grid.released

    @property
    def epsilon(self) -> float:
        """Privacy cost of the map (the whole map, by parallel composition)."""
        return self.release.epsilon

    @cached_property
    def hierarchy(self) -> Hierarchy | None:
        """The released tree of a multi-level method (``adaptive``, ``privtree``), else None."""
        return tree_of(self.release)

    @cached_property
    def measured(self) -> Measured:
        """What the release measured: its units (cells or leaves), raw values and noise."""
        return Measured.of(self.release, self.grid)

    def confidence_interval(
        self, level: float = 0.95, *, unit: str = "cell"
    ) -> tuple[np.ndarray, np.ndarray]:
        """Intervals that hold the true count with probability >= ``level`` each (not jointly).

        Computed from the raw release and its public noise only
        (:mod:`~dpatlas.spatial.products.intervals`), so valid whatever post-processing made
        :attr:`estimate`; both ends are clipped at 0 (counts are never negative). The exports
        (:meth:`to_geodataframe` and the files made from it) show each interval beside the
        estimate, widened where needed to contain it
        (:func:`~dpatlas.spatial.products.intervals.containing`).

        ``unit="cell"`` (default): one interval per released cell. A cell measured on its own
        (every cell of a one-level map, a one-cell leaf of a tree) gets the noise-only
        interval of its count. A cell inside a leaf of several cells gets ``[0, upper end of
        its leaf's one-sided interval]``: the release says nothing of how the leaf's sites
        spread over its cells, so that is all that can be promised (valid, wide).
        ``unit="leaf"`` (multi-level releases): one noise-only interval per measured leaf, in
        the order of :attr:`measured` (``measured.node`` gives their nodes).

        Examples
        --------
        >>> import numpy as np, dpatlas.spatial as sp
        >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
        >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
        >>> low, high = hm.confidence_interval(0.95)
        >>> (high - hm.release.value).tolist()
        [3.0, 3.0]
        """
        level = check_level(level)
        m = self.measured
        if unit == "cell":
            low, high, _ = cell_intervals(m, level)
            return low, high
        if unit == "leaf" and m.unit == "leaf":
            return m.intervals(level)
        if unit == "leaf":
            raise ValueError(
                f"unit='leaf' needs a multi-level release; {self.release.mechanism!r} measured "
                "every cell on its own, so use unit='cell'"
            )
        raise ValueError(f'unit must be "cell" or "leaf", got {unit!r}')

    def replace(self, **changes: Any) -> Heatmap:
        """A copy with some fields changed (post-processing uses it).

        A new ``estimate`` is refused once cells are flagged ``"suppressed"``: that flag was
        decided on the current estimate and would no longer mean "below the threshold".
        Suppress last (``sp.empirical_bayes(hm).suppress(5)``).
        """
        kept = "suppressed" in changes.get("flags", self.flags)
        if "estimate" in changes and "suppressed" in self.flags and kept:
            raise ValueError(
                "this map's cells were flagged by suppress() on its current estimate; a new "
                "estimate would leave that flag stale: call suppress last, e.g. "
                "sp.empirical_bayes(hm).suppress(5)"
            )
        return dataclasses.replace(self, **changes)

    def nonnegative(self, *, integer: bool = True) -> Heatmap:
        """Non-negative estimate with the same total; see :func:`.postprocess.nonnegative`."""
        from dpatlas.spatial.products.postprocess import nonnegative

        return nonnegative(self, integer=integer)

    def suppress(self, threshold: float) -> Heatmap:
        """Flag cells whose noisy estimate is below ``threshold``; see :func:`.postprocess.suppress`."""
        from dpatlas.spatial.products.postprocess import suppress

        return suppress(self, threshold)

    def query(self, polygon: Any, *, level: float = 0.95) -> Any:
        """Private estimate of the sites inside ``polygon``; see :func:`.query.region_query`."""
        from dpatlas.spatial.products.query import region_query

        return region_query(self, polygon, level=level)

    def to_geodataframe(self, *, level: float = 0.95, unit: str = "cell") -> Any:
        """Cell (or leaf) polygons with count and interval; see :func:`.export.to_geodataframe`."""
        from dpatlas.spatial.products.export import to_geodataframe

        return to_geodataframe(self, level=level, unit=unit)

    def to_file(self, path: str | Path, **kwargs: Any) -> Path:
        """Write the map as GeoPackage (cells and leaves), GeoJSON, GeoTIFF, PNG or HTML (by the
        suffix); see :func:`.export.to_file`."""
        from dpatlas.spatial.products.export import to_file

        return to_file(self, path, **kwargs)

    def to_html(self, path: str | Path, **kwargs: Any) -> Path:
        """Write a self-contained interactive web map; see :func:`.products.webmap.to_html`."""
        from dpatlas.spatial.products.webmap import to_html

        return to_html(self, path, **kwargs)

    def explore(self, **kwargs: Any) -> Any:
        """An interactive map shown inline in Jupyter; see :func:`.products.webmap.explore`."""
        from dpatlas.spatial.products.webmap import explore

        return explore(self, **kwargs)

    def to_geotiff(self, path: str | Path) -> Path:
        """Write a GeoTIFF raster; see :func:`.formats.geotiff.to_geotiff`."""
        from dpatlas.spatial.products.formats.geotiff import to_geotiff

        return to_geotiff(self, path)

    def plot(self, ax: Any = None, **kwargs: Any) -> Any:
        """Draw the map with ε and mechanism in the title; see :func:`.plot.plot_heatmap`."""
        from dpatlas.spatial.products.plot import plot_heatmap

        return plot_heatmap(self, ax=ax, **kwargs)
