"""Contribution bounding on Dask: a shuffle of (owner, key, row, cell) by owner (internal).

The in-memory rule (:func:`dpatlas.spatial.sites.bound_contributions`) draws one uniform key per
site, in row order, from a numpy Generator seeded with four words of the driver's source, and
keeps the ``k`` sites of each owner with the smallest ``(key, row)``. Here the driver draws the
same four words; each partition, knowing its first global row, advances a copy of that PCG64
stream to its offset (``PCG64.advance``: one 64-bit step per float64 draw), so every site gets
the very key it gets in memory. Rows are then hashed by owner into buckets (a shuffle: every
site of one owner lands in one bucket) and each bucket keeps the same sites as in memory, then
counts their cells. Keys never depend on locations; the ``-1`` cell (outside the grid rectangle)
still uses one of its owner's ``k`` places, exactly as in memory.

Owner ids are made canonical first (:func:`owner_ids`): files of one data set may store the id
column with different dtypes (int64 in one, float64 or float32 in another), and a hash of the raw
bits would send one owner's rows to several buckets, each keeping ``k`` of them. Equal ids, in
the sense of the in-memory ``pd.factorize`` (``7 == 7.0 == True``, but ``7 != "7"``), get one
representation and so one hash; so does one instant stored as dates of different units or
time zones.
"""

from __future__ import annotations

import datetime
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["bound_bucket", "owner_ids", "split_by_owner"]

_LOW, _HIGH = -(2**63), 2**63 - 1
_ATTOSECONDS = {
    "W": 7 * 86_400 * 10**18,
    "D": 86_400 * 10**18,
    "h": 3_600 * 10**18,
    "m": 60 * 10**18,
    "s": 10**18,
    "ms": 10**15,
    "us": 10**12,
    "ns": 10**9,
    "ps": 10**6,
    "fs": 10**3,
    "as": 1,
}


def _number(value: Any) -> Any:
    """The canonical id of one number: a Python int when whole, else a Python float."""
    value = float(value) if isinstance(value, (float, np.floating)) else int(value)
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def _canonical(value: Any, column: str) -> Any:
    if isinstance(value, (str, bytes)):
        return value
    if isinstance(value, (bool, int, float, np.bool_, np.integer, np.floating)):
        return _number(value)
    if isinstance(value, (datetime.date, np.datetime64)):
        stamp = pd.Timestamp(value)
        if stamp.tzinfo is not None:
            stamp = stamp.tz_convert("UTC").tz_localize(None)
        return _instants(np.array([stamp.to_datetime64()]))[0]
    raise TypeError(
        f"individual_column {column!r} holds an id of type {type(value).__name__} ({value!r}); "
        "with backend='dask' ids must be integers, floats, strings or dates: convert the "
        "column, e.g. astype(str)"
    )


def _texts(values: np.ndarray) -> bool:
    """Whether every value is a str (or every one bytes): the common case, kept as it is."""
    return pd.api.types.infer_dtype(values, skipna=False) in ("string", "bytes")


def _instants(values: np.ndarray) -> np.ndarray:
    """Dates and times as one text per instant, whatever the unit they were stored in.

    Files of one data set may store a date column at different units (Parquet writers use
    ns, us or ms); the same instant must hash alike in all of them. Ticks are scaled to
    attoseconds with Python ints (no overflow at any unit); the leading NUL and the tag keep
    them apart from the data's own strings.
    """
    unit, count = np.datetime_data(values.dtype)
    if unit in ("Y", "M"):  # calendar units: exact in days
        values = values.astype("datetime64[D]")
        unit, count = "D", 1
    step = _ATTOSECONDS[unit] * count
    out = np.empty(values.size, dtype=object)
    out[:] = [f"\0datetime:{t * step}" for t in values.view(np.int64).tolist()]
    return out


