"""Exact heatmap counts on a Dask cluster: the same cells, the same numbers as in memory.

Each partition is read by ``read_parquet`` on a worker, re-projected and binned with the
in-memory kernel (:func:`dpatlas.spatial.binning.cell_of`, then one bincount) into a dense grid of
every cell; the dense grids are summed in a tree. Dense partials are what keep this private:
a group-by returns only the non-empty cells, and releasing that set would leak which cells
are empty. Nothing here draws noise or debits a budget: :func:`dpatlas.spatial.heatmap` with
``backend="dask"`` does both once, on the driver, with the core's sampler.
"""

from __future__ import annotations

import dataclasses
from operator import getitem
from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd

from dask import delayed
from dpatlas.core.rng import RandomSource, RngLike, get_source
from dpatlas.dask._bounding import bound_bucket, owner_ids, split_by_owner
from dpatlas.dask._cluster import get_client
from dpatlas.dask._frames import check_pair, frame_of, partitions
from dpatlas.spatial.adjacency import SiteAdjacency
from dpatlas.spatial.binning import cell_of
from dpatlas.spatial.grid import Grid
from dpatlas.spatial.methods import SiteCounts
from dpatlas.spatial.sites import site_coordinates

__all__ = ["heatmap_counts", "site_counts"]

# 8192 float64 = 64 KiB: temporaries stay below glibc's 128 KiB mmap threshold, which Dask
# workers pin (they set MALLOC_TRIM_THRESHOLD_); larger chunks fault in fresh zeroed pages on
# every call and ran 2x slower in a worker here.
_CHUNK = 8192
MAX_BUCKETS = 32
_SITES = "a dask DataFrame with coordinate columns xy, or a dask_geopandas GeoDataFrame / GeoSeries"


def _xy(part: Any, grid: Grid, crs: Any, xy: tuple[str, str]) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(part, (gpd.GeoDataFrame, gpd.GeoSeries)):
        return site_coordinates(part, grid.crs, crs)
    cols = []
    for c in xy:
        try:
            cols.append(part[c].to_numpy(dtype=np.float64, na_value=np.nan))
        except (TypeError, ValueError):
            raise TypeError(
                f"site coordinates must be numbers, column {c!r} has dtype {part[c].dtype} "
                f"with values that are not; convert it, e.g. pd.to_numeric(frame[{c!r}])"
            ) from None
    return site_coordinates((cols[0], cols[1]), grid.crs, crs)


def _cell_index(grid: Grid, x: np.ndarray, y: np.ndarray) -> np.ndarray:
    """:func:`~dpatlas.spatial.binning.cell_of` of every point, in small chunks."""
    flat = np.empty(x.size, dtype=np.int64)
    for s in range(0, x.size, _CHUNK):
        flat[s : s + _CHUNK] = cell_of(grid, x[s : s + _CHUNK], y[s : s + _CHUNK])
    return flat


def _bin(part: Any, grid: Grid, crs: Any, xy: tuple[str, str]) -> np.ndarray:
    """Dense counts of one partition (as ``bin_points``); int32 when no cell can overflow."""
    x, y = _xy(part, grid, crs, xy)
    flat = _cell_index(grid, x, y)
    counts = np.bincount(flat[flat >= 0], minlength=grid.n_cells)
    return counts.astype(np.int32) if x.size < 2**31 else counts


def _cells(part: Any, grid: Grid, crs: Any, xy: tuple[str, str], column: str) -> tuple:
    x, y = _xy(part, grid, crs, xy)
    owners = part[column]
    if owners.isna().any():
        raise ValueError(
            "individual_column has missing ids; fill them (e.g. with a unique id per row when "
            "each such row is its own individual) or drop those rows"
        )
    return _cell_index(grid, x, y), owner_ids(owners, column)


def _sum(*grids: np.ndarray) -> np.ndarray:
    out = grids[0].astype(np.int64)
    for more in grids[1:]:
        out += more
    return out


def _size(cells_owners: tuple[np.ndarray, np.ndarray]) -> int:
    return int(cells_owners[0].size)


