"""A matplotlib map of a released heatmap, with ε and the mechanism in its title.

Drawing a release is post-processing and costs no privacy. Outlines (a study-area outline,
roads, a coastline) are public data given by the caller; never draw the private sites
themselves on a map you publish. Matplotlib is imported on use.
"""

from __future__ import annotations

import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = [
    "SCALES",
    "caption",
    "colour_norm",
    "context_layers",
    "draw_leaves",
    "draw_outlines",
    "frame_axes",
    "overlapping_ticks",
    "plot_heatmap",
    "save_png",
    "separate_ticks",
]

SCALES = ("linear", "sqrt", "log")
"""Colour scales of the maps: linear, square root (brings out small counts), logarithmic."""


def caption(heatmap: Heatmap) -> str:
    """One line saying what was released and at what privacy cost.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> print(caption(sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=0.5,
    ...                          crs="EPSG:3035", rng=0)))
    ε = 0.5 (whole map), heatmap/uniform, discrete_laplace noise of scale 2, ...; nonnegative(integer) [seeded: ...]
    """
    release, m = heatmap.release, heatmap.measured
    scales = np.unique(m.scale)
    scale = f" of scale {scales[0]:.3g}" if scales.size == 1 else ""
    scale += " per leaf" if m.unit == "leaf" else ""
    steps = f"; {', '.join(heatmap.steps)}" if heatmap.steps else ""
    seeded = " [seeded: not secret]" if release.seeded else ""
    return (
        f"ε = {release.epsilon:g} (whole map), {release.mechanism}, {m.noise} noise{scale}, "
        f"{heatmap.grid.cell_size:g} m cells, {heatmap.grid.crs.to_string()}{steps}{seeded}"
    )


def colour_norm(scale: str, values: Any) -> Any:
    """A matplotlib normalisation of ``values`` for a colour ``scale`` (one of :data:`SCALES`).

    ``"sqrt"`` and ``"log"`` start at 0 and at the smallest positive value respectively;
    values below are drawn in the lowest colour.

    Examples
    --------
    >>> colour_norm("sqrt", [-2.0, 0.0, 9.0])(4.0).round(3)
    np.float64(0.667)
    >>> colour_norm("cubic", [1.0])
    Traceback (most recent call last):
    ...
    ValueError: scale must be one of 'linear', 'sqrt', 'log', got 'cubic'
    """
    from matplotlib.colors import LogNorm, Normalize, PowerNorm

    if scale not in SCALES:
        raise ValueError(f"scale must be one of {', '.join(map(repr, SCALES))}, got {scale!r}")
    v = np.ma.masked_invalid(np.ma.asarray(values, dtype=np.float64)).compressed()
    low, high = (float(v.min()), float(v.max())) if v.size else (0.0, 1.0)
    if scale == "linear":
        return Normalize(low, high if high > low else low + 1)
    if scale == "sqrt":
        return PowerNorm(0.5, vmin=max(low, 0.0), vmax=max(high, 1e-9), clip=True)
    positive = v[v > 0]
    bottom = float(positive.min()) if positive.size else 1.0
    return LogNorm(vmin=bottom, vmax=max(high, bottom * 10), clip=True)


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


def separate_ticks(fig: Any, *, most: int = 6, gap: float = 4.0) -> None:
    """Thin each axis's tick labels until no two labels of one axes overlap (``gap`` pixels apart).

    Long metre coordinates (``4,400,000``) on a narrow map collide with a fixed number of
    ticks. This draws the figure (without rendering), keeps as many ticks as fit, turns the
    x labels upright when even two side by side do not fit, and keeps a single tick when the
    axis is shorter than two labels.
    """
    for ax in fig.axes:
        if ax.get_label() != "<colorbar>":
            for axis in (ax.yaxis, ax.xaxis):
                _fit_ticks(fig, ax, axis, most, gap)


