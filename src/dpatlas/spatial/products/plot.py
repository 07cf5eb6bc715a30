"""A matplotlib map of a released heatmap, with ε and the mechanism in its title.

Drawing a release is post-processing and costs no privacy. Matplotlib is imported on use.
"""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = ["caption", "draw_leaves", "draw_outlines", "frame_axes", "plot_heatmap"]


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


def draw_outlines(ax: Any, outlines: Any, crs: Any) -> None:
    """Draw public outlines (GeoSeries / GeoDataFrame, or a list of them) in the grid CRS."""
    if outlines is None:
        return
    layers = outlines if isinstance(outlines, (list, tuple)) else [outlines]
    for layer in layers:
        if layer.crs is None:
            raise ValueError("outlines need a CRS; set it with `.set_crs(...)`")
        geoms = layer.to_crs(crs).geometry
        kinds = set(geoms.geom_type)
        if kinds <= {"Point", "MultiPoint"}:
            geoms.plot(ax=ax, color="white", edgecolor="black", markersize=18, zorder=3)
        else:
            lines = geoms.boundary if kinds <= {"Polygon", "MultiPolygon"} else geoms
            lines.plot(ax=ax, color="white", linewidth=0.6, alpha=0.8, zorder=2)


def frame_axes(ax: Any, bounds: tuple[float, float, float, float]) -> None:
    """Limit the axes to the grid and keep metre tick labels short and apart."""
    from matplotlib.ticker import MaxNLocator

    x0, y0, x1, y1 = bounds
    ax.set_xlim(x0, x1)
    ax.set_ylim(y0, y1)
    ax.ticklabel_format(useOffset=False, style="plain")
    ax.xaxis.set_major_locator(MaxNLocator(4))
    ax.yaxis.set_major_locator(MaxNLocator(5))


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
    leaves: bool = False,
    **kwargs: Any,
) -> Any:
    """Draw the current estimate with its colour bar, public outlines and ε in the title.

    Unreleased cells are left blank; suppressed cells (if flagged) are blank too. The title
    carries ε and the mechanism (:func:`caption`), so a saved figure never loses them.

    Parameters
    ----------
    heatmap : Heatmap
        The release to draw (its current estimate), on ``ax`` (a new figure if None).
    outlines : GeoSeries, GeoDataFrame or list of them, optional
        Public layers drawn on top: polygons and lines as white outlines, points as markers.
    title : str, optional
        A first title line (``"Private heatmap"`` if None); the privacy caption (wrapped at
        ``wrap`` characters) stays below.
    cmap : str, default "viridis"
    leaves : bool, default False
        Outline the leaves a multi-level release measured (:func:`draw_leaves`): the
        resolution the map really has.
    **kwargs
        Passed to ``imshow`` (e.g. ``vmin``, ``vmax``, ``norm``). Returns the axes.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> ax = hm.plot()
    >>> "ε = 1 (whole map), heatmap/uniform" in ax.get_title()
    True
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
    x0, y0, x1, y1 = heatmap.grid.bounds
    image = ax.imshow(values, extent=(x0, x1, y0, y1), origin="upper", cmap=cmap, **kwargs)
    ax.figure.colorbar(image, ax=ax, label="noisy site count per cell")
    if leaves:
        draw_leaves(heatmap, ax)
    ax.set_xlabel(f"x (m, {heatmap.grid.crs.to_string()})")
    ax.set_ylabel("y (m)")
    draw_outlines(ax, outlines, heatmap.grid.crs)
    frame_axes(ax, heatmap.grid.bounds)
    first = "Private heatmap" if title is None else title
    ax.set_title(f"{first}\n{textwrap.fill(caption(heatmap), wrap)}", fontsize=8)
    return ax
