"""A matplotlib map of a released heatmap, with ε and the mechanism in its title.

Drawing a release is post-processing and costs no privacy. Outlines (a study-area outline,
roads, a coastline) are public data given by the caller; never draw the private sites
themselves on a map you publish. Matplotlib is imported on use. The helpers shared with the
web map and the notebook figures (context layers, the frame, tick labels) live in
:mod:`dpatlas.spatial.products.render`; their names are exported here too.
"""

from __future__ import annotations

import textwrap
from pathlib import Path
from typing import TYPE_CHECKING, Any

import numpy as np

from dpatlas.core.files import written_whole
from dpatlas.spatial.products.render.layers import context_layers, draw_outlines, frame_axes
from dpatlas.spatial.products.render.ticks import overlapping_ticks, separate_ticks

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = [
    "SCALES",
    "caption",
    "colour_label",
    "colour_norm",
    "context_layers",
    "draw_leaves",
    "draw_outlines",
    "frame_axes",
    "overlapping_ticks",
    "plot_heatmap",
    "save_png",
    "separate_ticks",
    "shown_counts",
]

SCALES = ("linear", "sqrt", "log")
"""Colour scales of the maps: linear, square root (brings out small counts), logarithmic."""


def caption(heatmap: Heatmap) -> str:
    """One line saying what was released and at what privacy cost (ε and δ, as the record).

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> print(caption(sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=0.5,
    ...                          crs="EPSG:3035", rng=1)))
    ε = 0.5, δ = 0 (whole map), heatmap/uniform, discrete_laplace noise of scale 2, ... [seeded: ...]
    """
    release, m = heatmap.release, heatmap.measured
    scales = np.unique(m.scale)
    scale = f" of scale {scales[0]:.3g}" if scales.size == 1 else ""
    scale += " per leaf" if m.unit == "leaf" else ""
    steps = f"; {', '.join(heatmap.steps)}" if heatmap.steps else ""
    seeded = " [seeded: not secret]" if release.seeded else ""
    return (
        f"ε = {_exact(release.epsilon)}, δ = {_exact(release.delta)} (whole map), "
        f"{release.mechanism}, {m.noise} noise{scale}, {heatmap.grid.cell_size:g} m cells, "
        f"{heatmap.grid.crs.to_string()}{steps}{seeded}"
    )


def _exact(value: float) -> str:
    """``value`` short when that is exact (``0.5``, ``1e-06``), else all its digits."""
    short = f"{value:g}"
    return short if float(short) == value else repr(float(value))


def colour_norm(scale: str, values: Any) -> Any:
    """A matplotlib normalisation of ``values`` for a colour ``scale`` (one of :data:`SCALES`).

    ``"sqrt"`` and ``"log"`` start at 0 and at the smallest positive value respectively
    (``"log"`` spans at least a factor 10 below the largest value, so a map with one positive
    value draws it in the top colour); values below are drawn in the lowest colour, and
    :func:`plot_heatmap`'s colour bar says so.

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
    top = max(high, bottom)
    return LogNorm(vmin=min(bottom, top / 10), vmax=top, clip=True)


def shown_counts(heatmap: Heatmap) -> np.ma.MaskedArray:
    """The estimate as drawn: masked where cells are not released or are flagged suppressed.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 3, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.full(9, 0.5), np.full(9, 0.5)), g, epsilon=1.0, crs=3035, rng=1)
    >>> shown_counts(hm.suppress(3)).mask.tolist()
    [[False, True, True]]
    """
    values = heatmap.counts
    if "suppressed" in heatmap.flags:
        hidden = heatmap.as_grid(heatmap.flags["suppressed"]).filled(False)
        values = np.ma.masked_where(hidden, values)
    return values


def colour_label(image: Any, scale: str, what: str = "noisy site count per cell") -> dict[str, Any]:
    """The colour bar's ``label`` and ``extend`` for ``image``: its scale, and what it clips.

    A scale that starts above the smallest value drawn (``sqrt`` at 0 below negative noisy
    counts, ``log`` at the smallest positive value, a ``vmin``) draws the values below in its
    lowest colour: the bar then gets a triangle at its foot and the label says it; likewise
    at the top for values above a ``vmax``.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import matplotlib.pyplot as plt
    >>> fig, ax = plt.subplots()  # a new figure: pyplot's current one may hold other axes
    >>> image = ax.imshow([[-2.0, 0.0], [1.0, 9.0]], norm=colour_norm("sqrt", [-2.0, 9.0]))
    >>> colour_label(image, "sqrt")
    {'label': 'noisy site count per cell (sqrt scale); below 0 drawn as 0', 'extend': 'min'}
    >>> plt.close(fig)
    """
    from matplotlib.colors import LogNorm, PowerNorm

    norm = image.norm
    if scale != "linear":
        what += f" ({scale} scale)"
    elif isinstance(norm, PowerNorm):
        what += f" (power scale, gamma {norm.gamma:g})"
    elif isinstance(norm, LogNorm):
        what += " (log scale)"
    image.autoscale_None()
    values = np.ma.masked_invalid(np.ma.asarray(image.get_array(), dtype=np.float64)).compressed()
    bottom, top = norm.vmin, norm.vmax
    below = bool(values.size) and bottom is not None and float(values.min()) < bottom
    above = bool(values.size) and top is not None and float(values.max()) > top
    if below:
        what += f"; below {bottom:g} drawn as {bottom:g}"
    if above:
        what += f"; above {top:g} drawn as {top:g}"
    extend = {(False, False): "neither", (True, False): "min", (False, True): "max"}
    return {"label": what, "extend": extend.get((below, above), "both")}


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
    >>> "ε = 1, δ = 0 (whole map), heatmap/uniform" in ax.get_title(), ax.images[0].cmap.name
    (True, 'magma')
    >>> ax = plot_heatmap(hm, title="Nests")
    >>> ax.get_title().splitlines()[0], "ε = 1" in ax.get_title()
    ('Nests', True)
    """
    import matplotlib.pyplot as plt

    if ax is None:
        _, ax = plt.subplots(figsize=(7, 6))
    values = shown_counts(heatmap)
    if "norm" not in kwargs and (scale != "linear" or not {"vmin", "vmax"} & set(kwargs)):
        norm = colour_norm(scale, values)
        for end in ("vmin", "vmax"):  # ends given with a scale set the scale's ends
            if end in kwargs:
                setattr(norm, end, kwargs.pop(end))
        kwargs["norm"] = norm
    x0, y0, x1, y1 = heatmap.grid.bounds
    image = ax.imshow(values, extent=(x0, x1, y0, y1), origin="upper", cmap=cmap, **kwargs)
    ax.figure.colorbar(image, ax=ax, **colour_label(image, scale))
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
    try:
        with written_whole(path) as partial:  # a failed save leaves an existing PNG as it was
            ax.figure.savefig(partial, dpi=dpi, bbox_inches="tight")
    finally:
        plt.close(ax.figure)
    return path
