"""Bugs the fuzzers found in the cell-size rule (suggest_cell_size), now fixed: a regression test each."""

from __future__ import annotations

import math

import pytest

from dpatlas.spatial import suggest_cell_size


def test_suggest_cell_size_zero_c():
    with pytest.raises(ValueError, match="c must"):
        suggest_cell_size((0, 0, 1000, 1000), 1.0, 100, c=0)


def test_suggest_cell_size_nan_c():
    with pytest.raises(ValueError, match="c must"):
        suggest_cell_size((0, 0, 1000, 1000), 1.0, 100, c=math.nan)


def test_suggest_cell_size_infinite_n_sites():
    with pytest.raises(ValueError, match="n_sites"):
        suggest_cell_size((0, 0, 1000, 1000), 1.0, math.inf)


@pytest.mark.parametrize("epsilon", [1.0, 10.0])  # 9e307 * 10 overflows to inf
def test_suggest_cell_size_huge_n_sites_is_refused(epsilon):
    # was 0.0 (epsilon=10: sqrt(area / inf)) or 3.3e-151 m, a cell size no grid can use
    with pytest.raises(ValueError, match=r"suggested cells, more than max_cells=100,000,000") as e:
        suggest_cell_size((0, 0, 1000, 1000), epsilon, 9e307)
    assert "check n_sites (the number of sites, got 9e+307)" in str(e.value)


def test_suggest_cell_size_keeps_the_rule_up_to_max_cells():
    assert suggest_cell_size((0, 0, 1e5, 1e5), 1.0, 1e9) == pytest.approx(1e5 / 1e4)
    with pytest.raises(ValueError, match=r"= 1e\+08 suggested cells, more than max_cells=99;"):
        suggest_cell_size((0, 0, 1e5, 1e5), 1.0, 1e9, max_cells=99)
    tiny = suggest_cell_size((0, 0, 1000, 1000), 1.0, 9e307, max_cells=10**400)
    assert tiny == pytest.approx(1000 / math.sqrt(9e306))
    with pytest.raises(
        ValueError, match=r"= inf suggested cells, more than max_cells=1\.00e\+400;"
    ):
        suggest_cell_size((0, 0, 1000, 1000), 10.0, 9e307, max_cells=10**400)


@pytest.mark.parametrize(
    ("kwargs", "error", "match"),
    [
        ({"n_sites": 10**400}, ValueError, r"n_sites must be finite"),
        ({"n_sites": 100, "c": 10**400}, ValueError, r"c must be a finite number > 0"),
        ({"n_sites": 100, "c": "1"}, TypeError, r"c must be a finite number > 0 .* got '1'"),
        ({"n_sites": 100, "max_cells": 0}, ValueError, r"max_cells must be an int >= 1, got 0"),
        ({"n_sites": 100, "max_cells": 2.5}, TypeError, r"max_cells must be an int >= 1"),
    ],
)
def test_suggest_cell_size_bad_numbers(kwargs, error, match):
    # huge ints were OverflowError: int too large to convert to float
    with pytest.raises(error, match=match):
        suggest_cell_size((0, 0, 1000, 1000), 1.0, **kwargs)


@pytest.mark.parametrize(
    ("extent", "match"),
    [
        ((1000, 1000, 0, 0), r"extent must satisfy minx <= maxx and miny <= maxy"),  # was 1000.0
        ((0, 0, 10**400, 1), r"extent must have a finite area > 0, got inf"),  # OverflowError
    ],
)
def test_suggest_cell_size_bad_extent(extent, match):
    with pytest.raises(ValueError, match=match):
        suggest_cell_size(extent, 1.0, 100)
