"""``heatmap(sites, grid, epsilon=...)``: a private gridded map of sensitive sites.

Privacy (proof sketch). Every public input (grid extent, cell size, CRS, mask, ε, ``k``)
comes from the caller; nothing is derived from the sites. Keeping a site or not depends
only on its own location against the public grid and, for contribution bounding, on
random keys drawn without looking at locations, so each individual keeps at most ``k``
sites whatever the rest of the data. Released cells are disjoint, so adding or removing
one individual changes the vector of cell counts by at most ``k`` in L1 (``2k`` when
replacing). Independent discrete Laplace noise of scale ``Δ/ε`` on every cell then makes
the whole vector ε-DP: parallel composition, one debit of ε for the map (see
:func:`~dpatlas.spatial.methods.uniform`). The number of dropped sites is never reported.
The multi-level methods prove their own cost (sequential composition of a tree or a
noisy N and two levels, each debited once in total before noise; see their modules), and
:func:`~dpatlas.spatial.products.postprocess.consistent` reads their release only. ``target``
is public (it chooses the method and the post-processing), and
:func:`~dpatlas.spatial.products.denoise.empirical_bayes` reads the release only. With
``backend=`` the same exact counts are computed elsewhere (:mod:`dpatlas.spatial.backends`);
the debit and the noise stay here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from datetime import datetime, timezone
from typing import Any

from dpatlas.core.accounting.budget import Budget
from dpatlas.core.accounting.charge import open_charge
from dpatlas.core.rng import RandomSource, RngLike, get_source
from dpatlas.core.validation import check_epsilon
from dpatlas.spatial.adjacency import SiteAdjacency
from dpatlas.spatial.backends import SITE_COUNTS
from dpatlas.spatial.binning import bin_points
from dpatlas.spatial.grid import Grid
from dpatlas.spatial.methods import METHODS, SiteCounts, check_options, open_release
from dpatlas.spatial.methods.auto import check_target
from dpatlas.spatial.products.denoise import empirical_bayes
from dpatlas.spatial.products.postprocess import consistent
from dpatlas.spatial.products.result import Heatmap
from dpatlas.spatial.sites import bound_contributions, individual_ids, site_coordinates

__all__ = ["check_heatmap", "heatmap"]


def _adjacency(adjacency: SiteAdjacency | None, max_sites_per_individual: int) -> SiteAdjacency:
    if adjacency is None:
        return SiteAdjacency(max_sites_per_individual=max_sites_per_individual)
    if not isinstance(adjacency, SiteAdjacency):
        raise TypeError(f"adjacency must be a SiteAdjacency, got {type(adjacency).__name__}")
    if max_sites_per_individual not in (1, adjacency.max_sites_per_individual):
        raise ValueError(
            f"max_sites_per_individual={max_sites_per_individual!r} disagrees with "
            f"{adjacency!r}; give the cap in one place only"
        )
    return adjacency


def _check_grid(grid: Any) -> Grid:
    if not isinstance(grid, Grid):
        raise TypeError(
            f"grid must be a dpatlas.spatial.Grid (Grid.from_bounds / Grid.from_polygon), "
            f"got {type(grid).__name__}"
        )
    return grid


def _public_inputs(
    grid: Grid,
    epsilon: float,
    method: str,
    target: str,
    method_options: Mapping[str, Any] | None,
    budget: Budget | None,
    max_sites_per_individual: int,
    adjacency: SiteAdjacency | None,
) -> tuple[float, dict[str, Any], SiteAdjacency]:
    """ε, the method's options and the neighbour relation, every public refusal run first."""
    eps = check_epsilon(epsilon)
    target = check_target(target)
    options = check_options(method, method_options)
    adj = _adjacency(adjacency, max_sites_per_individual)
    if method == "auto":
        options["target"] = target
    grid = _check_grid(grid)
    charge = open_release(method, grid, epsilon=eps, sensitivity=adj.sensitivity, options=options)
    open_charge(charge.cost, budget, mechanism=charge.mechanism)  # checked: the method debits
    return eps, options, adj


