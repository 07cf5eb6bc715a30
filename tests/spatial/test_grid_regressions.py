"""Bugs the fuzzers found in grids, now fixed: a regression test each."""

from __future__ import annotations

import pytest

from dpatlas.spatial import Grid


def test_grid_tiny_cell_size_is_a_value_error():
    # was OverflowError: int too large to convert to float (nx * ny * 8 / 1e9 in the message)
    with pytest.raises(ValueError, match=r"1\.00e\+606 cells at cell_size=1e-300") as info:
        Grid.from_bounds((0, 0, 1000, 1000), cell_size=1e-300, crs="EPSG:3035")
    assert "more than max_cells=100,000,000" in str(info.value)
    assert "use a larger cell_size" in str(info.value)


@pytest.mark.parametrize(
    ("bounds", "cell_size", "match"),
    [
        ((0, 0, 10**400, 1), 1.0, r"bounds must be 4 finite numbers"),
        ((0, 0, 1, 1), 10**400, r"cell_size must be at most 1e\+09 m"),
        ((0, 0, 1, 1), -(10**400), r"cell_size must be a finite number of metres > 0"),
    ],
)
def test_grid_ints_beyond_float_range_are_value_errors(bounds, cell_size, match):
    # was OverflowError: int too large to convert to float
    with pytest.raises(ValueError, match=match):
        Grid.from_bounds(bounds, cell_size=cell_size, crs="EPSG:3035")
