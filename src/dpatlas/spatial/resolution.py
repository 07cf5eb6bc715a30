"""Choosing the cell size: the Qardaji–Yang–Li rule, and a private estimate of N for it.

Qardaji, Yang and Li (ICDE 2013) choose ``m = sqrt(N·ε / c)`` cells per side (``c = 10``) for a
uniform grid of ``N`` points at privacy ``ε``. ``N`` must be public: a number the user knows
(e.g. from a published census) or a private estimate paid for with a stated slice of ε::

    budget = Budget(1.0)
    n = estimate_n_sites(sites, coarse_grid, epsilon=0.05, budget=budget)   # 5% of ε on N
    size = suggest_cell_size(study_area, 0.95, max(n.value, 0))            # rule at the rest
    grid = Grid.from_polygon(study_area, cell_size=size, crs=crs)
    hm = heatmap(sites, grid, epsilon=0.95, budget=budget)

By sequential composition the two releases cost ``0.05 + 0.95 = 1`` in total.
"""

from __future__ import annotations

import math
import numbers
from typing import Any

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import open_charge
from dpatlas.core.accounting.cost import exact_epsilon
from dpatlas.core.noise.discrete_laplace import discrete_laplace, discrete_laplace_cost
from dpatlas.core.release import Release
from dpatlas.core.rng import RngLike, get_source
from dpatlas.core.validation import check_epsilon, float_or_inf
from dpatlas.spatial._checks import DEFAULT_MAX_CELLS, check_cell_limit, format_count
from dpatlas.spatial.adjacency import SiteAdjacency
from dpatlas.spatial.grid import Grid
from dpatlas.spatial.heatmap import site_counts

__all__ = ["estimate_n_sites", "suggest_cell_size"]


def _area(extent: Any) -> float:
    if isinstance(extent, Grid):
        return extent.n_released * extent.cell_area
    if hasattr(extent, "union_all") and hasattr(extent, "crs"):  # a GeoSeries / GeoDataFrame
        if extent.crs is None or not extent.crs.is_projected:
            raise ValueError(
                f"a study area given as a GeoSeries needs a projected CRS (metres), got "
                f"{extent.crs}; re-project it to the grid's CRS with .to_crs(...)"
            )
        return float(extent.union_all().area)
    if hasattr(extent, "area") and hasattr(extent, "geom_type"):
        return float(extent.area)
    try:
        minx, miny, maxx, maxy = (float(v) for v in extent)
    except OverflowError:  # an int beyond the float range: refused as an infinite area
        return math.inf
    except (TypeError, ValueError):
        raise TypeError(
            "extent must be (minx, miny, maxx, maxy) in metres, a projected shapely polygon, "
            f"a GeoSeries in a projected CRS or a Grid, got {extent!r}"
        ) from None
    if maxx < minx or maxy < miny:
        raise ValueError(f"extent must satisfy minx <= maxx and miny <= maxy, got {extent!r}")
    return (maxx - minx) * (maxy - miny)