def check_heatmap(
    grid: Grid,
    *,
    epsilon: float,
    method: str = "auto",
    target: str = "cells",
    method_options: Mapping[str, Any] | None = None,
    max_sites_per_individual: int = 1,
    adjacency: SiteAdjacency | None = None,
    budget: Budget | None = None,
) -> None:
    """Refuse what :func:`heatmap` would refuse on these public inputs, before any site is read.

    The checks :func:`heatmap` runs first, for a caller (the command line) that reads the
    sites itself: bad parameters, an ε (or a part of it) whose noise the exact samplers cannot
    draw, and, with ``budget``, a map whose cost (the method's own: its ρ differs by method on
    a zCDP budget) the budget cannot pay. Nothing is spent.

    Parameters
    ----------
    grid, epsilon, method, target, method_options, max_sites_per_individual, adjacency, budget
        As in :func:`heatmap`.

    Examples
    --------
    >>> g = Grid.from_bounds((0, 0, 64_000, 64_000), cell_size=1_000, crs="EPSG:3035")
    >>> check_heatmap(g, epsilon=0.5, target="regions")
    >>> check_heatmap(g, epsilon=1e-14, target="regions")
    Traceback (most recent call last):
    ...
    ValueError: epsilon=1e-14 is too small for heatmap method 'auto' ...; use epsilon >= 6.36646291877655e-12
    """
    _public_inputs(
        grid, epsilon, method, target, method_options, budget, max_sites_per_individual, adjacency
    )


def site_counts(
    sites: Any,
    grid: Grid,
    adjacency: SiteAdjacency,
    source: RandomSource,
    *,
    crs: Any = None,
    individual_column: Any = None,
) -> SiteCounts:
    """Exact, contribution-bounded counts of the released cells (private; for release methods)."""
    _check_grid(grid)
    x, y = site_coordinates(sites, grid.crs, crs)
    if individual_column is not None:
        owners = individual_ids(sites, individual_column, len(x))
        keep = bound_contributions(owners, adjacency.max_sites_per_individual, source)
        x, y = x[keep], y[keep]
    counts = bin_points(grid, x, y)
    released = counts.ravel() if grid.mask is None else counts[grid.mask]
    return SiteCounts(released, x, y, sensitivity=adjacency.sensitivity)


