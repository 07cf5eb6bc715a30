"""Figures of private releases: maps with outlines, interval maps, privacy–utility curves.

Every figure carries its privacy cost: map titles come from
:func:`dpatlas.spatial.products.plot.caption` (ε, mechanism, noise scale, cell size, CRS, seeded or
not). Drawing a release is post-processing and costs no privacy; never draw the private input
(the sites themselves) beside it in a figure you publish.

:func:`plot_heatmap` is :func:`dpatlas.spatial.products.plot.plot_heatmap` (also
:meth:`dpatlas.spatial.Heatmap.plot`). Matplotlib is imported on use.
"""

from __future__ import annotations

import numbers
import textwrap
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from dpatlas.core.files import written_whole
from dpatlas.core.validation import as_float_array, percent
from dpatlas.spatial.products.intervals import containing, kept_sites
from dpatlas.spatial.products.plot import caption, draw_leaves, plot_heatmap, shown_counts
from dpatlas.spatial.products.render.layers import draw_outlines, frame_axes
from dpatlas.spatial.products.render.ticks import separate_ticks
from dpatlas.spatial.products.result import Heatmap

__all__ = [
    "plot_heatmap",
    "plot_heatmaps",
    "plot_interval_map",
    "plot_privacy_utility",
    "save_figure",
]


def plot_heatmaps(
    heatmaps: Iterable[Any],
    titles: Sequence[str] | None = None,
    *,
    outlines: Any = None,
    gamma: float | None = None,
    figsize: tuple[float, float] | None = None,
) -> Any:
    """Several private heatmaps side by side on one colour scale; returns the figure.

    ``heatmaps`` may be any iterable of heatmaps. ``gamma`` (> 0; < 1, e.g. 0.5, a square-root
    scale) brings out small counts next to large ones; its scale starts at 0, so negative
    noisy counts are drawn as 0, and the colour bars say so. Suppressed cells are blank, as in
    :func:`plot_heatmap`, and do not set the shared scale.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 3_000, 2_000), cell_size=1_000, crs="EPSG:3035")
    >>> maps = [sp.heatmap((np.array([500.0]), np.array([500.0])), g, epsilon=e,
    ...                    crs="EPSG:3035", rng=0) for e in (0.5, 2.0)]
    >>> len(plot_heatmaps(maps, ["ε = 0.5", "ε = 2"], gamma=0.5).axes)  # maps and colour bars
    4
    >>> plot_heatmaps(maps, ["one title"])
    Traceback (most recent call last):
    ...
    ValueError: give one title per heatmap (2), got 1
    >>> plot_heatmaps(maps, gamma=0)
    Traceback (most recent call last):
    ...
    ValueError: gamma must be a finite number > 0, got 0; e.g. 0.5 for a square-root scale
    """
    import matplotlib.pyplot as plt

    if isinstance(heatmaps, Heatmap) or not isinstance(heatmaps, Iterable):
        raise TypeError(
            f"heatmaps must be an iterable of Heatmap, got {type(heatmaps).__name__}; for one "
            "map use plot_heatmap(hm) or hm.plot()"
        )
    heatmaps = list(heatmaps)
    for i, hm in enumerate(heatmaps):
        if not isinstance(hm, Heatmap):
            raise TypeError(f"heatmaps[{i}] must be a Heatmap, got {type(hm).__name__}")
    if isinstance(titles, str):
        raise TypeError(
            f"titles must be a sequence of str, one per heatmap, got the str {titles!r}; "
            f"e.g. [{titles!r}] for one map"
        )
    if gamma is not None and not (
        isinstance(gamma, numbers.Real) and not isinstance(gamma, bool) and 0 < gamma < np.inf
    ):
        raise ValueError(
            f"gamma must be a finite number > 0, got {gamma!r}; e.g. 0.5 for a square-root scale"
        )
    if not heatmaps:
        raise ValueError("heatmaps must hold at least one Heatmap, got none")
    names: list[str | None] = list(titles) if titles is not None else [None] * len(heatmaps)
    if len(names) != len(heatmaps):
        raise ValueError(f"give one title per heatmap ({len(heatmaps)}), got {len(names)}")
    shown = [shown_counts(h).compressed() for h in heatmaps]  # suppressed cells stay blank
    vmin = min((float(v.min()) for v in shown if v.size), default=0.0)
    vmax = max((float(v.max()) for v in shown if v.size), default=1.0)
    fig, axes = plt.subplots(
        1, len(heatmaps), figsize=figsize or (5.5 * len(heatmaps), 5), squeeze=False
    )
    scale: dict[str, Any] = {"vmin": vmin, "vmax": vmax}
    if gamma is not None:
        from matplotlib.colors import PowerNorm

        scale = {"norm": PowerNorm(gamma, vmin=max(vmin, 0.0), vmax=vmax, clip=True)}
    for ax, hm, title in zip(axes[0], heatmaps, names, strict=True):
        plot_heatmap(hm, ax, outlines=outlines, title=title, wrap=55, **scale)
    fig.tight_layout()
    separate_ticks(fig)
    return fig


