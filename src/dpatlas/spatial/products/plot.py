"""A matplotlib map of a released heatmap, with ε and the mechanism in its title."""

from __future__ import annotations

import textwrap
from typing import TYPE_CHECKING, Any

import numpy as np

from dpatlas.spatial.methods._tree_release import noise_of

if TYPE_CHECKING:
    from dpatlas.spatial.products.result import Heatmap

__all__ = ["caption", "plot_heatmap"]


def caption(heatmap: Heatmap) -> str:
    """One line saying what was released and at what privacy cost.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> print(caption(sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=0.5,
    ...                          crs="EPSG:3035", rng=0)))
    ε = 0.5 (whole map), heatmap/uniform, discrete_laplace noise of scale 2, 1 m cells, EPSG:3035 [seeded: not secret]
    """
    release = heatmap.release
    noise, value, unit = noise_of(release)
    scale = f" of scale {value:.3g}" if value is not None else ""
    scale += " per leaf" if unit == "leaf" else ""
    steps = f"; {', '.join(heatmap.steps)}" if heatmap.steps else ""
    seeded = " [seeded: not secret]" if release.seeded else ""
    return (
        f"ε = {release.epsilon:g} (whole map), {release.mechanism}, {noise} noise{scale}, "
        f"{heatmap.grid.cell_size:g} m cells, {heatmap.grid.crs.to_string()}{steps}{seeded}"
    )


def plot_heatmap(heatmap: Heatmap, ax: Any = None, *, cmap: str = "viridis", **kwargs: Any) -> Any:
    """Draw the current estimate on ``ax`` (a new figure if None) and return the axes.

    Unreleased cells are left blank; suppressed cells (if flagged) are blank too. The title
    carries ε and the mechanism, so a saved figure never loses them. ``kwargs`` go to
    ``ax.imshow``.

    Examples
    --------
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 2, 1), cell_size=1, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.array([0.5]), np.array([0.5])), g, epsilon=1.0, crs=3035, rng=0)
    >>> ax = hm.plot()
    >>> "ε = 1 (whole map), heatmap/uniform" in ax.get_title()
    True
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
    ax.set_title("Private heatmap\n" + textwrap.fill(caption(heatmap), 70), fontsize=8)
    ax.set_xlabel(f"x (m, {heatmap.grid.crs.to_string()})")
    ax.set_ylabel("y (m)")
    return ax
