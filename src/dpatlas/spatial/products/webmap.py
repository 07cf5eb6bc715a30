"""An interactive web map of a released heatmap: one self-contained HTML file.

The page follows the geopandas ecosystem's conventions (``GeoDataFrame.explore``: Leaflet, a
colour map by name, a tooltip per feature, a legend, optional web tiles) but needs no network:
Leaflet 1.9.4 (BSD-2-Clause, vendored from the npm registry by ``tools/vendor_leaflet.py``,
its licence in ``render/_leaflet/LICENSE``) is inlined with the data, so the file can be mailed,
archived, or opened on a laptop in the field. A web basemap is an option (``tiles=``); the
private layer never depends on it.

What reaches the page: the released cells (re-projected to WGS 84) with the columns of
:meth:`Heatmap.to_geodataframe` (estimate, raw noisy count, interval, flags), the release's
public facts, and the public context layers the caller passes. Nothing else: no site, no
exact count. Rendering is post-processing of the release and costs no privacy. Text the caller
gives (the title, context-layer names, column and flag names) is shown as text, never run as
HTML.
"""

from __future__ import annotations

import html
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dpatlas.core.files import written_whole
from dpatlas.core.validation import percent
from dpatlas.spatial.products.render.geojson import Raw, collection, dumps
from dpatlas.spatial.products.render.page import SCRIPT, STYLE, TEMPLATE, asset

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = ["MAX_FEATURES", "TILES", "WebMap", "explore", "to_html"]

MAX_FEATURES = 100_000
"""Most cells drawn on one page (a browser slows down beyond); export a GeoTIFF for more."""
SVG_FEATURES = 5_000
"""Up to this many cells are SVG paths (one DOM element each); more are drawn on a canvas."""
TILES = {
    "OpenStreetMap": (
        "https://tile.openstreetmap.org/{z}/{x}/{y}.png",
        '&copy; <a href="https://www.openstreetmap.org/copyright">OpenStreetMap</a> contributors',
    ),
}
"""Named web basemaps for ``tiles=`` (they need a network; the private layer does not)."""

_LABELS = {
    "row": None,
    "col": None,
    "leaf": None,
    "count": "private estimate",
    "raw": "raw noisy count",
    "ci_covers": "the range allows for",
    "n_cells": "released cells in the leaf",
    "density_km2": "estimate per km²",
    "adjusted": "changed by post-processing",
}


@dataclass(frozen=True)
class WebMap:
    """A rendered web map: the page as text, shown inline by Jupyter, saved by :meth:`save`.

    Attributes
    ----------
    html : str
        The whole self-contained page.
    n_cells : int
        The number of released cells (or leaves) drawn.
    height : int
        Height in pixels of the frame Jupyter shows it in.
    """

    html: str
    n_cells: int
    height: int = 520

    def save(self, path: str | Path) -> Path:
        """Write the page to ``path`` (UTF-8, swapped in whole: a failed write leaves an
        existing file as it was) and return the path."""
        path = Path(path)
        with written_whole(path) as partial:
            partial.write_text(self.html, encoding="utf-8")
        return path

    def _repr_html_(self) -> str:
        """An ``<iframe>`` holding the page, so Jupyter shows the map (as folium does)."""
        return (
            f'<iframe srcdoc="{html.escape(self.html, quote=True)}" '
            f'style="width:100%;height:{self.height}px;border:none" '
            'sandbox="allow-scripts"></iframe>'
        )


def _fields(gdf: Any, level: float) -> list[list[Any]]:
    """``[columns, label]`` rows of the tooltip: estimate, interval(s), raw count, flags.

    ``columns`` lists one column, or the two ends of an interval.
    """
    fields: list[list[Any]] = []
    for column in gdf.columns:
        if column == gdf.geometry.name or column.endswith("_high"):
            continue
        if column.endswith("_low") and f"{column[:-4]}_high" in gdf.columns:
            fields.append([[column, f"{column[:-4]}_high"], f"{percent(level)} interval"])
        elif column not in _LABELS:
            fields.append([[column], column.replace("_", " ")])
        elif (known := _LABELS[column]) is not None:
            fields.append([[column], known])
    return fields


