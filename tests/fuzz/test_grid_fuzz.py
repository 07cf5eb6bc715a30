"""Fuzz the public grids: the grid constructors and the suggested cell size."""

from __future__ import annotations

import numpy as np
import shapely
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz._harness import BAD_NUMBERS, WEIRD_OBJECTS, run, twin
from tests.fuzz._spatial_inputs import CRS, GRID, HUGE_INTS, SPATIAL_NAMES

from dpatlas.spatial import DEFAULT_MAX_CELLS, Grid, suggest_cell_size

numbers_or_bad = st.one_of(
    st.floats(0.5, 5_000),
    st.sampled_from(BAD_NUMBERS + WEIRD_OBJECTS + HUGE_INTS + [1e-300, 5e-324, 1e300]),
)
crss = st.sampled_from([CRS, "EPSG:3035", "EPSG:4326", "EPSG:3857", None, "nonsense", 3035])


@twin(
    given(
        bounds=st.one_of(
            st.tuples(*[st.floats(-1e4, 1e4)] * 4),
            st.tuples(*[st.floats(allow_nan=True, allow_infinity=True)] * 4),
            st.sampled_from(
                [
                    (0, 0, 1000, 1000),
                    (0, 0, 0, 0),
                    (1000, 1000, 0, 0),
                    (0, 0, 10**400, 1000),
                    (0, 0, 1),
                    "box",
                    None,
                ]
            ),
        ),
        cell_size=numbers_or_bad,
        crs=crss,
        max_cells=st.sampled_from([100_000, 1, 0, -1, True, 2.5, 10**6]),
        as_polygon=st.booleans(),
    )
)
def _grid_body(bounds, cell_size, crs, max_cells, as_polygon):
    if as_polygon:
        try:
            polygon = shapely.box(*bounds)
        except Exception:  # not four numbers: pass the raw object as a polygon
            polygon = bounds
        g = run(
            lambda: Grid.from_polygon(polygon, cell_size=cell_size, crs=crs, max_cells=max_cells),
            names=SPATIAL_NAMES,
        )
    else:
        g = run(
            lambda: Grid.from_bounds(bounds, cell_size=cell_size, crs=crs, max_cells=max_cells),
            names=SPATIAL_NAMES,
        )
    if g is not None:
        assert 1 <= g.shape[0] * g.shape[1] <= max_cells


test_grid_constructors, test_grid_constructors_slow = _grid_body


@twin(
    given(
        extent=st.one_of(
            st.tuples(*[st.floats(allow_nan=True, allow_infinity=True)] * 4),
            st.sampled_from(
                [
                    (0, 0, 1000, 1000),
                    (1000, 1000, 0, 0),
                    (0, 0, 10**400, 1),
                    GRID,
                    shapely.box(0, 0, 10, 10),
                    shapely.Polygon(),
                    None,
                    "x",
                    (1, 2),
                ]
            ),
        ),
        epsilon=st.one_of(st.floats(0.01, 10), st.sampled_from(BAD_NUMBERS)),
        n_sites=st.one_of(
            st.floats(allow_nan=True, allow_infinity=True),
            st.integers(-5, 10**9),
            st.sampled_from([True, None, "5", 9e307, *HUGE_INTS]),
        ),
        c=st.one_of(st.floats(0.1, 100), st.sampled_from(BAD_NUMBERS + HUGE_INTS + [5e-324])),
        max_cells=st.sampled_from([DEFAULT_MAX_CELLS, 1, 100, 10**400, 0, 2.5, None]),
    )
)
def _suggest_body(extent, epsilon, n_sites, c, max_cells):
    size = run(
        lambda: suggest_cell_size(extent, epsilon, n_sites, c=c, max_cells=max_cells),
        names=SPATIAL_NAMES,
    )
    if size is not None:
        assert np.isfinite(size), size
        assert size > 0, size
        if isinstance(extent, tuple):  # usable: its grid has about the suggested cells
            width, height = (extent[2] - extent[0]) / size, (extent[3] - extent[1]) / size
            assert width * height / (1 + 1e-9) <= max(1, max_cells), (width, height)


test_suggest_cell_size, test_suggest_cell_size_slow = _suggest_body
