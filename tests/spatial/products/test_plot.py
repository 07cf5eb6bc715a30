"""PNG maps: tick labels never overlap, context layers and colour scales are drawn."""

from __future__ import annotations

import geopandas as gpd
import matplotlib.pyplot as plt
import numpy as np
import pytest
from shapely.geometry import LineString, Point

from dpatlas import plot as dplot
from dpatlas.spatial import Grid, heatmap
from dpatlas.spatial.products import plot as splot

# Web-Mercator-sized coordinates (8 digits) on a tall, narrow study area: the worst case
TALL = Grid.from_bounds((12_950_000, 4_800_000, 12_953_000, 4_830_000), cell_size=500, crs=3857)
WIDE = Grid.from_bounds((4_400_000, 3_000_000, 4_460_000, 3_004_000), cell_size=1_000, crs=3035)


def _map(grid: Grid, seed: int = 0):
    gen = np.random.default_rng(seed)
    x0, y0, x1, y1 = grid.bounds
    xy = (gen.uniform(x0, x1, 300), gen.uniform(y0, y1, 300))
    return heatmap(xy, grid, epsilon=1.0, method="uniform", crs=grid.crs, rng=seed)


def _overlaps(fig) -> list[tuple[str, str]]:
    """Pairs of shown tick labels of one axes whose boxes intersect in the drawn figure."""
    fig.draw_without_rendering()
    return [pair for ax in fig.axes for pair in splot.overlapping_ticks(ax)]


FIGURES = {
    "tall map, small figure": lambda: _map(TALL).plot(ax=plt.subplots(figsize=(3, 4))[1]).figure,
    "wide map": lambda: _map(WIDE).plot().figure,
    "two maps side by side": lambda: dplot.plot_heatmaps(
        [_map(TALL, s) for s in range(2)], ["a", "b"], figsize=(6, 4)
    ),
    "interval map": lambda: dplot.plot_interval_map(_map(TALL), figsize=(8, 3)),
}


@pytest.mark.parametrize("name", FIGURES)
def test_tick_labels_never_overlap(name):
    fig = FIGURES[name]()
    try:
        assert _overlaps(fig) == []
        maps = [ax for ax in fig.axes if ax.get_label() != "<colorbar>"]
        for ax in maps:  # ticks are thinned, never all dropped
            x0, x1 = ax.get_xlim()
            assert sum(x0 <= t <= x1 for t in ax.xaxis.get_majorticklocs()) >= 1
    finally:
        plt.close(fig)


def test_the_check_catches_overlapping_labels(monkeypatch):
    monkeypatch.setattr(splot, "separate_ticks", lambda fig, **kw: None)
    fig = _map(WIDE).plot(ax=plt.subplots(figsize=(3, 4))[1]).figure
    fig.axes[0].xaxis.set_major_locator(plt.MaxNLocator(8))
    try:
        assert _overlaps(fig) != []
    finally:
        plt.close(fig)


def test_png_with_context_layers_and_a_colour_scale(tmp_path):
    hm = _map(WIDE)
    road = gpd.GeoSeries([LineString([(4_400_000, 3_001_000), (4_460_000, 3_003_000)])], crs=3035)
    wells = gpd.GeoDataFrame(geometry=[Point(4_410_000, 3_002_000)], crs=3035).to_crs(4326)
    ax = hm.plot(outlines={"road": road, "wells": wells}, cmap="magma", scale="log")
    try:
        assert ax.images[0].cmap.name == "magma"
        assert type(ax.images[0].norm).__name__ == "LogNorm"
        assert len(ax.collections) == 2  # the road and the well, re-projected to the grid CRS
        assert "log scale" in ax.figure.axes[1].get_ylabel()
    finally:
        plt.close(ax.figure)
    path = hm.to_file(tmp_path / "map.png", context=[road], cmap="cividis", scale="sqrt")
    assert path.read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(
        TypeError, match=r"context apply only to \.png and \.html maps, not to \.gpkg"
    ):
        hm.to_file(tmp_path / "map.gpkg", context=[road])


SMALL = Grid.from_bounds((0, 0, 3_000, 2_000), cell_size=1_000, crs=3035)


def _raw_map():
    """Raw noisy counts [[-2, -2, 0], [17, 0, -1]]: negatives and one positive value."""
    x = np.r_[np.full(5, 500.0), np.full(3, 1500.0), 2999.0]
    xy = (x, np.r_[np.full(5, 500.0), np.full(3, 1500.0), 1999.0])
    hm = heatmap(xy, SMALL, epsilon=0.3, crs=3035, rng=281)
    raw = hm.replace(estimate=None, steps=())
    assert raw.counts.tolist() == [[-2, -2, 0], [17, 0, -1]]
    return raw