def _legend(norm: Any, cmap: Any, label: str) -> dict[str, Any]:
    """A colour bar: CSS gradient stops and three tick values."""
    from matplotlib.colors import to_hex

    stops = [to_hex(cmap(t)) for t in np.linspace(0, 1, 11)]
    ticks = [float(norm.inverse(t)) for t in (0.0, 0.5, 1.0)]
    return {"label": label, "stops": stops, "ticks": ticks}


def _context(context: Any) -> list[dict[str, Any]]:
    from dpatlas.spatial.products.render.layers import context_layers

    layers = []
    for name, geoms in context_layers(context):
        kinds = set(geoms.geom_type)
        kind = "point" if kinds <= {"Point", "MultiPoint"} else "line"
        frame = geoms.to_frame(name="geometry").set_geometry("geometry")
        layers.append({"name": name, "kind": kind, "geojson": Raw(collection(frame, {}))})
    return layers


def _caption(heatmap: Heatmap, facts: dict[str, Any]) -> str:
    from dpatlas.spatial.products.plot import caption

    date = str(facts.get("date") or "")[:10]
    seeded = (
        " <b>Seeded run: the noise is reproducible and NOT secret (teaching only).</b>"
        if heatmap.release.seeded
        else ""
    )
    released = f", released {html.escape(date)}" if date else ""
    text = html.escape(caption(heatmap).removesuffix(" [seeded: not secret]"))
    promise = facts.get("interval")
    ranges = f"<br>Intervals: {html.escape(str(promise))}" if promise else ""
    return f"<b>Differentially private</b> map{released}: {text}.{seeded}{ranges}"