def _total(client: Any, futures: list[Any], n_cells: int, fan_in: int = 4) -> np.ndarray:
    """Sum of the dense partial grids, by a tree of ``fan_in``-way sums on the workers."""
    if not futures:
        return np.zeros(n_cells, dtype=np.int64)
    while len(futures) > 1:
        futures = [
            client.submit(_sum, *futures[i : i + fan_in]) for i in range(0, len(futures), fan_in)
        ]
    return np.asarray(client.gather(futures[0]), dtype=np.int64).reshape(-1)


def _columns(frame: Any, xy: tuple[str, str], column: str | None) -> list[str]:
    meta = frame._meta
    if isinstance(meta, pd.Series) and not isinstance(meta, gpd.GeoSeries):
        raise TypeError(
            f"sites must be {_SITES} with backend='dask', got a dask Series ({meta.name!r}); "
            "pass the frame with both coordinate columns"
        )
    if isinstance(meta, gpd.GeoSeries) and column is not None:
        raise ValueError(
            f"individual_column={column!r} needs a frame: a GeoSeries has no owner column; "
            "pass the GeoDataFrame"
        )
    cols = [meta.geometry.name] if isinstance(meta, gpd.GeoDataFrame) else list(xy)
    if column in cols:
        raise ValueError(
            f"individual_column={column!r} is a coordinate column ({cols}); name the column "
            "of owner ids"
        )
    return cols + ([column] if column is not None else [])


def _checked(grid: Any, individual_column: Any) -> None:
    if not isinstance(grid, Grid):
        raise TypeError(
            f"grid must be a dpatlas.spatial.Grid (Grid.from_bounds / Grid.from_polygon), "
            f"got {type(grid).__name__}"
        )
    if individual_column is not None and not isinstance(individual_column, str):
        raise TypeError(
            "individual_column must be a column name with backend='dask', got "
            f"{type(individual_column).__name__}; add the ids as a column of the Parquet files"
        )


def _bounded(
    run: Any, parts: list[Any], grid: Grid, k: int, source: RandomSource, args: tuple
) -> np.ndarray:
    """Counts after keeping at most ``k`` sites per owner (the shuffle of :mod:`._bounding`)."""
    cells = run.compute([delayed(_cells)(p, *args) for p in parts])
    sizes = run.gather([run.submit(_size, f) for f in cells])
    offsets = np.concatenate([[0], np.cumsum(sizes, dtype=np.int64)]).tolist()
    seed = source.words(4).tolist()
    buckets = max(1, min(len(parts), MAX_BUCKETS))
    split = [
        run.submit(split_by_owner, f, o, seed, buckets)
        for f, o in zip(cells, offsets[:-1], strict=True)
    ]
    counts = [
        run.submit(bound_bucket, k, grid.n_cells, *[run.submit(getitem, f, b) for f in split])
        for b in range(buckets)
    ]
    return _total(run, counts, grid.n_cells)


def _exact_counts(
    sites: Any,
    grid: Grid,
    k: int,
    source: RandomSource,
    *,
    crs: Any,
    individual_column: str | None,
    client: Any,
    xy: tuple[str, str],
) -> np.ndarray:
    _checked(grid, individual_column)
    xy = check_pair(xy, "xy", ("x", "y"))
    frame = frame_of(sites, "sites")
    parts = partitions(frame, _columns(frame, xy, individual_column), "sites")
    light = dataclasses.replace(grid, mask=None, study_area=None)
    run = get_client(client)
    if individual_column is None:
        partials = run.compute([delayed(_bin)(p, light, crs, xy) for p in parts])
        flat = _total(run, partials, grid.n_cells)
    else:
        flat = _bounded(run, parts, grid, k, source, (light, crs, xy, individual_column))
    return flat.reshape(grid.shape)


