"""Dask heatmap counts equal the in-memory ones, cell for cell, and seeded releases match."""

from __future__ import annotations

import datetime
from pathlib import Path

import dask.dataframe as dd
import dask_geopandas
import geopandas as gpd
import numpy as np
import pandas as pd
import pytest
from shapely.geometry import Polygon

from dpatlas.core.rng import get_source
from dpatlas.dask import get_client, heatmap_counts, site_counts
from dpatlas.dask._bounding import owner_ids
from dpatlas.spatial import Grid, SiteAdjacency, bin_points, heatmap
from dpatlas.spatial.heatmap import site_counts as memory_site_counts
from dpatlas.spatial.methods import uniform

N = 100_000
FILES = 8
GRID = Grid.from_bounds((0, 0, 10_000, 10_000), cell_size=100, crs="EPSG:3035")


@pytest.fixture(scope="module")
def points() -> pd.DataFrame:
    gen = np.random.default_rng(0)
    x, y = gen.normal(5_000, 2_500, N), gen.normal(5_000, 2_500, N)
    x[:10] = np.arange(10) * 100.0  # on cell edges
    owners = gen.integers(0, N // 8, N).astype(str)
    return pd.DataFrame({"x": x, "y": y, "who": owners})


@pytest.fixture(scope="module")
def folder(points: pd.DataFrame, tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("points")
    for i, start in enumerate(range(0, N, N // FILES)):
        points.iloc[start : start + N // FILES].to_parquet(out / f"part{i}.parquet")
    return out


def test_plain_parquet_counts_equal_bin_points(points, folder, client) -> None:
    counts = heatmap_counts(folder, GRID, crs="EPSG:3035", client=client)
    assert counts.dtype == np.int64
    assert np.array_equal(counts, bin_points(GRID, points.x.to_numpy(), points.y.to_numpy()))


def test_masked_grid_released_counts_are_dense_and_equal(points, folder, client) -> None:
    area = Polygon([(0, 0), (30_000, 0), (0, 30_000)])  # far beyond the points
    grid = Grid.from_polygon(area, cell_size=250, crs="EPSG:3035")
    adj = SiteAdjacency()
    xy = (points.x.to_numpy(), points.y.to_numpy())
    memory = memory_site_counts(xy, grid, adj, get_source(0), crs="EPSG:3035")
    dask = site_counts(str(folder / "*.parquet"), grid, adj, get_source(0), client=client, crs=3035)
    assert dask.counts.shape == (grid.n_released,)  # every released cell, empty ones too
    assert np.array_equal(dask.counts, memory.counts)
    assert (dask.counts == 0).any()
    assert dask.sensitivity == memory.sensitivity == 1


def test_contribution_bounding_keeps_the_same_sites_as_in_memory(points, folder, client) -> None:
    adj = SiteAdjacency(max_sites_per_individual=2)
    xy = (points.x.to_numpy(), points.y.to_numpy())
    mem_src, dask_src = get_source(7), get_source(7)
    owners = points.who.to_numpy()
    memory = memory_site_counts(xy, GRID, adj, mem_src, crs="EPSG:3035", individual_column=owners)
    dask = site_counts(
        folder, GRID, adj, dask_src, crs="EPSG:3035", individual_column="who", client=client
    )
    assert np.array_equal(dask.counts, memory.counts)
    assert int(dask.counts.sum()) < int(bin_points(GRID, *xy).sum())  # bounding dropped sites
    assert dask.sensitivity == 2
    assert np.array_equal(dask_src.words(3), mem_src.words(3))  # same words consumed


def test_seeded_release_is_identical_between_backends(points, folder, client) -> None:
    adj = SiteAdjacency(max_sites_per_individual=3)
    xy = (points.x.to_numpy(), points.y.to_numpy())
    owners = points.who.to_numpy()
    releases = []
    for data_of in (
        lambda s: memory_site_counts(xy, GRID, adj, s, crs="EPSG:3035", individual_column=owners),
        lambda s: site_counts(folder, GRID, adj, s, crs="EPSG:3035", individual_column="who"),
    ):
        source = get_source(11)
        releases.append(uniform(data_of(source), GRID, epsilon=0.5, source=source, budget=None))
    memory, dask = releases
    assert np.array_equal(dask.value, memory.value)
    assert (dask.scale, dask.epsilon, dask.seeded) == (memory.scale, memory.epsilon, True)


def test_geoparquet_in_another_crs_and_dask_geopandas_frames(points, tmp_path, client) -> None:
    few = points.iloc[: N // 4]
    gdf = gpd.GeoDataFrame(few, geometry=gpd.points_from_xy(few.x, few.y), crs="EPSG:3035").to_crs(
        "EPSG:4326"
    )
    for i, start in enumerate(range(0, len(gdf), len(gdf) // 3 + 1)):
        gdf.iloc[start : start + len(gdf) // 3 + 1].to_parquet(tmp_path / f"p{i}.parquet")
    expected = memory_site_counts(gdf, GRID, SiteAdjacency(), get_source(0)).counts
    from_files = heatmap_counts(tmp_path, GRID, client=client).ravel()
    frame = dask_geopandas.read_parquet(tmp_path)
    from_frame = heatmap_counts(frame, GRID, client=client).ravel()
    assert np.array_equal(from_files, expected)
    assert np.array_equal(from_frame, expected)


def test_empty_partitions_and_custom_columns(points, folder, client) -> None:
    frame = dd.read_parquet(folder).rename(columns={"x": "east", "y": "north"})
    few = frame[frame.east > 9_990]  # most partitions empty after the filter
    counts = heatmap_counts(few, GRID, crs="EPSG:3035", xy=("east", "north"), client=client)
    kept = points[points.x > 9_990]
    assert np.array_equal(counts, bin_points(GRID, kept.x.to_numpy(), kept.y.to_numpy()))


def test_input_errors_name_the_fix(points, folder, client) -> None:
    with pytest.raises(TypeError, match=r"write it to Parquet"):
        heatmap_counts(points, GRID, crs="EPSG:3035", client=client)
    with pytest.raises(TypeError, match=r"grid must be a dpatlas\.spatial\.Grid"):
        heatmap_counts(folder, (0, 0, 1, 1), crs="EPSG:3035", client=client)
    with pytest.raises(TypeError, match="individual_column must be a column name"):
        heatmap_counts(folder, GRID, crs=3035, individual_column=np.arange(N), client=client)
    with pytest.raises(ValueError, match=r"no column\(s\) \['owner'\]"):
        heatmap_counts(folder, GRID, crs=3035, individual_column="owner", client=client)
    with pytest.raises(ValueError, match="sites have no CRS"):
        heatmap_counts(folder, GRID, client=client)
    with pytest.raises(FileNotFoundError, match="no Parquet file matches"):
        heatmap_counts(str(folder / "nothing*.parquet"), GRID, crs=3035, client=client)


def test_missing_owner_ids_are_refused(tmp_path, client) -> None:
    pd.DataFrame({"x": [1.0, 2.0], "y": [1.0, 2.0], "who": ["a", None]}).to_parquet(
        tmp_path / "p.parquet"
    )
    with pytest.raises(ValueError, match="individual_column has missing ids"):
        heatmap_counts(tmp_path, GRID, crs=3035, individual_column="who", client=client)


def test_client_none_uses_the_current_client(points, folder, client) -> None:
    assert get_client() is client
    counts = heatmap_counts(folder, GRID, crs="EPSG:3035")  # no client= given
    assert np.array_equal(counts, bin_points(GRID, points.x.to_numpy(), points.y.to_numpy()))


def test_an_owner_stored_with_other_dtypes_in_other_files_is_one_individual(
    tmp_path, client
) -> None:
    # The same 300 people in four files whose id columns have four dtypes: in memory the ids
    # are equal numbers (7 == 7.0), so each person keeps k sites in all, not k per bucket.
    people = np.arange(300)
    dtypes = ["int64", "float64", "float32", "Int64"]
    frames = []
    for i, dtype in enumerate(dtypes):
        frame = pd.DataFrame(
            {
                "x": 50.0 + 100.0 * ((people + 17 * i) % 100),
                "y": 50.0 + 100.0 * i,
                "who": pd.array(people, dtype=dtype),
            }
        )
        frame.to_parquet(tmp_path / f"p{i}.parquet")
        frames.append(frame)
    whole = pd.concat(frames, ignore_index=True)
    assert {str(dd.read_parquet(tmp_path / f"p{i}.parquet").who.dtype) for i in range(4)} == set(
        dtypes
    )
    adj = SiteAdjacency(max_sites_per_individual=2)
    xy = (whole.x.to_numpy(), whole.y.to_numpy())
    memory = memory_site_counts(
        xy, GRID, adj, get_source(3), crs=3035, individual_column=whole.who.to_numpy()
    )
    dask = site_counts(
        tmp_path, GRID, adj, get_source(3), crs=3035, individual_column="who", client=client
    )
    assert np.array_equal(dask.counts, memory.counts)
    assert int(dask.counts.sum()) == 2 * people.size  # k = 2 sites per person, in all
    hm = heatmap(
        tmp_path,
        GRID,
        epsilon=1.0,
        crs=3035,
        individual_column="who",
        max_sites_per_individual=2,
        backend="dask",
        rng=3,
    )
    assert hm.release.sensitivity == 2  # what each person now contributes at most


def test_an_owner_id_that_is_a_date_is_one_individual_across_files(tmp_path, client) -> None:
    # 200 people known by a date (e.g. a survey's visit) in three files written at three
    # units: each person keeps k sites in all, as in memory, not k per file's unit
    people = pd.Timestamp("2021-03-01") + pd.to_timedelta(np.arange(200), unit="h")
    frames = []
    for i, unit in enumerate(["ns", "us", "ms"]):
        frame = pd.DataFrame(
            {"x": 50.0 + 100.0 * (np.arange(200) % 10), "y": 50.0 + 100.0 * i, "who": people}
        )
        frame["who"] = frame["who"].dt.as_unit(unit)
        frame.to_parquet(tmp_path / f"p{i}.parquet")
        frames.append(frame)
    whole = pd.concat(frames, ignore_index=True)
    adj = SiteAdjacency(max_sites_per_individual=2)
    xy = (whole.x.to_numpy(), whole.y.to_numpy())
    memory = memory_site_counts(
        xy, GRID, adj, get_source(5), crs=3035, individual_column=whole.who.to_numpy()
    )
    dask = site_counts(
        tmp_path, GRID, adj, get_source(5), crs=3035, individual_column="who", client=client
    )
    assert np.array_equal(dask.counts, memory.counts)
    assert int(dask.counts.sum()) == 2 * 200


def test_owner_ids_are_canonical_whatever_the_dtype() -> None:
    same = [
        pd.Series([7, 2**40], dtype="int64"),
        pd.Series([7.0, 2.0**40]),
        pd.Series([7, 2**40], dtype="uint64"),
        pd.Series([7, 2**40], dtype="Int64"),
        pd.Series([7, 2**40], dtype="category"),
        pd.Series([7.0, 2**40], dtype=object),
    ]
    for owners in same:
        assert owner_ids(owners, "who").tolist() == [7, 2**40]
        assert owner_ids(owners, "who").dtype == np.int64
    assert owner_ids(pd.Series([True, False]), "who").tolist() == [1, 0]  # True == 1 in memory
    mixed = owner_ids(pd.Series([7.5, -0.0, np.float32(0.1)]), "who")
    assert mixed.tolist() == [7.5, 0, float(np.float32(0.1))]
    big = owner_ids(pd.Series([7, 2**63 + 5], dtype="uint64"), "who")
    assert big.tolist() == [7, 2**63 + 5]
    text = owner_ids(pd.Series(["7", 7], dtype=object), "who")
    assert text.tolist() == ["7", 7]  # "7" != 7, as in memory
    with pytest.raises(TypeError, match=r"individual_column 'who' has dtype timedelta64"):
        owner_ids(pd.Series(pd.to_timedelta(["1D"])), "who")


def test_dates_are_one_owner_whatever_their_unit_or_time_zone() -> None:
    # files of one data set store a date column at the unit of their writer (ns, us, ms)
    day, tick = "2020-01-01T00:00:00.000000000", "2020-01-01T00:00:00.000000001"
    stored = [
        pd.Series(pd.to_datetime([day, tick]).as_unit("ns")),
        pd.Series(pd.to_datetime([day, tick]).tz_localize("UTC").tz_convert("Europe/Paris")),
        pd.Series([pd.Timestamp(day), pd.Timestamp(tick)], dtype=object),
    ]
    ids = [owner_ids(owners, "who").tolist() for owners in stored]
    assert ids[1] == ids[0]
    assert ids[2] == ids[0]
    assert ids[0][0] != ids[0][1]  # one nanosecond apart: two owners
    units = [np.array(["2020-01-01"], f"datetime64[{u}]") for u in ("D", "s", "ms", "us")]
    assert {owner_ids(pd.Series(u), "who")[0] for u in units} == {ids[0][0]}
    assert owner_ids(pd.Series([datetime.date(2020, 1, 1)]), "who")[0] == ids[0][0]
    # beyond the range of nanoseconds (1677-2262), one day at every unit, and not another day
    far = [np.array(["3000-06-01"], f"datetime64[{u}]") for u in ("M", "D", "s", "us")]
    assert len({owner_ids(pd.Series(f), "who")[0] for f in far}) == 1
    assert owner_ids(pd.Series(far[0]), "who")[0] != owner_ids(pd.Series(units[0]), "who")[0]


def test_column_errors_are_clear_before_the_job(folder, client) -> None:
    pts = dd.from_pandas(pd.DataFrame({"x": [1.0, 2.0], "y": [1.0, 2.0], "who": [1, 2]}), 1)
    geo = dask_geopandas.from_geopandas(
        gpd.GeoDataFrame({"who": [1]}, geometry=gpd.points_from_xy([5.0], [5.0]), crs=3035), 1
    )
    pair = r"xy must be a pair of two distinct column names, e.g. xy=\('x', 'y'\), got"
    for xy in [("x",), "xy", ("x", "x"), ("x", 1)]:
        with pytest.raises(ValueError, match=pair):
            heatmap_counts(pts, GRID, crs=3035, xy=xy, client=client)
    with pytest.raises(ValueError, match=r"individual_column='x' is a coordinate column"):
        heatmap_counts(pts, GRID, crs=3035, individual_column="x", client=client)
    with pytest.raises(ValueError, match=r"a GeoSeries has no owner column; pass the GeoDataFrame"):
        heatmap_counts(geo.geometry, GRID, individual_column="who", client=client)
    with pytest.raises(TypeError, match=r"got a dask Series \('x'\); pass the frame"):
        heatmap_counts(pts.x, GRID, crs=3035, client=client)
    words = dd.from_pandas(pd.DataFrame({"x": ["a"], "y": [1.0]}), npartitions=1)
    with pytest.raises(TypeError, match=r"site coordinates must be numbers, column 'x' has dtype"):
        heatmap_counts(words, GRID, crs=3035, client=client)