def owner_ids(owners: pd.Series, column: str) -> np.ndarray:
    """The owner ids of one partition in a canonical form, whatever the partition's dtype.

    Whole numbers within int64 (from any integer, float or bool dtype) become an int64
    array; otherwise an object array of Python ints (whole, beyond int64), floats and
    strings. Dates and times (any unit; with a time zone, as the UTC instant) become one
    text per instant. Other kinds (durations, ...) are refused, naming ``column``.
    ``owners`` has no missing values (checked before).
    """
    if isinstance(owners.dtype, pd.DatetimeTZDtype):
        owners = owners.dt.tz_convert("UTC").dt.tz_localize(None)
    values = np.asarray(owners.to_numpy())
    kind = values.dtype.kind
    if kind == "M":
        return _instants(values)
    if kind in "biu" and (kind != "u" or values.size == 0 or values.max() <= _HIGH):
        return values.astype(np.int64)
    if kind == "f":
        wide = values.astype(np.float64)
        whole = (wide >= _LOW) & (wide < 2.0**63) & (wide == np.trunc(wide))
        if whole.all():
            return wide.astype(np.int64)
    if kind not in "biufOSU":
        raise TypeError(
            f"individual_column {column!r} has dtype {owners.dtype}; with backend='dask' ids "
            "must be integers, floats, strings or dates: convert the column, e.g. astype(str)"
        )
    out = np.empty(values.size, dtype=object)
    if _texts(values):
        out[:] = values
        return out
    out[:] = [_canonical(v, column) for v in values.tolist()]
    small = np.array([type(v) is int and _LOW <= v <= _HIGH for v in out], dtype=bool)
    return out.astype(np.int64) if small.all() else out


def _hashes(owners: np.ndarray) -> np.ndarray:
    """One hash per canonical id; an int within int64 hashes alike in both array forms."""
    if owners.dtype != object or _texts(owners):
        return pd.util.hash_array(owners)
    small = np.array([type(v) is int and _LOW <= v <= _HIGH for v in owners], dtype=bool)
    out = np.empty(owners.size, dtype=np.uint64)
    out[small] = pd.util.hash_array(owners[small].astype(np.int64))
    out[~small] = pd.util.hash_array(owners[~small])
    return out


def split_by_owner(
    cells_owners: tuple[np.ndarray, np.ndarray], offset: int, seed: list[int], buckets: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Give every row its key and global row number; split the rows into ``buckets`` by owner.

    ``owners`` are canonical (:func:`owner_ids`), so one owner's rows meet in one bucket.
    """
    cells, owners = cells_owners
    stream = np.random.PCG64(seed)
    stream.advance(offset)
    keys = np.random.Generator(stream).random(cells.size)
    rows = np.arange(offset, offset + cells.size, dtype=np.int64)
    where = _hashes(owners) % np.uint64(buckets)
    order = np.argsort(where, kind="stable")
    cuts = np.searchsorted(where[order], np.arange(1, buckets, dtype=np.uint64))
    parts = np.split(order, cuts)
    return [(owners[p], keys[p], rows[p], cells[p]) for p in parts]


def bound_bucket(k: int, n_cells: int, *pieces: Any) -> np.ndarray:
    """Counts per cell of the at most ``k`` sites per owner with the smallest ``(key, row)``."""
    owners = np.concatenate([p[0] for p in pieces])
    keys = np.concatenate([p[1] for p in pieces])
    rows = np.concatenate([p[2] for p in pieces])
    cells = np.concatenate([p[3] for p in pieces])
    codes, _ = pd.factorize(owners, sort=False)
    order = np.lexsort((rows, keys, codes))
    grouped = codes[order]
    starts = np.flatnonzero(np.r_[True, grouped[1:] != grouped[:-1]]) if grouped.size else grouped
    sizes = np.diff(np.r_[starts, grouped.size])
    rank = np.arange(grouped.size) - np.repeat(starts, sizes)
    kept = cells[order[rank < k]]
    return np.bincount(kept[kept >= 0], minlength=n_cells)