def site_counts(
    sites: Any,
    grid: Grid,
    adjacency: SiteAdjacency,
    source: RandomSource,
    *,
    crs: Any = None,
    individual_column: str | None = None,
    client: Any = None,
    xy: tuple[str, str] = ("x", "y"),
) -> SiteCounts:
    """Exact, contribution-bounded counts of the released cells, computed on Dask (private).

    The Dask twin of :func:`dpatlas.spatial.heatmap.site_counts` (same arguments plus
    ``client`` and ``xy``), for :func:`dpatlas.spatial.heatmap` with ``backend="dask"``. The
    counts are equal to the in-memory ones and the source is consumed identically (four words
    when bounding contributions, none otherwise), so a seeded release is the same on both
    backends. The sites' coordinates stay on the workers: ``x`` and ``y`` of the result are
    empty, and release methods use ``counts`` only.
    """
    counts = _exact_counts(
        sites,
        grid,
        adjacency.max_sites_per_individual,
        source,
        crs=crs,
        individual_column=individual_column,
        client=client,
        xy=xy,
    )
    released = counts.ravel() if grid.mask is None else counts[grid.mask]
    empty = np.empty(0, dtype=np.float64)
    return SiteCounts(released, empty, empty, sensitivity=adjacency.sensitivity)


def heatmap_counts(
    sites: Any,
    grid: Grid,
    *,
    crs: Any = None,
    individual_column: str | None = None,
    max_sites_per_individual: int = 1,
    rng: RngLike = None,
    client: Any = None,
    xy: tuple[str, str] = ("x", "y"),
) -> np.ndarray:
    """Exact ``ny x nx`` counts of sites per cell on a Dask cluster (NOT private).

    Equal to :func:`dpatlas.spatial.bin_points` on the same (re-projected, contribution-bounded)
    points; the mask is not applied. Release with
    ``dpatlas.spatial.heatmap(..., backend="dask")``, never these counts.

    Parameters
    ----------
    sites : dask DataFrame, dask_geopandas GeoDataFrame / GeoSeries, or str / PathLike
        Points, or a path, folder or glob of Parquet / GeoParquet files (read on the workers).
        A plain frame holds coordinates in the columns ``xy``, in the CRS ``crs``.
    grid : Grid
        The public grid.
    crs : optional
        CRS of plain ``x``, ``y`` columns (GeoDataFrames bring their own).
    individual_column : str, optional
        Column naming each site's owner; at most ``max_sites_per_individual`` sites are kept
        per owner, chosen at random as in memory (a shuffle by owner, :mod:`._bounding`).
        Ids are integers, floats, strings or dates; ids equal as in memory are one owner
        whatever dtype each file stores them in (``7``, ``7.0`` and ``True == 1`` alike, ``"7"``
        not; one instant alike at any unit or time zone, and a date without a zone read as
        UTC: such a date and its UTC twin are one owner here, two in memory, so a person still
        keeps at most ``max_sites_per_individual`` sites).
    max_sites_per_individual : int, default 1
    rng : None, int or numpy.random.Generator
        Randomness of the bounding choice only (used with ``individual_column``).
    client : distributed.Client, optional
        ``None`` uses the current client, or starts a local cluster.
    xy : (str, str), default ("x", "y")
        Coordinate columns of a plain (non-geo) frame.

    Examples
    --------
    >>> import pandas as pd, dask.dataframe as dd
    >>> from distributed import Client, LocalCluster
    >>> g = Grid.from_bounds((0, 0, 300, 200), cell_size=100, crs="EPSG:3035")
    >>> pts = dd.from_dict({"x": [0.0, 100.0, 150.0, 300.0], "y": [0.0, 199.0, 150.0, 0.0]}, 2)
    >>> with LocalCluster(n_workers=1, processes=False, dashboard_address=":0") as cluster:
    ...     with Client(cluster) as client:
    ...         heatmap_counts(pts, g, crs="EPSG:3035", client=client)
    array([[0, 2, 0],
           [1, 0, 0]])
    """
    adjacency = SiteAdjacency(max_sites_per_individual=max_sites_per_individual)
    return _exact_counts(
        sites,
        grid,
        adjacency.max_sites_per_individual,
        get_source(rng),
        crs=crs,
        individual_column=individual_column,
        client=client,
        xy=xy,
    )
