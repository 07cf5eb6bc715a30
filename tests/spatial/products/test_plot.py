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