def _interval_layers(heatmap: Any, level: float, unit: str) -> tuple[list[Any], str]:
    """The three maps (lower end, estimate, upper end) and a note on what they promise."""
    layers, note = _unit_layers(heatmap, level, unit)
    kept = kept_sites(heatmap.release)
    return layers, f"{note}; counts are those {kept}" if kept else note


def _unit_layers(heatmap: Any, level: float, unit: str) -> tuple[list[Any], str]:
    """:func:`_interval_layers` before the note on whose sites are counted."""
    pct = percent(level)
    if unit == "leaf":
        m = heatmap.measured
        count = np.bincount(m.of_cell, weights=heatmap.estimate, minlength=m.size)
        low, high = heatmap.confidence_interval(level, unit="leaf")
        low, high = containing(low, high, count)
        per = m.n_cells[m.of_cell]
        layers = [
            (f"lower end of {pct} interval, leaf average per cell", low[m.of_cell] / per),
            ("private estimate, leaf average per cell", count[m.of_cell] / per),
            (f"upper end of {pct} interval, leaf average per cell", high[m.of_cell] / per),
        ]
        note = (
            f"each leaf's count lies in its interval with probability >= {pct} (noise only); "
            "shown divided by the leaf's cells: the leaf's average per cell"
        )
        return [(name, heatmap.as_grid(v)) for name, v in layers], note
    low, high = heatmap.confidence_interval(level)
    low, high = containing(low, high, heatmap.estimate)
    layers = [
        (f"lower end of {pct} interval per cell", heatmap.as_grid(low)),
        ("private estimate per cell", heatmap.counts),
        (f"upper end of {pct} interval per cell", heatmap.as_grid(high)),
    ]
    note = f"each cell's count lies in its interval with probability >= {pct}"
    if heatmap.measured.unit == "leaf":
        note += (
            "; in leaves of several cells the interval is [0, upper end of the leaf's], since "
            "the spread of sites inside a leaf is not released (unit='leaf' shows the leaves)"
        )
    return layers, note


def _hide_suppressed(heatmap: Any, layers: list[Any], note: str) -> tuple[list[Any], str]:
    """Blank the cells flagged suppressed in every layer, as :func:`plot_heatmap` does."""
    hidden = np.ma.getmaskarray(shown_counts(heatmap)) & ~np.ma.getmaskarray(heatmap.counts)
    if not hidden.any():
        return layers, note
    layers = [(name, np.ma.masked_where(hidden, values)) for name, values in layers]
    return layers, f"{note}; suppressed cells are blank"


