"""The notebook figures of :mod:`dpatlas.plot`: inputs that drew a wrong picture, returned a
wrong path or ended in a traceback (hand fuzz of the notebook surface, session 19)."""

from __future__ import annotations

import warnings

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from dpatlas.plot import plot_heatmaps, plot_interval_map, plot_privacy_utility, save_figure
from dpatlas.spatial import Grid, heatmap

GRID = Grid.from_bounds((0, 0, 3_000, 2_000), cell_size=1_000, crs="EPSG:3035")


def _map():
    return heatmap((np.full(30, 500.0), np.full(30, 500.0)), GRID, epsilon=1.0, crs=3035, rng=0)


def test_a_utility_curve_is_drawn_in_order_of_epsilon():
    """Unsorted epsilons drew a zig-zag: the line went back from ε = 1 to ε = 0.1."""
    ax = plot_privacy_utility([1.0, 0.1, 0.5], {"ladder": [0.01, 0.3, 0.05]})
    try:
        x, y = ax.get_lines()[0].get_data()
        assert x.tolist() == [0.1, 0.5, 1.0]
        assert y.tolist() == [0.3, 0.05, 0.01]
    finally:
        plt.close(ax.figure)


@pytest.mark.parametrize(
    ("epsilons", "message"),
    [
        ([0.0, 1.0], r"epsilons must be > 0 \(a log axis\), got 0\.0 at position 0"),
        ([-1.0, 1.0], r"epsilons must be > 0 \(a log axis\), got -1\.0 at position 0"),
        ([float("nan"), 1.0], r"epsilons must be finite, got nan at index \(0,\)"),
        (1.0, r"epsilons must be a 1-D sequence of numbers, got shape \(\)"),
        ([[0.1, 1.0]], r"epsilons must be a 1-D sequence of numbers, got shape \(1, 2\)"),
        ([], r"epsilons must hold at least one epsilon, got none"),
    ],
)
def test_epsilons_a_log_axis_cannot_draw_are_refused(epsilons, message):
    """Before, ε <= 0 and NaN vanished from the log axis and the curve lost its points."""
    with pytest.raises(ValueError, match=message):
        plot_privacy_utility(epsilons, {"a": np.ones(np.size(epsilons))})


def test_utility_inputs_of_the_wrong_kind_get_one_line_errors():
    with pytest.raises(TypeError, match=r"errors must map a label to one error per epsilon"):
        plot_privacy_utility([0.1, 1.0], [("a", [1.0, 2.0])])
    with pytest.raises(TypeError, match=r"errors\['a'\] must be numbers, got \['x', 'y'\]"):
        plot_privacy_utility([0.1, 1.0], {"a": ["x", "y"]})
    ax = plot_privacy_utility((e for e in [0.1, 1.0]), {"a": (v for v in [2.0, 1.0])})
    try:
        assert ax.get_lines()[0].get_data()[0].tolist() == [0.1, 1.0]
    finally:
        plt.close(ax.figure)


def test_save_figure_returns_the_file_it_wrote(tmp_path):
    """Before, a path without a suffix was saved as "x.png" and "x" returned, and a folder
    was saved as "folder.png" beside it and the folder returned."""
    fig = plt.figure()
    with pytest.raises(ValueError, match=r"path must end in a figure format such as \.png"):
        save_figure(fig, tmp_path / "figure")
    with pytest.raises(ValueError, match=r"path .* is a folder; give a file path such as .*"):
        save_figure(fig, tmp_path)
    with pytest.raises(ValueError, match=r"folder .*missing does not exist; create it first"):
        save_figure(fig, tmp_path / "missing" / "figure.png")
    assert sorted(p.name for p in tmp_path.iterdir()) == []
    path = save_figure(fig, tmp_path / "figure.svg")
    assert path == tmp_path / "figure.svg"
    assert path.read_text().lstrip().startswith("<?xml")


def test_save_figure_takes_the_axes_the_plot_functions_return(tmp_path):
    ax = plot_privacy_utility([0.1, 1.0], {"a": [0.2, 0.02]})
    assert save_figure(ax, tmp_path / "curve.png").read_bytes()[:4] == b"\x89PNG"
    with pytest.raises(TypeError, match=r"fig must be a matplotlib Figure or Axes, got None"):
        save_figure(None, tmp_path / "none.png")


def test_plot_heatmaps_names_what_is_not_a_list_of_heatmaps():
    hm = _map()
    with pytest.raises(TypeError, match=r"heatmaps must be an iterable of Heatmap.*hm\.plot\(\)"):
        plot_heatmaps(hm)
    with pytest.raises(TypeError, match=r"heatmaps\[1\] must be a Heatmap, got Release"):
        plot_heatmaps([hm, hm.release])
    with pytest.raises(TypeError, match=r"titles must be a sequence of str, one per heatmap"):
        plot_heatmaps([hm, hm], titles="ab")


def test_an_interval_map_of_a_map_whose_every_cell_is_suppressed_is_blank():
    """Its colour scale was computed from no value: "converting a masked element to nan"
    and a scale from nan to nan."""
    hm = _map().suppress(10**6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = plot_interval_map(hm)
    try:
        assert all(np.ma.getmaskarray(ax.images[0].get_array()).all() for ax in fig.axes[:3])
    finally:
        plt.close(fig)
