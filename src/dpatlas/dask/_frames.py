"""Dask inputs: a dask (geo)DataFrame or a path / glob of Parquet files, as lazy partitions.

Files are always loaded by ``read_parquet`` on the workers: a large frame embedded in the task
graph (``from_pandas``) makes every task carry its data through the scheduler (far slower:
docs/dask.md), so in-memory frames are refused with the fix in the message.
"""

from __future__ import annotations

import os
from typing import Any

import dask.dataframe as dd
import dask_geopandas
import fsspec
import pyarrow.parquet as pq
from dask.delayed import Delayed

__all__ = ["check_pair", "frame_of", "partitions"]

_KINDS = (
    "a dask DataFrame, a dask_geopandas GeoDataFrame / GeoSeries, or a path or glob of "
    "Parquet / GeoParquet files"
)


def _first_file(path: str) -> tuple[Any, str]:
    """The file system of ``path`` (local, ``s3://``, ...) and its first Parquet file."""
    fs, root = fsspec.core.url_to_fs(path)
    found = sorted(fs.glob(f"{root.rstrip('/')}/**/*.parquet") if fs.isdir(root) else fs.glob(root))
    if not found:
        raise FileNotFoundError(
            f"no Parquet file matches {path!r}; give a file, a folder or a glob"
        )
    return fs, found[0]


def _is_geoparquet(path: str) -> bool:
    fs, first = _first_file(path)
    metadata = pq.read_schema(first, filesystem=fs).metadata or {}
    return b"geo" in metadata


def check_pair(names: Any, name: str, example: tuple[str, str]) -> tuple[str, str]:
    """``names`` as a pair of two distinct column names, or a clear refusal naming ``name``."""
    pair = isinstance(names, (tuple, list)) and len(names) == 2
    if not pair or not all(isinstance(c, str) for c in names) or names[0] == names[1]:
        raise ValueError(
            f"{name} must be a pair of two distinct column names, e.g. {name}={example!r}, "
            f"got {names!r}"
        )
    return names[0], names[1]


def frame_of(data: Any, what: str) -> dd.DataFrame | dd.Series:
    """``data`` as a lazy dask frame; paths are opened with ``read_parquet`` (GeoParquet aware)."""
    if isinstance(data, (str, os.PathLike)):
        path = os.fspath(data)
        reader = dask_geopandas.read_parquet if _is_geoparquet(path) else dd.read_parquet
        return reader(path)
    if isinstance(data, (dd.DataFrame, dd.Series)):
        return data
    hint = ""
    if hasattr(data, "to_parquet"):
        hint = (
            "; write it to Parquet (`frame.to_parquet(folder)`) and pass the folder, or use the "
            "in-memory backend"
        )
    raise TypeError(f"{what} must be {_KINDS} with backend='dask', got {type(data).__name__}{hint}")


def partitions(frame: dd.DataFrame | dd.Series, columns: list[str], what: str) -> list[Delayed]:
    """One lazy pandas / geopandas object per partition, holding only ``columns``."""
    if isinstance(frame, dd.Series):
        return list(frame.to_delayed())
    missing = [c for c in columns if c not in frame.columns]
    if missing:
        raise ValueError(
            f"{what} has no column(s) {missing}; its columns are {list(frame.columns)}"
        )
    return list(frame[columns].to_delayed())
