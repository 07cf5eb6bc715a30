"""Region queries answered from a released heatmap (post-processing: no privacy cost)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import TYPE_CHECKING, Any

import numpy as np

from dpatlas.spatial._mask import cell_coverage, study_area_geometry
from dpatlas.spatial.tree.estimates import leaf_of_cell
from dpatlas.spatial.tree.hierarchy import Hierarchy, least_squares, query_variance

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = ["RegionEstimate", "region_query", "sum_halfwidth"]

_MAX_LATTICE = 1 << 22


@dataclass(frozen=True)
class RegionEstimate:
    """Private estimate of the number of sites in a region, with its noise interval.

    ``interval`` says how the interval was computed: ``"exact"`` (the exact distribution of a
    sum of whole-cell discrete Laplace noises) or ``"normal"`` (normal approximation with the
    exact variance, used when cells are partly covered).
    """

    estimate: float
    ci_low: float
    ci_high: float
    level: float
    variance: float
    n_cells: int
    interval: str
    epsilon: float


def sum_halfwidth(scale: float, n: int, level: float) -> float | None:
    """Smallest ``h`` with ``P(|Z_1 + ... + Z_n| <= h) >= level``, discrete Laplace ``Z_i``.

    Exact up to floating-point error: the distribution of the sum is the inverse Fourier
    transform of ``φ(t)^n``, ``φ(t) = (1-p)² / (1 - 2p·cos t + p²)``, ``p = exp(-1/scale)``, on a
    lattice wide enough that the folded tail mass is negligible; a probability within 1e-10 of
    ``level`` is counted as below it (conservative). Returns None when the lattice would be
    too large (then the normal approximation is accurate anyway).

    Examples
    --------
    >>> sum_halfwidth(2.0, 1, 0.95)
    6.0
    """
    p = math.exp(-1.0 / scale)
    sd = math.sqrt(n * 2 * p) / (1 - p)
    reach = math.ceil(20 * sd + 40 * scale) + 1
    size = 1 << math.ceil(math.log2(2 * reach + 2))
    if size > _MAX_LATTICE:
        return None
    t = 2 * np.pi * np.arange(size // 2 + 1) / size
    phi = ((1 - p) ** 2 / (1 - 2 * p * np.cos(t) + p * p)) ** n
    pmf = np.fft.irfft(phi, n=size)
    central = pmf[0] + 2 * np.cumsum(pmf[1 : reach + 1])
    inside = np.r_[pmf[0], central]
    return float(np.argmax(inside >= level + 1e-10))


def _weights(heatmap: Heatmap, polygon: Any) -> tuple[np.ndarray, np.ndarray]:
    """Positions (in the released vector) and area fractions of the cells the polygon overlaps."""
    grid = heatmap.grid
    minx, miny, maxx, maxy = polygon.bounds
    size, top = grid.cell_size, grid.bounds[3]
    c0, c1 = max(int((minx - grid.x0) // size), 0), min(int((maxx - grid.x0) // size), grid.nx - 1)
    r0, r1 = max(int((top - maxy) // size), 0), min(int((top - miny) // size), grid.ny - 1)
    if c0 > c1 or r0 > r1:
        return np.empty(0, dtype=np.int64), np.empty(0)
    x_edges = grid.x_edges[c0 : c1 + 2]
    y_edges = grid.y_edges[grid.ny - 1 - r1 : grid.ny - r0 + 1]
    rows, cols, weight = cell_coverage(polygon, x_edges, y_edges)
    rows, cols = rows + r0, cols + c0
    released = grid.released[rows, cols]
    flat = rows[released] * grid.nx + cols[released]
    if grid.mask is not None:
        flat = np.cumsum(grid.mask.ravel())[flat] - 1
    return flat, weight[released]


def _tree_sum(
    heatmap: Heatmap, h: Hierarchy, positions: np.ndarray, weights: np.ndarray
) -> tuple[float, float]:
    """Estimate and exact noise variance from the least-squares counts of a released tree."""
    grid = heatmap.grid
    leaf = leaf_of_cell(h, grid.shape)[grid.released][positions]
    q = np.bincount(leaf, weights=weights / np.maximum(h.n_released[leaf], 1), minlength=h.size)
    return float(q @ least_squares(h)), query_variance(h, q)


def region_query(heatmap: Heatmap, polygon: Any, *, level: float = 0.95) -> RegionEstimate:
    """Estimate the number of sites inside ``polygon`` from the released counts.

    The estimate is ``Σ w_i c_i`` over released cells, ``c_i`` the raw noisy counts (unbiased
    for the noise) and ``w_i`` the fraction of cell ``i``'s area inside the polygon, which
    assumes sites spread evenly inside a cell; that assumption's error is *not* in the
    interval. The noises are independent, so the variance is ``Σ w_i² Var(Z)``. The interval is
    exact when every overlapped cell is whole (``w_i = 1``), else a normal approximation with
    that exact variance; its lower end is clipped at 0. Cells outside the release count 0.

    For a multi-level release (``adaptive``, ``privtree``) the counts are the least-squares
    counts of the tree's leaves (which use every level), spread evenly over each leaf's
    released cells, and the variance is exact for that linear estimate
    (:func:`~dpatlas.spatial.tree.hierarchy.query_variance`); the interval is normal. A region made
    of whole leaves is thus answered from the hierarchy; the smoothed map in ``estimate``
    agrees with it on whole leaves.

    ``polygon`` is a shapely (Multi)Polygon in the grid CRS or a GeoSeries with a CRS.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> from shapely.geometry import box
    >>> g = sp.Grid.from_bounds((0, 0, 4, 4), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.full(50, 0.5), np.full(50, 0.5)), g, epsilon=1.0, crs="EPSG:3035",
    ...                 rng=0)
    >>> q = hm.query(box(0, 0, 2, 2))
    >>> q.n_cells, q.interval, q.ci_low <= 50 <= q.ci_high
    (4, 'exact', True)
    """
    if not (isinstance(level, (int, float)) and 0.0 < level < 1.0):
        raise ValueError(f"level must be in (0, 1), got {level!r}; e.g. 0.95")
    geometry = study_area_geometry(polygon, heatmap.grid.crs)
    positions, weights = _weights(heatmap, geometry)
    release = heatmap.release
    h = heatmap.hierarchy
    if h is not None:
        estimate, variance = _tree_sum(heatmap, h, positions, weights)
    else:
        raw = np.asarray(release.value, dtype=np.float64)[positions]
        estimate = float(weights @ raw)
        variance = float((weights**2).sum() * release.variance())
    halfwidth, kind = None, "normal"
    whole = bool(np.all(weights == 1.0))
    if whole and h is None and release.noise == "discrete_laplace" and release.scale is not None:
        halfwidth = (
            sum_halfwidth(float(release.scale), len(weights), level) if len(weights) else 0.0
        )
        kind = "exact"
    if halfwidth is None:
        halfwidth, kind = NormalDist().inv_cdf((1 + level) / 2) * math.sqrt(variance), "normal"
    return RegionEstimate(
        estimate=estimate,
        ci_low=max(estimate - halfwidth, 0.0),
        ci_high=estimate + halfwidth,
        level=float(level),
        variance=variance,
        n_cells=len(weights),
        interval=kind,
        epsilon=release.epsilon,
    )
