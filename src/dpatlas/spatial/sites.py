"""Sites in, coordinates out: validation, re-projection and contribution bounding.

Nothing here is released. Errors may describe the input (the curator's own data) but the
numbers they mention never reach a release.
"""

from __future__ import annotations

from typing import Any

import geopandas as gpd
import numpy as np
import pandas as pd
import shapely
from pyproj import CRS, Transformer
from pyproj.exceptions import CRSError

from dpatlas.core.rng import RandomSource

__all__ = ["bound_contributions", "individual_ids", "site_coordinates"]

_KINDS = "a GeoDataFrame / GeoSeries of points, or an (x, y) pair of arrays with crs="


def _crs_of(sites: Any, crs: Any) -> CRS:
    own = getattr(sites, "crs", None)
    if own is not None and crs is not None and CRS.from_user_input(crs) != own:
        raise ValueError(
            f"crs={crs!r} disagrees with the sites' own CRS {own.to_string()}; drop crs= or "
            "re-project the sites with `to_crs()`"
        )
    chosen = own if own is not None else crs
    if chosen is None:
        raise ValueError(
            "sites have no CRS: set the one the coordinates are in, e.g. "
            "`sites.set_crs('EPSG:4326')` or crs='EPSG:4326' for arrays"
        )
    try:
        return CRS.from_user_input(chosen)
    except CRSError as exc:
        raise ValueError(f"crs could not be parsed, got {chosen!r}: {exc}") from None


def _geometry_xy(geoms: gpd.GeoSeries) -> tuple[np.ndarray, np.ndarray]:
    values = np.asarray(geoms.values)
    kinds = shapely.get_type_id(values)
    if (kinds == -1).any():
        raise ValueError(
            f"sites have missing (None) geometries, first at position {int(np.argmax(kinds == -1))}"
            "; drop them (`sites[sites.geometry.notna()]`) or fix them"
        )
    if (kinds != 0).any():
        bad = values[np.argmax(kinds != 0)]
        raise ValueError(
            f"sites must be Point geometries, got a {bad.geom_type}; use one point per site, e.g. "
            "`.centroid` for polygons or `.explode()` when each part of a MultiPoint is a site"
        )
    empty = shapely.is_empty(values)
    if empty.any():
        raise ValueError(
            f"sites have empty points, first at position {int(np.argmax(empty))}; drop them "
            "(`sites[~sites.is_empty]`)"
        )
    return shapely.get_x(values), shapely.get_y(values)


def _array_xy(sites: Any) -> tuple[np.ndarray, np.ndarray]:
    if isinstance(sites, np.ndarray) and sites.ndim == 2 and sites.shape[1] == 2:
        x, y = sites[:, 0], sites[:, 1]
    elif isinstance(sites, (tuple, list)) and len(sites) == 2:
        x, y = sites
        pairs = all(not isinstance(v, np.ndarray) and getattr(v, "__len__", None) for v in sites)
        if pairs and len(x) == 2 and len(y) == 2:
            raise ValueError(
                f"sites {sites!r} is ambiguous: two sequences of two numbers could be (xs, ys) "
                "or two (x, y) points; pass numpy arrays, (np.array(xs), np.array(ys)), or "
                "the points as an (n, 2) array"
            )
    else:
        raise TypeError(f"sites must be {_KINDS}, got {type(sites).__name__}")
    try:
        x = np.asarray(x, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
    except (TypeError, ValueError):
        raise TypeError(f"site coordinates must be numbers; sites must be {_KINDS}") from None
    if x.ndim != 1 or x.shape != y.shape:
        raise ValueError(f"x and y must be 1-D arrays of one length, got {x.shape} and {y.shape}")
    return x, y


def site_coordinates(sites: Any, target: CRS, crs: Any = None) -> tuple[np.ndarray, np.ndarray]:
    """``(x, y)`` float64 arrays of the sites in the CRS ``target``.

    Refuses a missing CRS, non-point, missing or empty geometries and NaN / infinite
    coordinates, with the fix in the message.
    """
    if isinstance(sites, gpd.GeoDataFrame):
        sites = sites.geometry
    source = _crs_of(sites, crs)
    x, y = _geometry_xy(sites) if isinstance(sites, gpd.GeoSeries) else _array_xy(sites)
    bad = ~(np.isfinite(x) & np.isfinite(y))
    if bad.any():
        raise ValueError(
            f"site coordinates must be finite, got ({x[bad][0]}, {y[bad][0]}) at position "
            f"{int(np.argmax(bad))}; drop sites without coordinates first"
        )
    if source != target:
        x0, y0 = x, y
        x, y = Transformer.from_crs(source, target, always_xy=True).transform(x, y)
        x, y = np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64)
        bad = ~(np.isfinite(x) & np.isfinite(y))
        if bad.any():
            i = int(np.argmax(bad))
            raise ValueError(
                f"site at position {i}, ({x0[i]}, {y0[i]}) in {source.name}, has no coordinates "
                f"in {target.name}: it lies outside that CRS's domain (a latitude beyond ±90, or "
                "x and y swapped?); correct or drop it"
            )
    return x, y


