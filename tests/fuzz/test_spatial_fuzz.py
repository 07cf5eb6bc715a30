"""Fuzz the spatial adapter: every registered heatmap method, queries, post-processing (the
grids: ``test_grid_fuzz.py``)."""

from __future__ import annotations

import geopandas as gpd
import numpy as np
import pytest
import shapely
from hypothesis import given
from hypothesis import strategies as st
from tests.fuzz._harness import BAD_NUMBERS, WEIRD_OBJECTS, finite_values, run, twin
from tests.fuzz._spatial_inputs import CRS, GRID, SPATIAL_NAMES

from dpatlas import Budget
from dpatlas.spatial import METHODS, Heatmap, heatmap, nonnegative, suppress

coord = st.one_of(
    st.floats(-200, 1_200),
    st.sampled_from([0.0, 100.0, 500.0, 999.999, 1_000.0, -0.0, 1e-300, np.nextafter(1000, 0)]),
    st.sampled_from([float("nan"), float("inf"), 1e300]),
)


@st.composite
def sites(draw):
    pts = draw(st.lists(st.tuples(coord, coord), max_size=40))
    if pts and draw(st.booleans()):
        pts = pts + pts[: draw(st.integers(1, len(pts)))]  # duplicated points
    x = np.array([p[0] for p in pts], dtype=float)
    y = np.array([p[1] for p in pts], dtype=float)
    kind = draw(
        st.sampled_from(
            [
                "tuple",
                "gdf",
                "gdf_other_crs",
                "gdf_no_crs",
                "gdf_mixed_geom",
                "gdf_empty_geom",
                "weird",
                "array",
            ]
        )
    )
    if kind == "tuple":
        return (x, y)
    if kind == "array":
        return np.column_stack([x, y])
    if kind == "weird":
        return draw(st.sampled_from([*WEIRD_OBJECTS, (x,), (x, y[:0] if len(y) else y, x)]))
    geoms = list(shapely.points(x, y)) if len(x) else []
    if kind == "gdf_mixed_geom" and geoms:
        geoms[0] = shapely.box(0, 0, 10, 10)
    if kind == "gdf_empty_geom" and geoms:
        geoms[-1] = shapely.Point()
    crs = {"gdf_other_crs": "EPSG:3857", "gdf_no_crs": None}.get(kind, CRS)
    return gpd.GeoDataFrame(geometry=gpd.GeoSeries(geoms, crs=crs))


def _check_heatmap(hm: Heatmap, budget: Budget, before: int) -> None:
    assert isinstance(hm, Heatmap)
    finite_values(hm.release.value)
    finite_values(hm.counts)
    finite_values(hm.raw)
    assert len(budget.history) > before
    assert hm.release.seeded is True


@twin(
    given(
        data=sites(),
        method=st.sampled_from([*sorted(METHODS), "nope"]),
        epsilon=st.one_of(st.floats(0.01, 10), st.sampled_from([*BAD_NUMBERS, 1e-300, 1e300])),
        crs=st.sampled_from([CRS, None, "EPSG:3857", "EPSG:4326"]),
        k=st.sampled_from([1, 2, 0, -1, True, 1.5]),
        rng=st.integers(0, 2**32),
        post=st.sampled_from([None, 0.0, 3.0, -1.0, float("nan"), "x"]),
    )
)
def _heatmap_body(data, method, epsilon, crs, k, rng, post):
    budget = Budget(1e6)
    before = len(budget.history)
    call_crs = None if not isinstance(data, tuple | np.ndarray) else crs
    hm = run(
        lambda: heatmap(
            data,
            GRID,
            epsilon=epsilon,
            method=method,
            budget=budget,
            rng=rng,
            max_sites_per_individual=k,
            crs=call_crs,
        ),
        budget=budget,
        names=SPATIAL_NAMES,
    )
    if hm is None:
        return
    _check_heatmap(hm, budget, before)
    nn = run(lambda: nonnegative(hm, integer=bool(rng % 2)), names=("heatmap", "integer"))
    if nn is not None:
        finite_values(nn.counts)
        assert np.all(nn.counts.compressed() >= 0)
    if post is not None:
        sup = run(lambda: suppress(hm, post), names=("threshold",))
        if sup is not None:
            finite_values(sup.counts)
    region = st_region(rng)
    est = run(lambda: hm.query(region, level=0.9), names=("polygon", "level", "region"))
    if est is not None:
        for value in (est.estimate, est.ci_low, est.ci_high, est.variance):
            assert np.isfinite(value), est


def st_region(seed: int):
    """A query region from the seed: boxes inside, across and outside the grid, or bad input."""
    choices = [
        shapely.box(0, 0, 1_000, 1_000),
        shapely.box(150, 150, 420, 730),
        shapely.box(-500, -500, -100, -100),
        shapely.box(900, 900, 2_000, 2_000),
        shapely.Polygon(),
        shapely.Point(10, 10),
        shapely.LineString([(0, 0), (500, 500)]),
        (0, 0, 300, 300),
        None,
    ]
    return choices[seed % len(choices)]


test_heatmap_every_method, test_heatmap_every_method_slow = _heatmap_body


valid_coord = st.one_of(
    st.floats(-100, 1_100),
    st.sampled_from([0.0, 100.0, 999.999, 1_000.0, np.nextafter(1000, 0), 1e-300]),
)


@twin(
    given(
        pts=st.lists(st.tuples(valid_coord, valid_coord), max_size=60),
        dup=st.integers(0, 30),
        epsilon=st.floats(0.01, 20),
        k=st.integers(1, 3),
        rng=st.integers(0, 2**32),
    )
)
def _valid_heatmap_body(method, pts, dup, epsilon, k, rng):
    pts = pts + pts[:1] * dup  # one site repeated: many points in a single cell
    x = np.array([p[0] for p in pts], dtype=float)
    y = np.array([p[1] for p in pts], dtype=float)
    budget = Budget(100.0)
    hm = run(
        lambda: heatmap(
            (x, y),
            GRID,
            epsilon=epsilon,
            method=method,
            budget=budget,
            rng=rng,
            max_sites_per_individual=k,
            crs=CRS,
        ),
        budget=budget,
        names=SPATIAL_NAMES,
    )
    assert hm is not None, "valid sites were refused"
    _check_heatmap(hm, budget, 0)
    low, high = hm.confidence_interval(0.9)
    finite_values(low)
    finite_values(high)
    finite_values(nonnegative(hm).counts)
    est = hm.query(shapely.box(150, 150, 420, 730), level=0.9)
    for value in (est.estimate, est.ci_low, est.ci_high, est.variance):
        assert np.isfinite(value), est


each_method = pytest.mark.parametrize("method", sorted(METHODS))
test_heatmap_valid = each_method(_valid_heatmap_body[0])
test_heatmap_valid_slow = each_method(_valid_heatmap_body[1])