def _real(value: Any, what: str) -> float:
    """``value`` as a float (an int beyond the float range becomes ±inf); TypeError if no number."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError(f"{what}, got {value!r}")
    return float_or_inf(value)


def suggest_cell_size(
    extent: Any,
    epsilon: float,
    n_sites: float,
    *,
    c: float = 10.0,
    max_cells: int = DEFAULT_MAX_CELLS,
) -> float:
    """Cell size (metres) giving about ``N·ε/c`` cells over the extent (QYL 2013: ``m² = Nε/c``).

    For a square extent of side ``L`` this is ``L / m`` with ``m = sqrt(N·ε/c)`` cells per side;
    for any other extent of area ``A`` it is ``sqrt(A·c / (N·ε))``, the same number of cells.
    ``n_sites`` must be public (see the module docstring for a private estimate); with fewer
    than one suggested cell the whole extent is one cell. A suggestion of more than
    ``max_cells`` cells (the limit of the :class:`Grid` constructors) is refused with a
    ``ValueError``: no grid could be built at that size. Pure arithmetic: costs no privacy.

    Examples
    --------
    >>> suggest_cell_size((0, 0, 100_000, 100_000), epsilon=1.0, n_sites=10_000)
    3162.27...
    >>> suggest_cell_size((0, 0, 100_000, 100_000), epsilon=1.0, n_sites=1e12)
    Traceback (most recent call last):
    ...
    ValueError: n_sites * epsilon / c = 1e+11 suggested cells, more than max_cells=100,000,000; ...
    """
    eps = check_epsilon(epsilon)
    what_n = "n_sites must be a number (public or a private estimate)"
    n = _real(n_sites, what_n)
    if math.isnan(n):
        raise TypeError(f"{what_n}, got {n_sites!r}")
    if not math.isfinite(n):
        raise ValueError(f"n_sites must be finite, got {n_sites!r}")
    what_c = "c must be a finite number > 0 (QYL use c = 10)"
    factor = _real(c, what_c)
    if not (math.isfinite(factor) and factor > 0):
        raise ValueError(f"{what_c}, got {c!r}")
    limit = check_cell_limit(max_cells)
    area = _area(extent)
    if not (math.isfinite(area) and area > 0):
        raise ValueError(f"extent must have a finite area > 0, got {area!r} from {extent!r}")
    cells = max(n * eps / factor, 1.0)  # +inf when the product overflows: refused below
    if cells > limit:
        raise ValueError(
            f"n_sites * epsilon / c = {cells:.3g} suggested cells, more than "
            f"max_cells={format_count(limit)}; check n_sites (the number of sites, got "
            f"{n_sites!r}), or pass a larger max_cells= if memory allows, or a larger c="
        )
    return math.sqrt(area) / math.sqrt(cells)  # >= 1e-316 > 0: no underflow to 0


def estimate_n_sites(
    sites: Any,
    grid: Grid,
    *,
    epsilon: float,
    budget: Budget | None = None,
    rng: RngLike = None,
    individual_column: Any = None,
    max_sites_per_individual: int = 1,
    crs: Any = None,
) -> Release:
    """Private number of sites in the released cells of ``grid``: discrete Laplace at ``k/ε``.

    The count is one histogram bin over all released cells, so adding or removing one
    individual (at most ``k`` kept sites) changes it by at most ``k``; it costs ``epsilon``,
    debited once before noise. Any cell size works for ``grid``: only its released area counts.

    Examples
    --------
    >>> import numpy as np
    >>> g = Grid.from_bounds((0, 0, 1_000, 1_000), cell_size=1_000, crs="EPSG:3035")
    >>> xy = (np.full(500, 10.0), np.full(500, 10.0))
    >>> rel = estimate_n_sites(xy, g, epsilon=0.1, crs="EPSG:3035", rng=0)
    >>> rel.mechanism, rel.scale, abs(rel.value - 500) < 200
    ('heatmap/n_sites', 10.0, True)
    """
    eps = check_epsilon(epsilon)
    adjacency = SiteAdjacency(max_sites_per_individual=max_sites_per_individual)
    charge = open_charge(
        discrete_laplace_cost(1, eps),
        budget,
        mechanism="heatmap/n_sites",
        note="noisy number of sites, for choosing the cell size",
        scales=[adjacency.sensitivity / exact_epsilon(eps)],  # k: public, checked before the read
    )
    source = get_source(rng)
    data = site_counts(sites, grid, adjacency, source, crs=crs, individual_column=individual_column)
    charge.debit()
    rel = discrete_laplace(
        int(data.counts.sum()), sensitivity=data.sensitivity, epsilon=eps, rng=source
    )
    fields = ("value", "sensitivity", "scale", "noise", "seeded", "metadata")
    return charge.release(Release, **{f: getattr(rel, f) for f in fields})
