"""How an interval's level is written: never rounded up to 100%, numpy floats as they print."""

from __future__ import annotations

import json
import re

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pyogrio
import pytest
from shapely.geometry import box

from dpatlas.core.validation import check_level, percent
from dpatlas.plot import plot_interval_map
from dpatlas.spatial import Grid, heatmap
from dpatlas.spatial.products.record import read_heatmap

GRID = Grid.from_bounds((0, 0, 3_000, 2_000), cell_size=1_000, crs="EPSG:3035")


def _map():
    return heatmap((np.full(30, 500.0), np.full(30, 500.0)), GRID, epsilon=1.0, crs=3035, rng=0)


@pytest.mark.parametrize(
    ("level", "text"),
    [
        (0.5, "50%"),
        (0.95, "95%"),
        (0.975, "97.5%"),
        (0.995, "99.5%"),
        (0.999, "99.9%"),
        (0.9999, "99.99%"),
        (0.99999999, "99.999999%"),
        (0.9999999985, "99.99999985%"),
        (1 - 1e-9, "99.9999999%"),
    ],
)
def test_percent_has_the_digits_the_level_needs(level, text):
    assert percent(level) == text


@pytest.mark.parametrize("exponent", range(1, 10))
def test_percent_never_reads_100(exponent):
    level = 1 - 10.0**-exponent
    assert float(percent(level).removesuffix("%")) < 100


def test_percent_refuses_levels_no_interval_takes():
    with pytest.raises(ValueError, match="level must be at most 1 - 1e-9"):
        percent(1 - 1e-12)


def test_a_numpy_float_level_is_the_decimal_it_prints_as():
    assert check_level(np.float32(0.9)) == 0.9
    assert check_level(np.float64(0.95)) == 0.95
    assert check_level(0.8999999761581421) == 0.8999999761581421  # a Python float is kept


def test_describe_tooltip_and_plot_titles_do_not_round_up_to_100():
    hm = _map()
    text = hm.query(box(0, 0, 2_000, 2_000), level=0.995).describe()
    assert "with 99.5% probability" in text
    found = re.search(r'id="dpatlas-data">(.*?)</script>', hm.explore(level=0.999).html)
    assert found is not None
    labels = [label for _, label in json.loads(found.group(1))["fields"]]
    assert "99.9% interval" in labels
    fig = plot_interval_map(hm, level=0.996)
    titles = [ax.get_title() for ax in fig.axes[:3:2]]
    plt.close(fig)
    assert titles == [
        "lower end of 99.6% interval per cell",
        "upper end of 99.6% interval per cell",
    ]
    assert "100%" not in fig._suptitle.get_text()


def test_file_columns_and_sentence_keep_the_level_and_read_back(tmp_path):
    hm = _map()
    path = hm.to_file(tmp_path / "m.gpkg", level=0.9999999985)
    info = pyogrio.read_info(path, layer="cells")
    assert list(info["fields"])[4:6] == ["ci99_99999985_low", "ci99_99999985_high"]
    assert "at least 99.99999985%" in info["layer_metadata"]["interval"]
    back = read_heatmap(path)
    assert back.to_geodataframe(level=0.9999999985).columns[4] == "ci99_99999985_low"
    assert list(back.to_geodataframe(level=0.999).columns[4:6]) == ["ci99_9_low", "ci99_9_high"]


def test_a_float32_level_names_its_columns_as_written(tmp_path):
    path = _map().to_file(tmp_path / "m32.gpkg", level=np.float32(0.9))
    info = pyogrio.read_info(path, layer="cells")
    assert list(info["fields"])[4:6] == ["ci90_low", "ci90_high"]
    assert info["layer_metadata"]["interval_level"] == "0.9"


def test_a_fraction_level_is_read_as_its_value() -> None:
    from fractions import Fraction

    assert check_level(Fraction(9, 10)) == 0.9
    with pytest.raises(ValueError, match=r"got Fraction\(3, 2\)"):
        check_level(Fraction(3, 2))