def explore(
    heatmap: Heatmap,
    *,
    context: Any = None,
    cmap: str = "viridis",
    scale: str = "linear",
    tiles: str | None = None,
    title: str | None = None,
    level: float = 0.95,
    unit: str = "cell",
    height: int = 520,
) -> WebMap:
    """An interactive map of the release (pan, zoom, a tooltip per cell), like ``gdf.explore()``.

    Parameters
    ----------
    heatmap : Heatmap
        The release; its current estimate is coloured.
    context : GeoDataFrame, GeoSeries, path or list of them, optional
        Public layers drawn above the cells (study-area outline, roads, coastline): polygons
        as outlines, lines, points as small circles. Never pass the private sites.
    cmap : str, default "viridis"
        A matplotlib colour map name.
    scale : {"linear", "sqrt", "log"}
        Colour scale (see :data:`dpatlas.spatial.products.plot.SCALES`).
    tiles : str, optional
        A web basemap: a name in :data:`TILES` (``"OpenStreetMap"``) or a URL template
        ``https://.../{z}/{x}/{y}.png``. It needs a network; without it the private layer still
        shows (the default: no tiles, nothing fetched).
    title : str, optional
        The page's heading (default "Private heatmap").
    level : float, default 0.95
        Level of the intervals in the tooltips.
    unit : {"cell", "leaf"}, default "cell"
        Draw the released cells, or the leaves a multi-level release measured (their tight,
        noise-only intervals; see :meth:`Heatmap.to_geodataframe`). Leaves are coloured by
        their estimate per km², since they differ in size; cells by their estimate.
    height : int, default 520
        Height of the frame in a notebook.

    Returns
    -------
    WebMap
        Shown inline by Jupyter; ``.save(path)`` writes the page.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 3_000, 2_000), cell_size=1_000, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([500.0]), np.array([500.0])), g, epsilon=1.0, crs=3035, rng=0)
    >>> page = explore(hm)
    >>> page.n_cells, "Differentially private" in page.html, "<script" in page._repr_html_()
    (6, True, False)
    """
    from matplotlib import colormaps

    from dpatlas.spatial.products.formats.facts import release_facts
    from dpatlas.spatial.products.plot import colour_norm

    gdf = heatmap.to_geodataframe(level=level, unit=unit)
    if len(gdf) > MAX_FEATURES:
        raise ValueError(
            f"the map has {len(gdf):,} cells, more than a web page draws well ({MAX_FEATURES:,}); "
            "use larger cells, or share a GeoTIFF / GeoPackage instead"
        )
    if tiles is not None and tiles not in TILES and not tiles.startswith("https://"):
        raise ValueError(
            f"tiles must be one of {', '.join(map(repr, TILES))} or an https:// URL template, "
            f"got {tiles!r}"
        )
    facts = {**gdf.attrs.get("dpatlas", {}), **release_facts(heatmap)}
    # leaves differ in size: colour them by density, so a big leaf does not look like a hotspot
    coloured = "density_km2" if "density_km2" in gdf.columns else "count"
    values = gdf[coloured].to_numpy(dtype=np.float64)
    try:
        colours = colormaps[cmap]
    except KeyError:
        raise ValueError(f"cmap must name a matplotlib colour map, got {cmap!r}") from None
    norm = colour_norm(scale, values)
    rgb = np.rint(colours(norm(np.nan_to_num(values, nan=0.0)))[:, :3] * 255).astype(int)
    fill = [f"#{r:02x}{g:02x}{b:02x}" for r, g, b in rgb.tolist()]
    suppressed = gdf["suppressed"].tolist() if "suppressed" in gdf.columns else [False] * len(gdf)
    fill = ["#9e9e9e" if hidden else c for c, hidden in zip(fill, suppressed, strict=True)]
    per = "sites per km²" if coloured == "density_km2" else f"sites per {unit}"
    per += "" if scale == "linear" else f", {scale} scale"
    shown = values[~np.asarray(suppressed, dtype=bool) & np.isfinite(values)]
    if shown.size and float(shown.min()) < norm.vmin:  # sqrt below 0, log at the least > 0
        per += f"; below {norm.vmin:g} drawn as {norm.vmin:g}"
    tile = None
    if tiles in TILES:
        tile = {"url": TILES[tiles][0], "attribution": TILES[tiles][1], "name": tiles}
    elif tiles is not None:
        tile = {"url": tiles, "attribution": html.escape(tiles.split("/")[2]), "name": "tiles"}
    data = {
        "cells": Raw(collection(gdf, {"_fill": fill})),
        "fields": _fields(gdf, level),
        "legend": _legend(norm, colours, f"private estimate ({per})"),
        "suppressed": any(suppressed),
        "context": _context(context),
        "tiles": tile,
        "canvas": len(gdf) > SVG_FEATURES,
        "caption": _caption(heatmap, facts),
    }
    page = TEMPLATE.format(
        title=html.escape(title or "Private heatmap"),
        leaflet_css=asset("leaflet.css"),
        leaflet_js=asset("leaflet.js"),
        # "<" as its JSON escape: no "</script>" or "<!--" in a name can end the data block
        data=dumps(data).replace("<", "\\u003c"),
        script=SCRIPT,
        style=STYLE,
    )
    return WebMap(html=page, n_cells=len(gdf), height=height)


def to_html(heatmap: Heatmap, path: str | Path, **options: Any) -> Path:
    """Write :func:`explore`'s page to ``path`` (one self-contained ``.html`` file).

    Examples
    --------
    >>> import os, tempfile, numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 3_000, 2_000), cell_size=1_000, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([500.0]), np.array([500.0])), g, epsilon=1.0, crs=3035, rng=0)
    >>> path = to_html(hm, os.path.join(tempfile.mkdtemp(), "map.html"))
    >>> path.suffix, path.stat().st_size > 150_000  # Leaflet and the data, inlined
    ('.html', True)
    """
    return explore(heatmap, **options).save(path)