def _fit_ticks(fig: Any, ax: Any, axis: Any, most: int, gap: float) -> None:
    from matplotlib.ticker import FixedLocator, MaxNLocator

    across = axis is ax.xaxis
    for rotation in (0, 90) if across else (0,):
        if across:
            ax.tick_params(axis="x", labelrotation=rotation)
        bins = most
        while bins >= 1:
            axis.set_major_locator(MaxNLocator(bins))
            fig.draw_without_rendering()
            labels = _shown(ax, axis)
            if not _crowded(labels, gap):
                return
            boxes = [t.get_window_extent() for t in labels]
            size = max(b.width if across and rotation == 0 else b.height for b in boxes)
            frame = ax.get_window_extent()
            fit = int((frame.width if across else frame.height) // (size + gap))
            bins = min(bins - 1, max(fit - 1, 1))
    low, high = axis.get_view_interval()
    axis.set_major_locator(FixedLocator([float(np.mean(MaxNLocator(1).tick_values(low, high)))]))


def _shown(ax: Any, axis: Any) -> list[Any]:
    low, high = sorted(axis.get_view_interval())
    return [
        label
        for tick, label in zip(axis.get_majorticklocs(), axis.get_majorticklabels(), strict=False)
        if low <= tick <= high and label.get_text() and label.get_visible()
    ]


def _crowded(labels: list[Any], gap: float) -> list[tuple[str, str]]:
    boxes = [t.get_window_extent().padded(gap / 2) for t in labels]
    return [
        (labels[i].get_text(), labels[j].get_text())
        for i in range(len(boxes))
        for j in range(i + 1, len(boxes))
        if boxes[i].overlaps(boxes[j])
    ]


def overlapping_ticks(ax: Any, gap: float = 0.0) -> list[tuple[str, str]]:
    """Pairs of shown tick labels of ``ax`` (both axes) closer than ``gap`` pixels, after a draw."""
    return _crowded([*_shown(ax, ax.xaxis), *_shown(ax, ax.yaxis)], gap)


def draw_leaves(heatmap: Heatmap, ax: Any, *, color: str = "white", linewidth: float = 0.4) -> Any:
    """Outline the measured leaves of a multi-level release on ``ax``; returns the collection.

    The leaves are the units the map measured: inside one, the release says nothing of how
    the sites spread over its cells (the cell values there are a smooth guess).

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 32, 32), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.full(300, 3.5), np.full(300, 30.5)), g, epsilon=1.0, target="regions",
    ...                 crs=3035, rng=2)
    >>> ax = hm.plot(leaves=True)
    >>> len(ax.collections[-1].get_paths()) == hm.measured.size
    True
    """
    from matplotlib.collections import PolyCollection

    h, m, grid = heatmap.hierarchy, heatmap.measured, heatmap.grid
    if h is None or m.node is None:
        raise ValueError(
            f"leaves=True needs a multi-level release; {heatmap.release.mechanism!r} measured "
            "every cell on its own"
        )
    xe, ye, node = grid.x_edges, grid.y_edges, m.node
    x0, x1 = xe[h.c0[node]], xe[h.c1[node]]
    y0, y1 = ye[grid.ny - h.r1[node]], ye[grid.ny - h.r0[node]]
    corners = np.stack([np.c_[x0, y0], np.c_[x1, y0], np.c_[x1, y1], np.c_[x0, y1]], axis=1)
    leaves = PolyCollection(
        list(corners), facecolors="none", edgecolors=color, linewidths=linewidth, zorder=2
    )
    ax.add_collection(leaves)
    return leaves


def plot_heatmap(
    heatmap: Heatmap,
    ax: Any = None,
    *,
    outlines: Any = None,
    title: str | None = None,
    wrap: int = 70,
    cmap: str = "viridis",
    scale: str = "linear",
    leaves: bool = False,
    **kwargs: Any,
) -> Any:
    """Draw the current estimate with its colour bar, public outlines and ε in the title.

    Unreleased cells are left blank; suppressed cells (if flagged) are blank too. The title
    carries ε and the mechanism (:func:`caption`), so a saved figure never loses them. Tick
    labels are thinned until none overlap (:func:`separate_ticks`).

    Parameters
    ----------
    heatmap : Heatmap
        The release to draw (its current estimate), on ``ax`` (a new figure if None).
    outlines : GeoSeries, GeoDataFrame, path, or a list or mapping of them, optional
        Public layers drawn on top (:func:`context_layers`): polygons and lines as white
        outlines, points as markers.
    title : str, optional
        A first title line (``"Private heatmap"`` if None); the privacy caption (wrapped at
        ``wrap`` characters) stays below.
    cmap : str, default "viridis"
        A matplotlib colour map name.
    scale : {"linear", "sqrt", "log"}
        The colour scale (:data:`SCALES`).
    leaves : bool, default False
        Outline the leaves a multi-level release measured (:func:`draw_leaves`): the
        resolution the map really has.
    **kwargs
        Passed to ``imshow`` (e.g. ``vmin``, ``vmax``, ``norm``). Returns the axes.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> ax = hm.plot(cmap="magma", scale="sqrt")
    >>> "ε = 1 (whole map), heatmap/uniform" in ax.get_title(), ax.images[0].cmap.name
    (True, 'magma')
    >>> ax = plot_heatmap(hm, title="Nests")
    >>> ax.get_title().splitlines()[0], "ε = 1" in ax.get_title()
    ('Nests', True)
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 6))
    values = heatmap.counts
    if "suppressed" in heatmap.flags:
        hidden = heatmap.as_grid(heatmap.flags["suppressed"]).filled(False)
        values = np.ma.masked_where(hidden, values)
    if scale != "linear" or not {"vmin", "vmax", "norm"} & set(kwargs):
        kwargs.setdefault("norm", colour_norm(scale, values))
    x0, y0, x1, y1 = heatmap.grid.bounds
    image = ax.imshow(values, extent=(x0, x1, y0, y1), origin="upper", cmap=cmap, **kwargs)
    label = "noisy site count per cell" + ("" if scale == "linear" else f" ({scale} scale)")
    ax.figure.colorbar(image, ax=ax, label=label)
    if leaves:
        draw_leaves(heatmap, ax)
    draw_outlines(ax, outlines, heatmap.grid.crs)
    frame_axes(ax, heatmap.grid.bounds)
    first = "Private heatmap" if title is None else title
    ax.set_title(f"{first}\n{textwrap.fill(caption(heatmap), wrap)}", fontsize=8)
    ax.set_xlabel(f"x (m, {heatmap.grid.crs.to_string()})")
    ax.set_ylabel("y (m)")
    separate_ticks(ax.figure)
    return ax


def save_png(
    heatmap: Heatmap,
    path: str | Path,
    *,
    context: Any = None,
    cmap: str = "viridis",
    scale: str = "linear",
    title: str | None = None,
    leaves: bool = False,
    dpi: int = 150,
) -> Path:
    """Write the map as a PNG (colour bar, privacy caption, public ``context`` layers; the
    measured leaves outlined with ``leaves=True``).

    Examples
    --------
    >>> import os, tempfile, numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> save_png(hm, os.path.join(tempfile.mkdtemp(), "map.png")).read_bytes()[:4]
    b'\\x89PNG'
    """
    import matplotlib.pyplot as plt

    ax = plot_heatmap(heatmap, outlines=context, cmap=cmap, scale=scale, title=title, leaves=leaves)
    path = Path(path)
    ax.figure.savefig(path, dpi=dpi, bbox_inches="tight")
    plt.close(ax.figure)
    return path