def heatmap(
    sites: Any,
    grid: Grid,
    *,
    epsilon: float,
    method: str = "auto",
    target: str = "cells",
    method_options: Mapping[str, Any] | None = None,
    budget: Budget | None = None,
    rng: RngLike = None,
    individual_column: Any = None,
    max_sites_per_individual: int = 1,
    adjacency: SiteAdjacency | None = None,
    crs: Any = None,
    backend: str = "memory",
    client: Any = None,
) -> Heatmap:
    """Release a private count of sites in every released cell of a public grid.

    Parameters
    ----------
    sites : GeoDataFrame, GeoSeries or (x, y) arrays
        Points, in any CRS (re-projected to ``grid.crs``); arrays need ``crs=``. Missing CRS,
        non-point, missing or empty geometries and non-finite coordinates are refused. Sites
        outside the released cells are dropped; how many is private and never reported.
    grid : Grid
        The public grid (extent, cell size, CRS and mask all chosen by the user).
    epsilon : float
        Privacy cost of the whole map (parallel composition over disjoint cells).
    method : {"auto", "uniform", "adaptive", "privtree"}
        Release method, ``"auto"`` by default. ``"uniform"`` adds discrete Laplace noise of
        scale ``Δ/ε`` to every cell. ``"adaptive"`` (AG, :mod:`~dpatlas.spatial.methods.adaptive`) and
        ``"privtree"`` (:mod:`~dpatlas.spatial.methods.privtree`) release counts of data-dependent
        blocks of cells, far more accurate when sites are few per cell (docs/dpbench.md);
        their maps are post-processed by :func:`~dpatlas.spatial.products.postprocess.consistent`.
        ``"auto"`` picks one for the ``target`` from public inputs only
        (:mod:`~dpatlas.spatial.methods.auto`): uniform for ``"cells"``; for ``"regions"`` uniform on
        grids of at most 16 cells (or dense ones, given a public ``n_sites``), else PrivTree.
    target : {"cells", "regions"}, default "cells"
        The question the map is built for, recorded as ``metadata["target"]``. ``"cells"``:
        how many sites in each cell, where the hotspots are (what a map shows). A one-level
        release's ``estimate`` is then the per-cell posterior median
        (:func:`~dpatlas.spatial.products.denoise.empirical_bayes`). ``"regions"``: how many
        sites in rectangles and polygons; ``"auto"`` then releases a tree where that is more
        accurate (docs/dpbench.md), and a one-level ``estimate`` is the raw counts (unbiased
        sums). Either way :meth:`Heatmap.query` answers regions from the release with an
        interval, and ``release.value`` keeps the raw counts. docs/cells.md compares both.
    method_options : mapping, optional
        Keyword options of the method, e.g. ``{"tree_fraction": 0.5}`` for ``"privtree"`` or
        ``{"n_sites": 12_000}`` (a public number of sites) for ``"adaptive"``.
    budget : Budget, optional
        Checked before any work and debited once, by ``epsilon``, before noise is drawn; an
        overspend raises :class:`~dpatlas.errors.BudgetExceededError` and spends nothing.
    rng : None, int or numpy.random.Generator
        ``None`` (default) for secure randomness; a seed makes the map reproducible, which is
        for tests and teaching only and is recorded as ``release.seeded``.
    individual_column : str or array_like, optional
        Column (or array) naming the individual who owns each site (e.g. an observer). At most
        ``k = max_sites_per_individual`` sites are kept per individual, chosen uniformly at
        random and never by location, and the sensitivity is ``k``. Without it each row is its
        own individual; with ``k > 1`` and no column, ``k`` is taken as a public claim. The
        counts, and every interval, are then those of the sites kept: the release records
        ``contributions_bounded=True`` and each interval sentence says so.
    max_sites_per_individual : int, default 1
        The public cap ``k``.
    adjacency : SiteAdjacency, optional
        The neighbour relation (instead of ``max_sites_per_individual``); ``relation="replace"``
        doubles the sensitivity.
    crs : optional
        CRS of (x, y) array input (or of the ``x``, ``y`` columns of a plain Dask frame).
    backend : {"memory", "dask"}, default "memory"
        ``"dask"`` counts on a Dask cluster (``sites`` a dask (geo)DataFrame or a path / glob of
        (Geo)Parquet files; see :func:`dpatlas.dask.site_counts`): the same exact counts; the
        budget and the noise stay here, on the driver.
    client : distributed.Client, optional
        For ``backend="dask"``; ``None`` uses the current client or starts a local cluster.

    Returns
    -------
    Heatmap
        Raw noisy counts (``release.value``), the release, the grid; post-process from there.
        For a multi-level method ``estimate`` is already
        :func:`~dpatlas.spatial.products.postprocess.consistent`; for a one-level one it is the
        posterior median (``target="cells"``) or the raw counts.

    Notes
    -----
    ε-DP for the whole map, debited once; the proof sketch is in the module docstring.

    Examples
    --------
    >>> import numpy as np
    >>> g = Grid.from_bounds((0, 0, 4_000, 3_000), cell_size=1_000, crs="EPSG:3035")
    >>> x, y = np.array([500.0, 1_500.0, 1_600.0]), np.array([500.0, 2_500.0, 2_400.0])
    >>> hm = heatmap((x, y), g, epsilon=1.0, crs="EPSG:3035", rng=0)
    >>> hm.counts.shape, hm.release.epsilon, hm.release.mechanism, hm.release.seeded
    ((3, 4), 1.0, 'heatmap/uniform', True)
    >>> hm.release.metadata["target"], hm.release.metadata["auto_choice"]
    ('cells', 'uniform')
    """
    elsewhere = SITE_COUNTS.on(backend)  # the same counts, e.g. on Dask (dpatlas.dask)
    eps, options, adj = _public_inputs(
        grid, epsilon, method, target, method_options, budget, max_sites_per_individual, adjacency
    )
    source = get_source(rng)
    if elsewhere is not None:
        data = elsewhere(
            sites, grid, adj, source, crs=crs, individual_column=individual_column, client=client
        )
    else:
        data = site_counts(sites, grid, adj, source, crs=crs, individual_column=individual_column)
    release = METHODS[method](data, grid, epsilon=eps, source=source, budget=budget, **options)
    metadata = {
        **release.metadata,
        "method": method,
        "target": target,
        "max_sites_per_individual": adj.max_sites_per_individual,
        "relation": adj.relation,
        "individual_column": individual_column if isinstance(individual_column, str) else None,
        "contributions_bounded": individual_column is not None,
        "grid": {
            "crs": grid.crs.to_string(),
            "bounds": list(grid.bounds),
            "cell_size": grid.cell_size,
            "shape": list(grid.shape),
            "n_released": grid.n_released,
        },
        "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }
    result = Heatmap(grid=grid, release=dataclasses.replace(release, metadata=metadata))
    if result.hierarchy is not None:
        return consistent(result)
    return empirical_bayes(result) if target == "cells" else result