def individual_ids(sites: Any, individual_column: Any, n: int) -> np.ndarray:
    """Integer codes of the individual owning each site (from a column name or an array)."""
    if isinstance(individual_column, str):
        if not isinstance(sites, pd.DataFrame) or individual_column not in sites.columns:
            raise ValueError(
                f"individual_column={individual_column!r} is not a column of the sites; pass a "
                "GeoDataFrame with that column, or an array of ids, one per site"
            )
        ids = sites[individual_column]
    elif isinstance(individual_column, (int, np.integer)) and not isinstance(
        individual_column, bool
    ):
        raise TypeError(
            f"individual_column={individual_column!r}: give a column name (a string) or one id "
            "per site; column positions are for read_csv_points, not for heatmap"
        )
    else:
        series = isinstance(individual_column, pd.Series) and isinstance(sites, pd.DataFrame)
        if series and not individual_column.index.equals(sites.index):
            raise ValueError(
                "individual_column is a Series whose index differs from the sites' index; "
                "align it (ids.reindex(sites.index)) or pass ids.to_numpy() in site order"
            )
        values = np.asarray(individual_column)
        if values.ndim != 1:
            raise ValueError(
                f"individual_column must be 1-D, one id per site, got shape {values.shape}"
            )
        ids = pd.Series(values)
    if len(ids) != n:
        raise ValueError(f"individual_column must give one id per site ({n}), got {len(ids)}")
    if ids.isna().any():
        raise ValueError(
            "individual_column has missing ids; fill them (e.g. with a unique id per row when "
            "each such row is its own individual) or drop those rows"
        )
    codes, _ = pd.factorize(ids, sort=False)
    return codes


def bound_contributions(owners: np.ndarray, k: int, source: RandomSource) -> np.ndarray:
    """Boolean keep-mask: at most ``k`` sites per owner, chosen uniformly at random.

    The choice uses random keys from ``source.generator()`` and never looks at locations, so
    each individual's kept sites are a uniform ``k``-subset independent of everyone else's: after
    bounding, adding or removing one individual changes at most ``k`` kept sites (sensitivity
    ``k``), whatever the data.
    """
    keys = source.generator().random(len(owners))
    order = np.lexsort((keys, owners))
    sorted_owners = owners[order]
    starts = np.flatnonzero(np.r_[True, sorted_owners[1:] != sorted_owners[:-1]])
    sizes = np.diff(np.r_[starts, len(owners)])
    rank = np.arange(len(owners)) - np.repeat(starts, sizes)
    keep = np.zeros(len(owners), dtype=bool)
    keep[order[rank < k]] = True
    return keep
