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
from dpatlas.spatial.products.denoise import empirical_bayes, posterior_medians

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


def test_suppress_names_a_threshold_beyond_the_float_range():
    with pytest.raises(ValueError, match="threshold must be finite, got an integer beyond"):
        _map().suppress(10**400)


def test_posterior_medians_take_a_numpy_scale():
    released = np.ones((1, 2), dtype=bool)
    values = np.array([1, 2])
    assert (
        posterior_medians(values, np.float32(1.0), released).tolist()
        == posterior_medians(values, 1.0, released).tolist()
    )
    with pytest.raises(ValueError, match=r"scale must be a finite number > 0, got np\.True_"):
        posterior_medians(values, np.bool_(True), released)


@pytest.mark.parametrize(
    ("option", "message"),
    [
        ({"groups": 0}, "groups must be an integer >= 1, got 0"),
        ({"window": 2}, r"window must be odd \(a box centred on the cell\), got 2; e.g. 3"),
    ],
)
def test_empirical_bayes_checks_its_options_on_small_maps_too(option, message):
    assert _map().grid.n_released < 256  # the map too small to fit a prior
    with pytest.raises(ValueError, match=message):
        empirical_bayes(_map(), **option)


def test_empirical_bayes_again_adds_no_step():
    hm = _map()
    assert hm.steps == ("nonnegative(integer)",)  # heatmap() applied it (a small map)
    assert empirical_bayes(hm) is hm
    raw = hm.replace(estimate=None, steps=())
    assert empirical_bayes(raw).steps == ("nonnegative(integer)",)


@pytest.mark.parametrize("name", ["count", "row", "col", "raw", "ci_covers", "ci95_low", "leaf"])
def test_a_flag_may_not_take_the_name_of_an_exported_column(name):
    hm = _map()
    with pytest.raises(ValueError, match=f"flag name '{name}' is the name of a column"):
        hm.replace(flags={name: np.zeros(GRID.n_released, dtype=bool)})


def test_flags_named_otherwise_are_exported_beside_the_columns():
    hm = _map().replace(flags={"counted": np.ones(GRID.n_released, dtype=bool)})
    gdf = hm.to_geodataframe()
    assert gdf["count"].tolist() == hm.estimate.tolist()
    assert gdf["counted"].all()
    with pytest.raises(TypeError, match="flag names must be strings, got 1"):
        hm.replace(flags={1: np.ones(GRID.n_released, dtype=bool)})