def _colours(ax):
    image = ax.images[0]
    return image.to_rgba(image.get_array())


def test_a_log_map_with_one_positive_value_draws_it_at_the_top():
    """Before, the scale ran from that value to ten times it: the one hotspot of a map of
    zeros got the lowest colour, the colour of the zeros, and the map looked empty."""
    ax = _raw_map().nonnegative().plot(scale="log")
    try:
        rgba = _colours(ax)
        values = np.asarray(ax.images[0].get_array())
        hot = np.unravel_index(np.argmax(values), values.shape)
        cold = np.unravel_index(np.argmin(values), values.shape)
        assert not np.allclose(rgba[hot], rgba[cold])
        assert ax.images[0].norm.vmax == values.max()
    finally:
        plt.close(ax.figure)


@pytest.mark.parametrize("scale", ["sqrt", "log"])
def test_a_colour_scale_says_when_it_draws_values_below_its_bottom(scale):
    """sqrt draws negative noisy counts in the colour of 0, log draws 0 and below in the
    colour of its smallest positive value: the colour bar now extends and says so."""
    ax = _raw_map().plot(scale=scale)
    try:
        bar = ax.images[0].colorbar
        assert bar.extend == "min"
        bottom = ax.images[0].norm.vmin
        assert f"below {bottom:g} drawn as {bottom:g}" in bar.ax.get_ylabel()
    finally:
        plt.close(ax.figure)
    ax = _raw_map().plot()  # linear: every value has its own colour, nothing to say
    try:
        assert ax.images[0].colorbar.extend == "neither"
        assert "below" not in ax.images[0].colorbar.ax.get_ylabel()
    finally:
        plt.close(ax.figure)


def test_plot_heatmaps_gamma_says_its_scale_and_its_clipped_negatives():
    fig = dplot.plot_heatmaps([_raw_map(), _raw_map().nonnegative()], gamma=0.5)
    try:
        raw_bar, clean_bar = (ax.images[0].colorbar for ax in fig.axes if ax.images)
        assert "power scale, gamma 0.5" in raw_bar.ax.get_ylabel()
        assert raw_bar.extend == "min"
        assert "below 0 drawn as 0" in raw_bar.ax.get_ylabel()
        assert clean_bar.extend == "neither"
    finally:
        plt.close(fig)


def test_suppressed_cells_stay_blank_in_interval_maps_and_shared_scales():
    """plot_heatmap blanks suppressed cells; the interval map drew them (estimate and both
    ends of its interval), and plot_heatmaps let them set the shared colour scale."""
    hm = _raw_map().nonnegative().suppress(1)
    hidden = hm.as_grid(hm.flags["suppressed"]).filled(False)
    assert hidden.any()
    assert not hidden.all()
    fig = dplot.plot_interval_map(hm)
    try:
        for ax in fig.axes[:3]:
            shown = np.ma.getmaskarray(ax.images[0].get_array())
            assert shown[hidden].all()
        assert "suppressed" in fig._suptitle.get_text()
    finally:
        plt.close(fig)
    # the suppressed cells far below the others: they must not stretch the shared scale
    low = hm.replace(flags={}, estimate=np.where(hm.flags["suppressed"], -50.0, hm.estimate))
    flagged = low.suppress(1)
    fig = dplot.plot_heatmaps([flagged])
    try:
        assert fig.axes[0].images[0].norm.vmin >= 0
    finally:
        plt.close(fig)


def test_ends_given_with_a_scale_set_its_ends_and_clipped_tops_are_said():
    """scale="sqrt" with vmin= ended in matplotlib's "Passing a Normalize instance
    simultaneously with vmin/vmax is not supported"; a vmax below the largest value drew the
    hotspots in the top colour without a word."""
    hm = _raw_map().nonnegative()
    ax = hm.plot(scale="sqrt", vmin=0, vmax=1)
    try:
        norm, bar = ax.images[0].norm, ax.images[0].colorbar
        assert (type(norm).__name__, norm.vmin, norm.vmax) == ("PowerNorm", 0, 1)
        assert bar.extend == "max"
        assert bar.ax.get_ylabel() == "noisy site count per cell (sqrt scale); above 1 drawn as 1"
    finally:
        plt.close(ax.figure)
    ax = _raw_map().plot(vmin=-1, vmax=1)
    try:
        assert ax.images[0].colorbar.extend == "both"
    finally:
        plt.close(ax.figure)
