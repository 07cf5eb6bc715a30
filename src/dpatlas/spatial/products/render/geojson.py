"""GeoJSON and JSON text for the web map, written without a round trip through Python objects."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np

__all__ = ["Raw", "collection", "dumps", "plain"]


def plain(value: Any) -> Any:
    """A JSON value: numpy scalars as numbers, non-finite numbers as null."""
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (np.integer, int)):
        return int(value)
    if isinstance(value, (np.floating, float)):
        return float(value) if math.isfinite(value) else None
    return value


def collection(gdf: Any, extra: dict[str, list[Any]]) -> str:
    """A GeoJSON FeatureCollection of ``gdf`` as text (WGS 84, coordinates to 1e-7°, ~1 cm).

    Geometries are written by GEOS and joined as text, with no round trip through Python
    objects (the cost that matters at 10⁵ cells).
    """
    import shapely

    geoms = shapely.transform(gdf.geometry.to_crs("EPSG:4326").values, lambda c: np.round(c, 7))
    table = gdf.drop(columns=gdf.geometry.name)
    columns = {c: table[c].tolist() for c in table.columns} | extra
    names = list(columns)
    rows = zip(*(columns[c] for c in names), strict=True) if names else ((),) * len(gdf)
    features = (
        '{"type":"Feature","properties":'
        + json.dumps(
            dict(zip(names, map(plain, row), strict=True)),
            separators=(",", ":"),
            ensure_ascii=False,
        )
        + ',"geometry":'
        + geometry
        + "}"
        for row, geometry in zip(rows, shapely.to_geojson(geoms), strict=True)
    )
    return '{"type":"FeatureCollection","features":[' + ",".join(features) + "]}"


class Raw(str):
    """JSON text to be inserted as it is (GeoJSON written by :func:`collection`)."""


def dumps(value: Any) -> str:
    """Compact JSON of ``value``, with :class:`Raw` parts inserted as they are."""
    if isinstance(value, Raw):
        return str(value)
    if isinstance(value, dict):
        return "{" + ",".join(f"{dumps(k)}:{dumps(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(map(dumps, value)) + "]"
    return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
