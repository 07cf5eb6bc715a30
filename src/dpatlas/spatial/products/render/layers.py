"""Public context layers (study-area outline, roads, coastline) and the frame of a map.

Context layers are public data given by the caller; never pass the private sites.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

__all__ = ["context_layers", "draw_outlines", "frame_axes"]


def context_layers(context: Any) -> list[tuple[str, Any]]:
    """``(name, GeoSeries)`` of public context layers: GeoDataFrames, GeoSeries or file paths.

    ``context`` is one layer, a list of them, or a mapping from names to layers; files are read
    with geopandas (named by the file's stem). Every layer must carry a CRS.

    Examples
    --------
    >>> import geopandas as gpd
    >>> from shapely.geometry import Point
    >>> [name for name, _ in context_layers({"wells": gpd.GeoSeries([Point(0, 0)], crs=3035)})]
    ['wells']
    """
    import geopandas as gpd

    if context is None:
        return []
    if isinstance(context, Mapping):
        pairs = list(context.items())
    else:
        layers = context if isinstance(context, (list, tuple)) else [context]
        pairs = [(f"context {index}", layer) for index, layer in enumerate(layers, start=1)]
    named = []
    for name, layer in pairs:
        if isinstance(layer, (str, Path)):
            name, layer = Path(layer).stem, gpd.read_file(layer)
        if not isinstance(layer, (gpd.GeoSeries, gpd.GeoDataFrame)):
            raise TypeError(
                f"context layers must be GeoDataFrames, GeoSeries or file paths, got "
                f"{type(layer).__name__}"
            )
        if layer.crs is None:
            raise ValueError(f"context layer {name!r} has no CRS; set it with `.set_crs(...)`")
        named.append((name, layer.geometry))
    return named


def draw_outlines(ax: Any, outlines: Any, crs: Any) -> None:
    """Draw public layers in ``crs`` (:func:`context_layers`): polygons as outlines, lines,
    points as markers."""
    for _, geoms in context_layers(outlines):
        geoms = geoms.to_crs(crs)
        kinds = set(geoms.geom_type)
        if kinds <= {"Point", "MultiPoint"}:
            geoms.plot(ax=ax, color="white", edgecolor="black", markersize=18, zorder=3)
        else:
            lines = geoms.boundary if kinds <= {"Polygon", "MultiPolygon"} else geoms
            lines.plot(ax=ax, color="white", linewidth=0.6, alpha=0.8, zorder=2)


def frame_axes(ax: Any, bounds: tuple[float, float, float, float]) -> None:
    """Limit the axes to the grid, with plain metre tick labels."""
    x0, y0, x1, y1 = bounds
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.ticklabel_format(useOffset=False, style="plain")
