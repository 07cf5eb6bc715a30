"""Inputs of the products that ended in a traceback, a misleading message or a silent mistake
(hand fuzz of the products after the release, F09), now fixed: a regression test each."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpatlas.plot import plot_heatmaps, plot_interval_map
from dpatlas.spatial import Grid, heatmap

GRID = Grid.from_bounds((0, 0, 3_000, 2_000), cell_size=1_000, crs="EPSG:3035")


def _map():
    return heatmap((np.full(30, 500.0), np.full(30, 500.0)), GRID, epsilon=1.0, crs=3035, rng=0)


def test_a_string_level_of_an_interval_map_gets_the_level_message():
    with pytest.raises(ValueError, match=r"level must be in \(0, 1\), got '0.9'; e.g. 0.95"):
        plot_interval_map(_map(), level="0.9")


@pytest.mark.parametrize("gamma", [0, -1, 0.0, float("nan"), float("inf"), "0.5", True])
def test_plot_heatmaps_refuses_a_gamma_not_above_zero(gamma):
    with pytest.raises(ValueError, match=rf"gamma must be a finite number > 0, got {gamma!r}"):
        plot_heatmaps([_map()], gamma=gamma)


def test_plot_heatmaps_takes_any_iterable_of_maps():
    maps = [_map(), _map()]
    fig = plot_heatmaps(hm for hm in maps)
    assert len(fig.axes) == 4  # two maps and their colour bars
    plt.close(fig)