def plot_interval_map(
    heatmap: Any,
    *,
    level: float = 0.95,
    unit: str = "cell",
    outlines: Any = None,
    figsize: tuple[float, float] = (15, 5),
) -> Any:
    """Lower end, estimate and upper end of every ``level`` interval, on one colour scale.

    ``unit="cell"``: each cell's interval (:meth:`~dpatlas.spatial.Heatmap.confidence_interval`);
    a cell whose lower end is above 0 holds sites with probability at least ``level``. For a
    multi-level release most cells lie in leaves of several cells, whose interval is
    ``[0, upper end of the leaf's]``: honest, and wide. ``unit="leaf"`` draws what such a
    release measured instead: each leaf's noise-only interval (and estimate) divided by its
    number of cells, i.e. the leaf's average per cell, with the leaves outlined. The
    intervals come from the raw release and the public noise scale only (post-processing),
    widened where needed to contain the estimate drawn between them
    (:func:`~dpatlas.spatial.products.intervals.containing`). Cells flagged suppressed
    (:meth:`~dpatlas.spatial.Heatmap.suppress`) are blank in all three maps. Returns the figure.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import numpy as np, dpatlas.spatial as sp
    >>> g = sp.Grid.from_bounds((0, 0, 3_000, 2_000), cell_size=1_000, crs="EPSG:3035")
    >>> hm = sp.heatmap((np.full(40, 500.0), np.full(40, 500.0)), g, epsilon=1.0,
    ...                 crs="EPSG:3035", rng=0)
    >>> fig = plot_interval_map(hm)
    >>> [a.get_title() for a in fig.axes[:3]]
    ['lower end of 95% interval per cell', 'private estimate per cell', 'upper end of 95% interval per cell']
    """
    import matplotlib.pyplot as plt

    if unit not in ("cell", "leaf"):
        raise ValueError(f'unit must be "cell" or "leaf", got {unit!r}')
    layers, note = _hide_suppressed(heatmap, *_interval_layers(heatmap, level, unit))
    drawn = [np.ma.compressed(v) for _, v in layers]  # none when every cell is suppressed
    vmin = min((float(v.min()) for v in drawn if v.size), default=0.0)
    vmax = max((float(v.max()) for v in drawn if v.size), default=1.0)
    x0, y0, x1, y1 = heatmap.grid.bounds
    fig, axes = plt.subplots(1, 3, figsize=figsize)
    for ax, (name, values) in zip(axes, layers, strict=True):
        image = ax.imshow(values, extent=(x0, x1, y0, y1), origin="upper", vmin=vmin, vmax=vmax)
        fig.colorbar(image, ax=ax, shrink=0.8, label="sites per cell")
        if unit == "leaf":
            draw_leaves(heatmap, ax)
        draw_outlines(ax, outlines, heatmap.grid.crs)
        frame_axes(ax, heatmap.grid.bounds)
        ax.set_title(name, fontsize=9)
    fig.suptitle(textwrap.fill(f"{caption(heatmap)}. {note}", 150), fontsize=8)
    fig.tight_layout()
    separate_ticks(fig)
    return fig


def plot_privacy_utility(
    epsilons: Sequence[float],
    errors: Mapping[str, Sequence[float]],
    ax: Any = None,
    *,
    ylabel: str = "median relative error",
    title: str | None = None,
) -> Any:
    """Error against ε for several mechanisms, both axes logarithmic; returns the axes.

    ``epsilons`` are finite and > 0 (a log axis), in any order: each curve is drawn in order
    of ε. ``errors`` maps a label to one error per ε (non-positive and NaN values are not
    drawn). The figure draws the numbers it is given and costs nothing, but errors measured
    against the exact answer of *private* data are not private (each point would also be a
    release, with no budget debited): measure them on public data, or on a simulation, as
    the notebooks do.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> ax = plot_privacy_utility([0.1, 1.0], {"ladder": [0.02, 0.002], "global": [0.7, 0.07]})
    >>> [line.get_label() for line in ax.get_lines()], ax.get_xscale(), ax.get_yscale()
    (['ladder', 'global'], 'log', 'log')
    >>> plot_privacy_utility([0.1, 1.0], {"ladder": [0.02]})
    Traceback (most recent call last):
    ...
    ValueError: errors['ladder'] must have one value per epsilon (2)
    """
    import matplotlib.pyplot as plt

    eps = as_float_array(_listed(epsilons), "epsilons")
    if eps.ndim != 1:
        raise ValueError(f"epsilons must be a 1-D sequence of numbers, got shape {eps.shape}")
    if not eps.size:
        raise ValueError("epsilons must hold at least one epsilon, got none")
    if (eps <= 0).any():
        at = int(np.argmax(eps <= 0))
        raise ValueError(
            f"epsilons must be > 0 (a log axis), got {float(eps[at])!r} at position {at}"
        )
    if not isinstance(errors, Mapping):
        raise TypeError(
            "errors must map a label to one error per epsilon, e.g. {'ladder': [0.02, 0.002]}, "
            f"got {type(errors).__name__}"
        )
    curves = {}
    for label, values in errors.items():
        listed = _listed(values)
        try:
            y = np.asarray(listed, dtype=np.float64)
        except (TypeError, ValueError):
            raise TypeError(f"errors[{label!r}] must be numbers, got {listed!r}") from None
        if y.shape != eps.shape:
            raise ValueError(f"errors[{label!r}] must have one value per epsilon ({eps.size})")
        curves[label] = y
    order = np.argsort(eps, kind="stable")
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 4.5))
    for label, y in curves.items():
        y = np.where(y > 0, y, np.nan)
        ax.plot(eps[order], y[order], marker="o", label=label)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("ε (privacy loss; smaller is more private)")
    ax.set_ylabel(ylabel)
    ax.grid(True, which="both", alpha=0.3)
    ax.legend()
    if title is not None:
        ax.set_title(title, fontsize=9)
    return ax


def _listed(values: Any) -> Any:
    """``values``, with an iterator (a generator) read into a list."""
    if isinstance(values, Iterable) and not isinstance(values, (np.ndarray, str, Sequence)):
        return list(values)
    return values


def save_figure(fig: Any, path: str | Path, *, dpi: int = 150) -> Path:
    """Save ``fig`` to ``path`` (format from the suffix), close it, and return the path.

    ``fig`` is a figure, or the axes the plot functions return. ``path`` ends in a format
    matplotlib writes (``.png``, ``.pdf``, ``.svg``, ...), in a folder that exists.

    Examples
    --------
    >>> import matplotlib; matplotlib.use("Agg")
    >>> import os, tempfile
    >>> ax = plot_privacy_utility([0.1, 1.0], {"ladder": [0.02, 0.002]})
    >>> save_figure(ax, os.path.join(tempfile.mkdtemp(), "curve.png")).suffix
    '.png'
    >>> save_figure(ax, "curve")
    Traceback (most recent call last):
    ...
    ValueError: path must end in a figure format such as .png, .pdf or .svg, got 'curve'
    """
    import matplotlib.pyplot as plt

    if not hasattr(fig, "savefig") and hasattr(getattr(fig, "figure", None), "savefig"):
        fig = fig.figure  # the axes a plot function returned
    if not hasattr(fig, "savefig"):
        raise TypeError(f"fig must be a matplotlib Figure or Axes, got {fig!r}")
    path = Path(path)
    if path.is_dir():
        raise ValueError(f"path {path} is a folder; give a file path such as {path / 'figure.png'}")
    if not path.suffix:
        raise ValueError(
            f"path must end in a figure format such as .png, .pdf or .svg, got {str(path)!r}"
        )
    if not path.parent.is_dir():
        raise ValueError(f"folder {path.parent} does not exist; create it first")
    try:
        with written_whole(path) as partial:  # a failed save leaves an existing file as it was
            fig.savefig(partial, dpi=dpi, bbox_inches="tight")
    finally:
        plt.close(fig)
    return path
